// Linux user mode for one static RV64 program: its address space laid out as the kernel's ELF
// loader does (segments, program break, a stack with argv, envp and the auxiliary vector), and
// the system calls static glibc makes. Input files are read from under the working directory
// only; output goes to the host's stdout and stderr as the program writes it. Time and random
// numbers come from the simulation, so a run is deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/riscv/ElfProgram.h"
#include "models/riscv/GuestMemory.h"
#include "models/riscv/RiscvHart.h"

namespace tessim::riscv {

// A system call the model does not provide, or provides only in part (`what` it asked for: a
// futex operation, a clone that is not a thread): the run stops, naming it.
struct UnsupportedSystemCall {
    std::uint64_t number;
    std::uint64_t pc;
    std::string what = {};
};

// One thread of the process: its hart and what the kernel keeps for it. Threads are numbered in
// the order they start (0: the main thread); the run places thread n on its n-th core.
struct GuestThread {
    enum class State { Runnable, Waiting, Exited };
    unsigned index = 0;
    std::uint64_t tid = 0;
    std::unique_ptr<Hart> hart;
    State state = State::Runnable;
    std::uint64_t clearChildTid = 0;  // set_tid_address / CLONE_CHILD_CLEARTID: zeroed and woken at exit
    // A futex wait: the word, its bitset, the pc of the call; `waits` counts the waits so far
    // (the timing model ends its n-th wait with the n-th wake).
    std::uint64_t futex = 0, waitPc = 0;
    std::uint32_t futexMask = 0;
    std::uint64_t waits = 0;
    // What its last system call did to other threads, for the timing model: the threads it woke
    // and the ones it started.
    std::vector<unsigned> woke, started;
};

class LinuxProcess : public SystemCallHandler {
public:
    // Loads the program and builds its initial stack; `arguments` are argv[1…]; argv[0] is
    // `argv0`, or the program's path when that is empty. `environment`: "NAME=value" strings.
    // `memoryBytes`: what the target's memory holds (the most the program may map and touch);
    // ProgramError when its segments and stack do not fit.
    LinuxProcess(const ElfProgram& program, std::vector<std::string> arguments,
                 std::vector<std::string> environment, std::uint64_t memoryBytes,
                 const std::string& argv0 = {});

    // The main thread's hart.
    Hart& hart() { return *threads_[0]->hart; }
    const Hart& hart() const { return *threads_[0]->hart; }
    // Threads in the order they started; at most `maxThreads` may run at once (the cores the run
    // gives the program; sched_getaffinity answers with as many CPUs).
    std::size_t threadCount() const { return threads_.size(); }
    GuestThread& thread(std::size_t index) { return *threads_[index]; }
    const GuestThread& thread(std::size_t index) const { return *threads_[index]; }
    void setMaxThreads(unsigned n) { maxThreads_ = n; }
    unsigned maxThreads() const { return maxThreads_; }
    // Threads that may run (not waiting, not exited).
    std::size_t runnableThreads() const;
    // LR/SC: another thread ran since `thread` last did, so its reservation may have been broken.
    void switchTo(GuestThread& thread);
    GuestMemory& memory() { return memory_; }
    const GuestMemory& memory() const { return memory_; }
    // Simulated time, for clock_gettime (nanoseconds since the run began, on the calling thread's
    // core: each core has its own local time).
    void setClock(std::function<std::uint64_t(unsigned thread)> nanoseconds) {
        nanoseconds_ = std::move(nanoseconds);
    }
    // The host file descriptor the program's stdout is written to (1 unless a command keeps its
    // own stdout, as validate does for its JSON).
    void setStdoutFd(int hostFd) { stdoutFd_ = hostFd; }

    bool exited() const { return exited_; }
    int exitStatus() const { return exitStatus_; }
    std::uint64_t systemCalls() const { return systemCalls_; }
    std::uint64_t bytesWritten() const { return bytesWritten_; }

    void systemCall(Hart& hart) override;

    // The address-space layout (as Linux places a 64-bit RISC-V process with an 8 MiB stack).
    static constexpr std::uint64_t kStackTop = 0x3ffffff000ull;
    static constexpr std::uint64_t kStackBytes = 8ull << 20;
    static constexpr std::uint64_t kMmapBase = 0x2000000000ull;

private:
    int stdoutFd_ = 1;
    GuestThread& caller(const Hart& hart);
    // LinuxThreads.cpp: clone, futex, a thread's exit.
    std::int64_t clone(GuestThread& parent, std::uint64_t flags, std::uint64_t stack, std::uint64_t parentTid,
                       std::uint64_t tls, std::uint64_t childTid);
    std::int64_t futex(GuestThread& self, std::uint64_t address, std::uint64_t op, std::uint64_t value,
                       std::uint64_t timeout, std::uint64_t bitset);
    std::int64_t wake(GuestThread& self, std::uint64_t address, std::uint64_t count, std::uint32_t bitset);
    void exitThread(GuestThread& self, int status);
    std::int64_t affinity(std::uint64_t bytes, std::uint64_t mask);
    std::uint64_t buildStack(const std::vector<std::string>& argv, const std::vector<std::string>& envp);
    std::int64_t openAt(std::int64_t dirfd, std::uint64_t path, std::int64_t flags);
    std::int64_t writeTo(int fd, std::uint64_t buffer, std::uint64_t bytes);
    std::int64_t statOf(int hostFd, std::uint64_t buffer);
    std::int64_t mmap(std::uint64_t address, std::uint64_t bytes, std::int64_t protection, std::int64_t flags,
                      std::int64_t fd);

    const ElfProgram& program_;
    GuestMemory memory_;
    std::vector<std::unique_ptr<GuestThread>> threads_;
    unsigned maxThreads_ = 1;
    const GuestThread* lastRan_ = nullptr;
    std::vector<unsigned> futexQueue_;  // waiting threads, in the order they began to wait
    std::uint64_t brkStart_ = 0, brk_ = 0;
    std::map<int, int> files_;  // guest fd → host fd (opened input files)
    int nextFd_ = 3;
    std::uint64_t random_ = 0x243f6a8885a308d3ull;  // getrandom's state (seeded: deterministic)
    std::function<std::uint64_t(unsigned)> nanoseconds_;
    bool exited_ = false;
    int exitStatus_ = 0;
    std::uint64_t systemCalls_ = 0;
    std::uint64_t bytesWritten_ = 0;
};

}  // namespace tessim::riscv
