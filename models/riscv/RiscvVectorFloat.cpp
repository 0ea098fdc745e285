// RVV 1.0 single-width floating point of the hart (OPFVV, OPFVF): at SEW 32 and 64 on the host's
// IEEE 754 arithmetic with the RISC-V rules of FloatRules.h, at SEW 16 (Zvfh) through long double
// (FloatFormats.h); the dynamic rounding mode (frm), fflags accrued over the active elements,
// canonical NaNs. Widening forms and conversions: RiscvVectorFloatWide.cpp. Built with
// -frounding-math. vfrsqrt7/vfrec7: FloatEstimates.h.
#include <algorithm>

#include "models/riscv/FloatEstimates.h"
#include "models/riscv/FloatFormats.h"
#include "models/riscv/FloatRules.h"
#include "models/riscv/RiscvHart.h"
#include "models/riscv/RiscvVector.h"

namespace tessim::riscv {

using namespace fp;

namespace {

// One SEW's view of the bits: the host type, its bit pattern and canonical NaN.
template <typename F> struct Format;
template <> struct Format<float> {
    using Bits = std::uint32_t;
    static constexpr Bits kNaN = kCanonicalNaN32;
    static float value(std::uint64_t b) { return asFloat(static_cast<std::uint32_t>(b)); }
    static std::uint64_t bits(float f) { return canonical(f); }
    static std::uint64_t raw(float f) { return bitsOf(f); }
};
template <> struct Format<double> {
    using Bits = std::uint64_t;
    static constexpr Bits kNaN = kCanonicalNaN64;
    static double value(std::uint64_t b) { return asDouble(b); }
    static std::uint64_t bits(double d) { return canonical(d); }
    static std::uint64_t raw(double d) { return bitsOf(d); }
};

// a op b in the current host mode (and, under RMM, corrected at ties); flags accrued.
template <typename F, typename Compute, typename Exact>
std::uint64_t rounded(Compute compute, Exact exact, bool tiesToMax, std::uint32_t& flags) {
    clearHostFlags();
    // Volatile (here and the operands): GCC may move a math call such as fma, which it deems free
    // of side effects, across the flag calls; volatile loads and stores pin it between them.
    const volatile F computed = compute();
    const F v = computed;
    flags |= hostFlags();
    if (!tiesToMax || std::isnan(v))
        return Format<F>::bits(v);
    const F corrected = tiesAway(v, roundToOdd(exact));
    return Format<F>::bits(corrected);
}

// The operation of one funct6 on element values: vd = op(vs2, src1, vd).
template <typename F>
std::uint64_t elementOp(unsigned f6, std::uint64_t a, std::uint64_t b, std::uint64_t d, bool tiesToMax,
                        std::uint32_t& flags, bool& handled) {
    using L = long double;
    using B = typename Format<F>::Bits;
    const volatile F x = Format<F>::value(a), y = Format<F>::value(b), z = Format<F>::value(d);
    const B ab = static_cast<B>(a), bb = static_cast<B>(b);
    constexpr B sign = B{1} << (8 * sizeof(B) - 1);
    handled = true;
    auto fmaInvalid = [&](F p, F q) {
        if ((std::isinf(p) && q == 0) || (p == 0 && std::isinf(q)))
            flags |= kNV;
    };
    auto fused = [&](F p, F q, F s) {  // p · q + s, one rounding
        fmaInvalid(p, q);
        const volatile F vp = p, vq = q, vs = s;
        return rounded<F>([&] { return std::fma(F(vp), F(vq), F(vs)); },
                          [&] { return std::fma(L(vp), L(vq), L(vs)); }, tiesToMax, flags);
    };
    switch (f6) {
    case 0x00: return rounded<F>([&] { return x + y; }, [&] { return L(x) + L(y); }, tiesToMax, flags);
    case 0x02: return rounded<F>([&] { return x - y; }, [&] { return L(x) - L(y); }, tiesToMax, flags);
    case 0x27: return rounded<F>([&] { return y - x; }, [&] { return L(y) - L(x); }, tiesToMax, flags);
    case 0x24: return rounded<F>([&] { return x * y; }, [&] { return L(x) * L(y); }, tiesToMax, flags);
    case 0x20: return rounded<F>([&] { return x / y; }, [&] { return L(x) / L(y); }, tiesToMax, flags);
    case 0x21: return rounded<F>([&] { return y / x; }, [&] { return L(y) / L(x); }, tiesToMax, flags);
    case 0x04: return minMax(x, y, ab, bb, false, flags, Format<F>::kNaN);
    case 0x06: return minMax(x, y, ab, bb, true, flags, Format<F>::kNaN);
    case 0x08: return (ab & ~sign) | (bb & sign);
    case 0x09: return (ab & ~sign) | (~bb & sign);
    case 0x0a: return ab ^ (bb & sign);
    case 0x28: return fused(y, z, x);          // vfmadd: vs1 · vd + vs2
    case 0x29: return fused(-F(y), z, -F(x));  // vfnmadd: −(vs1 · vd) − vs2
    case 0x2a: return fused(y, z, -F(x));      // vfmsub: vs1 · vd − vs2
    case 0x2b: return fused(-F(y), z, x);      // vfnmsub: −(vs1 · vd) + vs2
    case 0x2c: return fused(y, x, z);          // vfmacc: vs1 · vs2 + vd
    case 0x2d: return fused(-F(y), x, -F(z));  // vfnmacc: −(vs1 · vs2) − vd
    case 0x2e: return fused(y, x, -F(z));      // vfmsac: vs1 · vs2 − vd
    case 0x2f: return fused(-F(y), x, z);      // vfnmsac: −(vs1 · vs2) + vd
    default: handled = false; return 0;
    }
}

// The same operations at SEW 16, through long double and rounded to half (FloatFormats.h).
std::uint64_t halfElementOp(unsigned f6, std::uint64_t a, std::uint64_t b, std::uint64_t d, unsigned rm,
                            std::uint32_t& flags, bool& handled) {
    using L = long double;
    const FloatFormat& f = kHalf;
    // Volatile: each of softRounded's evaluations computes afresh (FloatFormats.h).
    const volatile L x = valueOf(a, f), y = valueOf(b, f), z = valueOf(d, f);
    const bool sNaN = isSignallingOf(a, f) || isSignallingOf(b, f);
    const bool sNaN3 = sNaN || isSignallingOf(d, f);
    constexpr std::uint64_t sign = 0x8000;
    handled = true;
    auto fused = [&](L p, L q, L s) {
        if ((std::isinf(p) && q == 0) || (p == 0 && std::isinf(q)))
            flags |= kNV;
        const volatile L vp = p, vq = q, vs = s;
        return softRounded([&] { return std::fma(L(vp), L(vq), L(vs)); }, sNaN3, f, rm, flags);
    };
    auto minMax = [&](bool max) -> std::uint64_t {
        if (sNaN)
            flags |= kNV;
        const bool na = isNaNOf(a, f), nb = isNaNOf(b, f);
        if (na && nb)
            return canonicalNaNOf(kHalf);
        if (na || nb)
            return na ? b : a;
        const L u = x, w = y;
        if (u == w)
            return max ? (std::signbit(u) ? b : a) : (std::signbit(u) ? a : b);
        return (max ? u > w : u < w) ? a : b;
    };
    switch (f6) {
    case 0x00: return softRounded([&] { return L(x) + L(y); }, sNaN, f, rm, flags);
    case 0x02: return softRounded([&] { return L(x) - L(y); }, sNaN, f, rm, flags);
    case 0x27: return softRounded([&] { return L(y) - L(x); }, sNaN, f, rm, flags);
    case 0x24: return softRounded([&] { return L(x) * L(y); }, sNaN, f, rm, flags);
    case 0x20: return softRounded([&] { return L(x) / L(y); }, sNaN, f, rm, flags);
    case 0x21: return softRounded([&] { return L(y) / L(x); }, sNaN, f, rm, flags);
    case 0x04: return minMax(false);
    case 0x06: return minMax(true);
    case 0x08: return (a & ~sign) | (b & sign);
    case 0x09: return (a & ~sign) | (~b & sign);
    case 0x0a: return a ^ (b & sign);
    case 0x28: return fused(y, z, x);
    case 0x29: return fused(-L(y), z, -L(x));
    case 0x2a: return fused(y, z, -L(x));
    case 0x2b: return fused(-L(y), z, x);
    case 0x2c: return fused(y, x, z);
    case 0x2d: return fused(-L(y), x, -L(z));
    case 0x2e: return fused(y, x, -L(z));
    case 0x2f: return fused(-L(y), x, z);
    default: handled = false; return 0;
    }
}

// vmfeq (kind 2, quiet), vmflt (1) and vmfle (0, signalling) at SEW 16.
bool halfCompare(int kind, std::uint64_t a, std::uint64_t b, std::uint32_t& flags) {
    const bool unordered = isNaNOf(a, kHalf) || isNaNOf(b, kHalf);
    if (kind == 2) {
        if (isSignallingOf(a, kHalf) || isSignallingOf(b, kHalf))
            flags |= kNV;
        return !unordered && valueOf(a, kHalf) == valueOf(b, kHalf);
    }
    if (unordered) {
        flags |= kNV;
        return false;
    }
    return kind == 1 ? valueOf(a, kHalf) < valueOf(b, kHalf) : valueOf(a, kHalf) <= valueOf(b, kHalf);
}

}  // namespace

void Hart::executeVectorFloat(const Instruction& i, Retired& r) {
    const VectorType t = decodeVectorType(vtype_, kVlenBytes);
    const unsigned sb = t.sewBytes, f6 = i.funct6;
    const bool vv = i.rm == OPFVV;
    if (f6 == 0x12 && vv)
        return executeVectorConvert(i, r);
    if (f6 >= 0x30)
        return executeVectorFloatWidening(i, r);
    if (sb == 1)
        illegal(i, "vector floating point at SEW 8 (reserved)");
    const std::uint64_t vl = vl_;
    const unsigned regs = std::max(1u, t.lmul8 / 8);
    auto aligned = [&](unsigned reg, unsigned n) { requireGroup(i, reg, n); };
    // The scalar operand f[rs1]: below SEW 64 NaN-boxed, else the canonical NaN.
    const std::uint64_t scalar = vectorScalarOperand(i.rs1, sb);
    auto src1 = [&](std::uint64_t e) { return vv ? element(i.rs1, e, sb) : scalar; };
    auto active = [&](std::uint64_t e) { return i.vm || maskBit(0, e); };
    // The forms each funct6 has (1 .vv, 2 .vf; the specification's OPFVV/OPFVF table), single width.
    static constexpr std::uint8_t kForms[64] = {
        3, 1, 3, 1, 3, 1, 3, 1, 3, 3, 3, 0, 0, 0, 2, 2, 3, 0, 1, 1, 0, 0, 0, 2, 3, 3, 0, 3, 3, 2, 0, 2,
        3, 2, 0, 0, 3, 0, 0, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 3, 1, 3, 0, 3, 0, 3, 0, 0, 0, 3, 3, 3, 3};
    if (!(kForms[f6] & (vv ? 1 : 2)))
        illegal(i, "a reserved vector floating-point encoding");
    if (f6 == 0x10) {  // vfmv.f.s, vfmv.s.f
        if (vv && i.rs1 == 0)
            freg_[i.rd] =
                sb == 8 ? element(i.rs2, 0, 8) : (~std::uint64_t{0} << (8 * sb)) | element(i.rs2, 0, sb);
        else if (!vv && i.rs2 == 0 && vstart_ < vl)
            setElement(i.rd, 0, sb, scalar);
        else if (vv || i.rs2 != 0)
            illegal(i, "a reserved VWFUNARY0/RFUNARY0 encoding");
        return;
    }
    if (f6 == 0x17) {  // vfmerge.vfm (masked), vfmv.v.f (unmasked, vs2 = v0)
        if (i.vm && i.rs2 != 0)
            illegal(i, "vfmv.v.f with vs2 other than v0");
        aligned(i.rd, regs);
        for (std::uint64_t e = vstart_; e < vl; ++e)
            setElement(i.rd, e, sb, i.vm || maskBit(0, e) ? scalar : element(i.rs2, e, sb));
        return;
    }
    if (f6 == 0x0e || f6 == 0x0f) {  // vfslide1up / vfslide1down
        aligned(i.rd, regs);
        aligned(i.rs2, regs);
        slideOne(i, scalar, sb, f6 == 0x0e);
        return;
    }
    const unsigned rm = frm;
    if (rm > 4)
        illegal(i, "a vector floating-point instruction while frm holds a reserved rounding mode");
    std::fesetround(kHostMode[rm]);
    std::uint32_t flags = 0;
    const bool tiesToMax = rm == 4;
    auto finish = [&] {
        std::fesetround(FE_TONEAREST);
        fflags |= flags;
    };
    const bool isDouble = sb == 8, isHalf = sb == 2;
    // One element operation at this SEW.
    auto apply = [&](unsigned f, std::uint64_t a, std::uint64_t b, std::uint64_t d, bool& handled) {
        return isHalf     ? halfElementOp(f, a, b, d, rm, flags, handled)
               : isDouble ? elementOp<double>(f, a, b, d, tiesToMax, flags, handled)
                          : elementOp<float>(f, a, b, d, tiesToMax, flags, handled);
    };
    if (f6 <= 0x07 && (f6 & 1)) {  // vfredusum, vfredosum, vfredmin, vfredmax: in element order
        aligned(i.rs2, regs);
        if (vl == 0) {
            finish();
            return;
        }
        std::uint64_t acc = element(i.rs1, 0, sb);
        const unsigned op = f6 == 0x05 ? 0x04 : f6 == 0x07 ? 0x06 : 0x00;
        for (std::uint64_t e = 0; e < vl; ++e) {
            if (!active(e))
                continue;
            bool handled = false;
            acc = apply(op, acc, element(i.rs2, e, sb), 0, handled);
        }
        setElement(i.rd, 0, sb, acc);
        finish();
        return;
    }
    const bool maskResult = f6 >= 0x18 && f6 <= 0x1f;
    aligned(i.rs2, regs);
    if (vv && f6 != 0x13)  // VFUNARY1's vs1 field selects the operation
        aligned(i.rs1, regs);
    if (!maskResult)
        aligned(i.rd, regs);
    for (std::uint64_t e = vstart_; e < vl; ++e) {
        if (!active(e))
            continue;
        const std::uint64_t a = element(i.rs2, e, sb), b = src1(e);
        if (maskResult) {  // vmfeq (quiet), vmfle, vmflt (signalling), vmfne, vmfgt, vmfge
            auto cmp = [&](int kind, std::uint64_t p, std::uint64_t q) -> bool {
                if (isHalf)
                    return halfCompare(kind, p, q, flags);
                return isDouble
                           ? compare(kind, asDouble(p), asDouble(q), p, q, flags)
                           : compare(kind, asFloat(static_cast<std::uint32_t>(p)),
                                     asFloat(static_cast<std::uint32_t>(q)), static_cast<std::uint32_t>(p),
                                     static_cast<std::uint32_t>(q), flags);
            };
            bool m = false;
            switch (f6) {
            case 0x18: m = cmp(2, a, b); break;
            case 0x19: m = cmp(0, a, b); break;
            case 0x1b: m = cmp(1, a, b); break;
            case 0x1c: m = !cmp(2, a, b); break;
            case 0x1d: m = cmp(1, b, a); break;
            default: m = cmp(0, b, a); break;
            }
            setMaskBit(i.rd, e, m);
            continue;
        }
        if (f6 == 0x13) {  // vfsqrt.v, vfrsqrt7.v, vfrec7.v, vfclass.v
            if (i.rs1 == 4) {
                setElement(i.rd, e, sb, reciprocalSquareRootEstimate(sb, a, flags));
            } else if (i.rs1 == 5) {
                setElement(i.rd, e, sb, reciprocalEstimate(sb, a, rm, flags));
            } else if (i.rs1 == 0 && isHalf) {
                const volatile long double x = valueOf(a, kHalf);  // volatile: FloatFormats.h
                setElement(i.rd, e, sb,
                           softRounded([&] { return std::sqrt(static_cast<long double>(x)); },
                                       isSignallingOf(a, kHalf), kHalf, rm, flags));
            } else if (i.rs1 == 0x10 && isHalf) {
                setElement(i.rd, e, sb, classifyOf(a, kHalf));
            } else if (i.rs1 == 0) {
                const std::uint64_t v =
                    isDouble
                        ? rounded<double>([&] { return std::sqrt(asDouble(a)); },
                                          [&] { return std::sqrt(static_cast<long double>(asDouble(a))); },
                                          false, flags)
                        : rounded<float>([&] { return std::sqrt(asFloat(static_cast<std::uint32_t>(a))); },
                                         [&] { return 0.0L; }, false, flags);
                setElement(i.rd, e, sb, v);
            } else if (i.rs1 == 0x10) {
                setElement(i.rd, e, sb,
                           isDouble ? classify(asDouble(a), isSignalling(a))
                                    : classify(asFloat(static_cast<std::uint32_t>(a)),
                                               isSignalling(static_cast<std::uint32_t>(a))));
            } else {
                finish();
                illegal(i, "a reserved VFUNARY1 encoding");
            }
            continue;
        }
        bool handled = false;
        const std::uint64_t d = element(i.rd, e, sb);
        const std::uint64_t v = apply(f6, a, b, d, handled);
        if (!handled) {
            finish();
            illegal(i, "a reserved or unsupported vector floating-point instruction");
        }
        setElement(i.rd, e, sb, v);
    }
    finish();
    (void)r;
}

}  // namespace tessim::riscv
