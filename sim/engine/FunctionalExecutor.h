// The values of a run, apart from its timing: an engine's register file and the semantics of
// each op (the op table's, sim/ir/OpSemantics.h). The engine builds one only for a functional run
// (--functional) and feeds it the bytes its timed loads bring; on its own, run() executes ops
// against any FunctionalMemory — ops in, register values out (a RISC-V program's reference).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/FunctionalMemory.h"
#include "sim/ir/Op.h"

namespace tessim {

class FunctionalExecutor {
public:
    // registerBytes: one vector register (VLEN / 8); registerGroups: LMUL groups (a segment's
    // fields lie a group apart), else one register per field. `engine` names it in errors.
    FunctionalExecutor(std::string engine, unsigned registerBytes, bool registerGroups);

    // The bytes a store writes, from the registers (zeros for a store without semantics).
    void storeBytes(const Op& op, std::vector<std::uint8_t>& out);
    // An op's results; `loaded` holds a load's bytes (elements packed, strided or not).
    void execute(const Op& op, const std::vector<std::uint8_t>* loaded);
    // One op with its own memory accesses on `memory`: loads read, stores write, compute and
    // scalar ops compute. DMA transfers, MAC tiles and sync ops need their engine and units.
    void run(const Op& op, FunctionalMemory& memory);

    const std::vector<double>& vectorRegister(unsigned r) const { return vregs_[r]; }
    double scalarRegister(unsigned r) const { return sregs_[r]; }

private:
    class Execution;
    // Registers a segment's fields lie apart.
    unsigned fieldRegisters(const Op& op) const;

    std::string engine_;
    unsigned registerBytes_;
    bool registerGroups_;
    std::vector<std::vector<double>> vregs_;
    std::array<double, kRegIds - kScalarRegBase> sregs_{};
    std::vector<std::uint8_t> buffer_;  // run(): the bytes of one access
};

}  // namespace tessim
