// Zeros written into the AM by vector stores of a broadcast zero (the padding of a map is never
// fetched from DDR). The zero register is broadcast once, before the first store.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/ir/Op.h"
#include "workloads/common/VectorOps.h"
#include "workloads/ftm/ModuloLoop.h"

namespace tessim {

class ZeroStores {
public:
    // zeroReg: a vector register outside the loops (which own every other register).
    ZeroStores(std::vector<Op>& out, DType dtype, unsigned elem, unsigned lanes, std::uint8_t space,
               std::uint8_t zeroReg)
        : out_(out), dtype_(dtype), elem_(elem), lanes_(lanes), space_(space), zeroReg_(zeroReg) {}

    void broadcastZero() {
        if (ready_)
            return;
        Op zero = vectorOp(OpKind::Broadcast, dtype_, lanes_);
        zero.dst = zeroReg_;
        zero.imm = 0.0;
        out_.push_back(bundleStart(zero));
        ready_ = true;
    }
    // `elements` zeros from AM address `at` on.
    void fill(std::uint64_t at, std::uint64_t elements) {
        if (elements > 0)
            broadcastZero();
        for (std::uint64_t i = 0; i < elements; i += lanes_) {
            const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(lanes_, elements - i));
            out_.push_back(bundleStart(vectorStore(dtype_, zeroReg_, space_, at + i * elem_, vl)));
        }
    }

private:
    std::vector<Op>& out_;
    DType dtype_;
    unsigned elem_, lanes_;
    std::uint8_t space_, zeroReg_;
    bool ready_ = false;
};

}  // namespace tessim
