#include "run/pipeline/HostTimeWatchdog.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace tessim {

HostTimeWatchdog::HostTimeWatchdog(double seconds, std::string what) {
    if (!(seconds > 0))
        return;
    thread_ = std::thread([this, seconds, what = std::move(what)] {
        std::unique_lock<std::mutex> lock(mutex_);
        const auto limit = std::chrono::duration<double>(seconds);
        if (ended_.wait_for(lock, limit, [this] { return done_; }))
            return;
        // The simulation thread is somewhere inside the kernel and cannot be unwound from here;
        // nothing has been written to stdout yet (the report comes after the run), so end now.
        const std::string message =
            fmt::format("<command line>: error: --timeout: {} ran longer than {} s of host time; "
                        "it was stopped (no report)\n",
                        what, seconds);
        std::fputs(message.c_str(), stderr);
        std::fflush(stderr);
        std::_Exit(2);
    });
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
