// How the instructions a hart retires become ops on its core: one op each (an AMO two), the
// registers mapped onto the engine's (x1–x31: s1–s31, f0–f31: s32–s63, v0–v31: v0–v31) so that
// the scoreboard sees every true dependence, addresses as the guest's physical ones in the core's
// memory, branches and jumps through the core's predictor.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/riscv/BranchPredictor.h"
#include "models/riscv/GuestMemory.h"
#include "models/riscv/RiscvHart.h"
#include "models/riscv/RiscvVector.h"
#include "sim/ir/Op.h"

namespace tessim::riscv {

constexpr unsigned kInstructionClasses = static_cast<unsigned>(InstructionClass::VectorFp) + 1;
extern const char* const kInstructionClassNames[kInstructionClasses];

class InstructionOps {
public:
    // `memorySpace`: the memory the core's loads and stores address (its L1).
    InstructionOps(std::uint8_t memorySpace, const BranchPredictorInfo& predictor);

    // Appends the ops of `r`, which `hart` has just retired (its pc is the next instruction's).
    void append(const Retired& r, const Hart& hart, GuestMemory& memory, std::vector<Op>& out);

    const BranchPredictor& predictor() const { return predictor_; }
    std::uint64_t takenBranches() const { return takenBranches_; }
    std::uint64_t retired(unsigned instructionClass) const { return byClass_[instructionClass]; }

private:
    static DType vectorType(unsigned bytes, bool fp);
    void vectorMemory(const Retired& r, GuestMemory& memory, bool store, Op& op) const;
    void vectorArithmetic(const Retired& r, Op& op) const;
    static bool halfRateAlu(const Instruction& i, bool scalarForm);
    // A conversion (vfcvt, vfwcvt, vfncvt): its types and the group it is priced by.
    static void convert(const Retired& r, Op& op);
    void memoryOperand(Op& op, const Retired& r, GuestMemory& memory, bool fp, unsigned base) const;
    void fpOp(const Instruction& i, InstructionClass cls, Op& op) const;

    std::uint8_t space_;
    BranchPredictor predictor_;
    std::array<std::uint64_t, kInstructionClasses> byClass_{};
    std::uint64_t takenBranches_ = 0;
};

}  // namespace tessim::riscv
