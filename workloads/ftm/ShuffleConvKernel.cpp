#include "workloads/ftm/ShuffleConvKernel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/DmaOps.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/TestData.h"
#include "workloads/common/VectorOps.h"
#include "workloads/ftm/ConvCoreStream.h"
#include "workloads/ftm/DspConvMemories.h"
#include "workloads/ftm/DspConvWorkload.h"
#include "workloads/ftm/EngineUnits.h"
#include "workloads/ftm/ModuloLoop.h"
#include "workloads/ftm/ModuloScheduler.h"
#include "workloads/ftm/ScalarDataMemory.h"
#include "workloads/ftm/ShuffleConvPlan.h"
#include "workloads/ftm/ZeroStores.h"

namespace tessim {
namespace {

using namespace shuffle;

constexpr unsigned kMaxKernelRegs = 48;         // scalar registers that hold kernel elements in one pass
constexpr unsigned kMaxBroadcastRegs = 20;      // kernel elements per pass with explicit broadcasts
constexpr std::uint32_t kResidentTagBase = 64;  // + block: resident blocks are fetched all at once
constexpr std::uint32_t kResidentBands = 8;  // blocks of a resident map (input in, outputs out under compute)

// One core's op stream: set-up DMAs, then per block the input hand-over, per filter and pass the
// kernel elements into scalar registers and the pipelined loop, then the output DMA.
class ShuffleStream : public ConvCoreStream {
public:
    ShuffleStream(const ShuffleParams& p, unsigned core)
        : ConvCoreStream(core, p.blocks.size(), p.filtersOf(core), p.passes.size()), p_(p) {}

private:
    static Op bundle(Op op) { return bundleStart(op); }
    std::uint8_t scalarReg(unsigned idx) const { return static_cast<std::uint8_t>(kScalarRegBase + idx); }
    // A vector register of zeros for the padding, outside the loops (which own every register).
    static constexpr std::uint8_t kZeroReg = 0;

    void start(std::vector<Op>& out) override {
        const unsigned mine = fetchCoefficients(p_.scalarMemory, p_, core_, kWeightsTag, out);
        // Double-buffered, block 0 (the others start as their buffer frees); resident, every block.
        for (std::size_t b = 0; core_ == 0 && b < (p_.doubleBuffer ? 1 : p_.blocks.size()); ++b)
            if (p_.blocks[b].realRows > 0)
                out.push_back(bundle(inputDma(static_cast<unsigned>(b))));
        if (p_.padded() && !p_.doubleBuffer)
            zeroPadding(out, p_.inBuf[0], 0, p_.hp(), p_.channels);
        if (mine > 0)
            out.push_back(bundle(dmaWait(kWeightsTag)));
    }
    Op inputDma(unsigned b) const {
        const Block& blk = p_.blocks[b];
        const std::uint32_t rowBytes = p_.w * p_.elem;
        if (p_.padded()) {
            // Each map row into its padded AM row, at column pad_w; the padding is not fetched.
            const std::uint64_t amRow = std::uint64_t{p_.wp()} * p_.elem;
            Op op = dmaCopy(blk.tag, 0, {rowBytes, blk.realRows, blk.c1 - blk.c0},
                            {p_.ddr, p_.ddrIn + (std::uint64_t{blk.c0} * p_.h + blk.real0) * rowBytes,
                             rowBytes, static_cast<std::int64_t>(std::uint64_t{p_.h} * rowBytes)},
                            {p_.am,
                             blk.fetchAddr + (std::uint64_t{blk.real0} + p_.padH - blk.fetch0) * amRow +
                                 std::uint64_t{p_.padW} * p_.elem,
                             static_cast<std::int64_t>(amRow), static_cast<std::int64_t>(p_.inPlaneStride)});
            op.dma.group = p_.group;
            return op;
        }
        Op op = dmaCopy(blk.tag, 0, {rowBytes * blk.fetchRows, blk.c1 - blk.c0, 1},
                        {p_.ddr, p_.ddrIn + (std::uint64_t{blk.c0} * p_.h + blk.fetch0) * rowBytes,
                         static_cast<std::int64_t>(std::uint64_t{p_.h} * rowBytes)},
                        {p_.am, blk.fetchAddr, static_cast<std::int64_t>(p_.inPlaneStride)});
        op.dma.group = p_.group;
        return op;
    }
    void blockHead(std::vector<Op>& out) override {
        if (core_ == 0 && p_.blocks[block_].realRows > 0)
            out.push_back(bundle(dmaWait(p_.blocks[block_].tag)));
        if (p_.cores() > 1)
            out.push_back(bundle(
                syncOp(OpKind::Barrier, kBarrierBase + static_cast<std::uint32_t>(block_), p_.cores())));
        if (!p_.doubleBuffer)
            return;
        if (core_ == 0 && block_ + 1 < p_.blocks.size() && p_.blocks[block_ + 1].realRows > 0)
            out.push_back(bundle(inputDma(static_cast<unsigned>(block_ + 1))));
        const Block& blk = p_.blocks[block_];
        if (blk.firstGroup && blk.rowBlock >= 2)  // its output buffer: row block − 2's write-back left it
            out.push_back(bundle(dmaWait(kOutputTag + blk.rowBlock % 2)));
        // A reused buffer holds an earlier block's rows where this one has padding.
        if (p_.padded())
            zeroPadding(out, blk.inAddr, blk.in0, blk.inRows, blk.c1 - blk.c0);
    }
    // Zeros in the padding of AM rows [row0, row0 + rows) (padded coordinates) of the buffer whose
    // row row0 sits at addr, every channel: whole rows above and below the map, the columns at
    // both sides (a row's right padding and the next row's left padding are adjacent). Vector
    // stores of a broadcast zero: the padding never comes from DDR.
    void zeroPadding(std::vector<Op>& out, std::uint64_t addr, std::uint32_t row0, std::uint32_t rows,
                     unsigned channels) const {
        ZeroStores zeros(out, p_.dtype, p_.elem, p_.lanes, p_.am, kZeroReg);
        zeros.broadcastZero();
        const std::uint64_t amRow = std::uint64_t{p_.wp()} * p_.elem;
        auto fill = [&](std::uint64_t at, std::uint64_t elements) { zeros.fill(at, elements); };
        for (unsigned c = 0; c < channels; ++c) {
            const std::uint64_t plane = addr + c * p_.inPlaneStride;
            for (std::uint32_t r = 0; r < rows; ++r) {
                const std::uint32_t y = row0 + r;
                const std::uint64_t rowAddr = plane + r * amRow;
                if (y < p_.padH || y >= p_.padH + p_.h) {
                    fill(rowAddr, p_.wp());
                    continue;
                }
                const bool previousIsMap = r > 0 && y - 1 >= p_.padH;
                if (!previousIsMap)  // else the previous row's fill covered this left padding
                    fill(rowAddr, p_.padW);
                const bool nextIsMap = r + 1 < rows && y + 1 < p_.padH + p_.h;
                fill(rowAddr + (std::uint64_t{p_.padW} + p_.w) * p_.elem, nextIsMap ? 2 * p_.padW : p_.padW);
            }
        }
    }
    // A filter's output rows of the block to DDR, as soon as its last pass has stored them.
    // (After the last channel group's passes: the earlier groups leave partial sums in the AM.)
    void writeBack(std::vector<Op>& out) override {
        const Block& blk = p_.blocks[block_];
        if (blk.lastGroup)
            writeBackRows(out, p_, p_.am, blk.r0, blk.r1, blk.outAddr + filter_ * p_.outFilterStride,
                          blk.rowBlock);
    }
    std::size_t passesOfBlock() const override { return p_.blocks[block_].passCount; }
    const Pass& currentPass() const { return p_.passes[p_.blocks[block_].firstPass + pass_]; }
    // The pass opens the block's output rows (its first group's first pass): the later ones
    // accumulate onto the partial sums stored before them.
    bool opensOutputs() const { return p_.blocks[block_].firstGroup && pass_ == 0; }
    // Kernel elements of this filter and pass into scalar registers, then the loop.
    void beginLoop(std::vector<Op>& out) override {
        loopPass_ = &currentPass();
        opens_ = opensOutputs();
        const Pass& pass = *loopPass_;
        for (unsigned j = 0; j < pass.kp; ++j)
            for (unsigned kx = 0; kx < p_.kw; ++kx)
                out.push_back(
                    coefficientLoad(p_.scalarMemory, p_, core_, filter_,
                                    (std::uint64_t{pass.channel} * p_.kh + pass.k0 + j) * p_.kw + kx,
                                    scalarReg(j * p_.kw + kx)));
        body_ = &p_.body(pass.kp);
        const Block& blk = p_.blocks[block_];
        rows_ = blk.r1 - blk.r0;
        strips_ = (p_.chunks + body_->unroll - 1) / body_->unroll;
        // An iteration per input row of the strip, or per output row (output-row order).
        perStrip_ = p_.outputRowOrder ? rows_ : (rows_ - 1) * p_.sh + pass.kp;
        lastIteration_ = ~std::uint64_t{0};
        const std::uint64_t iterations = std::uint64_t{strips_} * perStrip_;
        startLoop(out, body_->schedule, body_->byResidue, iterations);
    }
    std::uint8_t valueReg(unsigned j, std::uint64_t i) const {
        return static_cast<std::uint8_t>(body_->base[j] + i % body_->copies[j]);
    }
    // Op j of iteration i, or false when it has nothing to do there (a row outside the block, a
    // chunk beyond the row).
    bool materialise(unsigned j, std::uint64_t i, Op& op) const override {
        const BodyOp& b = body_->ops[j];
        const Pass& pass = *loopPass_;
        if (i != lastIteration_) {  // a cycle materialises several ops of one iteration: divide once
            lastIteration_ = i;
            strip_ = static_cast<unsigned>(i / perStrip_);
            row_ = static_cast<unsigned>(i % perStrip_);
        }
        const unsigned g = strip_, y = row_;
        const unsigned c0 = g * body_->unroll;
        const unsigned valid = std::min(body_->unroll, p_.chunks - c0);
        switch (b.role) {
        case BodyRole::Count: op = loopCount(); return true;
        case BodyRole::Compare: op = loopCompare(iterations_); return true;
        case BodyRole::Branch: op = loopBranch(i, iterations_); return true;
        default: break;
        }
        // Loads and deals reach one chunk past the valid ones (the lanes the slides shift in).
        if (b.u > valid || (b.role != BodyRole::Load && b.role != BodyRole::Deal && b.u >= valid))
            return false;
        const unsigned c = c0 + b.u;
        const std::uint64_t rowBytes = std::uint64_t{p_.wo} * p_.elem;
        const Block& blk = p_.blocks[block_];
        const std::uint64_t outBase = blk.outAddr + filter_ * p_.outFilterStride;
        const std::uint32_t vlOut = std::min<std::uint32_t>(p_.lanes, p_.wo - std::min(p_.wo, c * p_.lanes));
        // Whether the iteration's row feeds an output row through kernel row j of the pass, and
        // which: input-row order, input row y feeds output row (y − j) / S; output-row order,
        // iteration y is output row y, through every kernel row.
        auto feeds = [&](unsigned kj) {
            return p_.outputRowOrder || (y >= kj && (y - kj) % p_.sh == 0 && (y - kj) / p_.sh < rows_);
        };
        auto outputRow = [&](unsigned kj) { return p_.outputRowOrder ? y : (y - kj) / p_.sh; };
        // The input row (of the pass, from the block's first) a load of body row b.j reads.
        const std::uint64_t inputRow = p_.outputRowOrder ? std::uint64_t{y} * p_.sh + b.j : y;
        auto rowSlot = [&](unsigned r) {
            return static_cast<std::uint8_t>(b.u * body_->rowSlots +
                                             (std::uint64_t{g} * rows_ + r) % body_->rowSlots);
        };
        switch (b.role) {
        case BodyRole::Load: {
            // Dealt phases: register p of the chunk's S contiguous ones; else phase p, strided.
            const std::uint64_t col =
                std::uint64_t{c} * p_.lanes * p_.sw + (p_.dealPhases ? std::uint64_t{b.p} * p_.lanes : b.p);
            // Written in place (VectorOps.h's set… forms): materialise() is this stream's hot path.
            setVectorLoad(op, p_.dtype, valueReg(j, i), p_.am,
                          blk.inAddr + (pass.channel - blk.c0) * p_.inPlaneStride +
                              ((std::uint64_t{pass.k0} + inputRow) * p_.wp() + col) * p_.elem,
                          p_.lanes);
            if (p_.sw > 1 && !p_.dealPhases)
                op.stride = static_cast<std::int64_t>(p_.sw * p_.elem);
            return true;
        }
        case BodyRole::Deal: {  // lanes p, p + S, p + 2S … of the chunk's S registers
            setVectorOp(op, OpKind::Slide, p_.dtype, p_.lanes);
            op.dst = valueReg(j, i);
            for (unsigned t = 0; t < p_.sw; ++t)
                op.src[t] = valueReg(body_->sources[j][t], i);
            op.stride = p_.sw;
            op.imm = b.p;
            return true;
        }
        case BodyRole::Slide: {
            setVectorOp(op, OpKind::Slide, p_.dtype, p_.lanes);
            op.dst = valueReg(j, i);
            op.src[0] = valueReg(body_->sources[j][0], i);
            op.src[1] = valueReg(body_->sources[j][1], i);
            op.imm = b.kx / p_.sw;
            return true;
        }
        case BodyRole::Broadcast: {
            if (!feeds(b.j))
                return false;
            setVectorOp(op, OpKind::Broadcast, p_.dtype, p_.lanes);
            op.dst = valueReg(j, i);
            op.src[0] = scalarReg(b.j * p_.kw + b.kx);
            return true;
        }
        case BodyRole::Partial: {
            if (opens_ || !feeds(0))
                return false;
            const unsigned r = outputRow(0);
            setVectorLoad(op, p_.dtype, rowSlot(r), p_.am, outBase + (r * rowBytes + c * p_.lanes * p_.elem),
                          vlOut);
            return true;
        }
        case BodyRole::Fma: {
            if (!feeds(b.j))
                return false;
            const unsigned r = outputRow(b.j);
            const bool opens = opens_ && b.j == 0 && b.kx == 0;
            setVectorOp(op, opens ? OpKind::Mul : OpKind::Fma, p_.dtype, p_.lanes);
            op.dst = rowSlot(r);
            op.src[0] = valueReg(body_->sources[j][0], i);
            op.src[1] =
                p_.explicitBroadcast ? valueReg(body_->sources[j][1], i) : scalarReg(b.j * p_.kw + b.kx);
            if (!opens)
                op.src[2] = rowSlot(r);
            return true;
        }
        case BodyRole::Store: {
            const unsigned last = pass.kp - 1;
            if (!feeds(last))
                return false;
            const unsigned r = outputRow(last);
            setVectorStore(op, p_.dtype, rowSlot(r), p_.am, outBase + (r * rowBytes + c * p_.lanes * p_.elem),
                           vlOut);
            return true;
        }
        case BodyRole::Count:
        case BodyRole::Compare:
        case BodyRole::Branch: break;  // handled above
        }
        return false;
    }

    const ShuffleParams& p_;
    const Body* body_ = nullptr;
    // The loop's pass, and whether it opens the block's outputs (set by beginLoop: materialise()
    // is the hot path).
    const Pass* loopPass_ = nullptr;
    bool opens_ = false;
    unsigned rows_ = 0, strips_ = 0, perStrip_ = 0;
    // The last iteration materialise() split into strip and row (i / perStrip_, i % perStrip_).
    mutable std::uint64_t lastIteration_ = ~std::uint64_t{0};
    mutable unsigned strip_ = 0, row_ = 0;
};

class ShuffleConvKernel : public DspConvWorkload {
public:
    explicit ShuffleConvKernel(ShuffleParams p) : DspConvWorkload(p), p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        j["strategy"] = "shuffle";
        j["cores"] = p_.cores();
        j["engines"] = p_.engines;
        j["buffering"] = p_.doubleBuffer ? "double" : "single";
        j["blocks"] = p_.blocks.size();
        j["block_rows"] = p_.maxBlockRows;
        j["passes"] = p_.passes.size();
        if (p_.groupChannels < p_.channels)
            j["channel_group"] = p_.groupChannels;
        j["unroll"] = p_.bodies.front().unroll;
        j["broadcast"] = p_.explicitBroadcast ? "explicit" : "operand";
        if (p_.sw > 1)
            j["phases"] = p_.dealPhases ? "shuffle" : "strided_load";
        j["row_order"] = p_.outputRowOrder ? "output" : "input";
        if (p_.scalarMemory.cache)
            j["l1d"] = "cache";
        j["am_bytes"] = p_.amBytes;
    }
    std::vector<EngineStream> streams() override { return streamPerCore<ShuffleStream>(p_); }
    // The busiest core's loops: per block, filter and pass, its kernel elements loaded, then the
    // strips of rows at the loop's II — or at the load/store units' occupancy where a vector takes
    // them longer than a cycle (a strided load gathers element by element) — and the pipeline's
    // drain. The input blocks overlap by K − S rows: their rows come from DDR once per block.
    double estimatedSeconds() const override {
        const bool partial = p_.passes.size() > 1;
        const bool strided = p_.sw > 1 && !p_.dealPhases;
        const double load = strided ? p_.stridedLoadCycles : p_.loadCycles;
        double cycles = 0.0;
        for (const Block& blk : p_.blocks)
            for (std::uint32_t k = blk.firstPass; k < blk.firstPass + blk.passCount; ++k) {
                const Pass& pass = p_.passes[k];
                const Body& b = p_.body(pass.kp);
                const double inputLoads = p_.sw * (b.unroll + (p_.dealPhases && p_.kw <= p_.sw ? 0.0 : 1.0)) *
                                          (p_.outputRowOrder ? pass.kp : 1);
                const double lsu = (inputLoads * load + (partial ? 2.0 : 1.0) * b.unroll * p_.loadCycles) /
                                   std::max(1u, p_.lsus);
                const double ii = std::max<double>(b.schedule.ii, std::ceil(lsu));
                const double strips = (p_.chunks + b.unroll - 1) / b.unroll;
                const double perStrip =
                    p_.outputRowOrder ? blk.r1 - blk.r0 : (blk.r1 - blk.r0 - 1.0) * p_.sh + pass.kp;
                cycles += pass.kp * p_.kw + strips * perStrip * ii + b.schedule.length;
            }
        const double halo = static_cast<double>(p_.inputDdrBytes()) - p_.inputElements() * p_.elem;
        return overlappedEstimate(cycles * p_.maxFiltersPerCore(), std::max(0.0, halo));
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        addThroughputStats(stats, cycles, seconds, p_.fmacs, p_.lanes);
        const Body& b = p_.bodies.front();
        addLoopStats(stats, b.schedule, b.unroll, static_cast<double>(b.fmas), p_.fmacs,
                     {"initiation interval of the pipelined loop (first pass)",
                      "⌈ops / units⌉ over FMAC, load/store, shuffle and vector slots",
                      "longest accumulator chain per iteration distance"});
        auto& node = stats.child("workload");
        node.add("input_ddr_bytes", p_.inputDdrBytes(), "B",
                 "input rows read from DDR, block overlaps included");
        node.add("blocks", static_cast<std::uint64_t>(p_.blocks.size()), "", "input blocks");
        node.add(
            "largest_resident_map", std::uint64_t{p_.largestResidentMap}, "N",
            "largest N×N map held in the AM with its outputs (this kernel, stride and filters per core)");
        node.add("largest_double_buffered_map", std::uint64_t{p_.largestStreamedMap}, "N",
                 "largest N×N map whose double-buffered blocks of one output row fit the AM");
    }

private:
    ShuffleParams p_;
};

}  // namespace

std::unique_ptr<Workload> makeShuffleConvKernel(const std::string& kernel, const config::Node& workload,
                                                const config::Node& plan, const TargetInfo& target) {
    (void)kernel;
    using namespace config;
    ShuffleParams p;
    Reader w = workloadReader(workload);
    static_cast<DspConvProblem&>(p) = readDspConvProblem(w);

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    pl.oneOf("strategy", {"shuffle"}, std::string("shuffle"));
    const unsigned unroll = pl.get<unsigned>("unroll", 0u, Range<unsigned>{0, kMaxUnroll});
    p.buffering = pl.oneOf("buffering", {"auto", "single", "double"}, std::string("auto"));
    p.explicitBroadcast =
        pl.oneOf("broadcast", {"operand", "explicit"}, std::string("operand")) == "explicit";
    // Column stride S > 1: the lane phases dealt by the shuffle from contiguous loads (seed 003's
    // shuffle mode configured by the stride; a deal reads S registers, an op names at most 3) or
    // strided loads.
    const std::string phases = pl.oneOf("phases", {"auto", "shuffle", "strided_load"}, std::string("auto"));
    if (phases == "shuffle" && p.sw > 3)
        pl.fail("phases",
                fmt::format("the shuffle deals stride {}'s phases from {} registers, and a shuffle reads at "
                            "most 3; use phases: strided_load",
                            p.sw, p.sw));
    p.dealPhases = p.sw > 1 && phases != "strided_load" && p.sw <= 3;
    // Input-row order (an input row into the K/S output rows it feeds) or seed 003's own.
    p.outputRowOrder = pl.oneOf("row_order", {"input", "output"}, std::string("input")) == "output";
    const std::uint32_t blockRows = pl.get<std::uint32_t>("block_rows", 0u);
    // Input channels per block when double-buffered (absent: all of them, or groups as large as
    // fit where they do not).
    const unsigned groupChannels =
        pl.has("channel_group") ? pl.get<unsigned>("channel_group", Range<unsigned>{1, 65535}) : 0u;
    const std::vector<const EngineInfo*> engines = planEngines(pl, target);
    for (const EngineInfo* e : engines)
        p.engines.push_back(e->name);
    const EngineInfo& e = *engines[0];
    unsigned n = 0;
    const OpTimingInfo* fma = findUnitOp(e, "fma", n);
    p.fmacs = n;
    const OpTimingInfo* load = findUnitOp(e, "vload", n);
    p.lsus = n;
    const OpTimingInfo* slide = findUnitOp(e, "slide", n);
    p.shufflers = n;
    if (findUnitOp(e, "sadd", n))
        p.scalarAlus = n;
    if (findUnitOp(e, "branch", n))
        p.branchUnits = n;
    if (const OpTimingInfo* bc = findUnitOp(e, "broadcast", n)) {
        p.broadcasters = n;
        p.broadcastLatency = static_cast<unsigned>(std::ceil(bc->latency));
    }
    if (!fma || !load || !slide || !findUnitOp(e, "sload", n) || !findUnitOp(e, "mul", n))
        pl.fail("engine", fmt::format("engine '{}' lacks fma, mul, vload, slide or sload: the shuffle "
                                      "convolution needs a vector DSP such as target ftm2000",
                                      e.name));
    p.fmaLatency = static_cast<unsigned>(std::ceil(fma->latency));
    p.loadLatency = static_cast<unsigned>(std::ceil(load->latency));
    p.slideLatency = static_cast<unsigned>(std::ceil(slide->latency));
    p.vectorSlots = 0;
    for (const auto& sc : e.slots) {
        if (sc.name == "vector")
            p.vectorSlots = sc.count;
        if (sc.name == "scalar")
            p.scalarSlots = sc.count;
    }
    if (p.vectorSlots == 0)
        p.vectorSlots = p.fmacs + p.lsus + p.shufflers;
    p.vectorRegisters = e.vectorRegisters;
    p.scalarRegisters = e.scalarRegisters;
    p.lanes = std::max(1u, e.registerBytes / p.elem);
    p.loadCycles = vectorAccessCycles(e, "vload", p.lanes, p.elem, false);
    p.stridedLoadCycles = vectorAccessCycles(e, "vload", p.lanes, p.elem, true);
    p.chunks = (p.wo + p.lanes - 1) / p.lanes;

    // Kernel rows per pass: as many as the scalar registers for kernel elements allow.
    // Explicit broadcasts hold each element in a (rotating) vector register too: fewer per pass.
    const unsigned regs =
        std::min(p.explicitBroadcast ? kMaxBroadcastRegs : kMaxKernelRegs, p.scalarRegisters);
    unsigned rowsPerPass = std::max(1u, std::min(p.kh, regs / p.kw));
    // Output-row order holds every kernel row's input vectors of an iteration: as many rows as
    // the vector registers hold.
    if (p.outputRowOrder)
        rowsPerPass = largestFittingPass(p, rowsPerPass);
    if (p.kw > regs)
        w.fail(w.has("kw") ? "kw" : "k",
               fmt::format("a kernel row of {} elements exceeds the {} scalar registers for kernel "
                           "elements",
                           p.kw, regs),
               config::Shortfall::Registers);
    for (unsigned c = 0; c < p.channels; ++c)
        for (unsigned k0 = 0; k0 < p.kh; k0 += rowsPerPass)
            p.passes.push_back(Pass{c, k0, std::min(rowsPerPass, p.kh - k0)});
    for (std::size_t i = 0; i < p.passes.size(); ++i) {
        bool known = false;
        for (const auto& b : p.bodies)
            known = known || b.kp == p.passes[i].kp;
        if (!known)
            p.bodies.push_back(cachedPlanBody(p, p.passes[i].kp, unroll, p.passes.size() > 1, pl));
    }

    // Spaces: DDR, and the AM and SM of the core that runs each stream (roles).
    const DspConvMemories memories = findDspConvMemories(pl, target, p);
    p.am = memories.am->id;
    p.group = memories.group;
    p.scalarMemory = memories.scalarMemory;
    const std::uint64_t amSize = memories.amSize;

    // AM: input rows (plus slack for the last vector's over-read) and the output rows of every
    // filter of a core; one buffer each when the whole map fits, else two blocks' worth each.
    const std::uint64_t slack = (std::uint64_t{p.lanes} * (p.chunks + 1) * p.sw + p.sw) * p.elem;
    const std::uint64_t inRow = std::uint64_t{p.wp()} * p.elem;
    const std::uint64_t outRows = std::uint64_t{p.maxFiltersPerCore()} * p.wo * p.elem;
    // n output rows with the input rows of `channels` channels, in `buffers` buffers.
    auto need = [&](std::uint32_t n, unsigned buffers, unsigned channels) {
        const std::uint64_t inRows = std::uint64_t{n - 1} * p.sh + p.kh;
        return buffers * (alignUp(channels * inRows * inRow + slack, 128) + alignUp(n * outRows, 128));
    };
    p.doubleBuffer = p.buffering == "double" || (p.buffering == "auto" && need(p.ho, 1, p.channels) > amSize);
    p.groupChannels = p.channels;
    std::uint32_t rows = p.ho;
    if (p.doubleBuffer) {
        const std::uint32_t band =
            std::min(p.ho, std::max((p.ho + kResidentBands - 1) / kResidentBands, 4 * p.kh));
        if (groupChannels > 0) {
            p.groupChannels = std::min(groupChannels, p.channels);
        } else if (need(1, 2, p.channels) > amSize) {
            // The input rows of every channel do not fit beside one output row: blocks take the
            // channels in groups, as many as fit beside the most output rows up to a band's.
            auto largestGroup = [&](std::uint32_t n) {
                unsigned lo = 0, hi = p.channels;
                while (lo < hi) {
                    const unsigned mid = lo + (hi - lo + 1) / 2;
                    if (need(n, 2, mid) <= amSize)
                        lo = mid;
                    else
                        hi = mid - 1;
                }
                return lo;
            };
            p.groupChannels = 1;  // none fits: the refusal below gives the smallest need
            for (std::uint32_t n = band; n >= 1; --n)
                if (const unsigned g = largestGroup(n); g > 0) {
                    p.groupChannels = g;
                    break;
                }
        }
        rows = 0;
        while (rows < p.ho && need(rows + 1, 2, p.groupChannels) <= amSize)
            ++rows;
        if (rows == 0)
            pl.fail("buffering",
                    fmt::format(
                        "two blocks of one output row need {} B of AM with {} input channel{}, which holds "
                        "{} B",
                        need(1, 2, p.groupChannels), p.groupChannels, p.groupChannels == 1 ? "" : "s",
                        amSize),
                    config::Shortfall::Capacity);
        if (p.buffering == "double" && rows >= p.ho)
            rows = (p.ho + 1) / 2;  // forced double buffering: at least two blocks
        // Smaller blocks shorten the first fetch and the last write-back that nothing hides, at
        // K − S halo rows each: as for resident bands, an eighth of the map, at least 4·K rows.
        rows = std::min(rows, band);
    } else if (need(p.ho, 1, p.channels) > amSize) {
        pl.fail("buffering",
                fmt::format("the {}×{} map and its outputs need {} B of AM, which holds {} B", p.h, p.w,
                            need(p.ho, 1, p.channels), amSize),
                config::Shortfall::Capacity);
    } else {
        // Resident: bands of rows so that the input streams in, and the outputs out, under compute.
        // At least 4·K rows each: a block adds K − 1 iterations of pipeline ramp.
        rows = std::min(p.ho, std::max((p.ho + kResidentBands - 1) / kResidentBands, 4 * p.kh));
    }
    if (blockRows > 0)
        rows = std::min(rows, blockRows);
    p.maxBlockRows = rows;
    // The largest square map that stays resident, by the same accounting as `need`.
    auto residentNeed = [&](std::uint64_t n) {
        const std::uint64_t onH = (n - p.kh) / p.sh + 1, onW = (n - p.kw) / p.sw + 1;
        const std::uint64_t chunks = (onW + p.lanes - 1) / p.lanes;
        const std::uint64_t sl = (std::uint64_t{p.lanes} * (chunks + 1) * p.sw + p.sw) * p.elem;
        return alignUp(p.channels * n * n * p.elem + sl, 128) +
               alignUp(onH * onW * p.maxFiltersPerCore() * p.elem, 128);
    };
    // The largest n in [K, 2^16] whose need fits the AM, else 0; needs grow with n: a bisection
    // (a walk n by n cost a 1-channel layer's plan 65,536 steps).
    const auto largestFitting = [&](auto need) -> std::uint32_t {
        const std::uint64_t smallest = std::max(p.kh, p.kw);
        if (need(smallest) > amSize)
            return 0;
        std::uint64_t lo = smallest, hi = std::uint64_t{1} << 16;
        while (lo < hi) {
            const std::uint64_t mid = lo + (hi - lo + 1) / 2;
            if (need(mid) <= amSize)
                lo = mid;
            else
                hi = mid - 1;
        }
        return static_cast<std::uint32_t>(lo);
    };
    p.largestResidentMap = largestFitting(residentNeed);
    auto streamedNeed = [&](std::uint64_t n) {
        const std::uint64_t on = (n - p.kw) / p.sw + 1;
        const std::uint64_t chunks = (on + p.lanes - 1) / p.lanes;
        const std::uint64_t sl = (std::uint64_t{p.lanes} * (chunks + 1) * p.sw + p.sw) * p.elem;
        return 2 * (alignUp(std::uint64_t{p.channels} * p.kh * n * p.elem + sl, 128) +
                    alignUp(on * p.maxFiltersPerCore() * p.elem, 128));
    };
    p.largestStreamedMap = largestFitting(streamedNeed);
    MemoryLayout layout(*memories.am, 128);
    if (p.doubleBuffer) {
        p.inPlaneStride = ((std::uint64_t{rows} - 1) * p.sh + p.kh) * inRow;
        const std::uint64_t inBytes = p.groupChannels * p.inPlaneStride + slack;
        for (unsigned i = 0; i < 2; ++i) {
            p.inBuf[i] = layout.allocate(fmt::format("input block {}", i), inBytes);
            p.outBuf[i] = layout.allocate(fmt::format("output block {}", i), rows * outRows);
        }
        p.outFilterStride = std::uint64_t{rows} * p.wo * p.elem;
    } else {
        p.inPlaneStride = std::uint64_t{p.hp()} * inRow;
        p.inBuf[0] = layout.allocate("input map", p.channels * p.inPlaneStride + slack);
        p.outBuf[0] = layout.allocate("output maps", std::uint64_t{p.ho} * outRows);
        p.outFilterStride = std::uint64_t{p.ho} * p.wo * p.elem;
    }
    std::uint32_t fetched = 0;  // resident: input rows already requested
    const auto passesPerChannel = static_cast<std::uint32_t>(p.passes.size() / p.channels);
    for (std::uint32_t r0 = 0, rowBlock = 0; r0 < p.ho; r0 += rows, ++rowBlock)
        for (unsigned c0 = 0; c0 < p.channels; c0 += p.groupChannels) {
            Block b;
            b.c0 = c0;
            b.c1 = std::min(p.channels, c0 + p.groupChannels);
            b.firstPass = c0 * passesPerChannel;
            b.passCount = (b.c1 - b.c0) * passesPerChannel;
            b.rowBlock = rowBlock;
            b.firstGroup = c0 == 0;
            b.lastGroup = b.c1 == p.channels;
            b.r0 = r0;
            b.r1 = std::min(p.ho, r0 + rows);
            b.in0 = r0 * p.sh;
            b.inRows = (b.r1 - b.r0 - 1) * p.sh + p.kh;
            const unsigned index = static_cast<unsigned>(p.blocks.size());
            if (p.doubleBuffer) {
                b.fetch0 = b.in0;
                b.fetchRows = b.inRows;
                b.inAddr = b.fetchAddr = p.inBuf[index % 2];
                b.outAddr = p.outBuf[rowBlock % 2];
                b.tag = kInputTag + index % 2;
            } else {
                // The vectors of the block's last row read up to `slack` bytes from the row's start:
                // the rows they reach past it come with the block's own transfer, not with the next
                // block's, which is still in flight.
                const std::uint64_t past = slack > inRow ? slack - inRow : 0;
                const auto overRead = static_cast<std::uint32_t>((past + inRow - 1) / inRow);
                const std::uint32_t through =
                    std::max(fetched, std::min(p.hp(), b.in0 + b.inRows + overRead));
                b.fetch0 = fetched;
                b.fetchRows = through - fetched;
                fetched = through;
                b.inAddr = p.inBuf[0] + std::uint64_t{b.in0} * inRow;
                b.fetchAddr = p.inBuf[0] + std::uint64_t{b.fetch0} * inRow;
                b.outAddr = p.outBuf[0] + std::uint64_t{b.r0} * p.wo * p.elem;
                b.tag = kResidentTagBase + index;
            }
            const std::uint32_t lo = std::max(b.fetch0, p.padH);  // padded coordinates
            const std::uint32_t hi = std::min(b.fetch0 + b.fetchRows, p.padH + p.h);
            b.realRows = hi > lo ? hi - lo : 0;
            b.real0 = hi > lo ? lo - p.padH : 0;
            p.blocks.push_back(b);
        }
    p.amBytes = layout.end();
    placeInDdr(p, readDdrOffset(pl));
    pl.finish();
    auto made = std::make_unique<ShuffleConvKernel>(std::move(p));
    made->echoFrom(w, pl);
    return made;
}

}  // namespace tessim
