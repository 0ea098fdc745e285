// The im2col baseline on a vector DSP (kernel conv2d, plan strategy im2col): the DMA gathers the
// expanded matrix X (row e = (ky, kx) holds the input element each output reads through kernel
// element e) from DDR into the AM; a GEMM on the VPU then computes each output vector as
// Σ_e X[e] · w[e], the kernel element a scalar operand broadcast to every lane. The expansion
// costs K²·Ho·Wo elements of DDR reads and AM storage instead of H·W. Expanded blocks of output
// rows are double-buffered when the whole matrix does not fit; several cores own different
// filters and receive every block by multicast.
#include "workloads/ftm/Im2colConvKernel.h"

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
#include "workloads/ftm/ZeroStores.h"

namespace tessim {
namespace {

constexpr unsigned kMaxKernelRegs = 48;  // scalar registers that hold kernel elements in one pass
constexpr unsigned kMaxUnroll = 8;
constexpr unsigned kMemoryLatency = 2;  // cycles the AM adds to a load (assumption, as the target)
constexpr std::uint32_t kMapTag = 8;    // the input map into the AM (expansion from the AM)

enum class Role { Load, Partial, Fma, Store, Count, Compare, Branch };

bool isControl(Role r) {
    return r == Role::Count || r == Role::Compare || r == Role::Branch;
}
struct GemmOp {
    Role role;
    unsigned u = 0, e = 0;  // chunk, kernel element within the pass
};

struct GemmBody {
    unsigned ne = 0, unroll = 0;
    std::vector<GemmOp> ops;
    ModuloSchedule schedule;
    std::vector<unsigned> copies, base, owner;  // owner: the op whose register an op writes
    std::vector<std::vector<unsigned>> byResidue;
    unsigned registers = 0;
};

struct Pass {
    unsigned e0 = 0, ne = 0;
};

struct Block {
    std::uint32_t r0 = 0, r1 = 0;
};

struct Im2colParams : DspConvProblem {
    unsigned lanes = 16;
    std::uint8_t am = 0, group = 0;
    unsigned fmaLatency = 4, loadLatency = 1, fmacs = 3, lsus = 2, vectorSlots = 6, vectorRegisters = 64;
    unsigned scalarAlus = 1, branchUnits = 1, scalarSlots = 5;
    std::vector<Pass> passes;
    std::vector<GemmBody> bodies;
    std::vector<Block> blocks;
    bool doubleBuffer = false;
    bool fromAm = false;            // expand from the input map held in the AM, else gather from DDR
    ScalarDataMemory scalarMemory;  // where the kernel elements are loaded from
    std::uint64_t mapAm = 0;
    std::uint32_t blockRows = 0;
    std::uint64_t xBuf[2] = {0, 0}, outBuf[2] = {0, 0}, amBytes = 0;

    std::uint64_t rows() const { return coefficientsPerFilter(); }  // rows of the expanded matrix
    std::uint64_t expandedElements() const { return rows() * ho * wo; }
    // Output rows r with r·sh + ky − padH in [0, h): [firstRow(ky), lastRow(ky)); the columns
    // likewise along w.
    static std::uint32_t first(std::uint32_t offset, std::uint32_t s, std::uint32_t pad) {
        return offset >= pad ? 0 : (pad - offset + s - 1) / s;
    }
    static std::uint32_t last(std::uint32_t offset, std::uint32_t size, std::uint32_t outs, std::uint32_t s,
                              std::uint32_t pad) {
        return std::min<std::uint32_t>(outs, (size + pad - offset + s - 1) / s);
    }
    std::uint32_t firstRow(std::uint32_t ky) const { return first(ky, sh, padH); }
    std::uint32_t lastRow(std::uint32_t ky) const { return last(ky, h, ho, sh, padH); }
    std::uint32_t firstColumn(std::uint32_t kx) const { return first(kx, sw, padW); }
    std::uint32_t lastColumn(std::uint32_t kx) const { return last(kx, w, wo, sw, padW); }
    // Expanded elements that come from the map (the rest is padding: zeros).
    std::uint64_t mapElements() const {
        std::uint64_t n = 0;
        for (std::uint32_t ky = 0; ky < kh; ++ky)
            for (std::uint32_t kx = 0; kx < kw; ++kx) {
                const std::uint32_t r0 = firstRow(ky), r1 = lastRow(ky), o0 = firstColumn(kx),
                                    o1 = lastColumn(kx);
                n += std::uint64_t{r1 > r0 ? r1 - r0 : 0} * (o1 > o0 ? o1 - o0 : 0);
            }
        return n * channels;
    }
    const GemmBody& body(unsigned ne) const {
        for (const auto& b : bodies)
            if (b.ne == ne)
                return b;
        return bodies.front();
    }
};

GemmBody buildBody(const Im2colParams& p, unsigned ne, unsigned unroll, bool partial) {
    GemmBody b;
    b.ne = ne;
    b.unroll = unroll;
    std::vector<ModuloOp> mops;
    enum Unit : unsigned { Fmac, Lsu, Salu, Bru };
    auto add = [&](GemmOp op, unsigned unit) {
        b.ops.push_back(op);
        ModuloOp m;
        m.resource = unit;
        m.slot = unit == Salu || unit == Bru ? 1 : 0;
        mops.push_back(m);
        return static_cast<unsigned>(b.ops.size() - 1);
    };
    const unsigned loadLatency = p.loadLatency + kMemoryLatency;
    // Per chunk: the accumulator chain over the pass's kernel elements; each expanded row is loaded
    // just before the FMA two steps back has issued, so loads do not run ahead and hold registers.
    for (unsigned u = 0; u < unroll; ++u) {
        std::vector<unsigned> fmas;
        unsigned prev = 0;
        if (partial)
            prev = add({Role::Partial, u, 0}, Lsu);
        for (unsigned e = 0; e < ne; ++e) {
            unsigned load = add({Role::Load, u, e}, Lsu);
            if (e >= 2)
                mops[load].after.push_back({fmas[e - 2], 0, 0});
            unsigned f = add({Role::Fma, u, e}, Fmac);
            mops[f].after.push_back({load, loadLatency, 0});
            if (e > 0 || partial)
                mops[f].after.push_back({prev, e > 0 ? p.fmaLatency : loadLatency, 0});
            fmas.push_back(f);
            prev = f;
        }
        unsigned st = add({Role::Store, u, 0}, Lsu);
        mops[st].after.push_back({prev, p.fmaLatency, 0});
    }
    // Loop control in the scalar slots: counter, compare with the trip count, back-edge branch.
    const unsigned count = add({Role::Count, 0, 0}, Salu);
    const unsigned compare = add({Role::Compare, 0, 0}, Salu);
    const unsigned branch = add({Role::Branch, 0, 0}, Bru);
    chainLoopControl(mops, count, compare, branch);
    b.schedule =
        moduloSchedule(mops, {{p.fmacs, p.lsus, std::max(1u, p.scalarAlus), std::max(1u, p.branchUnits)},
                              {p.vectorSlots, std::max(1u, p.scalarSlots)}});
    // Registers: each load, and each chunk's accumulator (from its opener to its store), rotate.
    b.owner.assign(b.ops.size(), 0);
    b.copies.assign(b.ops.size(), 0);
    b.base.assign(b.ops.size(), 0);
    std::vector<unsigned> lastUse(b.ops.size(), 0);
    unsigned accOwner = 0;
    for (std::size_t j = 0; j < b.ops.size(); ++j) {
        const GemmOp& o = b.ops[j];
        if (o.role == Role::Load || isControl(o.role)) {
            b.owner[j] = static_cast<unsigned>(j);
        } else if (o.role == Role::Partial || (o.role == Role::Fma && o.e == 0 && !partial)) {
            accOwner = static_cast<unsigned>(j);
            b.owner[j] = accOwner;
        } else {
            b.owner[j] = accOwner;
        }
        for (const auto& d : mops[j].after)
            lastUse[b.owner[d.from]] = std::max(lastUse[b.owner[d.from]], b.schedule.start[j]);
    }
    unsigned next = 0;
    for (std::size_t j = 0; j < b.ops.size(); ++j) {
        if (b.owner[j] != j || isControl(b.ops[j].role))
            continue;
        allocateRotating(b.schedule, static_cast<unsigned>(j), lastUse[j], b.copies, b.base, next);
    }
    b.registers = next;
    b.byResidue = opsByResidue(b.schedule, b.ops.size());
    return b;
}

GemmBody planBody(const Im2colParams& p, unsigned ne, unsigned requested, bool partial, unsigned chunks,
                  const config::Reader& pl) {
    GemmBody best;
    bool found = false;
    const unsigned first = requested > 0 ? requested : 1;
    const unsigned last = requested > 0 ? requested : std::max(1u, std::min(kMaxUnroll, chunks));
    for (unsigned u = first; u <= last; ++u) {
        GemmBody b = buildBody(p, ne, u, partial);
        if (b.registers > p.vectorRegisters)
            break;
        if (!found || static_cast<double>(u) / b.schedule.ii >
                          static_cast<double>(best.unroll) / best.schedule.ii + 1e-12) {
            best = std::move(b);
            found = true;
        }
    }
    if (!found)
        pl.fail("unroll", fmt::format("unroll {} does not fit {} vector registers", first, p.vectorRegisters),
                config::Shortfall::Registers);
    return best;
}

// planBody, once per distinct set of the figures it depends on (layers of one shape plan once).
GemmBody cachedPlanBody(const Im2colParams& p, unsigned ne, unsigned requested, bool partial, unsigned chunks,
                        const config::Reader& pl) {
    using Key = std::array<unsigned, 13>;
    static PlanMemo<Key, GemmBody> memo;
    const Key key{ne,
                  requested,
                  partial,
                  std::max(1u, std::min(kMaxUnroll, chunks)),
                  p.fmacs,
                  p.lsus,
                  p.scalarAlus,
                  p.branchUnits,
                  p.vectorSlots,
                  p.scalarSlots,
                  p.fmaLatency,
                  p.loadLatency,
                  p.vectorRegisters};
    return memo.get(key, [&] { return planBody(p, ne, requested, partial, chunks, pl); });
}

class Im2colStream : public ConvCoreStream {
public:
    Im2colStream(const Im2colParams& p, unsigned core)
        : ConvCoreStream(core, p.blocks.size(), p.filtersOf(core), p.passes.size()), p_(p) {}

private:
    static Op bundle(Op op) { return bundleStart(op); }
    // A vector register of zeros for the padding, outside the loops (which own every register).
    static constexpr std::uint8_t kZeroReg = 0;
    std::uint64_t blockColumns(const Block& b) const { return std::uint64_t{b.r1 - b.r0} * p_.wo; }
    // The expanded rows of block b: one DMA per kernel element, gathering its shifted window.
    // Expanded row e of block b: its output rows [r0, r1) and columns [o0, o1) that read the map
    // (the rest is padding).
    struct Window {
        std::uint32_t r0, r1, o0, o1;
        bool empty() const { return r1 <= r0 || o1 <= o0; }
    };
    Window window(const Block& blk, unsigned e) const {
        const unsigned ky = e / p_.kw % p_.kh, kx = e % p_.kw;
        Window v;
        v.r0 = std::max(blk.r0, p_.firstRow(ky));
        v.r1 = std::min(blk.r1, p_.lastRow(ky));
        v.o0 = p_.firstColumn(kx);
        v.o1 = p_.lastColumn(kx);
        return v;
    }
    void expand(std::vector<Op>& out, unsigned b) const {
        const Block& blk = p_.blocks[b];
        const std::uint64_t cols = blockColumns(blk);
        const std::uint64_t rowBytes = std::uint64_t{p_.w} * p_.elem;
        for (unsigned e = 0; e < p_.rows(); ++e) {
            const unsigned c = static_cast<unsigned>(e / p_.taps()), ky = e / p_.kw % p_.kh, kx = e % p_.kw;
            const Window v = window(blk, e);
            if (v.empty())
                continue;
            {
                const std::uint8_t from = p_.fromAm ? p_.am : p_.ddr;
                const std::uint64_t src =
                    (p_.fromAm ? p_.mapAm : p_.ddrIn) +
                    (std::uint64_t{c} * p_.h + std::uint64_t{v.r0} * p_.sh + ky - p_.padH) * rowBytes +
                    (std::uint64_t{v.o0} * p_.sw + kx - p_.padW) * p_.elem;
                const std::uint64_t dst = p_.xBuf[b % 2] + std::uint64_t{e} * cols * p_.elem +
                                          (std::uint64_t{v.r0 - blk.r0} * p_.wo + v.o0) * p_.elem;
                const std::uint32_t n = v.o1 - v.o0;
                Op op;
                // A row of the window is contiguous at column stride 1, else gathered element by element.
                if (p_.sw == 1)
                    op = dmaCopy(kInputTag + b % 2, 0, {n * p_.elem, v.r1 - v.r0, 1},
                                 {from, src, static_cast<std::int64_t>(p_.sh * rowBytes)},
                                 {p_.am, dst, static_cast<std::int64_t>(p_.wo * p_.elem)});
                else
                    op = dmaCopy(kInputTag + b % 2, 0, {p_.elem, n, v.r1 - v.r0},
                                 {from, src, static_cast<std::int64_t>(p_.sw * p_.elem),
                                  static_cast<std::int64_t>(p_.sh * rowBytes)},
                                 {p_.am, dst, static_cast<std::int64_t>(p_.elem),
                                  static_cast<std::int64_t>(p_.wo * p_.elem)});
                op.dma.group = p_.group;
                out.push_back(bundle(op));
            }
        }
    }
    // Zeros where expanded rows of block b read padding, written by each core into its own AM
    // with vector stores of a broadcast zero (no DMA from DDR): per row e, the output rows outside
    // its window whole, and in the window the columns left and right of it (one run per seam).
    void zeroPadding(std::vector<Op>& out, unsigned b) const {
        const Block& blk = p_.blocks[b];
        const std::uint64_t cols = blockColumns(blk);
        ZeroStores zeros(out, p_.dtype, p_.elem, p_.lanes, p_.am, kZeroReg);
        auto fill = [&](std::uint64_t at, std::uint64_t elements) { zeros.fill(at, elements); };
        for (unsigned e = 0; e < p_.rows(); ++e) {
            const std::uint64_t row = p_.xBuf[b % 2] + std::uint64_t{e} * cols * p_.elem;
            Window v = window(blk, e);
            if (v.empty()) {
                fill(row, cols);
                continue;
            }
            // Whole output rows above the window, then from the window's first left padding on.
            std::uint64_t at = std::uint64_t{v.r0 - blk.r0} * p_.wo;
            fill(row, at);
            for (std::uint32_t r = v.r0; r < v.r1; ++r) {
                const std::uint64_t left = std::uint64_t{r - blk.r0} * p_.wo;
                fill(row + at * p_.elem, left + v.o0 - at);
                at = left + v.o1;
            }
            fill(row + at * p_.elem, cols - at);
        }
    }
    void start(std::vector<Op>& out) override {
        const unsigned mine = fetchCoefficients(p_.scalarMemory, p_, core_, kWeightsTag, out);
        if (core_ == 0 && p_.fromAm) {
            const std::uint64_t bytes = std::uint64_t{p_.channels} * p_.h * p_.w * p_.elem;
            out.push_back(bundle(dmaCopy(kMapTag, 0, {static_cast<std::uint32_t>(bytes), 1, 1},
                                         {p_.ddr, p_.ddrIn}, {p_.am, p_.mapAm})));
            out.push_back(bundle(dmaWait(kMapTag)));
        }
        if (core_ == 0)
            expand(out, 0);
        if (p_.padded())
            zeroPadding(out, 0);
        if (mine > 0)
            out.push_back(bundle(dmaWait(kWeightsTag)));
    }
    void blockHead(std::vector<Op>& out) override {
        if (core_ == 0)
            out.push_back(bundle(dmaWait(kInputTag + block_ % 2)));
        if (p_.cores() > 1)
            out.push_back(bundle(
                syncOp(OpKind::Barrier, kBarrierBase + static_cast<std::uint32_t>(block_), p_.cores())));
        if (core_ == 0 && block_ + 1 < p_.blocks.size())
            expand(out, static_cast<unsigned>(block_ + 1));
        // This core's loops on the buffer of block + 1 (block − 1's) have ended: its padding.
        if (p_.padded() && block_ + 1 < p_.blocks.size())
            zeroPadding(out, static_cast<unsigned>(block_ + 1));
        if (block_ >= 2)
            out.push_back(bundle(dmaWait(kOutputTag + block_ % 2)));
    }
    std::uint64_t outAddr(unsigned fl) const {
        return p_.outBuf[block_ % 2] + std::uint64_t{fl} * p_.blockRows * p_.wo * p_.elem;
    }
    void writeBack(std::vector<Op>& out) override {
        const Block& blk = p_.blocks[block_];
        writeBackRows(out, p_, p_.am, blk.r0, blk.r1, outAddr(filter_), block_);
    }
    void beginLoop(std::vector<Op>& out) override {
        const Pass& pass = p_.passes[pass_];
        for (unsigned e = 0; e < pass.ne; ++e)
            out.push_back(coefficientLoad(p_.scalarMemory, p_, core_, filter_, pass.e0 + e,
                                          static_cast<std::uint8_t>(kScalarRegBase + e)));
        body_ = &p_.body(pass.ne);
        columns_ = blockColumns(p_.blocks[block_]);
        chunks_ = (columns_ + p_.lanes - 1) / p_.lanes;
        const std::uint64_t iterations = (chunks_ + body_->unroll - 1) / body_->unroll;
        startLoop(out, body_->schedule, body_->byResidue, iterations);
    }
    std::uint8_t reg(unsigned j, std::uint64_t i) const {
        const unsigned o = body_->owner[j];
        return static_cast<std::uint8_t>(body_->base[o] + i % body_->copies[o]);
    }
    bool materialise(unsigned j, std::uint64_t i, Op& op) const override {
        const GemmOp& g = body_->ops[j];
        switch (g.role) {
        case Role::Count: op = loopCount(); return true;
        case Role::Compare: op = loopCompare(iterations_); return true;
        case Role::Branch: op = loopBranch(i, iterations_); return true;
        default: break;
        }
        const std::uint64_t c = i * body_->unroll + g.u;
        if (c >= chunks_)
            return false;
        const Pass& pass = p_.passes[pass_];
        const std::uint64_t cols = columns_;
        const std::uint32_t vl =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.lanes, cols - c * p_.lanes));
        const std::uint64_t col = c * p_.lanes * p_.elem;
        switch (g.role) {
        case Role::Load:
            op = vectorLoad(p_.dtype, reg(j, i), p_.am,
                            p_.xBuf[block_ % 2] + (pass.e0 + g.e) * cols * p_.elem + col, vl);
            return true;
        case Role::Partial:
            if (pass_ == 0)
                return false;
            op = vectorLoad(p_.dtype, reg(j, i), p_.am, outAddr(filter_) + col, vl);
            return true;
        case Role::Fma: {
            const bool opens = pass_ == 0 && g.e == 0;
            op = vectorOp(opens ? OpKind::Mul : OpKind::Fma, p_.dtype, vl);
            op.dst = reg(j, i);
            unsigned load = j;
            while (body_->ops[load].role != Role::Load || body_->ops[load].e != g.e ||
                   body_->ops[load].u != g.u)
                --load;
            op.src[0] = reg(load, i);
            op.src[1] = static_cast<std::uint8_t>(kScalarRegBase + g.e);
            if (!opens)
                op.src[2] = reg(j, i);
            return true;
        }
        case Role::Store:
            op = vectorStore(p_.dtype, reg(j, i), p_.am, outAddr(filter_) + col, vl);
            return true;
        case Role::Count:
        case Role::Compare:
        case Role::Branch: break;  // handled above
        }
        return false;
    }

    const Im2colParams& p_;
    const GemmBody* body_ = nullptr;
    std::uint64_t columns_ = 0, chunks_ = 0;
};

class Im2colConvKernel : public DspConvWorkload {
public:
    explicit Im2colConvKernel(Im2colParams p) : DspConvWorkload(p), p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        j["strategy"] = "im2col";
        j["cores"] = p_.cores();
        j["engines"] = p_.engines;
        j["buffering"] = p_.doubleBuffer ? "double" : "single";
        j["expand_from"] = p_.fromAm ? "am" : "ddr";
        if (p_.scalarMemory.cache)
            j["l1d"] = "cache";
        j["blocks"] = p_.blocks.size();
        j["block_rows"] = p_.blockRows;
        j["passes"] = p_.passes.size();
        j["unroll"] = p_.bodies.front().unroll;
        j["am_bytes"] = p_.amBytes;
    }
    std::vector<EngineStream> streams() override { return streamPerCore<Im2colStream>(p_); }
    // The busiest core's GEMM loops (per block, filter and pass: its kernel elements loaded, the
    // chunks at the loop's II, the drain), or the expansion's gathers (from DDR: the expanded
    // elements at the DDR's peak, a whole DDR access per element at stride > 1; from the AM: at
    // the AM's, and at least a cycle per DMA row — an element each at stride > 1), whichever is
    // longer.
    double estimatedSeconds() const override {
        double cycles = 0.0;
        for (const Block& blk : p_.blocks)
            for (const Pass& pass : p_.passes) {
                const GemmBody& b = p_.body(pass.ne);
                const double chunks = (std::uint64_t{blk.r1 - blk.r0} * p_.wo + p_.lanes - 1) / p_.lanes;
                cycles += pass.ne + std::ceil(chunks / b.unroll) * b.schedule.ii + b.schedule.length;
            }
        const double perElement =
            p_.sw > 1 && !p_.fromAm ? std::max<double>(p_.elem, p_.ddrBurstBytes) : p_.elem;
        const auto elements = static_cast<double>(p_.mapElements());
        const double expanded = elements * perElement;
        if (p_.fromAm) {
            // A DMA row is a burst, and the DMA issues one a cycle: at column stride 1 a row of an
            // expanded row per output row, else one element each (a 3 x 3 layer at column stride 3
            // on ftm2000: 10,368 elements gathered, 11,544 cycles in all).
            const double rows = p_.sw > 1 ? elements : static_cast<double>(p_.rows()) * p_.ho;
            const double am =
                std::max(p_.amBytesPerSecond > 0 ? expanded / p_.amBytesPerSecond : 0.0, rows / p_.clockHz);
            return std::max(am, overlappedEstimate(cycles * p_.maxFiltersPerCore(), 0.0));
        }
        return overlappedEstimate(cycles * p_.maxFiltersPerCore(), expanded - p_.inputElements() * p_.elem);
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        addThroughputStats(stats, cycles, seconds, p_.fmacs, p_.lanes);
        const GemmBody& b = p_.bodies.front();
        addLoopStats(stats, b.schedule, b.unroll, static_cast<double>(b.unroll) * b.ne, p_.fmacs,
                     {"initiation interval of the GEMM loop",
                      "⌈ops / units⌉ over FMAC, load/store and vector slots",
                      "loop-carried dependences (none: each iteration starts fresh accumulators)"});
        auto& node = stats.child("workload");
        const std::uint64_t expanded = p_.expandedElements() * p_.elem;
        const std::uint64_t input = std::uint64_t{p_.channels} * p_.h * p_.w * p_.elem;
        node.add("expanded_bytes", expanded, "B", "K² · Ho · Wo elements of the expanded matrix");
        node.add("input_bytes", input, "B", "H · W elements of the input map");
        node.add("expansion", static_cast<double>(expanded) / static_cast<double>(input) - 1.0, "",
                 "extra data of the expanded matrix over the input: K²·Ho·Wo / (H·W) − 1");
        node.add("input_ddr_bytes", p_.fromAm ? input : p_.mapElements() * p_.elem, "B",
                 "input bytes read from DDR: the map once (expansion from the AM) or the expanded rows");
        node.add("blocks", static_cast<std::uint64_t>(p_.blocks.size()), "", "expanded blocks");
    }

private:
    Im2colParams p_;
};

// The instances of the unit that runs `op` (0: none) and its latency.
unsigned unitOf(const EngineInfo& e, const std::string& op, double& latency) {
    unsigned instances = 0;
    if (const OpTimingInfo* t = findUnitOp(e, op, instances))
        latency = t->latency;
    return instances;
}

}  // namespace

std::unique_ptr<Workload> makeIm2colConvKernel(const std::string& kernel, const config::Node& workload,
                                               const config::Node& plan, const TargetInfo& target) {
    (void)kernel;
    using namespace config;
    Im2colParams p;
    Reader w = workloadReader(workload);
    static_cast<DspConvProblem&>(p) = readDspConvProblem(w);

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    pl.oneOf("strategy", {"im2col"}, std::string("im2col"));
    const unsigned unroll = pl.get<unsigned>("unroll", 0u, Range<unsigned>{0, kMaxUnroll});
    const std::string buffering = pl.oneOf("buffering", {"auto", "single", "double"}, std::string("auto"));
    const std::uint32_t requestedRows = pl.get<std::uint32_t>("block_rows", 0u);
    const std::string expandFrom = pl.oneOf("expand_from", {"auto", "am", "ddr"}, std::string("auto"));
    for (const EngineInfo* e : planEngines(pl, target))
        p.engines.push_back(e->name);
    const EngineInfo& e = *target.findEngine(p.engines[0]);
    double fmaLatency = 0, loadLatency = 0, unused = 0;
    p.fmacs = unitOf(e, "fma", fmaLatency);
    p.lsus = unitOf(e, "vload", loadLatency);
    if (p.fmacs == 0 || p.lsus == 0 || unitOf(e, "sload", unused) == 0 || unitOf(e, "mul", unused) == 0)
        pl.fail("engine", fmt::format("engine '{}' lacks fma, mul, vload or sload: the im2col GEMM needs a "
                                      "vector DSP such as target ftm2000",
                                      e.name));
    p.fmaLatency = static_cast<unsigned>(std::ceil(fmaLatency));
    p.loadLatency = static_cast<unsigned>(std::ceil(loadLatency));
    p.vectorSlots = p.fmacs + p.lsus;
    for (const auto& sc : e.slots)
        if (sc.name == "vector")
            p.vectorSlots = sc.count;
    for (const auto& sc : e.slots)
        if (sc.name == "scalar")
            p.scalarSlots = sc.count;
    p.vectorRegisters = e.vectorRegisters;
    p.scalarAlus = std::max(1u, unitOf(e, "sadd", unused));
    p.branchUnits = std::max(1u, unitOf(e, "branch", unused));
    p.lanes = std::max(1u, e.registerBytes / p.elem);

    const unsigned kk = static_cast<unsigned>(p.rows());
    const unsigned perPass = std::min(kMaxKernelRegs, e.scalarRegisters);
    for (unsigned e0 = 0; e0 < kk; e0 += perPass)
        p.passes.push_back(Pass{e0, std::min(perPass, kk - e0)});

    const DspConvMemories memories = findDspConvMemories(pl, target, p);
    p.am = memories.am->id;
    p.group = memories.group;
    p.scalarMemory = memories.scalarMemory;
    const std::uint64_t amSize = memories.amSize;
    const unsigned fc = p.filtersOf(0);
    // Per output row: K² expanded rows of Wo elements, and one output row per filter of a core.
    const std::uint64_t perRow = (std::uint64_t{kk} + fc) * p.wo * p.elem;
    // Expansion from the AM: the input map stays there too (the DMA reads it instead of DDR).
    const std::uint64_t mapBytes = alignUp(std::uint64_t{p.channels} * p.h * p.w * p.elem, 128);
    p.fromAm =
        expandFrom == "am" || (expandFrom == "auto" && mapBytes + alignUp(perRow + 256, 128) * 2 <= amSize);
    const std::uint64_t mapNeed = p.fromAm ? mapBytes : 0;
    auto need = [&](std::uint32_t n, unsigned buffers) {
        return mapNeed + buffers * alignUp(n * perRow + 256, 128);
    };
    p.doubleBuffer = buffering == "double" || (buffering == "auto" && need(p.ho, 1) > amSize);
    std::uint32_t rows = p.ho;
    if (p.doubleBuffer) {
        rows = 0;
        while (rows < p.ho && need(rows + 1, 2) <= amSize)
            ++rows;
        if (rows == 0)
            pl.fail(
                "buffering",
                fmt::format("two expanded output rows need {} B of AM, which holds {} B", need(1, 2), amSize),
                config::Shortfall::Capacity);
        if (buffering == "double" && rows >= p.ho)
            rows = (p.ho + 1) / 2;
    } else if (need(p.ho, 1) > amSize) {
        pl.fail("buffering",
                fmt::format("the expanded matrix and outputs need {} B of AM, which holds {} B",
                            need(p.ho, 1), amSize),
                config::Shortfall::Capacity);
    }
    if (requestedRows > 0)
        rows = std::min(rows, requestedRows);
    // More than one block: the next block's expansion runs under this one's GEMM, in the other buffer.
    if (rows < p.ho && !p.doubleBuffer) {
        p.doubleBuffer = true;
        if (need(rows, 2) > amSize)
            pl.fail("block_rows",
                    fmt::format("two blocks of {} output rows need {} B of AM, which holds {} B", rows,
                                need(rows, 2), amSize));
    }
    p.blockRows = rows;
    for (std::uint32_t r0 = 0; r0 < p.ho; r0 += rows)
        p.blocks.push_back(Block{r0, std::min(p.ho, r0 + rows)});
    MemoryLayout layout(*memories.am, 128);
    if (p.fromAm)
        p.mapAm = layout.allocate("input map", std::uint64_t{p.channels} * p.h * p.w * p.elem);
    for (unsigned i = 0; i < (p.doubleBuffer ? 2u : 1u); ++i) {
        p.xBuf[i] =
            layout.allocate(fmt::format("expanded block {}", i), std::uint64_t{kk} * rows * p.wo * p.elem);
        p.outBuf[i] =
            layout.allocate(fmt::format("output block {}", i), std::uint64_t{fc} * rows * p.wo * p.elem);
    }
    if (!p.doubleBuffer) {
        p.xBuf[1] = p.xBuf[0];
        p.outBuf[1] = p.outBuf[0];
    }
    p.amBytes = layout.end();
    const std::uint64_t maxChunks = (std::uint64_t{rows} * p.wo + p.lanes - 1) / p.lanes;
    for (const auto& pass : p.passes) {
        bool known = false;
        for (const auto& b : p.bodies)
            known = known || b.ne == pass.ne;
        if (!known)
            p.bodies.push_back(
                cachedPlanBody(p, pass.ne, unroll, p.passes.size() > 1,
                               static_cast<unsigned>(std::min<std::uint64_t>(maxChunks, kMaxUnroll)), pl));
    }
    placeInDdr(p, readDdrOffset(pl));
    pl.finish();
    auto made = std::make_unique<Im2colConvKernel>(std::move(p));
    made->echoFrom(w, pl);
    return made;
}

}  // namespace tessim
