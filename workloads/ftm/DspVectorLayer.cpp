#include "workloads/ftm/DspVectorLayer.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/ir/OpTable.h"
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
#include "workloads/ftm/NewtonDivision.h"

namespace tessim {
namespace {
// Named as well, so that the unity build may put this file beside the other vector-DSP kernels.
namespace dsp_vector {

constexpr unsigned kMaxUnroll = 4;                 // vectors per iteration the planner tries
constexpr unsigned kMemoryLatency = 2;             // cycles the AM adds to a load (assumption, as the target)
constexpr std::uint64_t kSaltA = 11, kSaltB = 12;  // test data of the two operands
// The element-wise ops recipeOf() lowers (the rest of vectorLayerOps() are pools, or the K1's alone).
const std::vector<std::string> kElementwiseOps{"Relu",      "Clip", "HardSigmoid", "HardSwish", "LeakyRelu",
                                               "Add",       "Sub",  "Mul",         "PRelu",     "Concat",
                                               "Transpose", "Div",  "Tanh",        "Sigmoid"};
// Of those, the ones that divide: Newton–Raphson from the units' reciprocal estimate (`recip`).
bool divides(const std::string& op) {
    return op == "Div" || op == "Tanh" || op == "Sigmoid";
}
constexpr unsigned kMinBlocksPerCore = 4;  // blocks a long slice is cut into, so that DMA overlaps

enum class Role { LoadA, LoadB, Step, Store, Count, Compare, Branch };
struct BodyOp {
    Role role;
    unsigned u = 0;  // vector of the iteration
    unsigned k = 0;  // step of the recipe
};

// An operand of a recipe's step: the first tensor, the second, an earlier step's result, or a
// constant register (registers 0, 1, … hold the constants, broadcast before the loop).
struct Operand {
    enum class Kind : std::uint8_t { X, Y, Step, Constant } kind = Kind::X;
    unsigned index = 0;  // of the step or the constant
};
constexpr Operand kX{Operand::Kind::X, 0}, kY{Operand::Kind::Y, 0};
struct Step {
    OpKind kind;
    Operand a, b, c;  // c: an fma's addend
};
struct Recipe {
    std::vector<Step> steps;  // the last one's result is stored
    std::vector<double> constants;
};

// Builds a recipe step by step; equal constants share a register.
class RecipeBuilder {
public:
    explicit RecipeBuilder(DType dtype) : dtype_(dtype) {}
    Operand constant(double v) {
        v = roundTo(dtype_, v);
        for (std::size_t i = 0; i < r_.constants.size(); ++i)
            if (r_.constants[i] == v && std::signbit(r_.constants[i]) == std::signbit(v))
                return {Operand::Kind::Constant, static_cast<unsigned>(i)};
        r_.constants.push_back(v);
        return {Operand::Kind::Constant, static_cast<unsigned>(r_.constants.size() - 1)};
    }
    Operand step(OpKind kind, Operand a, Operand b = kX, Operand c = kX) {
        r_.steps.push_back({kind, a, b, c});
        return {Operand::Kind::Step, static_cast<unsigned>(r_.steps.size() - 1)};
    }
    // a / d as newtonDivideIn computes it.
    Operand divide(Operand a, Operand d) {
        const Operand negated = step(OpKind::Sub, constant(0.0), d);
        Operand r = step(OpKind::Recip, d);
        for (unsigned s = 0; s < newtonSteps(dtype_); ++s) {
            const Operand e = step(OpKind::Fma, negated, r, constant(1.0));
            r = step(OpKind::Fma, r, e, r);
        }
        return step(OpKind::Mul, a, r);
    }
    Recipe done() { return std::move(r_); }

private:
    DType dtype_;
    Recipe r_;
};

// Relu: max(x, 0); Clip: min(max(x, lo), hi); Add, Sub, Mul: x ∘ y or x ∘ c; HardSigmoid:
// min(max(x·α + β, 0), 1), one rounding for the fma; HardSwish: that times x; LeakyRelu:
// max(x·α, x) (min for α > 1); PRelu: max(x·slope, x). Div: x · 1/y by Newton–Raphson (a constant's
// reciprocal is loop-invariant: computed once, by the same sequence); Tanh and Sigmoid: the K1's
// rational function (rationalActivation), its divide so.
Recipe recipeOf(const RvvVectorLayer& l, DType dtype) {
    RecipeBuilder b(dtype);
    switch (l.op) {
    case VectorLayerOp::Copy: break;  // stored as loaded
    case VectorLayerOp::Relu: b.step(OpKind::Max, kX, b.constant(0.0)); break;
    case VectorLayerOp::LeakyRelu:
        b.step(l.leakyKeep(), b.step(OpKind::Mul, kX, b.constant(l.alpha)), kX);
        break;
    case VectorLayerOp::Clip:
        b.step(OpKind::Min, b.step(OpKind::Max, kX, b.constant(l.lo)), b.constant(l.hi));
        break;
    case VectorLayerOp::HardSigmoid:
    case VectorLayerOp::HardSwish: {
        const Operand f = b.step(OpKind::Fma, kX, b.constant(l.alpha), b.constant(l.beta));
        const Operand h = b.step(OpKind::Min, b.step(OpKind::Max, f, b.constant(0.0)), b.constant(1.0));
        if (l.op == VectorLayerOp::HardSwish)
            b.step(OpKind::Mul, h, kX);
        break;
    }
    case VectorLayerOp::Div:
        if (l.reversed)  // c / x: the dividend the second operand
            b.divide(l.second == SecondOperand::Constant ? b.constant(l.constant) : kY, kX);
        else if (l.second == SecondOperand::Constant)
            b.step(OpKind::Mul, kX, b.constant(newtonReciprocalIn(dtype, roundTo(dtype, l.constant))));
        else
            b.divide(kX, kY);
        break;
    case VectorLayerOp::Tanh:
    case VectorLayerOp::Sigmoid: {
        const RationalTanh& r = rationalTanh(dtype);
        const bool sigmoid = l.op == VectorLayerOp::Sigmoid;
        Operand x = sigmoid ? b.step(OpKind::Mul, kX, b.constant(0.5)) : kX;
        x = b.step(OpKind::Max, b.step(OpKind::Min, x, b.constant(r.clamp)), b.constant(-r.clamp));
        const Operand y = b.step(OpKind::Mul, x, x);
        auto horner = [&](const std::vector<double>& c) {
            Operand v = b.step(OpKind::Mul, y, b.constant(c.back()));
            for (std::size_t i = c.size() - 2; i > 0; --i)
                v = b.step(OpKind::Mul, b.step(OpKind::Add, v, b.constant(c[i])), y);
            return b.step(OpKind::Add, v, b.constant(c[0]));
        };
        const Operand num = horner(r.p), den = horner(r.q);
        Operand t = b.divide(b.step(OpKind::Mul, num, x), den);
        if (sigmoid)
            t = b.step(OpKind::Add, b.step(OpKind::Mul, t, b.constant(0.5)), b.constant(0.5));
        break;
    }
    default: {  // Add, Sub, Mul; PRelu then max(slope·x, x)
        const Operand second = l.second == SecondOperand::Constant ? b.constant(l.constant) : kY;
        const Operand v =
            l.reversed ? b.step(l.binaryKind(), second, kX) : b.step(l.binaryKind(), kX, second);
        if (l.keepsLargerWithX())
            b.step(OpKind::Max, v, kX);
        break;
    }
    }
    return b.done();
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
    std::uint64_t blockElements = 0;  // a multiple of lanes (tiled transposes: of rowLength)
    // A Transpose whose output rows are strided in the input: tiled. Its rows are taken in the
    // order in which the input's innermost dimension runs fastest (TransposeRows::tiledRow), a
    // block of whole rows fetched as `rowLength` DMA rows of each run of its rows (consecutive in
    // DDR), laid out [along a row][row] in the AM; the loop gathers each output vector with a
    // strided load, the block's rows apart, and stores it contiguous; each run of rows goes out as
    // one DMA, its rows innerRowStep output rows apart. 0: no tiling (a copy, or a Transpose whose
    // rows are runs of the input, gathered by DMA run by run).
    std::uint64_t rowLength = 0;
    TransposeRows rows;  // a Transpose's rows (transposeRows), found once
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
    std::uint64_t vectorsPerRow() const { return (rowLength + lanes - 1) / lanes; }
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
        std::vector<unsigned> steps;  // the body op of each step
        for (unsigned k = 0; k < p.recipe.steps.size(); ++k) {
            const Step& st = p.recipe.steps[k];
            const unsigned step = add({Role::Step, u, k}, Fmac);
            const Operand operands[3] = {st.a, st.b, st.c};
            for (unsigned n = 0; n < opInfo(st.kind).sources; ++n) {
                const Operand o = operands[n];
                if (o.kind == Operand::Kind::X)
                    mops[step].after.push_back({a, loadLatency, 0});
                else if (o.kind == Operand::Kind::Y)
                    mops[step].after.push_back({b, loadLatency, 0});
                else if (o.kind == Operand::Kind::Step)
                    mops[step].after.push_back({steps[o.index], p.fmaLatency, 0});
            }
            steps.push_back(step);
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
    const std::vector<unsigned> lastUse = lastUses(mops, p.schedule);
    p.copies.assign(p.ops.size(), 0);
    p.base.assign(p.ops.size(), 0);
    auto next = static_cast<unsigned>(p.recipe.constants.size());  // the constants' registers first
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
    // A Transpose's block: its output elements gathered from the input run by run, a run being
    // the part of an output row (the output's innermost axis) in the block: one DMA row per
    // element, `stride` elements apart in DDR, contiguous in the AM.
    void gather(std::vector<Op>& out, std::size_t b) const {
        const TransposeRows& t = p_.rows;
        const std::uint64_t first = blockFirst(b), end = first + blockCount(b);
        for (std::uint64_t e = first; e < end;) {
            const std::uint64_t row = e / t.length, along = e % t.length;
            const std::uint64_t run = std::min(t.length - along, end - e);
            const std::uint64_t from = transposeSource(p_.layer, row * t.length) + along * t.stride;
            const DmaBlock block = t.stride == 1 ? DmaBlock{static_cast<std::uint32_t>(run * p_.elem), 1, 1}
                                                 : DmaBlock{p_.elem, static_cast<std::uint32_t>(run), 1};
            out.push_back(bundleStart(
                dmaCopy(kInputTag + b % 2, 0, block,
                        {p_.ddr, p_.ddrA + from * p_.elem, static_cast<std::int64_t>(t.stride * p_.elem)},
                        {p_.am, p_.amA[b % 2] + (e - first) * p_.elem, static_cast<std::int64_t>(p_.elem)})));
            e += run;
        }
    }
    // A tiled Transpose's block: per run of its rows consecutive in the input, one DMA of
    // rowLength rows (one per element of an output row, `stride` apart in DDR) into the AM's
    // [element][row] layout, the block's rows apart; `writeRows` sends the same runs out.
    template <class PerRun> void forEachRun(std::size_t b, PerRun perRun) const {
        const TransposeRows& t = p_.rows;
        const std::uint64_t first = blockFirst(b) / p_.rowLength, rows = blockCount(b) / p_.rowLength;
        for (std::uint64_t r = 0; r < rows;) {
            const std::uint64_t l = first + r;
            const std::uint64_t run = std::min(rows - r, t.innerRun - l % t.innerRun);
            perRun(t, r, rows, t.tiledRow(l), run);
            r += run;
        }
    }
    void fetchRows(std::vector<Op>& out, std::size_t b) const {
        forEachRun(b, [&](const TransposeRows& t, std::uint64_t r, std::uint64_t rows, std::uint64_t row,
                          std::uint64_t run) {
            out.push_back(bundleStart(dmaCopy(
                kInputTag + b % 2, 0,
                {static_cast<std::uint32_t>(run * p_.elem), static_cast<std::uint32_t>(p_.rowLength), 1},
                {p_.ddr, p_.ddrA + transposeSource(p_.layer, row * p_.rowLength) * p_.elem,
                 static_cast<std::int64_t>(t.stride * p_.elem)},
                {p_.am, p_.amA[b % 2] + r * p_.elem, static_cast<std::int64_t>(rows * p_.elem)})));
        });
    }
    void writeRows(std::vector<Op>& out, std::size_t b) const {
        const auto rowBytes = static_cast<std::uint32_t>(p_.rowLength * p_.elem);
        forEachRun(b, [&](const TransposeRows& t, std::uint64_t r, std::uint64_t, std::uint64_t row,
                          std::uint64_t run) {
            out.push_back(bundleStart(dmaCopy(
                kOutputTag + b % 2, 2, {rowBytes, static_cast<std::uint32_t>(run), 1},
                {p_.am, p_.amOut[b % 2] + r * rowBytes, static_cast<std::int64_t>(rowBytes)},
                {p_.ddr, p_.ddrOut + row * rowBytes, static_cast<std::int64_t>(t.innerRowStep * rowBytes)})));
        });
    }
    void fetch(std::vector<Op>& out, std::size_t b) const {
        if (p_.rowLength > 0) {
            fetchRows(out, b);
            return;
        }
        if (p_.layer.transposes()) {
            gather(out, b);
            return;
        }
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
        vectors_ = p_.rowLength > 0 ? blockCount(block_) / p_.rowLength * p_.vectorsPerRow()
                                    : (blockCount(block_) + p_.lanes - 1) / p_.lanes;
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
        switch (o.kind) {
        case Operand::Kind::X: return reg(find(Role::LoadA, b.u), i);
        case Operand::Kind::Y: return reg(find(Role::LoadB, b.u), i);
        case Operand::Kind::Step: return reg(find(Role::Step, b.u, o.index), i);
        case Operand::Kind::Constant: return static_cast<std::uint8_t>(o.index);
        }
        return kNoReg;
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
        std::uint64_t at = v * p_.lanes;
        auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.lanes, blockCount(block_) - at));
        std::uint64_t loadAt = at;  // the first element a LoadA reads, in the AM block
        std::int64_t loadStride = 0;
        if (p_.rowLength > 0) {  // output row r's elements a0 …: [a][r] in the AM, the rows apart
            const std::uint64_t rows = blockCount(block_) / p_.rowLength;
            const std::uint64_t r = v / p_.vectorsPerRow(), a0 = v % p_.vectorsPerRow() * p_.lanes;
            at = r * p_.rowLength + a0;
            vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.lanes, p_.rowLength - a0));
            loadAt = a0 * rows + r;
            loadStride = rows > 1 ? static_cast<std::int64_t>(rows * p_.elem) : 0;
        }
        const std::uint64_t offset = at * p_.elem;
        switch (b.role) {
        case Role::LoadA:
            op = vectorLoad(p_.dtype, reg(j, i), p_.am, p_.amA[block_ % 2] + loadAt * p_.elem, vl);
            op.stride = loadStride;
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
            const Operand operands[3] = {st.a, st.b, st.c};
            for (unsigned n = 0; n < opInfo(st.kind).sources; ++n)
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
        if (p_.rowLength > 0 && p_.rows.innerRowStep > 1) {  // rows apart in DDR
            writeRows(out, block_);
            return;
        }
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
        return checkVectorLayerOutputs(memory, p_.layer, p_.dtype, p_.ddr, p_.ddrOut, kSaltA, kSaltB,
                                       &newtonDivideIn);
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
    p.recipe = recipeOf(p.layer, p.dtype);
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

    // A Transpose whose output rows are strided in the input runs tiled when two blocks of one
    // output row fit the AM (an operand and a result buffer each); its rows are longer than an
    // element, its axes of one element dropped (simplifyTranspose).
    if (p.layer.transposes()) {
        p.rows = transposeRows(p.layer);
        if (p.rows.stride != 1 && 4 * p.rows.length * p.elem <= amSize)
            p.rowLength = p.rows.length;
    }
    // Contiguous slices of whole vectors (tiled transposes: whole output rows) over the cores, as
    // many as have one each.
    const std::uint64_t granule = p.rowLength > 0 ? p.rowLength : p.lanes;
    const std::uint64_t vectors = (p.elements() + granule - 1) / granule;
    const auto cores = static_cast<unsigned>(std::min<std::uint64_t>(engines.size(), vectors));
    for (unsigned c = 0; c < cores; ++c)
        p.engines.push_back(engines[c]->name);
    p.slices = contiguousSlices(p.elements(), cores, granule);
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
    if (p.rowLength > 0) {  // whole rows, as many as a quarter of the slice, at least one
        const std::uint64_t fitRows = amSize / (2 * buffers * p.elem) / p.rowLength;
        const std::uint64_t quarterRows = (quarter + p.rowLength - 1) / p.rowLength;
        p.blockElements = std::min(fitRows, std::max<std::uint64_t>(1, quarterRows)) * p.rowLength;
    }
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
    if (name == "Softmax")  // the K1's alone
        return "a Softmax (the largest and the sum of each pixel's channels, then exp and a scale) runs on "
               "the K1's RVV cores only, not as this chip's element-wise vector streams";
    // A divide needs the units' reciprocal estimate.
    if (dsp_vector::divides(name))
        for (const EngineInfo* e : vectorEngines(target)) {
            unsigned n = 0;
            if (!findUnitOp(*e, "recip", n))
                return fmt::format(
                    "engine '{}' times no `recip` (a reciprocal estimate): a {} layer divides by "
                    "Newton–Raphson from one",
                    e->name, name);
        }
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
