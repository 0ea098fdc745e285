// RVV 1.0 floating point that changes width: widening arithmetic and reductions (vfw*: SEW 16 → 32
// and 32 → 64) and the conversions (vfcvt, vfwcvt, vfncvt: integer ↔ float and float ↔ float),
// computed through long double and rounded to the result's format (FloatFormats.h). Built with
// -frounding-math. Policy as in RiscvVector.cpp.
#include <algorithm>

#include "models/riscv/FloatFormats.h"
#include "models/riscv/RiscvHart.h"
#include "models/riscv/RiscvVector.h"

namespace tessim::riscv {

using namespace vector;

using namespace fp;

namespace {}  // namespace

// The scalar FP operand of a .vf form at SEW (NaN-boxed below 64 bits, else the canonical NaN).
std::uint64_t Hart::vectorScalarOperand(unsigned rs1, unsigned sewBytes) const {
    const std::uint64_t f = freg_[rs1];
    if (sewBytes >= 8)
        return f;
    const std::uint64_t box = ~std::uint64_t{0} << (8 * sewBytes);
    return (f & box) == box ? f & ~box : canonicalNaNOf(formatOf(sewBytes));
}

void Hart::executeVectorFloatWidening(const Instruction& i, Retired& r) {
    const VectorType t = decodeVectorType(vtype_, kVlenBytes);
    const unsigned sb = t.sewBytes, f6 = i.funct6, wb = 2 * sb;
    if (sb != 2 && sb != 4)
        illegal(i, "a widening floating-point instruction at SEW other than 16 or 32");
    const bool vv = i.rm == OPFVV, wideSource = f6 == 0x34 || f6 == 0x36;
    const unsigned regs = std::max(1u, t.lmul8 / 8), wideRegs = std::max(1u, 2 * t.lmul8 / 8);
    auto aligned = [&](unsigned reg, unsigned n) {
        if (reg % n || reg + n > 32 || 2 * t.lmul8 > 64)
            illegal(i,
                    "a vector register group out of range or misaligned (a widened group spans at most 8)");
    };
    aligned(i.rd, wideRegs);
    aligned(i.rs2, wideSource ? wideRegs : regs);
    if (vv && f6 != 0x31 && f6 != 0x33)
        aligned(i.rs1, regs);
    const FloatFormat& narrow = formatOf(sb);
    const FloatFormat& wide = formatOf(wb);
    const unsigned rm = frm;
    if (rm > 4)
        illegal(i, "a vector floating-point instruction while frm holds a reserved rounding mode");
    const std::uint64_t scalar = vectorScalarOperand(i.rs1, sb);
    std::uint32_t flags = 0;
    auto active = [&](std::uint64_t e) { return i.vm || maskBit(0, e); };
    using L = long double;
    if (f6 == 0x31 || f6 == 0x33) {  // vfwredusum, vfwredosum: in element order
        if (!vv)
            illegal(i, "vfwred* has no .vf form");
        if (vl_ > 0) {
            std::uint64_t acc = element(i.rs1, 0, wb);
            for (std::uint64_t e = 0; e < vl_; ++e) {
                if (!active(e))
                    continue;
                const std::uint64_t x = element(i.rs2, e, sb);
                const volatile L a = valueOf(acc, wide), b = valueOf(x, narrow);  // FloatFormats.h
                acc = softRounded([&] { return L(a) + L(b); },
                                  isSignallingOf(acc, wide) || isSignallingOf(x, narrow), wide, rm, flags);
            }
            setElement(i.rd, 0, wb, acc);
        }
        fflags |= flags;
        (void)r;
        return;
    }
    for (std::uint64_t e = vstart_; e < vl_; ++e) {
        if (!active(e))
            continue;
        const std::uint64_t a = element(i.rs2, e, wideSource ? wb : sb);
        const std::uint64_t b = vv ? element(i.rs1, e, sb) : scalar;
        const std::uint64_t d = element(i.rd, e, wb);
        const FloatFormat& af = wideSource ? wide : narrow;
        // Volatile: each of softRounded's evaluations computes afresh (FloatFormats.h).
        const volatile L x = valueOf(a, af), y = valueOf(b, narrow), z = valueOf(d, wide);
        const bool sNaN = isSignallingOf(a, af) || isSignallingOf(b, narrow);
        const bool sNaN3 = sNaN || isSignallingOf(d, wide);
        auto fused = [&](L p, L q, L s) {
            if ((std::isinf(p) && q == 0) || (p == 0 && std::isinf(q)))
                flags |= kNV;
            const volatile L vp = p, vq = q, vs = s;
            return softRounded([&] { return std::fma(L(vp), L(vq), L(vs)); }, sNaN3, wide, rm, flags);
        };
        std::uint64_t v = 0;
        switch (f6) {
        case 0x30:
        case 0x34: v = softRounded([&] { return L(x) + L(y); }, sNaN, wide, rm, flags); break;
        case 0x32:
        case 0x36: v = softRounded([&] { return L(x) - L(y); }, sNaN, wide, rm, flags); break;
        case 0x38: v = softRounded([&] { return L(x) * L(y); }, sNaN, wide, rm, flags); break;
        case 0x3c: v = fused(y, x, z); break;          // vfwmacc: vs1 · vs2 + vd
        case 0x3d: v = fused(-L(y), x, -L(z)); break;  // vfwnmacc
        case 0x3e: v = fused(y, x, -L(z)); break;      // vfwmsac
        case 0x3f: v = fused(-L(y), x, z); break;      // vfwnmsac
        default: illegal(i, "a reserved widening floating-point encoding");
        }
        setElement(i.rd, e, wb, v);
    }
    fflags |= flags;
}

// VFUNARY0: vfcvt (single width), vfwcvt (widening), vfncvt (narrowing), by the vs1 field.
void Hart::executeVectorConvert(const Instruction& i, Retired& r) {
    const VectorType t = decodeVectorType(vtype_, kVlenBytes);
    const unsigned sb = t.sewBytes, op = i.rs1, kind = op & 7;
    const bool widen = op >= 8 && op < 16, narrow = op >= 16;
    // vs1: 0–3, 6, 7 single width; 8–12, 14, 15 widening; 16–23 narrowing (RVV 1.0, 13.17–13.19).
    constexpr std::uint32_t kDefined = 0xcfu | (0xdfu << 8) | (0xffu << 16);
    if (op >= 24 || !((kDefined >> op) & 1))
        illegal(i, "a reserved VFUNARY0 encoding");
    const unsigned srcBytes = narrow ? 2 * sb : sb, dstBytes = widen ? 2 * sb : sb;
    const bool fromFloat = kind == 0 || kind == 1 || kind == 4 || kind == 5 || kind == 6 || kind == 7;
    const bool toFloat = kind == 2 || kind == 3 || kind == 4 || kind == 5;
    auto isFloatWidth = [](unsigned b) { return b == 2 || b == 4 || b == 8; };
    if (srcBytes > 8 || dstBytes > 8 || (fromFloat && !isFloatWidth(srcBytes)) ||
        (toFloat && !isFloatWidth(dstBytes)))
        illegal(i, "a conversion to or from a width the vector unit has no floating point for");
    const unsigned srcLmul8 = narrow ? 2 * t.lmul8 : t.lmul8, dstLmul8 = widen ? 2 * t.lmul8 : t.lmul8;
    auto aligned = [&](unsigned reg, unsigned lmul8) {
        const unsigned n = std::max(1u, lmul8 / 8);
        if (lmul8 > 64 || reg % n || reg + n > 32)
            illegal(i, "a vector register group out of range or misaligned");
    };
    aligned(i.rd, dstLmul8);
    aligned(i.rs2, srcLmul8);
    const unsigned rm = kind >= 5 ? 1 : frm;  // rod (5) truncates, then sets the last bit; rtz (6, 7)
    if (rm > 4)
        illegal(i, "a vector floating-point instruction while frm holds a reserved rounding mode");
    const bool signedInt = kind == 1 || kind == 3 || kind == 7;
    std::uint32_t flags = 0;
    for (std::uint64_t e = vstart_; e < vl_; ++e) {
        if (!i.vm && !maskBit(0, e))
            continue;
        const std::uint64_t s = element(i.rs2, e, srcBytes);
        std::uint64_t v = 0;
        if (fromFloat && !toFloat) {  // to an integer of dstBytes, saturating
            const FloatFormat& f = formatOf(srcBytes);
            const unsigned bits = 8 * dstBytes;
            const long double hi = signedInt ? std::ldexp(1.0L, static_cast<int>(bits) - 1) - 1
                                             : std::ldexp(1.0L, static_cast<int>(bits)) - 1;
            const long double lo = signedInt ? -std::ldexp(1.0L, static_cast<int>(bits) - 1) : 0.0L;
            const std::uint64_t maxBits =
                signedInt ? (std::uint64_t{1} << (bits - 1)) - 1
                          : (bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
            const std::uint64_t minBits = signedInt ? std::uint64_t{1} << (bits - 1) : 0;
            if (isNaNOf(s, f)) {
                flags |= kNV;
                v = maxBits;
            } else {
                bool inexact = false;
                const long double x = roundToIntegral(valueOf(s, f), rm, inexact);
                if (x > hi) {
                    flags |= kNV;
                    v = maxBits;
                } else if (x < lo) {
                    flags |= kNV;
                    v = minBits;
                } else {
                    if (inexact)
                        flags |= kNX;
                    v = signedInt ? static_cast<std::uint64_t>(static_cast<std::int64_t>(x))
                                  : static_cast<std::uint64_t>(x);
                }
            }
        } else if (!fromFloat) {  // from an integer: exact in long double, then rounded
            const long double x =
                signedInt ? static_cast<long double>(signedOf(s, srcBytes)) : static_cast<long double>(s);
            v = roundTo(x, formatOf(dstBytes), rm, flags);
        } else {  // float to float: exact when widening
            const FloatFormat& from = formatOf(srcBytes);
            if (isSignallingOf(s, from))
                flags |= kNV;
            std::uint32_t rounding = 0;
            v = roundTo(valueOf(s, from), formatOf(dstBytes), rm, rounding);
            if (kind == 5 && (rounding & kNX) && !isNaNOf(v, formatOf(dstBytes)))
                v |= 1;  // round to odd: truncated, then the last bit set where inexact
            flags |= rounding;
        }
        setElement(i.rd, e, dstBytes, dstBytes >= 8 ? v : v & ((std::uint64_t{1} << (8 * dstBytes)) - 1));
    }
    fflags |= flags;
    (void)r;
}

}  // namespace tessim::riscv
