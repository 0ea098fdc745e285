// Ends the process when a run outlives its host-time limit (--timeout): a schedule or workload
// whose work is finite but far too long to wait for (a 10^9-row DMA) stops with exit 2 and one
// error line instead of hanging. Programs have a finer check of their own (ProgramStream), which
// names the pc they reached. At a terminal a long run also says, every 30 s, that it is still going.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tessim {

class HostTimeWatchdog {
public:
    // `seconds` ≤ 0: no limit. `what` names the run in the messages. `progressEvery` > 0: a line
    // on stderr every that many seconds while the run goes on (no thread when neither applies).
    HostTimeWatchdog(double seconds, std::string what, double progressEvery = 0.0);
    // Every 30 s when stderr is a terminal, else never (logs and tests stay as they were).
    static double progressInterval();
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
