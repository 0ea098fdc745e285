// RVV 1.0 floating point of the hart (OPFVV, OPFVF) at SEW 32 and 64, on the host's IEEE 754
// arithmetic with the RISC-V rules of FloatRules.h: the dynamic rounding mode (frm), fflags
// accrued over the active elements, canonical NaNs. Built with -frounding-math.
// Not yet: SEW 16 (Zvfh), the widening and narrowing forms and conversions, vfrsqrt7/vfrec7;
// they stop the run as unsupported instructions.
#include <algorithm>

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

constexpr int kHostMode[5] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD, FE_TONEAREST};

// a op b in the current host mode (and, under RMM, corrected at ties); flags accrued.
template <typename F, typename Compute, typename Exact>
std::uint64_t rounded(Compute compute, Exact exact, bool tiesToMax, std::uint32_t& flags) {
    std::feclearexcept(FE_ALL_EXCEPT);
    const F v = compute();
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
    const F x = Format<F>::value(a), y = Format<F>::value(b), z = Format<F>::value(d);
    const B ab = static_cast<B>(a), bb = static_cast<B>(b);
    constexpr B sign = B{1} << (8 * sizeof(B) - 1);
    handled = true;
    auto fmaInvalid = [&](F p, F q) {
        if ((std::isinf(p) && q == 0) || (p == 0 && std::isinf(q)))
            flags |= kNV;
    };
    auto fused = [&](F p, F q, F s) {  // p · q + s, one rounding
        fmaInvalid(p, q);
        return rounded<F>([&] { return std::fma(p, q, s); }, [&] { return std::fma(L(p), L(q), L(s)); },
                          tiesToMax, flags);
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
    case 0x28: return fused(y, z, x);    // vfmadd: vs1 · vd + vs2
    case 0x29: return fused(-y, z, -x);  // vfnmadd: −(vs1 · vd) − vs2
    case 0x2a: return fused(y, z, -x);   // vfmsub: vs1 · vd − vs2
    case 0x2b: return fused(-y, z, x);   // vfnmsub: −(vs1 · vd) + vs2
    case 0x2c: return fused(y, x, z);    // vfmacc: vs1 · vs2 + vd
    case 0x2d: return fused(-y, x, -z);  // vfnmacc: −(vs1 · vs2) − vd
    case 0x2e: return fused(y, x, -z);   // vfmsac: vs1 · vs2 − vd
    case 0x2f: return fused(-y, x, z);   // vfnmsac: −(vs1 · vs2) + vd
    default: handled = false; return 0;
    }
}

}  // namespace

void Hart::executeVectorFloat(const Instruction& i, Retired& r) {
    const VectorType t = decodeVectorType(vtype_, kVlenBytes);
    const unsigned sb = t.sewBytes, f6 = i.funct6;
    const bool vv = i.rm == OPFVV;
    if (sb != 4 && sb != 8)
        illegal(i, sb == 2 ? "vector floating point at SEW 16 (Zvfh), not yet modelled"
                           : "vector floating point at SEW 8 (reserved)");
    const std::uint64_t vl = vl_;
    const unsigned regs = std::max(1u, t.lmul8 / 8);
    auto aligned = [&](unsigned reg, unsigned n) {
        if (reg % n || reg + n > 32)
            illegal(i, "a vector register group out of range or misaligned");
    };
    // The scalar operand f[rs1]: at SEW 32 a NaN-boxed single, else the canonical NaN.
    const std::uint64_t scalar = sb == 4 ? unbox(freg_[i.rs1]) : freg_[i.rs1];
    auto src1 = [&](std::uint64_t e) { return vv ? element(i.rs1, e, sb) : scalar; };
    auto active = [&](std::uint64_t e) { return i.vm || maskBit(0, e); };
    // The forms each funct6 has (1 .vv, 2 .vf; the specification's OPFVV/OPFVF table), single width.
    static constexpr std::uint8_t kForms[64] = {
        3, 1, 3, 1, 3, 1, 3, 1, 3, 3, 3, 0, 0, 0, 2, 2, 3, 0, 0, 1, 0, 0, 0, 2, 3, 3, 0, 3, 3, 2, 0, 2,
        3, 2, 0, 0, 3, 0, 0, 2, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!(kForms[f6] & (vv ? 1 : 2)))
        illegal(i, f6 >= 0x30 || f6 == 0x12
                       ? "a widening, narrowing or converting vector FP instruction, not yet modelled"
                       : "a reserved vector floating-point encoding");
    if (f6 == 0x10) {  // vfmv.f.s, vfmv.s.f
        if (vv && i.rs1 == 0)
            freg_[i.rd] =
                sb == 4 ? box(static_cast<std::uint32_t>(element(i.rs2, 0, 4))) : element(i.rs2, 0, 8);
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
        for (std::uint64_t e = vstart_; e < vl; ++e) {
            if (!active(e))
                continue;
            if (f6 == 0x0e)
                setElement(i.rd, e, sb, e == 0 ? scalar : element(i.rs2, e - 1, sb));
            else
                setElement(i.rd, e, sb, e + 1 == vl ? scalar : element(i.rs2, e + 1, sb));
        }
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
    const bool isDouble = sb == 8;
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
            acc = isDouble ? elementOp<double>(op, acc, element(i.rs2, e, sb), 0, tiesToMax, flags, handled)
                           : elementOp<float>(op, acc, element(i.rs2, e, sb), 0, tiesToMax, flags, handled);
        }
        setElement(i.rd, 0, sb, acc);
        finish();
        return;
    }
    const bool maskResult = f6 >= 0x18 && f6 <= 0x1f;
    aligned(i.rs2, regs);
    if (vv)
        aligned(i.rs1, regs);
    if (!maskResult)
        aligned(i.rd, regs);
    for (std::uint64_t e = vstart_; e < vl; ++e) {
        if (!active(e))
            continue;
        const std::uint64_t a = element(i.rs2, e, sb), b = src1(e);
        if (maskResult) {  // vmfeq (quiet), vmfle, vmflt (signalling), vmfne, vmfgt, vmfge
            auto cmp = [&](int kind, std::uint64_t p, std::uint64_t q) {
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
        if (f6 == 0x13) {  // vfsqrt.v, vfclass.v
            if (i.rs1 == 0) {
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
                illegal(i, "vfrsqrt7/vfrec7 or a reserved VFUNARY1 encoding, not yet modelled");
            }
            continue;
        }
        bool handled = false;
        const std::uint64_t d = element(i.rd, e, sb);
        const std::uint64_t v = isDouble ? elementOp<double>(f6, a, b, d, tiesToMax, flags, handled)
                                         : elementOp<float>(f6, a, b, d, tiesToMax, flags, handled);
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
