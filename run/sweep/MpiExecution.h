// Sweeps across machines with MPI (mpirun, or Slurm's srun): rank 0 hands out point indices on
// request and collects the rows; every other rank runs points as local processes, `jobs` at a
// time. All ranks read the same sweep file, so only indices and finished rows travel.
#pragma once

#include <vector>

#include "run/sweep/LocalExecution.h"

namespace tessim::sweep {

/// Whether this binary was built with MPI (CMake found it).
bool mpiBuilt();

/// MPI_Init on construction, MPI_Finalize on destruction. Throws std::runtime_error when the
/// binary has no MPI support.
class MpiSession {
public:
    MpiSession();
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    /// Rank 0's `value`, on every rank.
    int broadcast(int value) const;

private:
    int rank_ = 0;
    int size_ = 1;
};

/// Rank 0: hands out `pending` (indices into the point list) until none is left and every
/// worker has reported; false when `tick` stopped it.
bool coordinateMpiPoints(const MpiSession& mpi, const std::vector<size_t>& pending, const RowSink& sink,
                         const Tick& tick);

/// Ranks 1..n-1: run points until rank 0 has none left; `keepGoing` false kills and leaves.
void runMpiWorker(const MpiSession& mpi, const SweepSpec& spec, const std::vector<Point>& points,
                  const ExecutionSettings& settings, const Tick& keepGoing);

}  // namespace tessim::sweep
