#include "workloads/tt/TtStream.h"

#include <algorithm>

#include "workloads/common/EngineStreams.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/VectorOps.h"
#include "workloads/conv/RvvIm2colRows.h"

namespace tessim::tt {

namespace {

constexpr std::uint32_t kForkEvent = 1;
constexpr std::uint32_t kFirstBarrier = 16;   // one barrier per einsum: the next reads all of its output
constexpr std::uint32_t kIm2colBarrier = 15;  // after a convolution's im2col: every row is written
constexpr DType kIndex = DType::I32;

// Scalar registers: x0 reads zero, then the loops' bookkeeping, then rotating pools for the
// broadcast operands and the reduced sums.
constexpr std::uint8_t kZero = scalarReg(0);
constexpr std::uint8_t kFlag = scalarReg(1);
constexpr std::uint8_t kKCount = scalarReg(2);
constexpr std::uint8_t kBlockCount = scalarReg(3);
constexpr std::uint8_t kCorePtr = scalarReg(4);
constexpr std::uint8_t kInputPtr = scalarReg(5);
constexpr std::uint8_t kOutputPtr = scalarReg(6);
constexpr std::uint8_t kVl = scalarReg(7);
constexpr unsigned kFirstValue = 8, kValueRegs = 8;
constexpr unsigned kFirstSum = 16, kSumRegs = 4;
constexpr unsigned kScalarRegsUsed = kFirstSum + kSumRegs;
// A convolution's im2col, before the einsums, copies through the loops' pointer registers and the
// upper LMUL-8 groups (data v24–v31, zeros v16–v23), its rows counted in kKCount.
constexpr Im2colRegisters kIm2colRegisters{kCorePtr, kOutputPtr, kVl, 24, 16};
// With vector_length 1 the loop is scalar code: operands are loaded (flw) into scalar registers
// from here on, and each multiply-accumulate takes them directly (fmadd).
constexpr unsigned kFirstOperand = kScalarRegsUsed;

class TtStream : public ChunkedOpStream {
public:
    TtStream(const TtParams& p, unsigned thread)
        : p_(p), thread_(thread), rows_(kData, p.memory->id, p.copyVlmax, kIm2colRegisters, im2colVs_) {}

protected:
    bool refill(std::vector<Op>& out) override {
        if (!started_) {
            started_ = true;
            if (p_.engines.size() > 1)
                out.push_back(thread_ == 0 ? syncOp(OpKind::Fork, kForkEvent, 0)
                                           : syncOp(OpKind::Join, kForkEvent, 1));
            beginPass(out);
            return true;
        }
        if (pass_ == p_.repeat)
            return false;
        if (im2colPending_) {
            im2colChunk(out);
            return true;
        }
        if (block_ < blocks_.size()) {
            emitBlock(out, blocks_[block_]);
            ++block_;
            return true;
        }
        // End of the einsum: every thread meets before the next reads its output.
        if (p_.engines.size() > 1)
            out.push_back(syncOp(OpKind::Barrier, kFirstBarrier + einsum_,
                                 static_cast<std::uint32_t>(p_.engines.size())));
        if (thread_ == 0 && pass_ == 0)
            mark(out, einsum_ + 1 + (p_.im2col ? 1 : 0));
        if (++einsum_ == p_.einsums.size()) {
            einsum_ = 0;
            if (++pass_ < p_.repeat)
                beginPass(out);
            return true;
        }
        enterEinsum(out);
        return true;
    }

private:
    const EinsumPlan& plan() const { return p_.einsums[einsum_]; }

    static void mark(std::vector<Op>& out, std::uint32_t tag) {
        Op m;
        m.kind = OpKind::Nop;
        m.tag = tag;
        out.push_back(m);
    }
    // A pass starts with a convolution's im2col, else with the first einsum.
    void beginPass(std::vector<Op>& out) {
        if (!p_.im2col) {
            enterEinsum(out);
            return;
        }
        im2colPending_ = true;
        pixel_ = 0;
        im2colVs_.forget();
        if (p_.im2colRows[thread_].count > 0) {
            rows_.zeros(out);
            out.push_back(scalar(OpKind::SAdd, kKCount, kZero, 0.0));
        }
    }
    // A few column rows per chunk (row b of x: output pixel b); after the last, the barrier (the
    // first einsum's threads read rows the others wrote) and the first einsum.
    void im2colChunk(std::vector<Op>& out) {
        const Slice& s = p_.im2colRows[thread_];
        for (unsigned n = 0; n < 4 && pixel_ < s.count; ++n, ++pixel_) {
            const std::uint64_t b = s.first + pixel_;
            rows_.row(out, *p_.im2col, p_.imageAddr, 0, b, p_.xAddr + b * p_.inSize() * kElem);
            out.push_back(scalar(OpKind::SAdd, kKCount, kKCount, 1.0));
            out.push_back(scalar(OpKind::SCompare, kFlag, kKCount, static_cast<double>(s.count)));
            out.push_back(branchOp(kIndex, kFlag, pixel_ + 1 < s.count));
        }
        if (pixel_ < s.count)
            return;
        im2colPending_ = false;
        if (p_.engines.size() > 1)
            out.push_back(
                syncOp(OpKind::Barrier, kIm2colBarrier, static_cast<std::uint32_t>(p_.engines.size())));
        if (thread_ == 0 && pass_ == 0)
            mark(out, 1);
        vl_ = 0;  // the copies set their own
        enterEinsum(out);
    }

    // The blocks of this thread, in the plan's loop order, tile by tile along b.
    void enterEinsum(std::vector<Op>& out) {
        blocks_.clear();
        block_ = 0;
        const EinsumPlan& e = plan();
        if (thread_ < e.threads) {
            std::uint64_t m0 = 0, m1 = e.units(Dim::M), b0 = 0, b1 = e.units(Dim::B);
            const Slice& s = e.slices[thread_];
            if (e.split == Dim::M) {
                m0 = s.first;
                m1 = s.first + s.count;
            } else {
                b0 = s.first;
                b1 = s.first + s.count;
            }
            const std::uint64_t rUnits = e.units(Dim::R);
            auto push = [&](std::uint64_t m, std::uint64_t b, std::uint64_t bEnd) {
                for (std::uint64_t r = 0; r < rUnits; r += p_.rr)
                    blocks_.push_back(Block{m, std::min<std::uint64_t>(p_.rm, m1 - m), b,
                                            std::min<std::uint64_t>(p_.rb, bEnd - b), r,
                                            std::min<std::uint64_t>(p_.rr, rUnits - r)});
            };
            for (std::uint64_t t0 = b0; t0 < b1; t0 += e.tile) {
                const std::uint64_t t1 = std::min(b1, t0 + e.tile);
                if (p_.bOuter) {
                    for (std::uint64_t b = t0; b < t1; b += p_.rb)
                        for (std::uint64_t m = m0; m < m1; m += p_.rm)
                            push(m, b, t1);
                } else {
                    for (std::uint64_t m = m0; m < m1; m += p_.rm)
                        for (std::uint64_t b = t0; b < t1; b += p_.rb)
                            push(m, b, t1);
                }
            }
        }
        out.push_back(scalar(OpKind::SAdd, kBlockCount, kZero, 0.0));
    }

    // Vector registers: the accumulators, then the held operands, then the streamed one.
    unsigned accumulators() const { return p_.rm * p_.rb * p_.rr; }
    std::uint8_t acc(unsigned im, unsigned ib, unsigned ir) const {
        return static_cast<std::uint8_t>((im * p_.rb + ib) * p_.rr + ir);
    }
    bool scalarCode() const { return p_.vectorLength == 1; }
    std::uint8_t held(unsigned i) const {
        return scalarCode() ? scalarReg(kFirstOperand + i) : static_cast<std::uint8_t>(accumulators() + i);
    }
    std::uint8_t streamed() const {
        const unsigned held = plan().holdInputs ? p_.rb * p_.rk : p_.rm * p_.rr;
        return scalarCode() ? scalarReg(kFirstOperand + held)
                            : static_cast<std::uint8_t>(accumulators() + held);
    }
    // flw, or for a narrower type its load (flh) and fcvt.s.h into the same register.
    // After the streamed operand: f16 cores' two staging registers (stagingRegisters).
    std::uint8_t staging(unsigned i) const { return static_cast<std::uint8_t>(streamed() + 1 + i); }
    void scalarLoad(std::vector<Op>& out, std::uint8_t reg, std::uint64_t addr, DType type = kData) const {
        Op load;
        load.kind = OpKind::ScalarLoad;
        load.dtype = type;
        load.dst = reg;
        load.space = p_.memory->id;
        load.addr = addr;
        out.push_back(load);
        if (type != kData)
            out.push_back(scalarOp(OpKind::FCvt, kData, reg, reg, 0.0));
    }
    std::uint8_t nextValue() { return scalarReg(kFirstValue + value_++ % kValueRegs); }

    // The vl of the accumulator for units (m, b, r, k): the length of the vectorised one.
    std::uint32_t lanes(const Unit& m, const Unit& b, const Unit& r, const Unit& k) const {
        switch (plan().vec) {
        case Dim::M: return m.len;
        case Dim::B: return b.len;
        case Dim::R: return r.len;
        case Dim::K: return k.len;
        }
        return 1;
    }

    // Input[b][k] into vector register `reg`: a vector along b or k, else a scalar load splat.
    void loadInput(std::vector<Op>& out, std::uint8_t reg, const Unit& b, const Unit& k) {
        const EinsumPlan& e = plan();
        const std::uint64_t addr = e.inAddr + e.inputIndex(b.start, k.start) * kElem;
        if (scalarCode()) {
            scalarLoad(out, reg, addr);
            return;
        }
        if (e.vec == Dim::B || e.vec == Dim::K) {
            const std::uint32_t vl = e.vec == Dim::B ? b.len : k.len;
            setVl(out, vl);
            Op op = vectorLoad(kData, reg, p_.memory->id, addr, vl);
            if (e.vec == Dim::B && vl > 1)
                op.stride = static_cast<std::int64_t>(e.e.k() * kElem);
            out.push_back(op);
            return;
        }
        splat(out, reg, addr);
    }

    // G[m][r][k] into `reg`: a vector along m, r or k, else a scalar load splat (f16 core vectors:
    // emitBlock's pipelined loads instead).
    void loadCore(std::vector<Op>& out, std::uint8_t reg, const Unit& m, const Unit& r, const Unit& k) {
        const EinsumPlan& e = plan();
        const std::uint64_t addr = e.coreAddr + e.coreIndex(m.start, r.start, k.start) * p_.coreElem();
        if (scalarCode()) {
            scalarLoad(out, reg, addr, p_.coreType);
            return;
        }
        if (e.vec == Dim::B) {
            splat(out, reg, addr, p_.coreType);
            return;
        }
        setVl(out, coreVl(m, r, k));
        out.push_back(coreVector(reg, m, r, k));
    }
    std::uint32_t coreVl(const Unit& m, const Unit& r, const Unit& k) const {
        return plan().vec == Dim::M ? m.len : plan().vec == Dim::R ? r.len : k.len;
    }
    // The load of a core vector into `reg` in the cores' type (its EEW in the instruction: no vsetvl).
    Op coreVector(std::uint8_t reg, const Unit& m, const Unit& r, const Unit& k) const {
        const EinsumPlan& e = plan();
        const std::uint64_t first = e.coreIndex(m.start, r.start, k.start);
        const std::uint32_t vl = coreVl(m, r, k);
        Op op = vectorLoad(p_.coreType, reg, p_.memory->id, e.coreAddr + first * p_.coreElem(), vl);
        if (vl > 1) {
            const std::uint64_t second = e.vec == Dim::M   ? e.coreIndex(m.start + 1, r.start, k.start)
                                         : e.vec == Dim::R ? e.coreIndex(m.start, r.start + 1, k.start)
                                                           : e.coreIndex(m.start, r.start, k.start + 1);
            if (second != first + 1)
                op.stride = static_cast<std::int64_t>((second - first) * p_.coreElem());
        }
        return op;
    }
    // vfwcvt.f.f.v reg <- from, at the source's SEW.
    void widen(std::vector<Op>& out, std::uint8_t reg, std::uint8_t from, std::uint32_t vl) {
        setVl(out, vl, p_.coreType);
        out.push_back(convertOp(kData, p_.coreType, reg, from, vl, p_.registerBytes));
    }
    // f16 core vectors are loaded one ahead of their use, so the load's latency passes under the
    // FMAs (or the widening) of the one before.
    bool pipelinedCores() const { return p_.narrowCores() && !scalarCode() && plan().vec != Dim::B; }

    // flw then vfmv.v.f over the longest vector of the einsum.
    void splat(std::vector<Op>& out, std::uint8_t reg, std::uint64_t addr, DType type = kData) {
        const std::uint8_t s = nextValue();
        scalarLoad(out, s, addr, type);
        const std::uint32_t vl = plan().unit(plan().vec, 0).len;
        setVl(out, vl);
        Op b = vectorOp(OpKind::Broadcast, kData, vl);
        b.dst = reg;
        b.src[0] = s;
        out.push_back(b);
    }

    void multiplyAccumulate(std::vector<Op>& out, bool first, std::uint32_t vl, std::uint8_t accumulator,
                            std::uint8_t a, std::uint8_t b) {
        setVl(out, vl);
        Op op = vectorOp(first ? OpKind::Mul : OpKind::Fma, kData, vl);
        op.dst = accumulator;
        op.src[0] = a;
        op.src[1] = b;
        if (!first)
            op.src[2] = accumulator;
        out.push_back(op);
    }

    void emitBlock(std::vector<Op>& out, const Block& blk) {
        const EinsumPlan& e = plan();
        const auto mc = static_cast<unsigned>(blk.mCount), bc = static_cast<unsigned>(blk.bCount),
                   rc = static_cast<unsigned>(blk.rCount);
        std::vector<Unit> mu(mc), bu(bc), ru(rc);
        for (unsigned i = 0; i < mc; ++i)
            mu[i] = e.unit(Dim::M, blk.m0 + i);
        for (unsigned i = 0; i < bc; ++i)
            bu[i] = e.unit(Dim::B, blk.b0 + i);
        for (unsigned i = 0; i < rc; ++i)
            ru[i] = e.unit(Dim::R, blk.r0 + i);
        const std::uint64_t kUnits = e.units(Dim::K);
        const std::uint64_t kBlocks = (kUnits + p_.rk - 1) / p_.rk;
        out.push_back(scalar(
            OpKind::SAdd, kCorePtr, kZero,
            static_cast<double>(e.coreAddr + e.coreIndex(mu[0].start, ru[0].start, 0) * p_.coreElem())));
        out.push_back(scalar(OpKind::SAdd, kInputPtr, kZero,
                             static_cast<double>(e.inAddr + e.inputIndex(bu[0].start, 0) * kElem)));
        out.push_back(scalar(OpKind::SAdd, kKCount, kZero, 0.0));
        if (e.accumulate)
            loadAccumulators(out, mu, bu, ru);
        std::vector<Unit> ku(p_.rk);
        for (std::uint64_t kb = 0; kb < kBlocks; ++kb) {
            const auto kc = static_cast<unsigned>(std::min<std::uint64_t>(p_.rk, kUnits - kb * p_.rk));
            for (unsigned i = 0; i < kc; ++i)
                ku[i] = e.unit(Dim::K, kb * p_.rk + i);
            if (e.holdInputs) {
                for (unsigned k = 0; k < kc; ++k)
                    for (unsigned b = 0; b < bc; ++b)
                        loadInput(out, held(k * p_.rb + b), bu[b], ku[k]);
                // The core vectors n = (k·mc + m)·rc + r in turn; f16 ones widened into streamed()
                // and staging(1) by turns, the next one's load issued before this one's FMAs.
                const unsigned count = kc * mc * rc;
                const bool ahead = pipelinedCores();
                auto operand = [&](unsigned n) { return ahead && n % 2 ? staging(1) : streamed(); };
                auto load = [&](unsigned n) {
                    out.push_back(coreVector(staging(0), mu[n / rc % mc], ru[n % rc], ku[n / (mc * rc)]));
                };
                auto widenCore = [&](unsigned n) {
                    widen(out, operand(n), staging(0),
                          coreVl(mu[n / rc % mc], ru[n % rc], ku[n / (mc * rc)]));
                };
                if (ahead) {
                    load(0);
                    widenCore(0);
                }
                for (unsigned n = 0; n < count; ++n) {
                    const unsigned k = n / (mc * rc), m = n / rc % mc, r = n % rc;
                    if (!ahead)
                        loadCore(out, streamed(), mu[m], ru[r], ku[k]);
                    else if (n + 1 < count)
                        load(n + 1);
                    for (unsigned b = 0; b < bc; ++b)
                        multiplyAccumulate(out, kb == 0 && k == 0 && !e.accumulate,
                                           lanes(mu[m], bu[b], ru[r], ku[k]), acc(m, b, r), operand(n),
                                           held(k * p_.rb + b));
                    if (ahead && n + 1 < count)
                        widenCore(n + 1);
                }
            } else {
                for (unsigned k = 0; k < kc; ++k) {
                    if (pipelinedCores()) {
                        // f16: each core vector loaded into the staging register the widening
                        // before it does not read, one ahead.
                        const unsigned n = mc * rc;
                        auto load = [&](unsigned i) {
                            out.push_back(coreVector(staging(i % 2), mu[i / rc], ru[i % rc], ku[k]));
                        };
                        load(0);
                        for (unsigned i = 0; i < n; ++i) {
                            if (i + 1 < n)
                                load(i + 1);
                            widen(out, held(i / rc * p_.rr + i % rc), staging(i % 2),
                                  coreVl(mu[i / rc], ru[i % rc], ku[k]));
                        }
                    } else {
                        for (unsigned m = 0; m < mc; ++m)
                            for (unsigned r = 0; r < rc; ++r)
                                loadCore(out, held(m * p_.rr + r), mu[m], ru[r], ku[k]);
                    }
                    for (unsigned b = 0; b < bc; ++b) {
                        loadInput(out, streamed(), bu[b], ku[k]);
                        for (unsigned m = 0; m < mc; ++m)
                            for (unsigned r = 0; r < rc; ++r)
                                multiplyAccumulate(out, kb == 0 && k == 0 && !e.accumulate,
                                                   lanes(mu[m], bu[b], ru[r], ku[k]), acc(m, b, r),
                                                   held(m * p_.rr + r), streamed());
                    }
                }
            }
            // The k loop: pointer increments, its counter, the compare, the back-edge.
            out.push_back(scalar(OpKind::SAdd, kCorePtr, kCorePtr, p_.coreElem() * 1.0));
            out.push_back(scalar(OpKind::SAdd, kInputPtr, kInputPtr, kElem * 1.0));
            out.push_back(scalar(OpKind::SAdd, kKCount, kKCount, 1.0));
            out.push_back(scalar(OpKind::SCompare, kFlag, kKCount, static_cast<double>(kBlocks)));
            out.push_back(branchOp(kIndex, kFlag, kb + 1 < kBlocks));
        }
        writeBack(out, mu, bu, ru);
        // The block loop.
        out.push_back(scalar(OpKind::SAdd, kBlockCount, kBlockCount, 1.0));
        out.push_back(scalar(OpKind::SCompare, kFlag, kBlockCount, static_cast<double>(blocks_.size())));
        out.push_back(branchOp(kIndex, kFlag, block_ + 1 < blocks_.size()));
    }

    // A ring's later chains start from the output the earlier ones wrote (never vectorised along k).
    void loadAccumulators(std::vector<Op>& out, const std::vector<Unit>& mu, const std::vector<Unit>& bu,
                          const std::vector<Unit>& ru) {
        const EinsumPlan& e = plan();
        for (unsigned m = 0; m < mu.size(); ++m)
            for (unsigned b = 0; b < bu.size(); ++b)
                for (unsigned r = 0; r < ru.size(); ++r) {
                    const std::uint64_t addr =
                        e.outAddr + e.outputIndex(mu[m].start, bu[b].start, ru[r].start) * kElem;
                    const std::uint32_t vl = lanes(mu[m], bu[b], ru[r], Unit{});
                    setVl(out, vl);
                    Op load = vectorLoad(kData, acc(m, b, r), p_.memory->id, addr, vl);
                    if (vl > 1 && e.vec == Dim::M)
                        load.stride = static_cast<std::int64_t>(e.e.b * e.e.r * kElem);
                    if (vl > 1 && e.vec == Dim::B)
                        load.stride = static_cast<std::int64_t>(e.e.r * kElem);
                    out.push_back(load);
                }
    }

    // Vector stores of the accumulators (strided along m or b), or along k a reduction and fsw each.
    void writeBack(std::vector<Op>& out, const std::vector<Unit>& mu, const std::vector<Unit>& bu,
                   const std::vector<Unit>& ru) {
        const EinsumPlan& e = plan();
        out.push_back(scalar(
            OpKind::SAdd, kOutputPtr, kZero,
            static_cast<double>(e.outAddr + e.outputIndex(mu[0].start, bu[0].start, ru[0].start) * kElem)));
        const std::uint32_t reduceVl = e.unit(Dim::K, 0).len;
        for (unsigned m = 0; m < mu.size(); ++m)
            for (unsigned b = 0; b < bu.size(); ++b)
                for (unsigned r = 0; r < ru.size(); ++r) {
                    const std::uint64_t addr =
                        e.outAddr + e.outputIndex(mu[m].start, bu[b].start, ru[r].start) * kElem;
                    if (e.vec == Dim::K) {
                        const std::uint8_t s = scalarReg(kFirstSum + sum_++ % kSumRegs);
                        setVl(out, reduceVl);
                        Op reduce = vectorOp(OpKind::Reduce, kData, reduceVl);
                        if (p_.orderedReduce)
                            reduce.flags |= Op::kOrdered;
                        reduce.dst = s;
                        reduce.src[0] = acc(m, b, r);
                        out.push_back(reduce);
                        Op store;
                        store.kind = OpKind::ScalarStore;
                        store.dtype = kData;
                        store.src[0] = s;
                        store.space = p_.memory->id;
                        store.addr = addr;
                        out.push_back(store);
                        continue;
                    }
                    const std::uint32_t vl = lanes(mu[m], bu[b], ru[r], Unit{});
                    setVl(out, vl);
                    Op store = vectorStore(kData, acc(m, b, r), p_.memory->id, addr, vl);
                    if (vl > 1 && e.vec == Dim::M)
                        store.stride = static_cast<std::int64_t>(e.e.b * e.e.r * kElem);
                    if (vl > 1 && e.vec == Dim::B)
                        store.stride = static_cast<std::int64_t>(e.e.r * kElem);
                    out.push_back(store);
                }
    }

    void setVl(std::vector<Op>& out, std::uint32_t vl, DType type = kData) {
        if (vl == vl_ && type == vtype_)
            return;
        vl_ = vl;
        vtype_ = type;
        out.push_back(vsetvlOp(type, vl, kVl, 1));
    }
    static Op scalar(OpKind kind, std::uint8_t dst, std::uint8_t src, double imm) {
        return scalarOp(kind, kIndex, dst, src, imm);
    }

    const TtParams& p_;
    unsigned thread_;
    bool started_ = false;
    unsigned pass_ = 0;
    unsigned einsum_ = 0;
    std::vector<Block> blocks_;
    std::size_t block_ = 0;
    std::uint32_t vl_ = 0;
    DType vtype_ = kData;
    unsigned value_ = 0, sum_ = 0;
    VectorTypeState im2colVs_;
    RvvIm2colRows rows_;
    bool im2colPending_ = false;
    std::uint64_t pixel_ = 0;  // the im2col's next row in the thread's slice
};

struct ThreadStreamSlice {
    std::string engine;
};

}  // namespace

unsigned stagingRegisters(const TtParams& p) {
    return p.narrowCores() && p.vectorLength > 1 ? 2 : 0;
}

unsigned scalarRegistersUsed(const TtParams& p) {
    return kScalarRegsUsed + (p.vectorLength == 1 ? std::min(p.rb * p.rk, p.rm * p.rr) + 1 : 0);
}

std::vector<EngineStream> ttStreams(const TtParams& p) {
    std::vector<ThreadStreamSlice> threads;
    for (const auto& e : p.engines)
        threads.push_back(ThreadStreamSlice{e});
    return streamPerSlice<TtStream>(p, threads);
}

}  // namespace tessim::tt
