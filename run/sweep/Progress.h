// Sweep progress on stderr: a redrawn bar (done / failed / running / ETA) on a terminal, a plain
// line every few seconds otherwise (logs, CI, Slurm output files).
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>

#include "run/sweep/ResultRow.h"

namespace tessim::sweep {

class Progress {
public:
    /// `total` points, of which `alreadyDone` come from an earlier run (not counted for the ETA).
    Progress(std::ostream& out, bool terminal, size_t total, size_t alreadyDone,
             double lineIntervalSeconds = 5.0);

    void pointFinished(PointStatus status);
    /// Redraws when due; call it often, it is cheap.
    void tick(size_t running);
    /// The last state, then a newline on a terminal.
    void finish();

private:
    void draw(size_t running);
    double elapsed() const;

    using Clock = std::chrono::steady_clock;
    std::ostream& out_;
    bool terminal_;
    size_t total_;
    size_t earlier_;
    size_t done_ = 0;
    size_t failed_ = 0;
    size_t running_ = 0;
    double interval_;
    Clock::time_point start_ = Clock::now();
    Clock::time_point lastDraw_{};
    bool drawn_ = false;
};

/// "42 s", "3m07s", "1h02m".
std::string formatEta(double seconds);

}  // namespace tessim::sweep
