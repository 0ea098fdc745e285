// Ends the process when a run outlives its host-time limit (--timeout): a schedule or workload
// whose work is finite but far too long to wait for (a 10^9-row DMA) stops with exit 2 and one
// error line instead of hanging. Programs have a finer check of their own (ProgramStream), which
// names the pc they reached.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tessim {

class HostTimeWatchdog {
public:
    // `seconds` ≤ 0: no limit (no thread). `what` names the run in the message.
    HostTimeWatchdog(double seconds, std::string what);
    ~HostTimeWatchdog();  // the run ended in time: the watchdog stands down
    HostTimeWatchdog(const HostTimeWatchdog&) = delete;
    HostTimeWatchdog& operator=(const HostTimeWatchdog&) = delete;

private:
    std::mutex mutex_;
    std::condition_variable ended_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace tessim
