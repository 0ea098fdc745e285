#include "run/pipeline/HostTimeWatchdog.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace tessim {

HostTimeWatchdog::HostTimeWatchdog(double seconds, std::string what, double progressEvery) {
    const bool limited = seconds > 0;
    const bool progress = progressEvery > 0;
    if (!limited && !progress)
        return;
    thread_ = std::thread([this, seconds, limited, progress, progressEvery, what = std::move(what)] {
        using Clock = std::chrono::steady_clock;
        const auto start = Clock::now();
        const auto limit = start + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(limited ? seconds : 1e9));
        auto nextProgress = start + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(progress ? progressEvery : 1e9));
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            if (ended_.wait_until(lock, std::min(limit, nextProgress), [this] { return done_; }))
                return;
            const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
            if (Clock::now() >= limit) {
                // The simulation thread is somewhere inside the kernel and cannot be unwound from
                // here; nothing has been written to stdout yet (the report comes after the run), so
                // end now.
                const std::string message =
                    fmt::format("<command line>: error: --timeout: {} ran longer than {} s of host time; "
                                "it was stopped (no report)\n",
                                what, seconds);
                std::fputs(message.c_str(), stderr);
                std::fflush(stderr);
                std::_Exit(2);
            }
            // A long run at a terminal says that it is alive and how to bound it.
            const std::string line =
                limited ? fmt::format(
                              "tessim: {} is still running after {:.0f} s of host time (stopped at {} s by "
                              "--timeout)\n",
                              what, elapsed, seconds)
                        : fmt::format(
                              "tessim: {} is still running after {:.0f} s of host time (--timeout SECONDS "
                              "stops a run)\n",
                              what, elapsed);
            std::fputs(line.c_str(), stderr);
            std::fflush(stderr);
            nextProgress +=
                std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(progressEvery));
        }
    });
}

double HostTimeWatchdog::progressInterval() {
    return ::isatty(STDERR_FILENO) ? 30.0 : 0.0;
}

HostTimeWatchdog::~HostTimeWatchdog() {
    if (!thread_.joinable())
        return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
    }
    ended_.notify_one();
    thread_.join();
}

}  // namespace tessim
