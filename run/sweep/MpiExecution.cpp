#include "run/sweep/MpiExecution.h"

#include <stdexcept>

#ifdef TESSIM_HAVE_MPI
// The C API only: Open MPI's deprecated C++ bindings need a library we do not link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <thread>

#include "run/sweep/PointRun.h"
#include "run/sweep/ProcessPool.h"
#endif

namespace tessim::sweep {

#ifdef TESSIM_HAVE_MPI
namespace {

enum Tag : int { kRequest = 1, kAssign = 2, kResult = 3, kDone = 4 };
constexpr int64_t kNoMorePoints = -1;

}  // namespace

bool mpiBuilt() {
    return true;
}

MpiSession::MpiSession() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
}

int MpiSession::broadcast(int value) const {
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value;
}

bool coordinateMpiPoints(const MpiSession& mpi, const std::vector<size_t>& pending, const RowSink& sink,
                         const Tick& tick) {
    size_t next = 0;
    int working = mpi.size() - 1;
    size_t outstanding = 0;  // handed out, no row yet
    bool stopped = false;
    while (working > 0) {
        if (!stopped && !tick(outstanding))
            stopped = true;
        int flag = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
        if (!flag) {
            // Blocking receives spin in Open MPI; sleeping leaves the cores to the points.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        int source = status.MPI_SOURCE;
        if (status.MPI_TAG == kRequest) {
            int slots = 0;
            MPI_Recv(&slots, 1, MPI_INT, source, kRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int64_t index = kNoMorePoints;
            if (!stopped && next < pending.size()) {
                index = static_cast<int64_t>(pending[next++]);
                ++outstanding;
            }
            MPI_Send(&index, 1, MPI_INT64_T, source, kAssign, MPI_COMM_WORLD);
        } else if (status.MPI_TAG == kResult) {
            int length = 0;
            MPI_Get_count(&status, MPI_CHAR, &length);
            std::string line(static_cast<size_t>(length), '\0');
            MPI_Recv(line.data(), length, MPI_CHAR, source, kResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (outstanding > 0)
                --outstanding;
            if (auto row = parseJsonLine(line)) {
                if (!stopped)
                    sink(*row);
            } else {
                std::cerr << "warning: rank " << source << " sent an unreadable row\n";
            }
        } else {
            MPI_Recv(nullptr, 0, MPI_CHAR, source, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (status.MPI_TAG == kDone)
                --working;
        }
    }
    if (!stopped)
        tick(0);
    return !stopped;
}

void runMpiWorker(const MpiSession& mpi, const SweepSpec& spec, const std::vector<Point>& points,
                  const ExecutionSettings& settings, const Tick& keepGoing) {
    ProcessPool pool(settings.jobs, settings.timeoutSeconds, pointEnvironment());
    bool more = true;
    while (more || pool.running() > 0) {
        if (!keepGoing(pool.running())) {
            pool.killAll();
            // Drain: tell rank 0 we take nothing more.
            more = false;
            break;
        }
        while (more && !pool.full()) {
            int slots = 1;
            MPI_Send(&slots, 1, MPI_INT, 0, kRequest, MPI_COMM_WORLD);
            int64_t index = kNoMorePoints;
            MPI_Recv(&index, 1, MPI_INT64_T, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (index < 0 || static_cast<size_t>(index) >= points.size()) {
                more = false;
            } else {
                auto i = static_cast<size_t>(index);
                pool.start(i, pointCommand(spec, points[i], settings.command));
            }
        }
        for (auto& finished : pool.wait(0.2)) {
            ResultRow row = pointResult(spec, points[finished.tag], finished.result, settings.timeoutSeconds);
            std::string line = jsonLine(row);
            MPI_Send(line.data(), static_cast<int>(line.size()), MPI_CHAR, 0, kResult, MPI_COMM_WORLD);
        }
    }
    MPI_Send(nullptr, 0, MPI_CHAR, 0, kDone, MPI_COMM_WORLD);
    (void)mpi;
}

#else  // no MPI in this build

bool mpiBuilt() {
    return false;
}

MpiSession::MpiSession() {
    throw std::runtime_error("--mpi: this tessim was built without MPI (CMake found none); install an MPI "
                             "(apt-get install libopenmpi-dev openmpi-bin) and rebuild");
}

MpiSession::~MpiSession() = default;

int MpiSession::broadcast(int value) const {
    return value;
}

bool coordinateMpiPoints(const MpiSession&, const std::vector<size_t>&, const RowSink&, const Tick&) {
    return false;
}

void runMpiWorker(const MpiSession&, const SweepSpec&, const std::vector<Point>&, const ExecutionSettings&,
                  const Tick&) {}

#endif

}  // namespace tessim::sweep
