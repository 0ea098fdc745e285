#include "workloads/fc/FullyConnectedKernel.h"
#include "workloads/common/FlopStats.h"
#include "workloads/common/ThreadSlices.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/stats/StatsTree.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/EngineStreams.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/PlanMemory.h"
#include "workloads/common/Slices.h"
#include "workloads/common/TestData.h"
#include "workloads/common/VectorOps.h"

// Why over `in`: W is stored row-major [out][in] (as a framework hands it over), so along `in`
// both a W row and an x row are unit-stride (vle32 at 16 B/cycle). Along `out` every W load would
// be strided (about one element per cycle) unless W were first transposed. The price of `in` is
// one vfredusum per output at the end of its row.

namespace tessim {
namespace {

// Fork/join of the threads: thread 0 signals the fork event, the others join it; every thread
// reaches the closing barrier.
constexpr std::uint32_t kForkEvent = 1;
constexpr std::uint32_t kJoinBarrier = 2;
// Arrays start on page boundaries, as an allocator hands out large buffers.
constexpr std::uint64_t kPage = 4096;
// Loop counters and pointers are 32-bit integers.
constexpr DType kIndex = DType::I32;

// Scalar registers: x0 reads zero, then the loop's bookkeeping, the reduced sums, then one
// pointer per y row, x row and W row of a block.
constexpr std::uint8_t kZero = scalarReg(0);
constexpr std::uint8_t kFlag = scalarReg(1);
constexpr std::uint8_t kEnd = scalarReg(2);
constexpr std::uint8_t kVl = scalarReg(3);
constexpr std::uint8_t kBlock = scalarReg(4);
constexpr unsigned kSumRegs = 4;  // reduced sums in flight to their stores
constexpr unsigned kFirstSum = 5;
constexpr unsigned kFirstPointer = kFirstSum + kSumRegs;

struct FcParams {
    std::uint64_t in = 0, out = 0, batch = 0;
    unsigned repeat = 1;
    DType dtype = DType::F32;
    bool overOut = false;     // vectorised over `out` (else over `in`)
    unsigned rb = 1, ro = 1;  // batch rows and outputs (over `out`: output vectors) per register block
    unsigned lmul = 1;
    unsigned group = 1;  // registers per operand (lmul on engines with register groups)
    // f16 data accumulated in f32 (vfwmacc): accumulator groups of twice the operands' registers.
    bool widen = false;
    std::uint32_t vlmax = 0;  // elements per vector op
    const MemorySpaceInfo* memory = nullptr;
    std::uint64_t xAddr = 0, wAddr = 0, yAddr = 0;
    std::vector<ThreadSlice> threads;

    unsigned elem() const { return dtypeBytes(dtype); }
    std::uint64_t flops() const { return 2 * batch * in * out * repeat; }
    // The accumulators' datatype and registers.
    DType accType() const { return widen ? DType::F32 : dtype; }
    unsigned accGroup() const { return widen ? 2 * group : group; }
    // Lanes the accumulators hold: a row shorter than a register fills only `in` of them.
    std::uint32_t reduceVl() const { return static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax, in)); }
};

class FcStream : public ChunkedOpStream {
public:
    FcStream(const FcParams& p, unsigned thread) : p_(p), thread_(thread), slice_(p.threads[thread]) {}

protected:
    bool refill(std::vector<Op>& out) override {
        if (!started_) {
            started_ = true;
            if (p_.threads.size() > 1)
                out.push_back(thread_ == 0 ? control(OpKind::Fork, kForkEvent, 0)
                                           : control(OpKind::Join, kForkEvent, 1));
            setVl(out, p_.vlmax);
            return true;
        }
        if (pass_ == p_.repeat || slice_.count == 0) {
            if (done_)
                return false;
            done_ = true;
            if (p_.threads.size() > 1)
                out.push_back(
                    control(OpKind::Barrier, kJoinBarrier, static_cast<std::uint32_t>(p_.threads.size())));
            return !out.empty();
        }
        const std::uint64_t width = blockWidth();
        if (p_.overOut)
            blockOverOut(out, width);
        else
            blockOverIn(out, width);
        // Next block: batch rows inside, outputs outside (a block of W rows stays within the
        // L1's reach while every batch row passes it).
        b_ += p_.rb;
        if (b_ >= p_.batch) {
            b_ = 0;
            o_ += width;
            if (o_ >= slice_.count) {
                o_ = 0;
                ++pass_;
            }
        }
        return true;
    }

private:
    // Vector register groups: the accumulators, then the x rows, then the W rows.
    std::uint8_t acc(unsigned b, unsigned o) const {
        return static_cast<std::uint8_t>((b * p_.ro + o) * p_.accGroup());
    }
    std::uint8_t xReg(unsigned b) const { return operand(b); }
    std::uint8_t wReg(unsigned o) const { return operand(p_.rb + o); }
    std::uint8_t operand(unsigned g) const {
        return static_cast<std::uint8_t>(p_.rb * p_.ro * p_.accGroup() + g * p_.group);
    }
    // Over `out`: the accumulators, then the W columns; x values in scalar registers.
    std::uint8_t wColumn(unsigned o) const { return reg(p_.rb * p_.ro + o); }
    std::uint8_t xValue(unsigned b) const { return scalarReg(kFirstPointer + 2 * p_.rb + p_.ro + b); }
    std::uint8_t reg(unsigned g) const { return static_cast<std::uint8_t>(g * p_.group); }
    std::uint8_t yPtr(unsigned b) const { return scalarReg(kFirstPointer + b); }
    std::uint8_t xPtr(unsigned b) const { return scalarReg(kFirstPointer + p_.rb + b); }
    std::uint8_t wPtr(unsigned o) const { return scalarReg(kFirstPointer + 2 * p_.rb + o); }

    // Outputs of the next block. Over `out`, ro whole vectors, or alone the short last vector of
    // `out` (a block's vectors share one vector length).
    std::uint64_t blockWidth() const {
        const std::uint64_t left = slice_.count - o_;
        if (!p_.overOut)
            return std::min<std::uint64_t>(p_.ro, left);
        if (left < p_.vlmax)
            return left;
        return std::min<std::uint64_t>(p_.ro, left / p_.vlmax) * p_.vlmax;
    }

    // Over `out`: rb·ro vectors of outputs y[b][o … o + vl), each Σ_i x[b][i] · W[o …][i]: per i a
    // scalar load of x[b][i] per batch row (flw), a strided load of a W column per output vector
    // (vlse32, stride `in`), rb·ro vfmacc.vf; the vectors stored unit-stride at the end.
    void blockOverOut(std::vector<Op>& out, std::uint64_t width) {
        const std::uint64_t o0 = slice_.first + o_;
        const unsigned rb = static_cast<unsigned>(std::min<std::uint64_t>(p_.rb, p_.batch - b_));
        const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.vlmax, width));
        const auto ro = static_cast<unsigned>(width / vl);
        const unsigned elem = p_.elem();
        for (unsigned b = 0; b < rb; ++b)
            out.push_back(scalar(OpKind::SAdd, xPtr(b), kZero, p_.xAddr + (b_ + b) * p_.in * elem));
        for (unsigned o = 0; o < ro; ++o)
            out.push_back(scalar(OpKind::SAdd, wPtr(o), kZero, p_.wAddr + (o0 + o * vl) * p_.in * elem));
        out.push_back(scalar(OpKind::SAdd, kEnd, kZero, p_.wAddr + (o0 * p_.in + p_.in) * elem));
        setVl(out, vl);
        for (std::uint64_t i = 0; i < p_.in; ++i) {
            for (unsigned b = 0; b < rb; ++b) {
                Op op;
                op.kind = OpKind::ScalarLoad;
                op.dtype = p_.dtype;
                op.dst = xValue(b);
                op.space = p_.memory->id;
                op.addr = p_.xAddr + ((b_ + b) * p_.in + i) * elem;
                op.base = xPtr(b);
                out.push_back(op);
            }
            for (unsigned o = 0; o < ro; ++o) {
                Op op = load(wColumn(o), wPtr(o), p_.wAddr + ((o0 + o * vl) * p_.in + i) * elem, vl);
                op.stride = static_cast<std::int64_t>(p_.in * elem);
                out.push_back(op);
            }
            for (unsigned o = 0; o < ro; ++o) {
                for (unsigned b = 0; b < rb; ++b)
                    out.push_back(multiplyAccumulate(i == 0, vl, acc(b, o), xValue(b), wColumn(o)));
            }
            loopTail(out, rb, ro, elem, i + 1 < p_.in);
        }
        for (unsigned b = 0; b < rb; ++b) {
            out.push_back(scalar(OpKind::SAdd, yPtr(b), kZero, p_.yAddr + ((b_ + b) * p_.out + o0) * elem));
            for (unsigned o = 0; o < ro; ++o) {
                Op store = vectorStore(p_.dtype, acc(b, o), p_.memory->id,
                                       p_.yAddr + ((b_ + b) * p_.out + o0 + o * vl) * elem, vl);
                store.base = yPtr(b);
                out.push_back(store);
            }
        }
        blockLoop(out, width);
    }

    // Pointer increments, the compare of W row 0's pointer with its end, the back-edge.
    void loopTail(std::vector<Op>& out, unsigned rb, unsigned ro, std::uint64_t stepBytes, bool more) const {
        const auto step = static_cast<double>(stepBytes);
        for (unsigned b = 0; b < rb; ++b)
            out.push_back(scalar(OpKind::SAdd, xPtr(b), xPtr(b), step));
        for (unsigned o = 0; o < ro; ++o)
            out.push_back(scalar(OpKind::SAdd, wPtr(o), wPtr(o), step));
        Op compare = scalar(OpKind::SCompare, kFlag, wPtr(0), 0.0);
        compare.src[1] = kEnd;
        out.push_back(compare);
        out.push_back(branch(more));
    }

    // The block loop: a counter, a compare and its back-edge.
    void blockLoop(std::vector<Op>& out, std::uint64_t width) {
        const bool lastBlock = b_ + p_.rb >= p_.batch && o_ + width >= slice_.count;
        const bool more = !lastBlock || pass_ + 1 < p_.repeat;
        out.push_back(scalar(OpKind::SAdd, kBlock, kBlock, 1.0));
        out.push_back(scalar(OpKind::SCompare, kFlag, kBlock, static_cast<double>(++blocks_ + more)));
        out.push_back(branch(more));
    }

    // Over `in`: rb·ro dot products of length `in`.
    void blockOverIn(std::vector<Op>& out, std::uint64_t width) {
        const std::uint64_t o0 = slice_.first + o_;
        const unsigned rb = static_cast<unsigned>(std::min<std::uint64_t>(p_.rb, p_.batch - b_));
        const auto ro = static_cast<unsigned>(width);
        const unsigned elem = p_.elem();
        // Row pointers and the end the loop compares W row 0's pointer against.
        for (unsigned b = 0; b < rb; ++b)
            out.push_back(scalar(OpKind::SAdd, xPtr(b), kZero, p_.xAddr + (b_ + b) * p_.in * elem));
        for (unsigned o = 0; o < ro; ++o)
            out.push_back(scalar(OpKind::SAdd, wPtr(o), kZero, p_.wAddr + (o0 + o) * p_.in * elem));
        out.push_back(scalar(OpKind::SAdd, kEnd, kZero, p_.wAddr + (o0 + 1) * p_.in * elem));
        // Widening: the f32 accumulators start at zero (vmv.v.i), every step is a vfwmacc.
        if (p_.widen) {
            for (unsigned b = 0; b < rb; ++b) {
                for (unsigned o = 0; o < ro; ++o) {
                    Op zero = tessim::vectorOp(OpKind::Broadcast, DType::F32, p_.vlmax);
                    zero.dst = acc(b, o);
                    out.push_back(zero);
                }
            }
        }
        for (std::uint64_t i = 0; i < p_.in; i += p_.vlmax) {
            const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.vlmax, p_.in - i));
            setVl(out, vl);
            for (unsigned b = 0; b < rb; ++b)
                out.push_back(load(xReg(b), xPtr(b), p_.xAddr + ((b_ + b) * p_.in + i) * elem, vl));
            for (unsigned o = 0; o < ro; ++o)
                out.push_back(load(wReg(o), wPtr(o), p_.wAddr + ((o0 + o) * p_.in + i) * elem, vl));
            for (unsigned o = 0; o < ro; ++o) {
                for (unsigned b = 0; b < rb; ++b)
                    out.push_back(multiplyAccumulate(i == 0, vl, acc(b, o), xReg(b), wReg(o)));
            }
            loopTail(out, rb, ro, std::uint64_t{vl} * elem, i + vl < p_.in);
        }
        // Each accumulator summed over its lanes (vfredusum, then vfmv.f.s) and stored (fsw at an
        // immediate offset of its y row's pointer).
        setVl(out, p_.reduceVl());
        for (unsigned b = 0; b < rb; ++b)
            out.push_back(scalar(OpKind::SAdd, yPtr(b), kZero, p_.yAddr + ((b_ + b) * p_.out + o0) * elem));
        unsigned sum = 0;
        for (unsigned b = 0; b < rb; ++b) {
            for (unsigned o = 0; o < ro; ++o, ++sum) {
                const std::uint8_t s = scalarReg(kFirstSum + sum % kSumRegs);
                Op reduce = tessim::vectorOp(OpKind::Reduce, p_.accType(), p_.reduceVl());
                reduce.dst = s;
                reduce.src[0] = acc(b, o);
                out.push_back(reduce);
                Op store;
                store.kind = OpKind::ScalarStore;
                store.dtype = p_.dtype;
                store.src[0] = s;
                store.space = p_.memory->id;
                store.addr = p_.yAddr + ((b_ + b) * p_.out + o0 + o) * elem;
                store.base = yPtr(b);
                out.push_back(store);
            }
        }
        blockLoop(out, width);
    }

    void setVl(std::vector<Op>& out, std::uint32_t vl) {
        if (vl == vl_)
            return;
        vl_ = vl;
        out.push_back(vsetvlOp(p_.dtype, vl, kVl, p_.lmul));
    }
    Op vectorOp(OpKind kind, std::uint32_t vl) const { return tessim::vectorOp(kind, p_.dtype, vl); }
    // The first step multiplies (vfmul: no accumulator needs zeroing first), the later ones
    // accumulate (vfmacc): acc ← a · b + acc. Widening, every step is a vfwmacc.
    Op multiplyAccumulate(bool first, std::uint32_t vl, std::uint8_t accumulator, std::uint8_t a,
                          std::uint8_t b) const {
        if (p_.widen)
            first = false;
        Op op = vectorOp(first ? OpKind::Mul : p_.widen ? OpKind::WidenFma : OpKind::Fma, vl);
        op.dst = accumulator;
        op.src[0] = a;
        op.src[1] = b;
        if (!first)
            op.src[2] = accumulator;
        return op;
    }
    // A load from the address in `pointer` (the op waits for the pointer's last increment).
    Op load(std::uint8_t reg, std::uint8_t pointer, std::uint64_t addr, std::uint32_t vl) const {
        Op op = vectorLoad(p_.dtype, reg, p_.memory->id, addr, vl);
        op.base = pointer;
        return op;
    }
    static Op scalar(OpKind kind, std::uint8_t dst, std::uint8_t src, double imm) {
        return scalarOp(kind, kIndex, dst, src, imm);
    }
    static Op scalar(OpKind kind, std::uint8_t dst, std::uint8_t src, std::uint64_t imm) {
        return scalar(kind, dst, src, static_cast<double>(imm));
    }
    static Op branch(bool taken) { return branchOp(kIndex, kFlag, taken); }
    static Op control(OpKind kind, std::uint32_t tag, std::uint32_t count) {
        return syncOp(kind, tag, count);
    }

    const FcParams p_;
    unsigned thread_;
    ThreadSlice slice_;
    bool started_ = false;
    bool done_ = false;
    unsigned pass_ = 0;
    std::uint64_t b_ = 0, o_ = 0;  // the next block: its first batch row, its first output in the slice
    std::uint64_t blocks_ = 0;
    std::uint32_t vl_ = 0;  // the vector length last set
};

class FullyConnectedKernel : public ConfiguredWorkload {
public:
    explicit FullyConnectedKernel(FcParams p) : p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        echoThreadSlices(j, p_.threads, "first_output", "outputs");
        if (p_.dtype == DType::F16)
            j["accumulate"] = p_.widen ? "f32" : "f16";
        j["vector_length"] = p_.vlmax;
        j["memory"] = p_.memory->name;
        j["x"] = p_.xAddr;
        j["w"] = p_.wAddr;
        j["y"] = p_.yAddr;
    }
    std::vector<EngineStream> streams() override { return streamPerSlice<FcStream>(p_, p_.threads); }
    // x and W read once, y written once.
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        return {{p_.memory->level, (p_.batch * p_.in + p_.out * p_.in + p_.batch * p_.out) * p_.elem()}};
    }
    std::uint64_t coldReadBytes() const override { return (p_.batch * p_.in + p_.out * p_.in) * p_.elem(); }
    void initialise(FunctionalMemory& memory) override {
        write(memory, p_.xAddr, p_.batch * p_.in, 0);
        write(memory, p_.wAddr, p_.out * p_.in, 1);
        // y holds other values first, so an output the schedule misses shows.
        write(memory, p_.yAddr, p_.batch * p_.out, 2);
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        const unsigned elem = p_.elem();
        std::vector<std::uint8_t> buf(p_.batch * p_.out * elem);
        memory.read(p_.memory->id, p_.yAddr, buf.data(), buf.size());
        for (std::uint64_t b = 0; b < p_.batch; ++b) {
            for (std::uint64_t o = 0; o < p_.out; ++o) {
                const double got = decodeElement(p_.dtype, buf.data() + (b * p_.out + o) * elem);
                const double want = reference(b, o);
                if (c.countOutput(got, want, got != want)) {
                    c.firstMismatch = fmt::format("y[{}][{}]: simulated {} reference {}", b, o, got, want);
                    c.locateFirstMismatch(p_.memory->id, p_.yAddr + (b * p_.out + o) * elem);
                }
            }
        }
        return c;
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        addFlopStats(stats, p_.flops(), "2 · batch · in · out, all passes", cycles, seconds);
    }

private:
    double x(std::uint64_t b, std::uint64_t i) const { return testValue(p_.dtype, b * p_.in + i, 0); }
    double w(std::uint64_t o, std::uint64_t i) const { return testValue(p_.dtype, o * p_.in + i, 1); }

    void write(FunctionalMemory& memory, std::uint64_t addr, std::uint64_t count, std::uint64_t salt) const {
        const unsigned elem = p_.elem();
        std::vector<std::uint8_t> buf(count * elem);
        for (std::uint64_t k = 0; k < count; ++k)
            encodeElement(p_.dtype, testValue(p_.dtype, k, salt), buf.data() + k * elem);
        memory.write(p_.memory->id, addr, buf.data(), buf.size());
    }

    // The dot product in the schedule's order, rounded to the dtype at every step: lane l of the
    // accumulator takes elements l, l + vlmax, … (a product first, then fused multiply-adds); the
    // lanes are then summed in order from zero.
    double reference(std::uint64_t b, std::uint64_t o) const {
        if (p_.overOut) {
            // Over `out`: one lane per output, x[b][i] · W[o][i] in the order of i.
            double sum = mulIn(p_.dtype, x(b, 0), w(o, 0));
            for (std::uint64_t i = 1; i < p_.in; ++i)
                sum = fmaIn(p_.dtype, x(b, i), w(o, i), sum);
            return sum;
        }
        // Widening: f32 lanes from zero, every step a fused f16 × f16 + f32; the sum rounded to f16
        // by the store.
        const DType acc = p_.accType();
        std::vector<double> lanes(p_.vlmax, 0.0);
        for (std::uint64_t i = 0; i < p_.in; ++i) {
            double& lane = lanes[i % p_.vlmax];
            lane =
                i < p_.vlmax && !p_.widen ? mulIn(acc, x(b, i), w(o, i)) : fmaIn(acc, x(b, i), w(o, i), lane);
        }
        double sum = 0.0;
        for (std::uint32_t l = 0; l < p_.reduceVl(); ++l)
            sum = addIn(acc, sum, lanes[l]);
        return roundTo(p_.dtype, sum);
    }

    FcParams p_;
};

}  // namespace

std::unique_ptr<Workload> makeFullyConnectedKernel(const std::string& kernel, const config::Node& workload,
                                                   const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    (void)kernel;
    FcParams p;
    Reader w = workloadReader(workload);
    // Sizes keep every address a 32-bit integer in the loop's registers.
    const Range<std::uint64_t> size{1, std::uint64_t{1} << 20};
    p.in = w.get<std::uint64_t>("in", size);
    p.out = w.get<std::uint64_t>("out", size);
    p.batch = w.get<std::uint64_t>("batch", 1, size);
    // f16: twice the elements per register (SEW 16), half the bytes, arithmetic rounded to binary16.
    const std::string dtype = w.oneOf("dtype", {"f32", "f16"}, std::string("f32"));
    parseDType(dtype, p.dtype);
    p.repeat = w.get<unsigned>("repeat", 1u, Range<unsigned>{1, 1u << 20});
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    const std::vector<const EngineInfo*> engines = planEngines(pl, target, "threads");
    p.overOut = pl.oneOf("vectorise", {"in", "out"}, std::string("in")) == "out";
    p.rb = pl.get<unsigned>("rb", 2u, Range<unsigned>{1, 64});
    p.ro = pl.get<unsigned>("ro", 4u, Range<unsigned>{1, 64});
    p.lmul = pl.get<unsigned>("lmul", 2u, Range<unsigned>{1, 8});
    if ((p.lmul & (p.lmul - 1)) != 0)
        pl.fail("lmul", fmt::format("LMUL is 1, 2, 4 or 8, not {}", p.lmul));
    // f16 accumulates in f16 (vfmacc at e16) or in f32 (vfwmacc, then vfredusum at e32).
    if (pl.has("accumulate")) {
        const std::string accumulate =
            pl.oneOf("accumulate", {"f16", "f32"}, std::string(dtypeName(p.dtype)));
        if (p.dtype != DType::F16)
            pl.fail("accumulate", "accumulate chooses f16 or f32 accumulators for dtype f16 only");
        p.widen = accumulate == "f32";
        if (p.widen && p.overOut)
            pl.fail("accumulate", "widening accumulation (accumulate: f32) needs vectorise: in");
        if (p.widen && p.lmul > 4)
            pl.fail("accumulate",
                    fmt::format("f32 accumulators span 2 × lmul registers: lmul must be at most "
                                "4, not {}",
                                p.lmul));
    }
    p.memory = &planMemory(pl, target, *engines[0]);
    pl.finish();
    const EngineInfo& core = *engines[0];
    for (const EngineInfo* e : engines)
        if (e->registerBytes != core.registerBytes || e->vectorRegisters != core.vectorRegisters ||
            e->scalarRegisters != core.scalarRegisters || e->registerGroups != core.registerGroups)
            pl.fail("threads", fmt::format("engines {} and {} have different registers", core.name, e->name));
    if (!core.registerGroups && p.lmul > 1)
        pl.fail("lmul",
                fmt::format("engine '{}' has no register groups: lmul must be 1, not {}", core.name, p.lmul));
    p.group = core.registerGroups ? p.lmul : 1;
    p.vlmax = std::max(1u, core.registerBytes * p.lmul / p.elem());
    // Over `in`: rb·ro accumulators, rb x rows and ro W rows; over `out`: rb·ro accumulators and ro
    // W columns (x values are scalars). Each an aligned group of lmul registers.
    const unsigned accumulatorGroups = p.rb * p.ro * (p.widen ? 2 : 1);
    const unsigned groups = accumulatorGroups + (p.overOut ? 0 : p.rb) + p.ro;
    if (groups * p.group > core.vectorRegisters) {
        const std::string operands =
            p.overOut ? fmt::format("{} W columns", p.ro) : fmt::format("{} x rows + {} W rows", p.rb, p.ro);
        pl.fail(
            "rb",
            fmt::format("a block of rb {} × ro {} at lmul {} needs {} + {} = {} register groups = {} vector "
                        "registers; engine '{}' has {}",
                        p.rb, p.ro, p.lmul,
                        p.widen ? fmt::format("{} f32 accumulators × 2", p.rb * p.ro)
                                : fmt::format("{} accumulators", p.rb * p.ro),
                        operands, groups, groups * p.group, core.name, core.vectorRegisters),
            config::Shortfall::Registers);
    }
    const unsigned scalars = kFirstPointer + 2 * p.rb + p.ro + (p.overOut ? p.rb : 0);
    if (scalars > core.scalarRegisters)
        pl.fail("rb",
                fmt::format("a block of rb {} × ro {} needs {} scalar registers ({} + pointers and "
                            "values per batch row and output); engine '{}' has {}",
                            p.rb, p.ro, scalars, kFirstPointer, core.name, core.scalarRegisters),
                config::Shortfall::Registers);
    // Threads take contiguous slices of the outputs in whole blocks (over `out`: whole vectors).
    const auto slices = contiguousSlices(p.out, engines.size(), p.overOut ? p.vlmax : p.ro);
    for (std::size_t t = 0; t < engines.size(); ++t)
        p.threads.push_back(ThreadSlice{engines[t]->name, slices[t].first, slices[t].count});
    MemoryLayout layout(*p.memory, kPage);
    p.xAddr = layout.allocate("x", p.batch * p.in * p.elem());
    p.wAddr = layout.allocate("W", p.out * p.in * p.elem());
    p.yAddr = layout.allocate("y", p.batch * p.out * p.elem());
    if (layout.end() > (std::uint64_t{1} << 31))
        w.fail("in",
               fmt::format("x, W and y take {} B; the loop's 32-bit pointers reach 2 GiB", layout.end()));
    layout.requireFits(w, "in",
                       fmt::format("fc of in {} × out {} × batch {} {}", p.in, p.out, p.batch, dtype));
    auto k = std::make_unique<FullyConnectedKernel>(std::move(p));
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
