// RVV 1.0 OPMVV and OPMVX instructions of the hart: reductions, averaging adds, slide1, scalar
// moves, extensions, mask-producing and mask-logical instructions, compress, multiply, divide,
// multiply-add and the widening integer arithmetic. Policy as in RiscvVector.cpp.
#include <algorithm>

#include "models/riscv/RiscvHart.h"
#include "models/riscv/RiscvVector.h"

namespace tessim::riscv {

using namespace vector;

namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// The averaging add/subtract's rounding increment of v >> 1 under vxrm.
Int128 halved(Int128 v, unsigned vxrm) {
    const Int128 low = v & 1, next = (v >> 1) & 1;
    Int128 inc = 0;
    switch (vxrm) {
    case 0: inc = low; break;                          // rnu
    case 1: inc = low & next; break;                   // rne (d = 1: no bits below)
    case 2: inc = 0; break;                            // rdn
    default: inc = static_cast<Int128>(!next && low);  // rod
    }
    return (v >> 1) + inc;
}

}  // namespace

void Hart::executeVectorMaskCategory(const Instruction& i, Retired& r) {
    const VectorType t = decodeVectorType(vtype_, kVlenBytes);
    const unsigned sb = t.sewBytes, f6 = i.funct6;
    const bool vv = i.rm == OPMVV;
    const std::uint64_t vl = vl_;
    const unsigned regs = registersOf(t.lmul8);
    auto aligned = [&](unsigned reg, unsigned n) { requireGroup(i, reg, n); };
    auto src1 = [&](std::uint64_t e) { return vv ? element(i.rs1, e, sb) : truncated(xreg_[i.rs1], sb); };
    auto active = [&](std::uint64_t e) { return i.vm || maskBit(0, e); };
    // The forms each funct6 has (1 .vv, 2 .vx; the specification's OPMVV/OPMVX table).
    static constexpr std::uint8_t kForms[64] = {
        1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 0, 0, 2, 2, 3, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        3, 3, 3, 3, 3, 3, 3, 3, 0, 3, 0, 3, 0, 3, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 3, 3, 3, 3, 2, 3};
    if (!(kForms[f6] & (vv ? 1 : 2)))
        illegal(i, "a reserved vector encoding (no such form of this OPMV funct6)");

    if (f6 <= 0x07) {  // vred*.vs: vd[0] = op(vs1[0], active vs2[e])
        aligned(i.rs2, regs);
        if (vl == 0)
            return;
        std::uint64_t acc = element(i.rs1, 0, sb);
        for (std::uint64_t e = 0; e < vl; ++e) {
            if (!active(e))
                continue;
            const std::uint64_t x = element(i.rs2, e, sb);
            const std::int64_t sx = signedOf(x, sb), sacc = signedOf(acc, sb);
            switch (f6) {
            case 0: acc = acc + x; break;
            case 1: acc &= x; break;
            case 2: acc |= x; break;
            case 3: acc ^= x; break;
            case 4: acc = std::min(acc, x); break;
            case 5: acc = static_cast<std::uint64_t>(std::min(sacc, sx)); break;
            case 6: acc = std::max(acc, x); break;
            default: acc = static_cast<std::uint64_t>(std::max(sacc, sx)); break;
            }
            acc = truncated(acc, sb);
        }
        setElement(i.rd, 0, sb, acc);
        return;
    }
    if (f6 == 0x10) {
        if (vv && i.rs1 == 0) {  // vmv.x.s: element 0, sign-extended, whatever vl
            setX(i.rd, static_cast<std::uint64_t>(signedOf(element(i.rs2, 0, sb), sb)));
        } else if (vv && (i.rs1 == 0x10 || i.rs1 == 0x11)) {  // vcpop.m, vfirst.m
            std::uint64_t count = 0, first = ~std::uint64_t{0};
            for (std::uint64_t e = 0; e < vl; ++e)
                if (active(e) && maskBit(i.rs2, e)) {
                    ++count;
                    first = std::min(first, e);
                }
            setX(i.rd, i.rs1 == 0x10 ? count : first);
        } else if (!vv && i.rs2 == 0) {  // vmv.s.x
            if (vstart_ < vl)
                setElement(i.rd, 0, sb, truncated(xreg_[i.rs1], sb));
        } else {
            illegal(i, "a reserved VWXUNARY0/RXUNARY0 encoding");
        }
        return;
    }
    if (f6 == 0x12) {  // vzext/vsext.vf2/4/8
        const unsigned factor = i.rs1 <= 3 ? 8 : i.rs1 <= 5 ? 4 : 2;
        const bool sign = i.rs1 & 1;
        if (i.rs1 < 2 || i.rs1 > 7 || sb < factor || t.lmul8 < factor)
            illegal(i, "a reserved vzext/vsext (the source would be narrower than 8 bits or LMUL 1/8)");
        aligned(i.rd, regs);
        aligned(i.rs2, registersOf(t.lmul8 / factor));
        const unsigned nb = sb / factor;
        for (std::uint64_t e = vstart_; e < vl; ++e)
            if (active(e)) {
                const std::uint64_t x = element(i.rs2, e, nb);
                setElement(i.rd, e, sb,
                           truncated(sign ? static_cast<std::uint64_t>(signedOf(x, nb)) : x, sb));
            }
        return;
    }
    if (f6 == 0x14) {  // vmsbf, vmsof, vmsif, viota, vid
        if (i.rs1 == 0x11) {
            aligned(i.rd, regs);
            for (std::uint64_t e = vstart_; e < vl; ++e)
                if (active(e))
                    setElement(i.rd, e, sb, truncated(e, sb));
            return;
        }
        if (i.rs1 == 0x10) {  // viota.m: the count of set mask bits below each element
            aligned(i.rd, regs);
            std::uint64_t count = 0;
            for (std::uint64_t e = 0; e < vl; ++e) {
                if (!active(e))
                    continue;
                setElement(i.rd, e, sb, truncated(count, sb));
                count += maskBit(i.rs2, e);
            }
            return;
        }
        if (i.rs1 < 1 || i.rs1 > 3)
            illegal(i, "a reserved VMUNARY0 encoding");
        bool seen = false;
        for (std::uint64_t e = 0; e < vl; ++e) {
            if (!active(e))
                continue;
            const bool bit = maskBit(i.rs2, e);
            bool out = false;
            if (i.rs1 == 1)
                out = !seen && !bit;  // vmsbf: before the first
            else if (i.rs1 == 2)
                out = !seen && bit;  // vmsof: the first only
            else
                out = !seen;  // vmsif: up to and including the first
            seen = seen || bit;
            setMaskBit(i.rd, e, out);
        }
        return;
    }
    if (f6 == 0x17) {  // vcompress.vm: the elements of vs2 whose vs1 mask bit is set, packed
        if (!i.vm)
            illegal(i, "vcompress must be unmasked");
        aligned(i.rd, regs);
        aligned(i.rs2, regs);
        std::uint64_t out = 0;
        for (std::uint64_t e = 0; e < vl; ++e)
            if (maskBit(i.rs1, e))
                setElement(i.rd, out++, sb, element(i.rs2, e, sb));
        return;
    }
    if (f6 >= 0x18 && f6 <= 0x1f) {  // mask logicals over vl bits
        for (std::uint64_t e = vstart_; e < vl; ++e) {
            const bool a = maskBit(i.rs2, e), b = maskBit(i.rs1, e);
            bool m = false;
            switch (f6) {
            case 0x18: m = a && !b; break;
            case 0x19: m = a && b; break;
            case 0x1a: m = a || b; break;
            case 0x1b: m = a != b; break;
            case 0x1c: m = a || !b; break;
            case 0x1d: m = !(a && b); break;
            case 0x1e: m = !(a || b); break;
            default: m = a == b; break;
            }
            setMaskBit(i.rd, e, m);
        }
        return;
    }
    if (f6 == 0x0e || f6 == 0x0f) {  // vslide1up / vslide1down.vx
        aligned(i.rd, regs);
        aligned(i.rs2, regs);
        slideOne(i, truncated(xreg_[i.rs1], sb), sb, f6 == 0x0e);
        return;
    }
    const bool widening = f6 >= 0x30;
    if (widening) {
        if (sb == 8)
            illegal(i, "a widening instruction at SEW 64");
        aligned(i.rd, registersOf(2 * t.lmul8));
        aligned(i.rs2, f6 >= 0x34 && f6 <= 0x37 ? registersOf(2 * t.lmul8) : regs);
    } else {
        aligned(i.rd, regs);
        aligned(i.rs2, regs);
    }
    if (vv)
        aligned(i.rs1, regs);
    const unsigned bits = 8 * sb, wb = 2 * sb;
    for (std::uint64_t e = vstart_; e < vl; ++e) {
        if (!active(e))
            continue;
        const std::uint64_t b = src1(e);
        const std::int64_t sbv = signedOf(b, sb);
        if (widening) {
            const bool wideA = f6 >= 0x34 && f6 <= 0x37;
            const std::uint64_t a = element(i.rs2, e, wideA ? wb : sb);
            const std::int64_t sa = signedOf(a, wideA ? wb : sb);
            const std::uint64_t d = element(i.rd, e, wb);
            const bool sign = f6 & 1;  // vwadd, vwsub … (odd funct6) sign-extend
            const std::uint64_t ea = sign ? static_cast<std::uint64_t>(sa) : a;
            const std::uint64_t eb = sign ? static_cast<std::uint64_t>(sbv) : b;
            std::uint64_t v = 0;
            switch (f6) {
            case 0x30:
            case 0x31:
            case 0x34:
            case 0x35: v = ea + eb; break;
            case 0x32:
            case 0x33:
            case 0x36:
            case 0x37: v = ea - eb; break;
            case 0x38: v = a * b; break;                                     // vwmulu
            case 0x3a: v = static_cast<std::uint64_t>(sa) * b; break;        // vwmulsu: signed vs2
            case 0x3b: v = static_cast<std::uint64_t>(sa * sbv); break;      // vwmul
            case 0x3c: v = d + a * b; break;                                 // vwmaccu
            case 0x3d: v = d + static_cast<std::uint64_t>(sa * sbv); break;  // vwmacc
            case 0x3e: v = d + b * static_cast<std::uint64_t>(sa); break;    // vwmaccus: unsigned rs1
            default: v = d + static_cast<std::uint64_t>(sbv) * a; break;     // vwmaccsu: signed vs1
            }
            setElement(i.rd, e, wb, truncated(v, wb));
            continue;
        }
        const std::uint64_t a = element(i.rs2, e, sb), d = element(i.rd, e, sb);
        const std::int64_t sa = signedOf(a, sb);
        std::uint64_t v = 0;
        switch (f6) {
        case 0x08: v = static_cast<std::uint64_t>(halved(Int128(a) + Int128(b), vxrm_)); break;
        case 0x09: v = static_cast<std::uint64_t>(halved(Int128(sa) + sbv, vxrm_)); break;
        case 0x0a: v = static_cast<std::uint64_t>(halved(Int128(a) - Int128(b), vxrm_)); break;
        case 0x0b: v = static_cast<std::uint64_t>(halved(Int128(sa) - sbv, vxrm_)); break;
        case 0x20: v = b == 0 ? ~std::uint64_t{0} : a / b; break;
        case 0x21:
            v = sbv == 0 ? ~std::uint64_t{0}
                : sbv == -1 && sa == signedOf(std::uint64_t{1} << (bits - 1), sb)
                    ? a
                    : static_cast<std::uint64_t>(sa / sbv);
            break;
        case 0x22: v = b == 0 ? a : a % b; break;
        case 0x23:
            v = sbv == 0 ? a
                : sbv == -1 && sa == signedOf(std::uint64_t{1} << (bits - 1), sb)
                    ? 0
                    : static_cast<std::uint64_t>(sa % sbv);
            break;
        case 0x24: v = static_cast<std::uint64_t>((UInt128(a) * b) >> bits); break;
        case 0x25: v = a * b; break;
        case 0x26: v = static_cast<std::uint64_t>((Int128(sa) * Int128(UInt128(b))) >> bits); break;
        case 0x27: v = static_cast<std::uint64_t>((Int128(sa) * sbv) >> bits); break;
        case 0x29: v = b * d + a; break;  // vmadd: vd = vs1 · vd + vs2
        case 0x2b: v = a - b * d; break;  // vnmsub: vd = −(vs1 · vd) + vs2
        case 0x2d: v = b * a + d; break;  // vmacc: vd = vs1 · vs2 + vd
        case 0x2f: v = d - b * a; break;  // vnmsac: vd = −(vs1 · vs2) + vd
        default: illegal(i, "a reserved or unsupported vector instruction (OPMV)");
        }
        setElement(i.rd, e, sb, truncated(v, sb));
    }
}

// vslide1up (up) / vslide1down and their FP forms: the scalar enters at element 0 (up) or vl − 1.
void Hart::slideOne(const Instruction& i, std::uint64_t scalar, unsigned sb, bool up) {
    for (std::uint64_t e = vstart_; e < vl_; ++e) {
        if (!i.vm && !maskBit(0, e))
            continue;
        if (up)
            setElement(i.rd, e, sb, e == 0 ? scalar : element(i.rs2, e - 1, sb));
        else
            setElement(i.rd, e, sb, e + 1 == vl_ ? scalar : element(i.rs2, e + 1, sb));
    }
}

}  // namespace tessim::riscv
