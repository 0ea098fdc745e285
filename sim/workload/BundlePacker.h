// Runs an op stream written for a single-issue core on a VLIW engine: the ops, in program order,
// packed greedily into bundles (Op::kBundleStart), as a compiler without software pipelining
// would. An op joins the open bundle while a unit instance that executes it and a slot of that
// unit's class are free, it reads no register the bundle writes (operands are read before any op
// of a bundle writes), it writes no register the bundle reads or writes, and it is not a memory
// access after a store of the bundle. An op that several units execute counts against all of
// them, so the bundle is legal whichever the engine gives it. Ops no unit executes (sync, marks, DMA starts)
// close the bundle; the engine issues them alone. Kernels that form their own bundles are not packed.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "sim/ir/OpStream.h"
#include "sim/machine/TargetInfo.h"

namespace tessim {

class BundlePacker : public OpStream {
public:
    BundlePacker(std::unique_ptr<OpStream> inner, const EngineInfo& engine);

    void setEngineClock(EngineClock* clock) override { inner_->setEngineClock(clock); }
    const Op* next() override;
    std::size_t nextChunk(const Op*& first) override;

private:
    // A unit that may take ops of a kind, with the slot class it issues from (−1: none).
    struct Candidate {
        unsigned unit;
        int slotClass;
    };
    void place(Op& op);
    void closeBundle();

    std::unique_ptr<OpStream> inner_;
    std::vector<unsigned> instances_;                 // per unit
    std::vector<unsigned> slotCounts_;                // per slot class
    std::vector<std::vector<Candidate>> candidates_;  // per op kind
    unsigned issueWidth_ = 1;                         // an engine without slot classes
    // The open bundle.
    bool open_ = false;
    unsigned size_ = 0;
    std::vector<unsigned> unitsTaken_, slotsTaken_;
    std::array<bool, kRegIds> read_{}, written_{};
    bool stored_ = false;
    std::vector<Op> chunk_;
    std::size_t pos_ = 0;
};

// Wraps `stream` in a BundlePacker when `engine` is a VLIW engine; returns it unchanged otherwise.
std::unique_ptr<OpStream> packForEngine(std::unique_ptr<OpStream> stream, const EngineInfo& engine);

}  // namespace tessim
