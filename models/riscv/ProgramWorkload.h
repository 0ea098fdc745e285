// A RISC-V program as a workload (`tessim run --target k1 --program FILE -- ARGS`): the program
// runs functionally in Linux user mode, each thread on a hart of its own, and each instruction a
// thread retires becomes one op on its core, timed by the engine like any generated kernel's op.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

struct ProgramRequest {
    std::string path;
    std::vector<std::string> arguments;  // argv[1…]
    std::string name;                    // argv[0] (qemu-riscv64's -0); empty: the path
    std::uint64_t maxCycles = 0;         // 0: no limit (main-clock cycles)
    double timeoutSeconds = 0;           // 0: no limit (host wall-clock seconds)
    bool stdoutToStderr = false;         // the program's stdout goes to tessim's stderr
    // The cores its threads run on, by engine name (thread placement takes the first that holds
    // none; the main thread the first); empty: the main engine, then every other engine
    // declared under its key (k1: core0…core7).
    std::vector<std::string> cores;
};

// Loads the ELF (riscv::ProgramError when it cannot be run) and places the main thread on the
// first of its cores. Needs cores with scalar and vector registers and a memory (k1).
std::unique_ptr<Workload> makeProgramWorkload(const ProgramRequest& request, const TargetInfo& target);

}  // namespace tessim
