#include "workloads/ftm/DspVectorLayer.h"

#include <algorithm>
#include <cmath>
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
#include "workloads/ftm/DspPoolLayer.h"
#include "workloads/ftm/EngineUnits.h"
#include "workloads/ftm/ModuloLoop.h"

namespace tessim {
namespace {
// Named as well, so that the unity build may put this file beside the other vector-DSP kernels.
namespace dsp_vector {

constexpr unsigned kMaxUnroll = 4;      // vectors per iteration the planner tries
constexpr unsigned kMemoryLatency = 2;  // cycles the AM adds to a load (assumption, as the target)
constexpr unsigned kConstantRegs = 4;   // registers 0 … 3: the layer's constants, broadcast
constexpr unsigned kFirstRotating = kConstantRegs;  // the loop's rotating registers from here
constexpr std::uint64_t kSaltA = 11, kSaltB = 12;   // test data of the two operands
// The element-wise ops recipeOf() lowers (the rest of vectorLayerOps() are pools, or the K1's alone).
const std::vector<std::string> kElementwiseOps{"Relu", "Clip", "HardSigmoid", "HardSwish", "LeakyRelu", "Add",
                                               "Sub",  "Mul",  "PRelu",       "Concat",    "Transpose"};
constexpr unsigned kMinBlocksPerCore = 4;  // blocks a long slice is cut into, so that DMA overlaps

enum class Role { LoadA, LoadB, Step, Store, Count, Compare, Branch };
struct BodyOp {
    Role role;
    unsigned u = 0;  // vector of the iteration
    unsigned k = 0;  // step of the recipe
};

// One op of a layer's recipe and its operands: the first tensor, the second, the previous step's
// result, or a constant register.
enum class Operand : std::uint8_t { X, Y, Previous, C0, C1, C2, C3 };
struct Step {
    OpKind kind;
    Operand a, b, c = Operand::X;  // c: an fma's addend
};
struct Recipe {
    std::vector<Step> steps;
    std::vector<double> constants;  // into registers 0, 1, … before the loop
};

// Relu: max(x, 0); Clip: min(max(x, lo), hi); Add, Sub, Mul: x ∘ y or x ∘ c; HardSigmoid:
// min(max(x·α + β, 0), 1), one rounding for the fma; HardSwish: that times x; LeakyRelu:
// max(x·α, x) (min for α > 1); PRelu: max(x·slope, x).
Recipe recipeOf(const RvvVectorLayer& l) {
    using O = Operand;
    switch (l.op) {
    case VectorLayerOp::Copy: return {};  // stored as loaded
    case VectorLayerOp::Relu: return {{{OpKind::Max, O::X, O::C0}}, {0.0}};
    case VectorLayerOp::LeakyRelu:
        return {{{OpKind::Mul, O::X, O::C0}, {l.leakyKeep(), O::Previous, O::X}}, {l.alpha}};
    case VectorLayerOp::Clip:
        return {{{OpKind::Max, O::X, O::C0}, {OpKind::Min, O::Previous, O::C1}}, {l.lo, l.hi}};
    case VectorLayerOp::HardSigmoid:
    case VectorLayerOp::HardSwish: {
        Recipe r{{{OpKind::Fma, O::X, O::C0, O::C1},
                  {OpKind::Max, O::Previous, O::C2},
                  {OpKind::Min, O::Previous, O::C3}},
                 {l.alpha, l.beta, 0.0, 1.0}};
        if (l.op == VectorLayerOp::HardSwish)
            r.steps.push_back({OpKind::Mul, O::Previous, O::X});
        return r;
    }
    default: {  // Add, Sub, Mul; PRelu then max(slope·x, x)
        Recipe r = l.second == SecondOperand::Constant ? Recipe{{{l.binaryKind(), O::X, O::C0}}, {l.constant}}
                                                       : Recipe{{{l.binaryKind(), O::X, O::Y}}, {}};
        if (l.keepsLargerWithX())
            r.steps.push_back({OpKind::Max, O::Previous, O::X});
        return r;
    }
    }
}

struct DspVectorParams {
    RvvVectorLayer layer;
    DType dtype = DType::F32;
    std::string modelDtype;
    unsigned elem = 4, lanes = 32;
    std::vector<std::string> engines;
    std::vector<Slice> slices;  // elements of each core
    std::uint8_t am = 0, ddr = 0;
    std::uint64_t ddrA = 0, ddrB = 0, ddrOut = 0;
    std::uint64_t blockElements = 0;  // a multiple of lanes
    std::uint64_t amA[2] = {0, 0}, amB[2] = {0, 0}, amOut[2] = {0, 0}, amBytes = 0;
    // A per-channel operand: its C values repeated over C + lanes elements, so that the values of
    // any vector of the flat (channel-minor) tensor lie contiguous from its first channel on.
    std::uint64_t amPattern = 0;
    unsigned fmaLatency = 4, loadLatency = 1, fmacs = 1, lsus = 1, vectorSlots = 6;
    unsigned scalarAlus = 1, branchUnits = 1, scalarSlots = 5, vectorRegisters = 64;
    double clockHz = 1e9, ddrBytesPerSecond = 0.0;
    // The loop.
    unsigned unroll = 1, registersUsed = 0;
    std::vector<BodyOp> ops;
    ModuloSchedule schedule;
    std::vector<unsigned> copies, base;
    std::vector<std::vector<unsigned>> byResidue;

    unsigned cores() const { return static_cast<unsigned>(engines.size()); }
    std::uint64_t elements() const { return layer.inputs(); }
    bool tensorOperand() const { return layer.binary() && layer.second == SecondOperand::Tensor; }
    bool channelOperand() const { return layer.binary() && layer.second == SecondOperand::Channel; }
    std::uint64_t patternElements() const { return std::uint64_t{layer.s.channels} + lanes; }
    Recipe recipe;
    std::uint64_t blocksOf(unsigned core) const {
        return (slices[core].count + blockElements - 1) / blockElements;
    }
};

// The loop body for `unroll` vectors per iteration, scheduled, its registers rotating.
void buildBody(DspVectorParams& p, unsigned unroll) {
    p.unroll = unroll;
    p.ops.clear();
    std::vector<ModuloOp> mops;
    enum Unit : unsigned { Fmac, Lsu, Salu, Bru };
    auto add = [&](BodyOp op, unsigned unit) {
        p.ops.push_back(op);
        ModuloOp m;
        m.resource = unit;
        m.slot = unit == Salu || unit == Bru ? 1 : 0;
        mops.push_back(m);
        return static_cast<unsigned>(p.ops.size() - 1);
    };
    const unsigned loadLatency = p.loadLatency + kMemoryLatency;
    for (unsigned u = 0; u < unroll; ++u) {
        const unsigned a = add({Role::LoadA, u}, Lsu);
        const unsigned b = p.tensorOperand() || p.channelOperand() ? add({Role::LoadB, u}, Lsu) : a;
        unsigned last = a;
        for (unsigned k = 0; k < p.recipe.steps.size(); ++k) {
            const Step& st = p.recipe.steps[k];
            const unsigned step = add({Role::Step, u, k}, Fmac);
            for (const Operand o : {st.a, st.b, st.c}) {
                if (o == Operand::X)
                    mops[step].after.push_back({a, loadLatency, 0});
                else if (o == Operand::Y)
                    mops[step].after.push_back({b, loadLatency, 0});
                else if (o == Operand::Previous)
                    mops[step].after.push_back({last, p.fmaLatency, 0});
            }
            last = step;
        }
        const unsigned store = add({Role::Store, u}, Lsu);
        mops[store].after.push_back(
            {last, last == a ? loadLatency : p.fmaLatency, 0});  // a copy stores its load
    }
    const unsigned count = add({Role::Count, 0}, Salu);
    const unsigned compare = add({Role::Compare, 0}, Salu);
    const unsigned branch = add({Role::Branch, 0}, Bru);
    chainLoopControl(mops, count, compare, branch);
    p.schedule = moduloSchedule(
        mops, {{p.fmacs, p.lsus, p.scalarAlus, p.branchUnits}, {p.vectorSlots, p.scalarSlots}});
    std::vector<unsigned> lastUse(p.ops.size(), 0);
    for (std::size_t j = 0; j < mops.size(); ++j)
        for (const auto& d : mops[j].after)
            if (d.distance == 0)
                lastUse[d.from] = std::max(lastUse[d.from], p.schedule.start[j]);
    p.copies.assign(p.ops.size(), 0);
    p.base.assign(p.ops.size(), 0);
    unsigned next = kFirstRotating;
    for (std::size_t j = 0; j < p.ops.size(); ++j)
        if (p.ops[j].role != Role::Store && p.ops[j].role != Role::Count && p.ops[j].role != Role::Compare &&
            p.ops[j].role != Role::Branch)
            allocateRotating(p.schedule, static_cast<unsigned>(j), lastUse[j], p.copies, p.base, next);
    p.byResidue = opsByResidue(p.schedule, p.ops.size());
    p.registersUsed = next;
}

// One core's stream: per block of its slice, the operands in (the next block's while this one
// runs), the loop, the results out.
class DspVectorStream : public ConvCoreStream {
public:
    DspVectorStream(const DspVectorParams& p, unsigned core)
        : ConvCoreStream(core, p.blocksOf(core), p.blocksOf(core) > 0 ? 1 : 0, 1), p_(p) {}

private:
    std::uint64_t blockFirst(std::size_t b) const { return p_.slices[core_].first + b * p_.blockElements; }
    std::uint64_t blockCount(std::size_t b) const {
        const std::uint64_t end = p_.slices[core_].first + p_.slices[core_].count;
        return std::min(p_.blockElements, end - blockFirst(b));
    }
    void fetch(std::vector<Op>& out, std::size_t b) const {
        const auto bytes = static_cast<std::uint32_t>(blockCount(b) * p_.elem);
        const std::uint64_t at = blockFirst(b) * p_.elem;
        out.push_back(bundleStart(
            dmaCopy(kInputTag + b % 2, 0, {bytes, 1, 1}, {p_.ddr, p_.ddrA + at}, {p_.am, p_.amA[b % 2]})));
        if (p_.tensorOperand())
            out.push_back(bundleStart(dmaCopy(kInputTag + b % 2, 1, {bytes, 1, 1}, {p_.ddr, p_.ddrB + at},
                                              {p_.am, p_.amB[b % 2]})));
    }
    // The per-channel operand's pattern, copy after copy of its C values (waited for with block 0).
    void fetchPattern(std::vector<Op>& out) const {
        const std::uint64_t c = p_.layer.s.channels;
        for (std::uint64_t at = 0; at < p_.patternElements(); at += c) {
            const auto bytes = static_cast<std::uint32_t>(std::min(c, p_.patternElements() - at) * p_.elem);
            out.push_back(bundleStart(dmaCopy(kInputTag, 1, {bytes, 1, 1}, {p_.ddr, p_.ddrB},
                                              {p_.am, p_.amPattern + at * p_.elem})));
        }
    }
    void start(std::vector<Op>& out) override {
        for (std::size_t c = 0; c < p_.recipe.constants.size(); ++c) {
            Op b = vectorOp(OpKind::Broadcast, p_.dtype, p_.lanes);
            b.dst = static_cast<std::uint8_t>(c);
            b.imm = p_.recipe.constants[c];
            out.push_back(bundleStart(b));
        }
        if (p_.blocksOf(core_) == 0)
            return;
        fetch(out, 0);
        if (p_.channelOperand())
            fetchPattern(out);
    }
    void blockHead(std::vector<Op>& out) override {
        out.push_back(bundleStart(dmaWait(kInputTag + block_ % 2)));
        if (block_ + 1 < p_.blocksOf(core_))
            fetch(out, block_ + 1);
        if (block_ >= 2)  // this block's output buffer: block − 2's write-back has left it
            out.push_back(bundleStart(dmaWait(kOutputTag + block_ % 2)));
    }
    void beginLoop(std::vector<Op>& out) override {
        vectors_ = (blockCount(block_) + p_.lanes - 1) / p_.lanes;
        startLoop(out, p_.schedule, p_.byResidue, (vectors_ + p_.unroll - 1) / p_.unroll);
    }
    std::uint8_t reg(unsigned j, std::uint64_t i) const {
        return static_cast<std::uint8_t>(p_.base[j] + i % p_.copies[j]);
    }
    unsigned find(Role role, unsigned u, unsigned k = 0) const {
        for (std::size_t n = 0; n < p_.ops.size(); ++n)
            if (p_.ops[n].role == role && p_.ops[n].u == u && p_.ops[n].k == k)
                return static_cast<unsigned>(n);
        return 0;
    }
    // The register of a step's operand in iteration i.
    std::uint8_t source(Operand o, const BodyOp& b, std::uint64_t i) const {
        switch (o) {
        case Operand::X: return reg(find(Role::LoadA, b.u), i);
        case Operand::Y: return reg(find(Role::LoadB, b.u), i);
        case Operand::Previous: return reg(find(Role::Step, b.u, b.k - 1), i);
        default:
            return static_cast<std::uint8_t>(static_cast<unsigned>(o) - static_cast<unsigned>(Operand::C0));
        }
    }
    bool materialise(unsigned j, std::uint64_t i, Op& op) const override {
        const BodyOp& b = p_.ops[j];
        switch (b.role) {
        case Role::Count: op = loopCount(); return true;
        case Role::Compare: op = loopCompare(iterations_); return true;
        case Role::Branch: op = loopBranch(i, iterations_); return true;
        default: break;
        }
        const std::uint64_t v = i * p_.unroll + b.u;
        if (v >= vectors_)
            return false;
        const std::uint64_t at = v * p_.lanes;
        const auto vl =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.lanes, blockCount(block_) - at));
        const std::uint64_t offset = at * p_.elem;
        switch (b.role) {
        case Role::LoadA:
            op = vectorLoad(p_.dtype, reg(j, i), p_.am, p_.amA[block_ % 2] + offset, vl);
            return true;
        case Role::LoadB:
            op = vectorLoad(p_.dtype, reg(j, i), p_.am,
                            p_.channelOperand()
                                ? p_.amPattern + (blockFirst(block_) + at) % p_.layer.s.channels * p_.elem
                                : p_.amB[block_ % 2] + offset,
                            vl);
            return true;
        case Role::Step: {
            const Step& st = p_.recipe.steps[b.k];
            op = vectorOp(st.kind, p_.dtype, vl);
            op.dst = reg(j, i);
            const unsigned sources = st.kind == OpKind::Fma ? 3 : 2;
            const Operand operands[3] = {st.a, st.b, st.c};
            for (unsigned n = 0; n < sources; ++n)
                op.src[n] = source(operands[n], b, i);
            return true;
        }
        case Role::Store: {
            const unsigned last =
                p_.recipe.steps.empty()
                    ? find(Role::LoadA, b.u)
                    : find(Role::Step, b.u, static_cast<unsigned>(p_.recipe.steps.size() - 1));
            op = vectorStore(p_.dtype, reg(last, i), p_.am, p_.amOut[block_ % 2] + offset, vl);
            return true;
        }
        default: return false;
        }
    }
    void writeBack(std::vector<Op>& out) override {
        // The loop's stores drain before the DMA reads what they stored.
        out.push_back(bundleStart(fenceOp()));
        const auto bytes = static_cast<std::uint32_t>(blockCount(block_) * p_.elem);
        out.push_back(
            bundleStart(dmaCopy(kOutputTag + block_ % 2, 2, {bytes, 1, 1}, {p_.am, p_.amOut[block_ % 2]},
                                {p_.ddr, p_.ddrOut + blockFirst(block_) * p_.elem})));
    }

    const DspVectorParams& p_;
    std::uint64_t vectors_ = 0;
};

class DspVectorLayerWorkload : public ConfiguredWorkload {
public:
    explicit DspVectorLayerWorkload(DspVectorParams p) : p_(std::move(p)) {}

    std::vector<EngineStream> streams() override { return streamPerCore<DspVectorStream>(p_); }
    bool formsBundles() const override { return true; }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        const std::uint64_t n = p_.elements() * p_.elem;
        return {{"ddr", 2 * n + p_.layer.secondElements() * p_.elem}};
    }
    // The busiest core's loop (its vectors at the loop's II) against the DDR traffic at its peak.
    double estimatedSeconds() const override {
        const double vectors = std::ceil(static_cast<double>(largestSlice(p_.slices)) / p_.lanes);
        const double loop = std::ceil(vectors / p_.unroll) * p_.schedule.ii / p_.clockHz;
        double bytes = 0.0;
        for (const auto& [level, n] : compulsoryBytes())
            bytes += static_cast<double>(n);
        return std::max(loop, p_.ddrBytesPerSecond > 0 ? bytes / p_.ddrBytesPerSecond : 0.0);
    }
    void initialise(FunctionalMemory& memory) override {
        writeTestValues(memory, p_.ddr, p_.ddrA, p_.elements(), p_.dtype, kSaltA);
        if (p_.layer.secondElements() > 0)
            writeTestValues(memory, p_.ddr, p_.ddrB, p_.layer.secondElements(), p_.dtype, kSaltB);
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        return checkVectorLayerOutputs(memory, p_.layer, p_.dtype, p_.ddr, p_.ddrOut, kSaltA, kSaltB);
    }

protected:
    void deriveWorkload(nlohmann::ordered_json& j) const override {
        deriveVectorLayerWorkload(j, p_.layer, p_.dtype, p_.modelDtype);
    }
    void derivePlan(nlohmann::ordered_json& j) const override {
        j["strategy"] = "vector";
        j["cores"] = p_.cores();
        j["engines"] = p_.engines;
        j["block_elements"] = p_.blockElements;
        j["unroll"] = p_.unroll;
    }

private:
    DspVectorParams p_;
};

std::unique_ptr<Workload> build(const config::Node& layer, const config::Node& plan,
                                const TargetInfo& target) {
    if (const config::Node* op = layer.find("op");
        op && op->isScalar() && op->scalar().find("Pool") != std::string::npos)
        return makeDspPoolLayer(layer, plan, target);
    DspVectorParams p;
    config::Reader w = workloadReader(layer);
    const std::string op = w.oneOf("op", kElementwiseOps);
    p.layer = readVectorLayer(w, op);
    p.recipe = recipeOf(p.layer);
    std::string stated;
    p.modelDtype = readDspLayerModelDtype(w, stated);
    w.finish();

    // The plan's engines and DDR offset; the convolutions' keys are theirs.
    PlanReader planReader(plan);
    config::Reader& pl = planReader.reader;
    const DspLayerMachine machine =
        dspLayerMachine(pl, w, target, p.layer, p.modelDtype, stated, "element-wise");
    const std::vector<const EngineInfo*>& engines = machine.engines;
    const std::uint64_t ddrOffset = readDdrOffset(pl);
    const EngineInfo& e = *engines.front();
    p.dtype = machine.dtype;
    p.elem = dtypeBytes(p.dtype);
    const VliwVectorUnits& units = machine.units;
    p.fmaLatency = units.fmaLatency;
    p.loadLatency = units.loadLatency;
    p.fmacs = units.fmacs;
    p.lsus = units.lsus;
    p.scalarAlus = units.scalarAlus;
    p.branchUnits = units.branchUnits;
    p.vectorSlots = units.vectorSlots;
    p.scalarSlots = units.scalarSlots;
    p.vectorRegisters = units.vectorRegisters;
    p.lanes = units.lanes;
    p.clockHz = e.clock.hz();

    // The unroll with the most vectors per cycle whose registers fit.
    double bestRate = 0.0;
    unsigned best = 0;
    for (unsigned u = 1; u <= kMaxUnroll; ++u) {
        buildBody(p, u);
        if (p.registersUsed > p.vectorRegisters)
            break;
        const double rate = static_cast<double>(u) / p.schedule.ii;
        if (rate > bestRate + 1e-12) {
            bestRate = rate;
            best = u;
        }
    }
    if (best == 0)
        pl.fail("engine",
                fmt::format("one vector per iteration needs more than the {} vector registers",
                            p.vectorRegisters),
                config::Shortfall::Registers);
    buildBody(p, best);

    // Spaces: DDR, and each core's AM (a role: the core that runs the stream) or on-chip memory.
    const MemorySpaceInfo* am = machine.local;
    const MemorySpaceInfo* ddr = machine.ddr;
    p.am = am->id;
    p.ddr = ddr->id;
    p.ddrBytesPerSecond = ddr->peakBandwidth;
    const std::uint64_t amSize = machine.localSize;

    // Contiguous slices of whole vectors over the cores (as many as have a vector each).
    const std::uint64_t vectors = (p.elements() + p.lanes - 1) / p.lanes;
    const auto cores = static_cast<unsigned>(std::min<std::uint64_t>(engines.size(), vectors));
    for (unsigned c = 0; c < cores; ++c)
        p.engines.push_back(engines[c]->name);
    p.slices = contiguousSlices(p.elements(), cores, p.lanes);
    // Blocks: two buffers of each operand and of the result fit the AM; a long slice in at least
    // kMinBlocksPerCore blocks so that its transfers overlap the loop.
    const unsigned buffers = p.tensorOperand() ? 3 : 2;
    const std::uint64_t pattern = p.channelOperand() ? alignUp(p.patternElements() * p.elem, 128) : 0;
    const std::uint64_t fit =
        amSize > pattern ? (amSize - pattern) / (2 * buffers * p.elem) / p.lanes * p.lanes : 0;
    if (fit == 0)
        pl.fail("engine",
                fmt::format("two blocks of one vector need {} B of AM, which holds {} B",
                            2 * buffers * p.lanes * p.elem, amSize),
                config::Shortfall::Capacity);
    const std::uint64_t slice = p.slices.front().count;
    const std::uint64_t quarter = (slice + kMinBlocksPerCore - 1) / kMinBlocksPerCore;
    p.blockElements =
        std::min(fit, std::max<std::uint64_t>(p.lanes, (quarter + p.lanes - 1) / p.lanes * p.lanes));
    MemoryLayout layout(*am, 128);
    const std::uint64_t blockBytes = p.blockElements * p.elem;
    for (unsigned i = 0; i < 2; ++i) {
        p.amA[i] = layout.allocate(fmt::format("operand block {}", i), blockBytes);
        if (p.tensorOperand())
            p.amB[i] = layout.allocate(fmt::format("second operand block {}", i), blockBytes);
        p.amOut[i] = layout.allocate(fmt::format("result block {}", i), blockBytes);
    }
    if (p.channelOperand())
        p.amPattern = layout.allocate("per-channel operand", p.patternElements() * p.elem);
    p.amBytes = layout.end();
    const std::uint64_t bytes = p.elements() * p.elem;
    p.ddrA = alignUp(ddrOffset, 4096);
    p.ddrB = alignUp(p.ddrA + bytes, 4096);
    p.ddrOut = alignUp(p.ddrB + p.layer.secondElements() * p.elem, 4096);
    auto made = std::make_unique<DspVectorLayerWorkload>(std::move(p));
    made->echoFrom(w, pl);
    return made;
}

}  // namespace dsp_vector
}  // namespace

std::string dspVectorLayerGap(const config::Node& layer, const config::Node& plan, const TargetInfo& target) {
    (void)plan;
    const config::Node* op = layer.find("op");
    const std::string name = op && op->isScalar() ? op->scalar() : std::string();
    if (!isVectorLayerOp(name))
        return fmt::format("the vector DSP runs element-wise and pooling layers, not {}", name);
    // Its loop recipes (recipeOf) chain one intermediate value, and its units time no divide: the
    // rational Tanh/Sigmoid of the K1 (six live values and a divide) and Div are left to the K1, as
    // is any element-wise op the recipes do not name.
    const auto& lowered = dsp_vector::kElementwiseOps;
    if (name.find("Pool") == std::string::npos &&
        std::find(lowered.begin(), lowered.end(), name) == lowered.end())
        return fmt::format("the vector DSP's layers do not lower {} (a divide; the K1's RVV layers do)",
                           name);
    if (!vectorEngines(target).empty())
        return "";
    return fmt::format("no engine of target '{}' has a vector unit (add, broadcast, vload) for a {} layer",
                       target.name, name);
}

std::unique_ptr<Workload> makeDspVectorLayer(const config::Node& layer, const config::Node& plan,
                                             const TargetInfo& target) {
    return dsp_vector::build(layer, plan, target);
}

}  // namespace tessim
