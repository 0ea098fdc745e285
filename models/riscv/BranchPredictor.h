// The front end's prediction of a program's control flow, as the core's YAML organises it
// (BranchPredictorInfo): conditional branches by a table of 2-bit counters (gshare: indexed by
// the PC XOR the global history; bimodal: by the PC), returns by a return-address stack, other
// indirect jumps by a last-target table, direct jumps always right (the BTB is taken to hold
// them). The engine charges the mispredicted ones its mispredict penalty (Op::kMispredicted).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/machine/TargetInfo.h"

namespace tessim::riscv {

class BranchPredictor {
public:
    explicit BranchPredictor(const BranchPredictorInfo& info);

    // Each returns whether the front end predicted wrong, and learns the outcome.
    bool conditional(std::uint64_t pc, bool taken);
    // A jal or jalr to `target`; `link`: it writes a return address (a call), `ret`: it returns
    // (jalr through ra or t0 without a link), `indirect`: jalr.
    bool jump(std::uint64_t pc, std::uint64_t target, std::uint64_t returnAddress, bool link, bool ret,
              bool indirect);

    std::uint64_t conditionals() const { return conditionals_; }
    std::uint64_t conditionalMisses() const { return conditionalMisses_; }
    std::uint64_t jumps() const { return jumps_; }
    std::uint64_t jumpMisses() const { return jumpMisses_; }

private:
    BranchPredictorInfo info_;
    bool predicts_ = false;               // kind != none: decided once, not per branch
    std::vector<std::uint8_t> counters_;  // 2-bit saturating, 2 and 3 predict taken
    std::vector<std::uint64_t> targets_;  // last target of indirect jumps by PC
    std::vector<std::uint64_t> returns_;  // return-address stack, a ring of returnStack entries
    std::uint64_t history_ = 0;
    std::size_t top_ = 0, depth_ = 0;
    std::uint64_t conditionals_ = 0, conditionalMisses_ = 0, jumps_ = 0, jumpMisses_ = 0;
};

}  // namespace tessim::riscv
