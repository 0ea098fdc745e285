#include "models/riscv/BranchPredictor.h"

namespace tessim::riscv {

BranchPredictor::BranchPredictor(const BranchPredictorInfo& info)
    : info_(info), predicts_(info.kind != "none") {
    if (predicts_) {
        counters_.assign(info_.entries, 1);  // weakly not taken
        targets_.assign(info_.indirectEntries, 0);
        returns_.assign(info_.returnStack, 0);
    }
}

bool BranchPredictor::conditional(std::uint64_t pc, bool taken) {
    ++conditionals_;
    if (!predicts_)
        return false;
    // Instructions are 2-byte aligned (C extension): drop the bit that is always 0.
    std::uint64_t index = pc >> 1;
    if (info_.historyBits > 0)
        index ^= history_;
    std::uint8_t& counter = counters_[index & (info_.entries - 1)];
    const bool wrong = (counter >= 2) != taken;
    if (taken && counter < 3)
        ++counter;
    else if (!taken && counter > 0)
        --counter;
    if (info_.historyBits > 0)
        history_ = ((history_ << 1) | (taken ? 1 : 0)) & ((std::uint64_t{1} << info_.historyBits) - 1);
    conditionalMisses_ += wrong;
    return wrong;
}

bool BranchPredictor::jump(std::uint64_t pc, std::uint64_t target, std::uint64_t returnAddress, bool link,
                           bool ret, bool indirect) {
    ++jumps_;
    if (!predicts_)
        return false;
    bool wrong = false;
    if (ret && returns_.empty()) {
        wrong = true;  // no return stack: the return's target is not known before it executes
    } else if (ret) {
        // An empty stack (or one that overflowed and lost the entry) predicts nothing.
        wrong = depth_ == 0 || returns_[(top_ + returns_.size() - 1) % returns_.size()] != target;
        if (depth_ > 0) {
            top_ = (top_ + returns_.size() - 1) % returns_.size();
            --depth_;
        }
    } else if (indirect) {
        std::uint64_t& last = targets_[(pc >> 1) & (info_.indirectEntries - 1)];
        wrong = last != target;
        last = target;
    }
    if (link && !returns_.empty()) {
        returns_[top_] = returnAddress;
        top_ = (top_ + 1) % returns_.size();
        if (depth_ < returns_.size())
            ++depth_;
    }
    jumpMisses_ += wrong;
    return wrong;
}

}  // namespace tessim::riscv
