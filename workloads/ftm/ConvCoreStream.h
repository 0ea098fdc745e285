// The op stream of one core of a vector-DSP convolution (shuffle, im2col), in the order the core
// works: once its start (its kernel elements and the first input in flight), then for each block
// of output rows the block's head (wait for its input, barrier, next block's input) and, for each
// filter the core owns, one pipelined loop per pass, the filter's outputs written back after the
// last pass (behind a store fence); at the end, a wait for the write-backs still in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/ir/OpStream.h"
#include "sim/workload/Workload.h"
#include "workloads/common/DmaOps.h"
#include "workloads/ftm/DspConvProblem.h"
#include "workloads/ftm/ModuloLoop.h"

namespace tessim {

// DMA tags and barriers of a core's stream.
constexpr std::uint32_t kWeightsTag = 1;
constexpr std::uint32_t kInputTag = 2;   // + block parity
constexpr std::uint32_t kOutputTag = 4;  // + block parity
constexpr std::uint32_t kBarrierBase = 16;

class ConvCoreStream : public ChunkedOpStream {
public:
    ConvCoreStream(unsigned core, std::size_t blocks, unsigned filters, std::size_t passes)
        : core_(core), blocks_(blocks), filters_(filters), passes_(passes) {}

protected:
    bool refill(std::vector<Op>& out) override {
        if (inLoop_) {
            emitCycles(out);
            return true;
        }
        switch (stage_) {
        case Stage::Start:
            start(out);
            stage_ = Stage::BlockHead;
            return true;
        case Stage::BlockHead:
            if (block_ == blocks_) {
                if (filters_ > 0) {  // each output buffer a write-back used (one block: the first)
                    out.push_back(bundleStart(dmaWait(kOutputTag)));
                    if (blocks_ > 1)
                        out.push_back(bundleStart(dmaWait(kOutputTag + 1)));
                }
                stage_ = Stage::Done;
                return true;
            }
            blockHead(out);
            filter_ = 0;
            pass_ = 0;
            stage_ = Stage::Loop;
            return true;
        case Stage::Loop:
            if (filter_ == filters_) {
                ++block_;
                stage_ = Stage::BlockHead;
                return true;
            }
            beginLoop(out);
            return true;
        case Stage::Done: return false;
        }
        return false;
    }
    // The passes of block_ (each filter runs them in turn): all of them unless the stream's blocks
    // take the passes in parts (the shuffle's channel groups).
    virtual std::size_t passesOfBlock() const { return passes_; }
    virtual void start(std::vector<Op>& out) = 0;
    virtual void blockHead(std::vector<Op>& out) = 0;
    // The kernel elements of filter_ and pass_ into scalar registers, then startLoop.
    virtual void beginLoop(std::vector<Op>& out) = 0;
    // Op j of iteration i of the loop, written into `op` (default-constructed), or false when it
    // has nothing to do there.
    virtual bool materialise(unsigned j, std::uint64_t i, Op& op) const = 0;
    // Filter filter_'s outputs of block block_ to DDR.
    virtual void writeBack(std::vector<Op>& out) = 0;
    // Output rows [r0, r1) of filter filter_, at amAddr in the core's AM (space am), to DDR, tagged
    // by the output buffer (0 or 1) they leave.
    void writeBackRows(std::vector<Op>& out, const DspConvProblem& p, std::uint8_t am, std::uint32_t r0,
                       std::uint32_t r1, std::uint64_t amAddr, std::size_t outputBuffer) const {
        const unsigned f = core_ + filter_ * p.cores();
        const std::uint64_t rowBytes = std::uint64_t{p.wo} * p.elem;
        // The last pass's stores drain before the DMA reads their bytes (a DSP fences its store
        // buffer before it starts a transfer of what it stored).
        out.push_back(bundleStart(fenceOp()));
        out.push_back(
            bundleStart(dmaCopy(kOutputTag + static_cast<std::uint32_t>(outputBuffer % 2), 2,
                                {static_cast<std::uint32_t>(rowBytes * (r1 - r0)), 1, 1}, {am, amAddr},
                                {p.ddr, p.ddrOut + (std::uint64_t{f} * p.ho + r0) * rowBytes})));
    }
    // The loop of `iterations` iterations of `schedule` (its ops by residue in byResidue): the
    // counter reset now, the cycles on the next refills.
    void startLoop(std::vector<Op>& out, const ModuloSchedule& schedule,
                   const std::vector<std::vector<unsigned>>& byResidue, std::uint64_t iterations) {
        schedule_ = &schedule;
        byResidue_ = &byResidue;
        iterations_ = iterations;
        cycles_ = (iterations - 1) * schedule.ii + schedule.length;
        cycle_ = 0;
        inLoop_ = true;
        out.push_back(loopCounterReset());
    }

    const unsigned core_;
    std::size_t block_ = 0, pass_ = 0;
    unsigned filter_ = 0;  // the core's own filters: filter_ is global filter core_ + filter_ · cores
    std::uint64_t iterations_ = 0;  // of the loop running

private:
    void emitCycles(std::vector<Op>& out) {
        emitModuloCycles(*schedule_, *byResidue_, iterations_, cycles_, cycle_, out,
                         [this](unsigned j, std::uint64_t i, Op& op) { return materialise(j, i, op); });
        if (cycle_ < cycles_)
            return;
        inLoop_ = false;
        if (++pass_ == passesOfBlock()) {
            writeBack(out);
            pass_ = 0;
            ++filter_;
        }
    }

    enum class Stage { Start, BlockHead, Loop, Done };
    Stage stage_ = Stage::Start;
    std::size_t blocks_;
    unsigned filters_;
    std::size_t passes_;
    bool inLoop_ = false;
    const ModuloSchedule* schedule_ = nullptr;
    const std::vector<std::vector<unsigned>>* byResidue_ = nullptr;
    std::uint64_t cycles_ = 0, cycle_ = 0;
};

// One stream of type Stream per core of `p` (its engines, core by core).
template <typename Stream, typename Params> std::vector<EngineStream> streamPerCore(const Params& p) {
    std::vector<EngineStream> s;
    for (unsigned c = 0; c < p.cores(); ++c)
        s.push_back(EngineStream{p.engines[c], std::make_unique<Stream>(p, c)});
    return s;
}

}  // namespace tessim
