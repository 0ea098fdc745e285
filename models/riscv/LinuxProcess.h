// Linux user mode for one static RV64 program: its address space laid out as the kernel's ELF
// loader does (segments, program break, a stack with argv, envp and the auxiliary vector), and
// the system calls static glibc makes. Input files are read from under the working directory
// only; output goes to the host's stdout and stderr as the program writes it. Time and random
// numbers come from the simulation, so a run is deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/riscv/ElfProgram.h"
#include "models/riscv/GuestMemory.h"
#include "models/riscv/RiscvHart.h"

namespace tessim::riscv {

// A system call the model does not provide: the run stops, naming it.
struct UnsupportedSystemCall {
    std::uint64_t number;
    std::uint64_t pc;
};

class LinuxProcess : public SystemCallHandler {
public:
    // Loads the program and builds its initial stack; `arguments` are argv[1…] (argv[0] is the
    // program's path). `environment`: "NAME=value" strings.
    // `memoryBytes`: what the target's memory holds (the most the program may map and touch);
    // ProgramError when its segments and stack do not fit.
    LinuxProcess(const ElfProgram& program, std::vector<std::string> arguments,
                 std::vector<std::string> environment, std::uint64_t memoryBytes);

    Hart& hart() { return hart_; }
    GuestMemory& memory() { return memory_; }
    const GuestMemory& memory() const { return memory_; }
    // Simulated time, for clock_gettime and the time CSR (nanoseconds since the run began).
    void setClock(std::function<std::uint64_t()> nanoseconds) { nanoseconds_ = std::move(nanoseconds); }
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
    std::uint64_t buildStack(const std::vector<std::string>& argv, const std::vector<std::string>& envp);
    std::int64_t openAt(std::int64_t dirfd, std::uint64_t path, std::int64_t flags);
    std::int64_t writeTo(int fd, std::uint64_t buffer, std::uint64_t bytes);
    std::int64_t statOf(int hostFd, std::uint64_t buffer);
    std::int64_t mmap(std::uint64_t address, std::uint64_t bytes, std::int64_t protection, std::int64_t flags,
                      std::int64_t fd);

    const ElfProgram& program_;
    GuestMemory memory_;
    Hart hart_;
    std::uint64_t brkStart_ = 0, brk_ = 0;
    std::map<int, int> files_;  // guest fd → host fd (opened input files)
    int nextFd_ = 3;
    std::uint64_t random_ = 0x243f6a8885a308d3ull;  // getrandom's state (seeded: deterministic)
    std::function<std::uint64_t()> nanoseconds_;
    bool exited_ = false;
    int exitStatus_ = 0;
    std::uint64_t systemCalls_ = 0;
    std::uint64_t bytesWritten_ = 0;
};

}  // namespace tessim::riscv
