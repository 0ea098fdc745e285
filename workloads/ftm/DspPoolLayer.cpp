#include "workloads/ftm/DspPoolLayer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/DmaOps.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/Slices.h"
#include "workloads/common/TestData.h"
#include "workloads/common/VectorOps.h"
#include "workloads/conv/RvvVectorLayers.h"
#include "workloads/ftm/ConvCoreStream.h"
#include "workloads/ftm/DspConvProblem.h"
#include "workloads/ftm/DspLayerCommon.h"
#include "workloads/ftm/EngineUnits.h"
#include "workloads/ftm/ModuloLoop.h"

namespace tessim {
namespace {
// Named as well, so that the unity build may put this file beside the other vector-DSP kernels.
namespace dsp_pool {

constexpr unsigned kMaxTapsPerPass = 16;        // taps one loop body combines; more run in passes
constexpr unsigned kMemoryLatency = 2;          // cycles the AM adds to a load (assumption, as the target)
constexpr std::uint8_t kNeutralReg = 0;         // −∞ (max) or 0 (sum), combined in for padding taps
constexpr unsigned kFirstRotating = 1;          // the loop's rotating registers from here
constexpr std::uint64_t kSalt = 21;             // test data of the input
constexpr std::uint32_t kMinBlocksPerCore = 4;  // blocks of output rows, so that DMA overlaps the loop

enum class Role { Partial, Load, Combine, Reciprocal, Scale, Store, Count, Compare, Branch };
struct BodyOp {
    Role role;
    unsigned t = 0;  // tap within the pass
};

struct PoolPass {
    unsigned t0 = 0, taps = 0;
};

// The loop of one pass: `taps` taps, after a partial result (partial) and before the scaling by
// the reciprocal of the window's taps (scale).
struct PoolBody {
    unsigned taps = 0;
    bool partial = false, scale = false;
    std::vector<BodyOp> ops;
    ModuloSchedule schedule;
    std::vector<unsigned> copies, base;
    std::vector<std::vector<unsigned>> byResidue;
    unsigned registers = 0;
};

struct PoolBlock {
    std::uint32_t r0 = 0, r1 = 0;       // output rows
    std::uint32_t in0 = 0, inRows = 0;  // input rows they read (inside the map)
};

struct DspPoolParams {
    RvvVectorLayer layer;
    DType dtype = DType::F32;
    std::string modelDtype;
    unsigned elem = 4;
    VliwVectorUnits units;
    std::vector<std::string> engines;
    std::vector<Slice> channels;  // of each core
    // Split by output rows (every core all channels, a band of rows each) or by channels (every
    // core every row): see build().
    bool byRows = false;
    std::uint8_t am = 0, ddr = 0;
    std::uint64_t ddrIn = 0, ddrOut = 0;
    std::uint64_t inBuf[2] = {0, 0}, outBuf[2] = {0, 0}, amBytes = 0;
    std::uint32_t blockRows = 0;
    std::vector<std::vector<PoolBlock>> blocks;  // of each core
    std::vector<PoolPass> passes;
    std::vector<PoolBody> bodies;  // one per pass

    const ConvShape& s() const { return layer.s; }
    unsigned cores() const { return static_cast<unsigned>(engines.size()); }
    bool average() const { return !layer.maximum(); }
    std::uint64_t strips(unsigned core) const {
        return (channels[core].count + units.lanes - 1) / units.lanes;
    }
};

PoolBody buildBody(const DspPoolParams& p, unsigned taps, bool partial, bool scale) {
    PoolBody b;
    b.taps = taps;
    b.partial = partial;
    b.scale = scale;
    const VliwVectorUnits& u = p.units;
    std::vector<ModuloOp> mops;
    enum Unit : unsigned { Fmac, Lsu, Bcast, Salu, Bru };
    auto add = [&](BodyOp op, unsigned unit) {
        b.ops.push_back(op);
        ModuloOp m;
        m.resource = unit;
        m.slot = unit == Bcast ? u.broadcastSlot : unit == Salu || unit == Bru ? 1 : 0;
        mops.push_back(m);
        return static_cast<unsigned>(b.ops.size() - 1);
    };
    const unsigned loadLatency = u.loadLatency + kMemoryLatency;
    unsigned acc = 0;
    if (partial)
        acc = add({Role::Partial, 0}, Lsu);
    for (unsigned t = 0; t < taps; ++t) {
        const unsigned load = add({Role::Load, t}, Lsu);
        const unsigned combine = add({Role::Combine, t}, Fmac);
        mops[combine].after.push_back({load, loadLatency, 0});
        if (t > 0)
            mops[combine].after.push_back({acc, u.fmaLatency, 0});
        else if (partial)
            mops[combine].after.push_back({acc, loadLatency, 0});
        acc = combine;
    }
    if (scale) {
        const unsigned reciprocal = add({Role::Reciprocal, 0}, Bcast);
        const unsigned s = add({Role::Scale, 0}, Fmac);
        mops[s].after.push_back({acc, u.fmaLatency, 0});
        mops[s].after.push_back({reciprocal, u.broadcastLatency, 0});
        acc = s;
    }
    const unsigned store = add({Role::Store, 0}, Lsu);
    mops[store].after.push_back({acc, u.fmaLatency, 0});
    const unsigned count = add({Role::Count, 0}, Salu);
    const unsigned compare = add({Role::Compare, 0}, Salu);
    const unsigned branch = add({Role::Branch, 0}, Bru);
    chainLoopControl(mops, count, compare, branch);
    b.schedule =
        moduloSchedule(mops, {{u.fmacs, u.lsus, std::max(1u, u.broadcasters), u.scalarAlus, u.branchUnits},
                              {u.vectorSlots, u.scalarSlots}});
    const std::vector<unsigned> lastUse = lastUses(mops, b.schedule);
    b.copies.assign(b.ops.size(), 0);
    b.base.assign(b.ops.size(), 0);
    unsigned next = kFirstRotating;
    for (std::size_t j = 0; j < b.ops.size(); ++j) {
        const Role r = b.ops[j].role;
        if (r != Role::Store && r != Role::Count && r != Role::Compare && r != Role::Branch)
            allocateRotating(b.schedule, static_cast<unsigned>(j), lastUse[j], b.copies, b.base, next);
    }
    b.registers = next;
    b.byResidue = opsByResidue(b.schedule, b.ops.size());
    return b;
}

class DspPoolStream : public ConvCoreStream {
public:
    DspPoolStream(const DspPoolParams& p, unsigned core)
        : ConvCoreStream(core, p.blocks[core].size(), p.channels[core].count > 0 ? 1 : 0, p.passes.size()),
          p_(p) {}

private:
    std::uint64_t cc() const { return p_.channels[core_].count; }
    void fetch(std::vector<Op>& out, std::size_t b) const {
        const PoolBlock& blk = p_.blocks[core_][b];
        const ConvShape& s = p_.s();
        const auto pixels = static_cast<std::uint32_t>(std::uint64_t{blk.inRows} * s.w);
        const std::uint64_t first =
            (std::uint64_t{blk.in0} * s.w * s.channels + p_.channels[core_].first) * p_.elem;
        out.push_back(
            bundleStart(dmaCopy(kInputTag + b % 2, 0, pixelRuns(pixels),
                                {p_.ddr, p_.ddrIn + first, static_cast<std::int64_t>(s.channels * p_.elem)},
                                {p_.am, p_.inBuf[b % 2], static_cast<std::int64_t>(cc() * p_.elem)})));
    }
    void start(std::vector<Op>& out) override {
        Op neutral = vectorOp(OpKind::Broadcast, p_.dtype, p_.units.lanes);
        neutral.dst = kNeutralReg;
        // −∞ for a max, the type's least value in an integer type (INT8 −128).
        neutral.imm = p_.average()                    ? 0.0
                      : dtypeName(p_.dtype)[0] == 'i' ? -std::ldexp(1.0, 8 * int(p_.elem) - 1)
                                                      : -std::numeric_limits<double>::infinity();
        out.push_back(bundleStart(neutral));
        if (cc() > 0)
            fetch(out, 0);
    }
    void blockHead(std::vector<Op>& out) override {
        out.push_back(bundleStart(dmaWait(kInputTag + block_ % 2)));
        if (block_ + 1 < p_.blocks[core_].size())
            fetch(out, block_ + 1);
        if (block_ >= 2)  // this block's output buffer: block − 2's write-back has left it
            out.push_back(bundleStart(dmaWait(kOutputTag + block_ % 2)));
    }
    void beginLoop(std::vector<Op>& out) override {
        const PoolBlock& blk = p_.blocks[core_][block_];
        body_ = &p_.bodies[pass_];
        startLoop(out, body_->schedule, body_->byResidue,
                  std::uint64_t{blk.r1 - blk.r0} * p_.s().outW() * p_.strips(core_));
    }
    // `pixels` pixels of this core's channels: one run each, or with every channel one run of all
    // (the pixels lie back to back in DDR as in the AM).
    DmaBlock pixelRuns(std::uint32_t pixels) const {
        if (cc() == p_.s().channels)
            return {static_cast<std::uint32_t>(pixels * cc() * p_.elem), 1, 1};
        return {static_cast<std::uint32_t>(cc() * p_.elem), pixels, 1};
    }
    std::uint8_t reg(unsigned j, std::uint64_t i) const {
        return static_cast<std::uint8_t>(body_->base[j] + i % body_->copies[j]);
    }
    unsigned find(Role role, unsigned t) const {
        for (std::size_t n = 0; n < body_->ops.size(); ++n)
            if (body_->ops[n].role == role && body_->ops[n].t == t)
                return static_cast<unsigned>(n);
        return 0;
    }
    // Input row and column of tap `tap` of output pixel (oy, ox), or false over the padding.
    bool tapAt(std::uint32_t oy, std::uint32_t ox, unsigned tap, std::uint32_t& iy, std::uint32_t& ix) const {
        const ConvShape& s = p_.s();
        const std::int64_t y = std::int64_t{oy} * s.strideH - s.padH + tap / s.kw;
        const std::int64_t x = std::int64_t{ox} * s.strideW - s.padW + tap % s.kw;
        if (y < 0 || y >= s.h || x < 0 || x >= s.w)
            return false;
        iy = static_cast<std::uint32_t>(y);
        ix = static_cast<std::uint32_t>(x);
        return true;
    }
    bool materialise(unsigned j, std::uint64_t i, Op& op) const override {
        const BodyOp& b = body_->ops[j];
        switch (b.role) {
        case Role::Count: op = loopCount(); return true;
        case Role::Compare: op = loopCompare(iterations_); return true;
        case Role::Branch: op = loopBranch(i, iterations_); return true;
        default: break;
        }
        const ConvShape& s = p_.s();
        const PoolBlock& blk = p_.blocks[core_][block_];
        const std::uint64_t strips = p_.strips(core_), q = i / strips, st = i % strips;
        const auto oy = static_cast<std::uint32_t>(blk.r0 + q / s.outW());
        const auto ox = static_cast<std::uint32_t>(q % s.outW());
        const std::uint64_t c0 = st * p_.units.lanes;
        const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.units.lanes, cc() - c0));
        const std::uint64_t outAt = p_.outBuf[block_ % 2] + (q * cc() + c0) * p_.elem;
        const PoolPass& pass = p_.passes[pass_];
        std::uint32_t iy = 0, ix = 0;
        switch (b.role) {
        case Role::Partial: op = vectorLoad(p_.dtype, reg(j, i), p_.am, outAt, vl); return true;
        case Role::Load:
            if (!tapAt(oy, ox, pass.t0 + b.t, iy, ix))
                return false;
            op = vectorLoad(
                p_.dtype, reg(j, i), p_.am,
                p_.inBuf[block_ % 2] + ((std::uint64_t{iy - blk.in0} * s.w + ix) * cc() + c0) * p_.elem, vl);
            return true;
        case Role::Combine: {
            op = vectorOp(p_.average() ? OpKind::Add : OpKind::Max, p_.dtype, vl);
            op.dst = reg(j, i);
            op.src[0] = b.t > 0          ? reg(find(Role::Combine, b.t - 1), i)
                        : body_->partial ? reg(find(Role::Partial, 0), i)
                                         : kNeutralReg;
            op.src[1] = tapAt(oy, ox, pass.t0 + b.t, iy, ix) ? reg(find(Role::Load, b.t), i) : kNeutralReg;
            return true;
        }
        case Role::Reciprocal: {
            std::uint64_t taps = 0;
            forEachInputTap(s, std::uint64_t{oy} * s.outW() + ox,
                            [&](std::uint64_t, std::uint64_t) { ++taps; });
            op = vectorOp(OpKind::Broadcast, p_.dtype, vl);
            op.dst = reg(j, i);
            op.imm = 1.0 / static_cast<double>(taps);
            return true;
        }
        case Role::Scale:
            op = vectorOp(OpKind::Mul, p_.dtype, vl);
            op.dst = reg(j, i);
            op.src[0] = reg(find(Role::Combine, body_->taps - 1), i);
            op.src[1] = reg(find(Role::Reciprocal, 0), i);
            return true;
        case Role::Store: {
            const unsigned last = body_->scale ? find(Role::Scale, 0) : find(Role::Combine, body_->taps - 1);
            op = vectorStore(p_.dtype, reg(last, i), p_.am, outAt, vl);
            return true;
        }
        default: return false;
        }
    }
    void writeBack(std::vector<Op>& out) override {
        const PoolBlock& blk = p_.blocks[core_][block_];
        const ConvShape& s = p_.s();
        const auto pixels = static_cast<std::uint32_t>(std::uint64_t{blk.r1 - blk.r0} * s.outW());
        const std::uint64_t first =
            (std::uint64_t{blk.r0} * s.outW() * s.channels + p_.channels[core_].first) * p_.elem;
        // The loop's stores drain before the DMA reads what they stored.
        out.push_back(bundleStart(fenceOp()));
        out.push_back(bundleStart(
            dmaCopy(kOutputTag + block_ % 2, 2, pixelRuns(pixels),
                    {p_.am, p_.outBuf[block_ % 2], static_cast<std::int64_t>(cc() * p_.elem)},
                    {p_.ddr, p_.ddrOut + first, static_cast<std::int64_t>(s.channels * p_.elem)})));
    }

    const DspPoolParams& p_;
    const PoolBody* body_ = nullptr;
};

class DspPoolWorkload : public ConfiguredWorkload {
public:
    explicit DspPoolWorkload(DspPoolParams p) : p_(std::move(p)) {}

    std::vector<EngineStream> streams() override { return streamPerCore<DspPoolStream>(p_); }
    bool formsBundles() const override { return true; }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        return {{"ddr", (p_.layer.inputs() + p_.layer.outputs()) * p_.elem}};
    }
    void initialise(FunctionalMemory& memory) override {
        writeTestValues(memory, p_.ddr, p_.ddrIn, p_.layer.inputs(), p_.dtype, kSalt);
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        return checkVectorLayerOutputs(memory, p_.layer, p_.dtype, p_.ddr, p_.ddrOut, kSalt, 0);
    }

protected:
    void deriveWorkload(nlohmann::ordered_json& j) const override {
        deriveVectorLayerWorkload(j, p_.layer, p_.dtype, p_.modelDtype);
    }
    void derivePlan(nlohmann::ordered_json& j) const override {
        j["strategy"] = "vector";
        j["cores"] = p_.cores();
        j["engines"] = p_.engines;
        j["split"] = p_.byRows ? "rows" : "channels";
        j["block_rows"] = p_.blockRows;
        j["passes"] = p_.passes.size();
    }

private:
    DspPoolParams p_;
};

std::unique_ptr<Workload> build(const config::Node& layer, const config::Node& plan,
                                const TargetInfo& target) {
    DspPoolParams p;
    config::Reader w = workloadReader(layer);
    const std::string op = w.oneOf("op", {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"});
    p.layer = readVectorLayer(w, op);
    std::string stated;
    p.modelDtype = readDspLayerModelDtype(w, stated);
    w.finish();
    const ConvShape& s = p.layer.s;

    PlanReader planReader(plan);
    config::Reader& pl = planReader.reader;
    const DspLayerMachine machine = dspLayerMachine(pl, w, target, p.layer, p.modelDtype, stated, "pooling");
    const std::vector<const EngineInfo*>& engines = machine.engines;
    const std::uint64_t ddrOffset = readDdrOffset(pl);
    p.dtype = machine.dtype;
    p.elem = dtypeBytes(p.dtype);
    p.units = machine.units;
    // Passes of at most kMaxTapsPerPass taps, fewer where their registers do not fit.
    const auto taps = static_cast<unsigned>(s.taps());
    for (unsigned per = std::min(kMaxTapsPerPass, taps); per >= 1; per = per / 2) {
        p.passes.clear();
        p.bodies.clear();
        bool fits = true;
        for (unsigned t0 = 0; t0 < taps && fits; t0 += per) {
            p.passes.push_back({t0, std::min(per, taps - t0)});
            p.bodies.push_back(buildBody(p, p.passes.back().taps, t0 > 0, p.average() && t0 + per >= taps));
            fits = p.bodies.back().registers <= p.units.vectorRegisters;
        }
        if (fits)
            break;
        if (per == 1)
            pl.fail("engine",
                    fmt::format("a one-tap pass needs more than the {} vector registers",
                                p.units.vectorRegisters),
                    config::Shortfall::Registers);
    }

    const MemorySpaceInfo* am = machine.local;
    p.am = am->id;
    p.ddr = machine.ddr->id;
    const std::uint64_t amSize = machine.localSize;

    // How the cores share the work: by bands of output rows, every core every channel (its input
    // rows lie back to back in DDR: one DMA run per block), wherever there is a row for each core;
    // else by channels (as many cores as have a channel each, every core every row: a DMA run per
    // pixel of its channels' few bytes, which cost 1.5–13× the time where both were possible, from
    // a 64-channel 112×112 max pool to a 6-channel 28×28 average). plan.split overrides.
    const std::string split = pl.oneOf("split", {"auto", "channels", "rows"}, std::string("auto"));
    p.byRows = split == "rows" || (split == "auto" && s.outH() >= engines.size());
    const auto cores = static_cast<unsigned>(
        std::min<std::uint64_t>(engines.size(), p.byRows ? s.outH() : std::uint64_t{s.channels}));
    for (unsigned c = 0; c < cores; ++c)
        p.engines.push_back(engines[c]->name);
    const std::vector<Slice> bands =
        p.byRows ? contiguousSlices(s.outH(), cores, 1) : std::vector<Slice>(cores, Slice{0, s.outH()});
    p.channels =
        p.byRows ? std::vector<Slice>(cores, Slice{0, s.channels}) : contiguousSlices(s.channels, cores, 1);
    // The buffers hold the most channels any core has (6 channels on 4 cores are 1, 1, 2, 2).
    const std::uint64_t widest = largestSlice(p.channels), tallest = largestSlice(bands);
    // Input rows a block of n output rows reads, inside the map.
    auto inRows = [&](std::uint32_t r0, std::uint32_t r1) {
        const std::int64_t first = std::max<std::int64_t>(0, std::int64_t{r0} * s.strideH - s.padH);
        const std::int64_t last =
            std::min<std::int64_t>(s.h, std::int64_t{r1 - 1} * s.strideH - s.padH + s.kh);
        return std::pair<std::uint32_t, std::uint32_t>{
            static_cast<std::uint32_t>(first),
            static_cast<std::uint32_t>(std::max<std::int64_t>(0, last - first))};
    };
    auto need = [&](std::uint32_t n) {
        const std::uint64_t in = std::uint64_t{(n - 1) * s.strideH + s.kh} * s.w * widest * p.elem;
        const std::uint64_t out = std::uint64_t{n} * s.outW() * widest * p.elem;
        return 2 * (alignUp(in, 128) + alignUp(out, 128));
    };
    std::uint32_t rows = 0;
    while (rows < tallest && need(rows + 1) <= amSize)
        ++rows;
    if (rows == 0)
        pl.fail(
            "engine",
            fmt::format("two blocks of one output row need {} B of AM, which holds {} B", need(1), amSize),
            config::Shortfall::Capacity);
    p.blockRows = std::min(
        rows, std::max<std::uint32_t>(
                  1, static_cast<std::uint32_t>((tallest + kMinBlocksPerCore - 1) / kMinBlocksPerCore)));
    p.blocks.resize(cores);
    for (unsigned c = 0; c < cores; ++c)
        for (auto r0 = static_cast<std::uint32_t>(bands[c].first); r0 < bands[c].first + bands[c].count;
             r0 += p.blockRows) {
            PoolBlock b;
            b.r0 = r0;
            b.r1 = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(bands[c].first + bands[c].count, r0 + p.blockRows));
            std::tie(b.in0, b.inRows) = inRows(b.r0, b.r1);
            p.blocks[c].push_back(b);
        }
    MemoryLayout layout(*am, 128);
    for (unsigned i = 0; i < 2; ++i) {
        p.inBuf[i] =
            layout.allocate(fmt::format("input block {}", i),
                            std::uint64_t{(p.blockRows - 1) * s.strideH + s.kh} * s.w * widest * p.elem);
        p.outBuf[i] = layout.allocate(fmt::format("output block {}", i),
                                      std::uint64_t{p.blockRows} * s.outW() * widest * p.elem);
    }
    p.amBytes = layout.end();
    p.ddrIn = alignUp(ddrOffset, 4096);
    p.ddrOut = alignUp(p.ddrIn + p.layer.inputs() * p.elem, 4096);
    auto made = std::make_unique<DspPoolWorkload>(std::move(p));
    made->echoFrom(w, pl);
    return made;
}

}  // namespace dsp_pool
}  // namespace

std::unique_ptr<Workload> makeDspPoolLayer(const config::Node& layer, const config::Node& plan,
                                           const TargetInfo& target) {
    return dsp_pool::build(layer, plan, target);
}

}  // namespace tessim
