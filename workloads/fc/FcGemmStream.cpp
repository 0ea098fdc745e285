#include "workloads/fc/FcGemmStream.h"

#include <vector>

#include <fmt/format.h>

#include "sim/ir/ElementArithmetic.h"
#include "workloads/common/VectorOps.h"

// Why over `in`: W is stored row-major [out][in] (as a framework hands it over), so along `in`
// both a W row and an x row are unit-stride (vle32 at 16 B/cycle). Along `out` every W load would
// be strided (about one element per cycle) unless W were first transposed. The price of `in` is
// one vfredusum per output at the end of its row.

namespace tessim {
namespace fc_gemm {
namespace {

class FcStream : public ChunkedOpStream {
public:
    FcStream(const FcParams& p, unsigned thread) : p_(p), thread_(thread), slice_(p.threads[thread]) {}

protected:
    bool refill(std::vector<Op>& out) override {
        if (inBlock_) {
            continueBlock(out);
            return true;
        }
        if (!started_) {
            started_ = true;
            if (p_.forkJoin && p_.threads.size() > 1)
                out.push_back(thread_ == 0 ? control(OpKind::Fork, kForkEvent, 0)
                                           : control(OpKind::Join, kForkEvent, 1));
            if (p_.isInt8())
                loadInt8Constants(out, p_.int8, p_.memory->id);
            setVl(out, p_.vlmax);
            return true;
        }
        if (pass_ == p_.repeat || slice_.count == 0) {
            if (done_)
                return false;
            done_ = true;
            if (p_.forkJoin && p_.threads.size() > 1)
                out.push_back(
                    control(OpKind::Barrier, kJoinBarrier, static_cast<std::uint32_t>(p_.threads.size())));
            return !out.empty();
        }
        width_ = blockWidth();
        i_ = 0;
        inBlock_ = true;
        if (p_.overOut)
            outPrologue(out);
        else
            inPrologue(out);
        continueBlock(out);
        return true;
    }

private:
    // A block's steps along `in` go out a few at a time, so the buffer of ops the engine reads
    // stays small (a block over a long `in` holds thousands of ops).
    static constexpr unsigned kStepsPerRefill = 16;
    void continueBlock(std::vector<Op>& out) {
        for (unsigned n = 0; n < kStepsPerRefill && i_ < p_.in; ++n)
            i_ = p_.overOut ? outStep(out, i_) : inStep(out, i_);
        if (i_ < p_.in)
            return;
        if (p_.overOut)
            outEpilogue(out);
        else
            inEpilogue(out);
        inBlock_ = false;
        // Next block: batch rows inside, outputs outside (a block of W rows stays within the
        // L1's reach while every batch row passes it).
        b_ += p_.rb;
        if (b_ >= p_.batch) {
            b_ = 0;
            o_ += width_;
            if (o_ >= slice_.count) {
                o_ = 0;
                ++pass_;
            }
        }
    }
    // The current block's first output, batch rows and (over `out`) vector length and vectors.
    std::uint64_t blockFirstOutput() const { return slice_.first + o_; }
    unsigned blockRows() const {
        return static_cast<unsigned>(std::min<std::uint64_t>(p_.rb, p_.batch - b_));
    }
    std::uint32_t outVl() const {
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.vlmax, width_));
    }
    unsigned outVectors() const { return static_cast<unsigned>(width_ / outVl()); }

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
    std::uint8_t wColumn(unsigned o) const {
        return p_.isInt8() ? static_cast<std::uint8_t>(p_.rb * p_.ro * p_.accGroup() + o * 2 * p_.group)
                           : reg(p_.rb * p_.ro + o);
    }
    // INT8: the i8 W columns as loaded, above their i16 extensions (wColumn).
    std::uint8_t wBytes(unsigned o) const {
        return static_cast<std::uint8_t>(p_.rb * p_.ro * p_.accGroup() + p_.ro * 2 * p_.group + o * p_.group);
    }
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
    void outPrologue(std::vector<Op>& out) {
        const std::uint64_t o0 = blockFirstOutput();
        const std::uint32_t vl = outVl();
        const unsigned elem = p_.elem();
        for (unsigned b = 0; b < blockRows(); ++b)
            out.push_back(scalar(OpKind::SAdd, xPtr(b), kZero, p_.xAddr + (b_ + b) * p_.in * elem));
        if (p_.isInt8()) {
            int8Prologue(out);
            return;
        }
        for (unsigned o = 0; o < outVectors(); ++o)
            out.push_back(scalar(OpKind::SAdd, wPtr(o), kZero, p_.wAddr + (o0 + o * vl) * p_.in * elem));
        out.push_back(scalar(OpKind::SAdd, kEnd, kZero, p_.wAddr + (o0 * p_.in + p_.in) * elem));
        setVl(out, vl);
    }
    // INT8: W pointers into the packed [in][out] rows, ending past row in − 1; the accumulators
    // zeroed (vmv.v.i at e32), as every step accumulates.
    void int8Prologue(std::vector<Op>& out) {
        const std::uint64_t o0 = blockFirstOutput();
        const std::uint32_t vl = outVl();
        for (unsigned o = 0; o < outVectors(); ++o)
            out.push_back(scalar(OpKind::SAdd, wPtr(o), kZero, p_.wAddr + o0 + o * vl));
        out.push_back(scalar(OpKind::SAdd, kEnd, kZero, p_.wAddr + p_.in * p_.out + o0));
        setType(out, DType::I32, vl);
        for (unsigned b = 0; b < blockRows(); ++b)
            for (unsigned o = 0; o < outVectors(); ++o) {
                Op zero = tessim::vectorOp(OpKind::Broadcast, DType::I32, vl);
                zero.dst = acc(b, o);
                out.push_back(zero);
            }
    }
    // INT8, step i: x[b][i] (lb), the W columns' i8 (vle8), their i16 (vsext.vf2), rb·ro vwmacc.vx.
    std::uint64_t int8Step(std::vector<Op>& out, std::uint64_t i) {
        const std::uint64_t o0 = blockFirstOutput();
        const unsigned rb = blockRows(), ro = outVectors();
        const std::uint32_t vl = outVl();
        setType(out, DType::I8, vl);
        for (unsigned b = 0; b < rb; ++b) {
            Op op;
            op.kind = OpKind::ScalarLoad;
            op.dtype = DType::I8;
            op.dst = xValue(b);
            op.space = p_.memory->id;
            op.addr = p_.xAddr + (b_ + b) * p_.in + i;
            op.base = xPtr(b);
            out.push_back(op);
        }
        for (unsigned o = 0; o < ro; ++o)
            load(out.emplace_back(), wBytes(o), wPtr(o), p_.wAddr + i * p_.out + o0 + o * vl, vl);
        setType(out, DType::I16, vl);
        for (unsigned o = 0; o < ro; ++o)
            out.push_back(convertOp(DType::I16, DType::I8, wColumn(o), wBytes(o), vl, p_.registerBytes));
        for (unsigned o = 0; o < ro; ++o) {
            for (unsigned b = 0; b < rb; ++b) {
                Op& mac = out.emplace_back();  // in place, as multiplyAccumulate()
                setVectorOp(mac, OpKind::WidenFma, DType::I16, vl);
                mac.dst = acc(b, o);
                mac.src[0] = xValue(b);
                mac.src[1] = wColumn(o);
                mac.src[2] = acc(b, o);
            }
        }
        loopTail(out, rb, ro, 1, p_.out, i + 1 < p_.in);
        return i + 1;
    }
    std::uint64_t outStep(std::vector<Op>& out, std::uint64_t i) {
        if (p_.isInt8())
            return int8Step(out, i);
        const std::uint64_t o0 = blockFirstOutput();
        const unsigned rb = blockRows(), ro = outVectors();
        const std::uint32_t vl = outVl();
        const unsigned elem = p_.elem();
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
            Op& op = out.emplace_back();
            load(op, wColumn(o), wPtr(o), p_.wAddr + ((o0 + o * vl) * p_.in + i) * elem, vl);
            op.stride = static_cast<std::int64_t>(p_.in * elem);
        }
        for (unsigned o = 0; o < ro; ++o) {
            for (unsigned b = 0; b < rb; ++b)
                multiplyAccumulate(out.emplace_back(), i == 0, vl, acc(b, o), xValue(b), wColumn(o));
        }
        loopTail(out, rb, ro, elem, elem, i + 1 < p_.in);
        return i + 1;
    }
    void outEpilogue(std::vector<Op>& out) {
        const std::uint64_t o0 = blockFirstOutput();
        const std::uint32_t vl = outVl();
        const unsigned elem = p_.yElem();
        if (p_.isInt8()) {
            std::vector<AccumulatorStore> stores;
            for (unsigned b = 0; b < blockRows(); ++b) {
                out.push_back(
                    scalar(OpKind::SAdd, yPtr(b), kZero, p_.yAddr + ((b_ + b) * p_.yStride() + o0) * elem));
                for (unsigned o = 0; o < outVectors(); ++o)
                    stores.push_back(
                        {acc(b, o), p_.yAddr + ((b_ + b) * p_.yStride() + o0 + o * vl) * elem, yPtr(b)});
            }
            storeInt8Outputs(out, p_.int8, stores, vl, p_.memory->id, p_.registerBytes, p_.lmul, kVl);
            vt_ = p_.int8.outType();
            vl_ = vl;
            blockLoop(out, width_);
            return;
        }
        for (unsigned b = 0; b < blockRows(); ++b) {
            out.push_back(
                scalar(OpKind::SAdd, yPtr(b), kZero, p_.yAddr + ((b_ + b) * p_.yStride() + o0) * elem));
            for (unsigned o = 0; o < outVectors(); ++o) {
                Op store = vectorStore(p_.dtype, acc(b, o), p_.memory->id,
                                       p_.yAddr + ((b_ + b) * p_.yStride() + o0 + o * vl) * elem, vl);
                store.base = yPtr(b);
                out.push_back(store);
            }
        }
        blockLoop(out, width_);
    }

    // Pointer increments, the compare of W row 0's pointer with its end, the back-edge.
    void loopTail(std::vector<Op>& out, unsigned rb, unsigned ro, std::uint64_t xStep, std::uint64_t wStep,
                  bool more) const {
        for (unsigned b = 0; b < rb; ++b)  // in place, as load()
            setScalarOp(out.emplace_back(), OpKind::SAdd, kIndex, xPtr(b), xPtr(b),
                        static_cast<double>(xStep));
        for (unsigned o = 0; o < ro; ++o)
            setScalarOp(out.emplace_back(), OpKind::SAdd, kIndex, wPtr(o), wPtr(o),
                        static_cast<double>(wStep));
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
    void inPrologue(std::vector<Op>& out) {
        const std::uint64_t o0 = blockFirstOutput();
        const unsigned rb = blockRows();
        const auto ro = static_cast<unsigned>(width_);
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
    }
    std::uint64_t inStep(std::vector<Op>& out, std::uint64_t i) {
        const std::uint64_t o0 = blockFirstOutput();
        const unsigned rb = blockRows();
        const auto ro = static_cast<unsigned>(width_);
        const unsigned elem = p_.elem();
        const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.vlmax, p_.in - i));
        setVl(out, vl);
        for (unsigned b = 0; b < rb; ++b)
            load(out.emplace_back(), xReg(b), xPtr(b), p_.xAddr + ((b_ + b) * p_.in + i) * elem, vl);
        for (unsigned o = 0; o < ro; ++o)
            load(out.emplace_back(), wReg(o), wPtr(o), p_.wAddr + ((o0 + o) * p_.in + i) * elem, vl);
        for (unsigned o = 0; o < ro; ++o) {
            for (unsigned b = 0; b < rb; ++b)
                multiplyAccumulate(out.emplace_back(), i == 0, vl, acc(b, o), xReg(b), wReg(o));
        }
        loopTail(out, rb, ro, std::uint64_t{vl} * elem, std::uint64_t{vl} * elem, i + vl < p_.in);
        return i + vl;
    }
    void inEpilogue(std::vector<Op>& out) {
        const std::uint64_t o0 = blockFirstOutput();
        const unsigned rb = blockRows();
        const auto ro = static_cast<unsigned>(width_);
        const unsigned elem = p_.elem();
        // Each accumulator summed over its lanes (vfredusum, then vfmv.f.s) and stored (fsw at an
        // immediate offset of its y row's pointer).
        setVl(out, p_.reduceVl());
        for (unsigned b = 0; b < rb; ++b)
            out.push_back(
                scalar(OpKind::SAdd, yPtr(b), kZero, p_.yAddr + ((b_ + b) * p_.yStride() + o0) * elem));
        unsigned sum = 0;
        for (unsigned b = 0; b < rb; ++b) {
            for (unsigned o = 0; o < ro; ++o, ++sum) {
                const std::uint8_t s = scalarReg(kFirstSum + sum % kSumRegs);
                Op reduce = tessim::vectorOp(OpKind::Reduce, p_.accType(), p_.reduceVl());
                if (p_.orderedReduce)
                    reduce.flags |= Op::kOrdered;
                reduce.dst = s;
                reduce.src[0] = acc(b, o);
                out.push_back(reduce);
                Op store;
                store.kind = OpKind::ScalarStore;
                store.dtype = p_.dtype;
                store.src[0] = s;
                store.space = p_.memory->id;
                store.addr = p_.yAddr + ((b_ + b) * p_.yStride() + o0 + o) * elem;
                store.base = yPtr(b);
                out.push_back(store);
            }
        }
        blockLoop(out, width_);
    }

    void setVl(std::vector<Op>& out, std::uint32_t vl) { setType(out, p_.dtype, vl); }
    // vsetvli for elements of type t (INT8: i8 at lmul, i16 at 2·lmul, i32 at 4·lmul).
    void setType(std::vector<Op>& out, DType t, std::uint32_t vl) {
        if (vl == vl_ && t == vt_)
            return;
        vl_ = vl;
        vt_ = t;
        out.push_back(vsetvlOp(t, vl, kVl, p_.isInt8() ? p_.lmul * dtypeBytes(t) : p_.lmul));
    }
    Op vectorOp(OpKind kind, std::uint32_t vl) const { return tessim::vectorOp(kind, p_.dtype, vl); }
    // The first step multiplies (vfmul: no accumulator needs zeroing first), the later ones
    // accumulate (vfmacc): acc ← a · b + acc. Widening, every step is a vfwmacc. Written into a
    // default-constructed op in the stream (out.emplace_back(); VectorOps.h's set… forms): this is
    // the GEMM's hottest path.
    void multiplyAccumulate(Op& op, bool first, std::uint32_t vl, std::uint8_t accumulator, std::uint8_t a,
                            std::uint8_t b) const {
        if (p_.widen)
            first = false;
        setVectorOp(op, first ? OpKind::Mul : p_.widen ? OpKind::WidenFma : OpKind::Fma, p_.dtype, vl);
        op.dst = accumulator;
        op.src[0] = a;
        op.src[1] = b;
        if (!first)
            op.src[2] = accumulator;
    }
    // A load from the address in `pointer` (the op waits for the pointer's last increment), into a
    // default-constructed op as multiplyAccumulate.
    void load(Op& op, std::uint8_t reg, std::uint8_t pointer, std::uint64_t addr, std::uint32_t vl) const {
        setVectorLoad(op, p_.dtype, reg, p_.memory->id, addr, vl);
        op.base = pointer;
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
    std::uint32_t vl_ = 0;     // the vector length last set
    DType vt_ = DType::F32;    // and its element type
    bool inBlock_ = false;     // a block's steps are still going out
    std::uint64_t width_ = 0;  // the current block's outputs
    std::uint64_t i_ = 0;      // its next step's first element of `in`
};

}  // namespace
}  // namespace fc_gemm

void readGemmBlocking(config::Reader& plan, FcParams& p, unsigned maxBlock) {
    using config::Range;
    p.rb = plan.get<unsigned>("rb", p.isInt8() ? 4u : 2u, Range<unsigned>{1, maxBlock});
    // One batch row (a matrix-vector product): one W row at a time. Four outputs a block save x
    // reloads from the L1 but stream four W rows at once per core, which the K1's DDR serves far
    // worse: 768 → 3072 on one core 2,631,124 cycles at ro 1 against 5,846,280 at ro 4, on four
    // 2,185,466 against 2,537,261 (clang's vectorised loop, as a program: 2,101,763).
    const unsigned roDefault = p.isInt8() || p.batch == 1 ? 1u : 4u;
    p.ro = plan.get<unsigned>("ro", roDefault, Range<unsigned>{1, maxBlock});
    p.lmul = plan.get<unsigned>("lmul", p.isInt8() ? 1u : 2u, Range<unsigned>{1, 8});
    if (p.isInt8() && p.lmul > 2)
        plan.fail("lmul", fmt::format("an INT8 GEMM's i8 operands take LMUL 1 or 2 (its i32 accumulators "
                                      "4·LMUL registers), not {}",
                                      p.lmul));
}

std::unique_ptr<ChunkedOpStream> makeFcStream(const FcParams& p, unsigned thread) {
    return std::make_unique<fc_gemm::FcStream>(p, thread);
}

double fcReference(const FcParams& p, const std::function<double(std::uint64_t)>& x,
                   const std::function<double(std::uint64_t)>& w) {
    if (p.isInt8()) {  // exact i32 sums (wrapping), then the requantisation
        double acc = 0.0;
        for (std::uint64_t i = 0; i < p.in; ++i)
            acc = fmaIn(DType::I32, x(i), w(i), acc);
        return int8OutputReference(p.int8, acc);
    }
    if (p.overOut) {
        // Over `out`: one lane per output, x[b][i] · W[o][i] in the order of i.
        double sum = mulIn(p.dtype, x(0), w(0));
        for (std::uint64_t i = 1; i < p.in; ++i)
            sum = fmaIn(p.dtype, x(i), w(i), sum);
        return sum;
    }
    // Widening: f32 lanes from zero, every step a fused f16 × f16 + f32; the sum rounded to f16
    // by the store.
    const DType acc = p.accType();
    std::vector<double> lanes(p.vlmax, 0.0);
    for (std::uint64_t i = 0; i < p.in; ++i) {
        double& lane = lanes[i % p.vlmax];
        lane = i < p.vlmax && !p.widen ? mulIn(acc, x(i), w(i)) : fmaIn(acc, x(i), w(i), lane);
    }
    double sum = 0.0;
    for (std::uint32_t l = 0; l < p.reduceVl(); ++l)
        sum = addIn(acc, sum, lanes[l]);
    return roundTo(p.dtype, sum);
}

}  // namespace tessim
