// A RISC-V program as a workload (`tessim run --target k1 --program FILE -- ARGS`): the program
// runs functionally on a hart in Linux user mode, and each instruction it retires becomes one
// op on the target's main core, timed by the engine like any generated kernel's op.
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
    std::uint64_t maxCycles = 0;         // 0: no limit (main-clock cycles)
    double timeoutSeconds = 0;           // 0: no limit (host wall-clock seconds)
    bool stdoutToStderr = false;         // the program's stdout goes to tessim's stderr
};

// Loads the ELF (riscv::ProgramError when it cannot be run) and places the program on the
// target's main compute engine. Needs a target whose main engine is a core with scalar
// registers and a memory (k1).
std::unique_ptr<Workload> makeProgramWorkload(const ProgramRequest& request, const TargetInfo& target);

}  // namespace tessim
