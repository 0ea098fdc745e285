#include "sim/ir/OpSemantics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/ir/ElementArithmetic.h"

namespace tessim {

const std::vector<double>& OpExecution::source(const Op& op, unsigned i) {
    const std::uint8_t r = op.src[i];
    if (!isScalarRegister(r))
        return vector(r);
    splat_[i].assign(op.vl, scalar(r));
    return splat_[i];
}

namespace semantics {
namespace {

// A scalar op's second operand: a register, or the immediate when there is none.
double second(const Op& op, OpExecution& exec) {
    return op.src[1] == kNoReg ? roundTo(op.dtype, op.imm) : exec.scalar(op.src[1]);
}

// An element-wise op of two or three sources: vd[i] ← f(a[i], b[i], c[i]).
template <class F> void elementwise(const Op& op, OpExecution& exec, unsigned sources, F f) {
    const std::size_t n = op.vl;
    std::vector<double> result = undisturbedTail(exec.vector(op.dst), n);
    const auto& a = exec.source(op, 0);
    const std::vector<double>* b = sources >= 2 ? &exec.source(op, 1) : nullptr;
    const std::vector<double>* c = sources == 3 ? &exec.source(op, 2) : nullptr;
    for (std::size_t i = 0; i < n; ++i)
        result[i] = f(element(a, i), b ? element(*b, i) : 0.0, c ? element(*c, i) : 0.0);
    exec.vector(op.dst) = std::move(result);
}

void encodeRegister(const Op& op, const std::vector<double>& v, std::uint8_t* out, std::size_t pitch) {
    const unsigned elem = dtypeBytes(op.dtype);
    for (std::uint32_t i = 0; i < op.vl; ++i)
        encodeElement(op.dtype, element(v, i), out + std::size_t{i} * pitch * elem);
}

}  // namespace

std::vector<double> undisturbedTail(const std::vector<double>& old, std::size_t n) {
    std::vector<double> result = old;
    result.resize(std::max(old.size(), n));
    return result;
}

void vload(const Op& op, OpExecution& exec) {
    const unsigned elem = dtypeBytes(op.dtype);
    auto& d = exec.vector(op.dst);
    d.resize(std::max<std::size_t>(d.size(), op.vl));
    for (std::size_t i = 0; i < op.vl; ++i)
        d[i] = decodeElement(op.dtype, exec.loaded() + i * elem);
}

void vstore(const Op& op, OpExecution& exec) {
    const auto& v = exec.vector(op.src[0]);
    exec.stored().assign(std::size_t{op.vl} * dtypeBytes(op.dtype), 0);
    encodeRegister(op, v, exec.stored().data(), 1);
}

void sload(const Op& op, OpExecution& exec) {
    exec.scalar(op.dst) = decodeElement(op.dtype, exec.loaded());
}

void sstore(const Op& op, OpExecution& exec) {
    if (!isScalarRegister(op.src[0]))
        exec.fail(fmt::format("sstore stores a scalar register, not {}", registerName(op.src[0])));
    exec.stored().assign(dtypeBytes(op.dtype), 0);
    encodeElement(op.dtype, exec.scalar(op.src[0]), exec.stored().data());
}

// Segment i holds field f of every register group: interleaved in memory.
void segmentLoad(const Op& op, OpExecution& exec) {
    const unsigned elem = dtypeBytes(op.dtype);
    const unsigned fieldRegisters = exec.fieldRegisters(op);
    for (std::uint32_t f = 0; f < op.count; ++f) {
        auto& d = exec.vector(static_cast<std::uint8_t>(op.dst + f * fieldRegisters));
        d.resize(std::max<std::size_t>(d.size(), op.vl));
        for (std::size_t i = 0; i < op.vl; ++i)
            d[i] = decodeElement(op.dtype, exec.loaded() + (i * op.count + f) * elem);
    }
}

void segmentStore(const Op& op, OpExecution& exec) {
    const unsigned elem = dtypeBytes(op.dtype);
    const unsigned fieldRegisters = exec.fieldRegisters(op);
    std::vector<std::uint8_t>& out = exec.stored();
    out.assign(std::size_t{op.vl} * op.count * elem, 0);
    for (std::uint32_t f = 0; f < op.count; ++f)
        encodeRegister(op, exec.vector(static_cast<std::uint8_t>(op.src[0] + f * fieldRegisters)),
                       out.data() + std::size_t{f} * elem, op.count);
}

void fma(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 3, [&](double a, double b, double c) { return fmaIn(op.dtype, a, b, c); });
}

// The product of two sources is exact at twice their width: one rounding, as fused.
void widenFma(const Op& op, OpExecution& exec) {
    const DType wide = widenedType(op.dtype);
    elementwise(op, exec, 3, [&](double a, double b, double c) { return fmaIn(wide, a, b, c); });
}

void mul(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 2, [&](double a, double b, double) { return mulIn(op.dtype, a, b); });
}

void add(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 2, [&](double a, double b, double) { return addIn(op.dtype, a, b); });
}

// Exact in every type (the larger operand as it is); RVV's vfmax/vfmin return the other operand
// for a NaN, which test data never holds.
void max(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 2, [&](double a, double b, double) { return roundTo(op.dtype, std::max(a, b)); });
}

void min(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 2, [&](double a, double b, double) { return roundTo(op.dtype, std::min(a, b)); });
}

// a − b rounded once, as a + (−b): negation is exact.
void sub(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 2, [&](double a, double b, double) { return addIn(op.dtype, a, -b); });
}

// a / b rounded once (RVV's divide by zero: all ones for integers, IEEE for FP).
void divide(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 2, [&](double a, double b, double) { return divIn(op.dtype, a, b); });
}

// Elements keep their value across a conversion (the registers hold values, not bits): only the
// destination type's rounding and range apply.
void convert(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 1, [&](double a, double, double) { return convertIn(op.dtype, a); });
}

void reciprocalEstimate(const Op& op, OpExecution& exec) {
    elementwise(op, exec, 1, [&](double a, double, double) { return recipEstimateIn(op.dtype, a); });
}

void broadcast(const Op& op, OpExecution& exec) {
    const double value = roundTo(op.dtype, op.src[0] == kNoReg ? op.imm : exec.scalar(op.src[0]));
    auto& d = exec.vector(op.dst);
    d.resize(std::max<std::size_t>(d.size(), op.vl));
    std::fill(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(op.vl), value);
}

void slide(const Op& op, OpExecution& exec) {
    const std::size_t n = op.vl;
    std::vector<double> result = undisturbedTail(exec.vector(op.dst), n);
    const auto& a = exec.vector(op.src[0]);
    const auto shift = static_cast<std::int64_t>(op.imm);
    if (op.stride > 1) {  // every stride-th element of vs0, vs1, vs2 laid end to end, from imm
        for (std::size_t i = 0; i < n; ++i) {
            const auto j = static_cast<std::size_t>(static_cast<std::int64_t>(i) * op.stride + shift);
            const std::size_t source = n > 0 ? j / n : 0;
            result[i] =
                source < 3 && op.src[source] != kNoReg ? element(exec.vector(op.src[source]), j % n) : 0.0;
        }
        exec.vector(op.dst) = std::move(result);
        return;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t j = static_cast<std::int64_t>(i) + shift;
        if (j >= 0 && static_cast<std::size_t>(j) < n)
            result[i] = element(a, static_cast<std::size_t>(j));
        else if (op.src[1] != kNoReg && j >= static_cast<std::int64_t>(n))
            result[i] = element(exec.vector(op.src[1]), static_cast<std::size_t>(j) - n);
        else
            result[i] = 0.0;
    }
    exec.vector(op.dst) = std::move(result);
}

void gather(const Op& op, OpExecution& exec) {
    const std::size_t n = op.vl;
    std::vector<double> result = undisturbedTail(exec.vector(op.dst), n);
    const auto& a = exec.vector(op.src[0]);
    const auto& index = exec.source(op, 1);
    for (std::size_t i = 0; i < n; ++i) {
        const double j = element(index, i);
        result[i] = j >= 0.0 && j < static_cast<double>(n) ? element(a, static_cast<std::size_t>(j)) : 0.0;
    }
    exec.vector(op.dst) = std::move(result);
}

// Ordered or not, the functional model adds in element order (one of the orders an unordered
// reduction may use).
void reduce(const Op& op, OpExecution& exec) {
    const bool max = op.count == kReduceMax;
    const auto& a = exec.vector(op.src[0]);
    double acc = op.src[1] != kNoReg ? exec.scalar(op.src[1]) : max && op.vl > 0 ? element(a, 0) : 0.0;
    for (std::size_t i = 0; i < op.vl; ++i)
        acc = max ? roundTo(op.dtype, std::max(acc, element(a, i))) : addIn(op.dtype, acc, element(a, i));
    if (op.dst < kVectorRegs) {
        auto& d = exec.vector(op.dst);
        d.resize(std::max<std::size_t>(d.size(), 1));
        d[0] = acc;
    } else {
        exec.scalar(op.dst) = acc;
    }
}

void scalarAdd(const Op& op, OpExecution& exec) {
    exec.scalar(op.dst) = addIn(op.dtype, exec.scalar(op.src[0]), second(op, exec));
}

void scalarMul(const Op& op, OpExecution& exec) {
    exec.scalar(op.dst) = mulIn(op.dtype, exec.scalar(op.src[0]), second(op, exec));
}

// Integer division truncates towards zero and by zero gives all ones (RISC-V); FP divides.
void scalarDivide(const Op& op, OpExecution& exec) {
    exec.scalar(op.dst) = divIn(op.dtype, exec.scalar(op.src[0]), second(op, exec));
}

void scalarFma(const Op& op, OpExecution& exec) {
    exec.scalar(op.dst) =
        fmaIn(op.dtype, exec.scalar(op.src[0]), exec.scalar(op.src[1]), exec.scalar(op.src[2]));
}

void scalarConvert(const Op& op, OpExecution& exec) {
    exec.scalar(op.dst) = roundTo(op.dtype, exec.scalar(op.src[0]));
}

void scalarCompare(const Op& op, OpExecution& exec) {
    exec.scalar(op.dst) = exec.scalar(op.src[0]) < second(op, exec) ? 1.0 : 0.0;
}

void scalarShift(const Op& op, OpExecution& exec) {
    if (op.dtype == DType::F16 || op.dtype == DType::F32 || op.dtype == DType::F64)
        exec.fail(fmt::format("sshift needs an integer dtype, not {}", dtypeName(op.dtype)));
    const auto value = static_cast<std::int64_t>(exec.scalar(op.src[0]));
    const auto amount = static_cast<std::int64_t>(second(op, exec));
    if (amount <= -64 || amount >= 64)
        exec.fail(fmt::format("sshift by {} bits is out of range -63..63", amount));
    const std::int64_t shifted = amount >= 0
                                     ? static_cast<std::int64_t>(static_cast<std::uint64_t>(value) << amount)
                                     : value >> -amount;
    exec.scalar(op.dst) = roundTo(op.dtype, static_cast<double>(shifted));
}

void branch(const Op& op, OpExecution& exec) {
    if (op.src[0] == kNoReg)
        return;
    const bool taken = (op.flags & Op::kTaken) != 0;
    const double condition = exec.scalar(op.src[0]);
    if ((condition != 0.0) != taken)
        exec.fail(fmt::format("branch is marked {} but its condition {} = {} says otherwise",
                              taken ? "taken" : "not taken", registerName(op.src[0]), condition));
}

void setVectorLength(const Op& op, OpExecution& exec) {
    const double avl = op.src[0] == kNoReg ? static_cast<double>(op.vl) : exec.scalar(op.src[0]);
    const double lmul = op.imm > 0 ? op.imm : 1.0;
    const double vlmax = lmul * exec.registerBytes() / dtypeBytes(op.dtype);
    exec.scalar(op.dst) = std::max(0.0, std::min(avl, vlmax));
}

}  // namespace semantics
}  // namespace tessim
