// Runs commands as child processes, a fixed number at a time, each in its own process group with
// its stdout and stderr captured in memory files; kills a group that outlives the timeout, and
// every child when the pool (or its owner, even by kill -9) goes away.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tessim::sweep {

struct ProcessResult {
    int exitCode = -1;  // when the process exited
    int signal = 0;     // when a signal ended it
    bool timedOut = false;
    std::string startError;  // the command could not be started
    std::string out;
    std::string err;
    double seconds = 0.0;
};

class ProcessPool {
public:
    /// `timeoutSeconds` <= 0: no timeout. `extraEnvironment` entries ("NAME=value") are added
    /// to (or replace in) the inherited environment.
    ProcessPool(size_t slots, double timeoutSeconds, std::vector<std::string> extraEnvironment = {});
    ~ProcessPool();
    ProcessPool(const ProcessPool&) = delete;
    ProcessPool& operator=(const ProcessPool&) = delete;

    size_t slots() const { return slots_; }
    size_t running() const { return children_.size(); }
    bool full() const { return children_.size() >= slots_; }

    /// Starts argv (argv[0] is looked up in PATH when it has no '/'); `tag` comes back with the
    /// result. A command that cannot start finishes at once with startError set.
    void start(size_t tag, const std::vector<std::string>& argv);

    struct Finished {
        size_t tag;
        ProcessResult result;
    };
    /// Waits until at least one child has finished or `maxSeconds` passed; returns the finished.
    std::vector<Finished> wait(double maxSeconds);

    /// Kills every running child (SIGKILL to its group) and reaps it.
    void killAll();

private:
    struct Child;
    bool reap(Child& child, bool block);
    Finished collect(Child& child);

    size_t slots_;
    double timeout_;
    std::vector<std::string> environment_;
    std::vector<Child*> children_;
    std::vector<Finished> failedStarts_;
};

/// One command run to its end through a one-slot pool (no shell: argv as given), stdout and
/// stderr apart: every child process of tessim (sweep points, reproductions, DSE, tn, bench) is
/// started by a ProcessPool.
ProcessResult runProcess(const std::vector<std::string>& argv, double timeoutSeconds = 0.0);

/// Cores this process may run on (sched_getaffinity), at least 1.
size_t availableCores();

}  // namespace tessim::sweep
