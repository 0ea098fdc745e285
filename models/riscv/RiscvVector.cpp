// RVV 1.0 semantics of the hart: vsetvl*, every load and store form, and the integer, fixed-point,
// mask and permutation instructions (the floating point is RiscvVectorFloat.cpp).
// Policy: tail and inactive elements are left undisturbed, which RVV 1.0 allows for the agnostic
// settings too, and which is what qemu-user (7.2, the functional reference) does; unordered
// reductions add in element order as qemu does. An instruction with a misaligned register group
// or an invalid vtype is illegal, as the specification allows; other reserved overlaps of source
// and destination groups are executed as written (qemu refuses them).
#include "models/riscv/RiscvVector.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "models/riscv/RiscvHart.h"

namespace tessim::riscv {

using namespace vector;

namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

std::int64_t maxSigned(unsigned bytes) {
    return static_cast<std::int64_t>((std::uint64_t{1} << (8 * bytes - 1)) - 1);
}
std::int64_t minSigned(unsigned bytes) {
    return -maxSigned(bytes) - 1;
}
std::uint64_t maxUnsigned(unsigned bytes) {
    return truncated(~std::uint64_t{0}, bytes);
}

// The fixed-point rounding increment of v >> d under vxrm (RVV 1.0, 3.8).
template <typename T> T roundingIncrement(T v, unsigned d, unsigned vxrm) {
    if (d == 0)
        return 0;
    auto bit = [&](unsigned k) { return static_cast<T>((v >> k) & 1); };
    const T below = d >= 2 ? v & ((T{1} << (d - 1)) - 1) : T{0};  // bits d-2..0
    switch (vxrm) {
    case 0: return bit(d - 1);                                              // rnu
    case 1: return bit(d - 1) & static_cast<T>(below != 0 || bit(d));       // rne
    case 2: return 0;                                                       // rdn
    default: return static_cast<T>(!bit(d) && (below != 0 || bit(d - 1)));  // rod
    }
}
Int128 roundedShift(Int128 v, unsigned d, unsigned vxrm) {
    return (v >> d) + roundingIncrement<Int128>(v, d, vxrm);
}
UInt128 roundedShiftUnsigned(UInt128 v, unsigned d, unsigned vxrm) {
    return (v >> d) + roundingIncrement<UInt128>(v, d, vxrm);
}

}  // namespace

std::uint64_t Hart::element(unsigned reg, std::uint64_t index, unsigned bytes) const {
    std::uint64_t v = 0;
    std::memcpy(&v, &vreg_[reg * kVlenBytes + index * bytes], bytes);
    return v;
}

void Hart::setElement(unsigned reg, std::uint64_t index, unsigned bytes, std::uint64_t value) {
    std::memcpy(&vreg_[reg * kVlenBytes + index * bytes], &value, bytes);
}

void Hart::setMaskBit(unsigned reg, std::uint64_t index, bool value) {
    std::uint8_t& byte = vreg_[reg * kVlenBytes + index / 8];
    byte = static_cast<std::uint8_t>((byte & ~(1u << (index % 8))) | (unsigned{value} << (index % 8)));
}

void Hart::requireGroup(const Instruction& i, unsigned reg, unsigned registers) const {
    if (reg % registers || reg + registers > 32)
        illegal(i, "a vector register group out of range or misaligned");
}

void Hart::setVectorType(const Instruction& i, std::uint64_t avl, std::uint64_t vtype) {
    const VectorType t = decodeVectorType(vtype, kVlenBytes);
    if (t.vill) {
        vtype_ = std::uint64_t{1} << 63;
        vl_ = 0;
    } else {
        vtype_ = vtype;
        vl_ = std::min(avl, t.vlmax);
    }
    vstart_ = 0;
    setX(i.rd, vl_);
}

void Hart::executeVector(const Instruction& i, Retired& r) {
    using M = Mnemonic;
    switch (i.mnemonic) {
    case M::Vsetvli:
    case M::Vsetvl: {
        // AVL: rs1; x0 as rs1 asks for VLMAX, unless rd is x0 too (keep vl, change vtype).
        const std::uint64_t avl = i.rs1 ? xreg_[i.rs1] : i.rd ? ~std::uint64_t{0} : vl_;
        setVectorType(i, avl, i.mnemonic == M::Vsetvl ? xreg_[i.rs2] : static_cast<std::uint64_t>(i.imm));
        return;
    }
    case M::Vsetivli: setVectorType(i, i.rs1, static_cast<std::uint64_t>(i.imm)); return;
    case M::VectorLoad:
    case M::VectorStore: executeVectorMemory(i, r); break;
    default: {
        const VectorType t = decodeVectorType(vtype_, kVlenBytes);
        if (t.vill)
            illegal(i,
                    "a vector instruction while vtype is invalid (vill: no vsetvl yet, or a reserved one)");
        r.vl = static_cast<std::uint32_t>(vl_);
        r.sew = static_cast<std::uint8_t>(t.sewBytes);
        r.lmul8 = static_cast<std::uint8_t>(t.lmul8);
        if (i.mnemonic == M::VectorFloat)
            executeVectorFloat(i, r);
        else if (i.mnemonic == M::VectorMask)
            executeVectorMaskCategory(i, r);
        else
            executeVectorInteger(i, r);
        break;
    }
    }
    vstart_ = 0;
}

void Hart::executeVectorMemory(const Instruction& i, Retired& r) {
    const bool store = i.mnemonic == Mnemonic::VectorStore;
    const unsigned eew = i.rm, mop = i.funct6, fields = i.rs3;
    if (eew == 0)
        illegal(i, "a reserved vector element width");
    const std::uint64_t base = xreg_[i.rs1];
    const bool whole = mop == 0 && i.rs2 == 8, maskAccess = mop == 0 && i.rs2 == 0x0b;
    const bool firstFault = !store && mop == 0 && i.rs2 == 0x10;
    const bool indexed = mop == 1 || mop == 3;
    if (mop == 0 && i.rs2 != 0 && !whole && !maskAccess && !firstFault)
        illegal(i, "a reserved vector load/store form (lumop/sumop)");
    unsigned dataBytes = eew, lmul8 = 8, groupFields = fields;
    std::uint64_t evl = 0;
    if (whole) {
        if (!i.vm || (fields & (fields - 1)) || (store && eew != 1))
            illegal(i, "a reserved whole-register load/store (nf 1, 2, 4 or 8; unmasked; stores at e8)");
        evl = std::uint64_t{fields} * kVlenBytes / eew;
        lmul8 = 8 * fields;
        groupFields = 1;
    } else if (maskAccess) {
        if (!i.vm || eew != 1 || fields != 1)
            illegal(i, "a reserved vlm/vsm form (unmasked, e8, one field)");
        if (decodeVectorType(vtype_, kVlenBytes).vill)
            illegal(i, "a vector instruction while vtype is invalid (vill)");
        evl = (vl_ + 7) / 8;
    } else {
        const VectorType t = decodeVectorType(vtype_, kVlenBytes);
        if (t.vill)
            illegal(i,
                    "a vector instruction while vtype is invalid (vill: no vsetvl yet, or a reserved one)");
        evl = vl_;
        if (indexed) {  // data at SEW and LMUL; the index vector at EEW, EMUL = EEW/SEW · LMUL
            dataBytes = t.sewBytes;
            lmul8 = t.lmul8;
            const unsigned indexLmul8 = eew * t.lmul8 / t.sewBytes;
            if (indexLmul8 == 0 || indexLmul8 > 64 || i.rs2 % registersOf(indexLmul8) ||
                i.rs2 + registersOf(indexLmul8) > 32)
                illegal(i, "an index register group out of range or misaligned");
        } else {
            lmul8 = eew * t.lmul8 / t.sewBytes;  // EMUL = EEW/SEW · LMUL
            if (lmul8 == 0 || lmul8 > 64)
                illegal(i, "a vector load/store whose EMUL (EEW/SEW · LMUL) is outside 1/8 … 8");
        }
        if (fields * registersOf(lmul8) > 8)
            illegal(i, "a segment load/store of more than 8 registers (nf · EMUL > 8)");
    }
    const unsigned regs = registersOf(lmul8);
    if (i.rd % regs || i.rd + groupFields * regs > 32)
        illegal(i, "a vector register group out of range or misaligned");
    const std::int64_t stride = mop == 2 ? static_cast<std::int64_t>(xreg_[i.rs2]) : 0;
    r.address = base;
    r.accessBytes = static_cast<std::uint8_t>(dataBytes);
    r.vl = static_cast<std::uint32_t>(evl);
    r.sew = static_cast<std::uint8_t>(dataBytes);
    r.lmul8 = static_cast<std::uint8_t>(lmul8);
    r.stride = mop == 2 ? stride : 0;
    r.indexed = indexed;
    const unsigned perElement = whole ? 1 : fields;
    // Contiguous and unmasked: the elements lie in memory as in the register group (both little-
    // endian), so one copy moves them. A fault part-way stops the run, as element by element.
    if (mop == 0 && perElement == 1 && (i.vm || whole) && !firstFault && vstart_ < evl) {
        const std::uint64_t offset = vstart_ * dataBytes, bytes = (evl - vstart_) * dataBytes;
        std::uint8_t* reg = &vreg_[std::size_t{i.rd} * kVlenBytes + offset];
        if (store)
            memory_.copyOut(base + offset, reg, bytes, GuestMemory::kWrite, "store");
        else
            memory_.copyIn(base + offset, reg, bytes, GuestMemory::kRead, "load");
        return;
    }
    for (std::uint64_t e = vstart_; e < evl; ++e) {
        if (!i.vm && !maskBit(0, e))
            continue;
        for (unsigned f = 0; f < perElement; ++f) {
            std::uint64_t address = base;
            if (indexed)
                address += element(i.rs2, e, eew) + std::uint64_t{f} * dataBytes;
            else if (mop == 2)
                address += static_cast<std::uint64_t>(stride) * e + std::uint64_t{f} * dataBytes;
            else
                address += (e * perElement + f) * dataBytes;
            const unsigned reg = i.rd + f * regs;
            if (store) {
                const std::uint64_t v = element(reg, e, dataBytes);
                switch (dataBytes) {
                case 1: memory_.store(address, static_cast<std::uint8_t>(v)); break;
                case 2: memory_.store(address, static_cast<std::uint16_t>(v)); break;
                case 4: memory_.store(address, static_cast<std::uint32_t>(v)); break;
                default: memory_.store(address, v); break;
                }
                continue;
            }
            std::uint64_t v = 0;
            try {
                switch (dataBytes) {
                case 1: v = memory_.load<std::uint8_t>(address); break;
                case 2: v = memory_.load<std::uint16_t>(address); break;
                case 4: v = memory_.load<std::uint32_t>(address); break;
                default: v = memory_.load<std::uint64_t>(address); break;
                }
            } catch (const GuestAccessFault&) {
                if (!firstFault || e == 0)
                    throw;
                vl_ = e;  // fault-only-first: the elements before the fault, and vl trimmed to them
                r.vl = static_cast<std::uint32_t>(e);
                return;
            }
            setElement(reg, e, dataBytes, v);
        }
    }
}

// OPIVV, OPIVX, OPIVI: single-width integer and fixed-point arithmetic, compares, merges, slides,
// gathers, whole-register moves, narrowing shifts and widening sums.
void Hart::executeVectorInteger(const Instruction& i, Retired& r) {
    const VectorType t = decodeVectorType(vtype_, kVlenBytes);
    const unsigned sb = t.sewBytes, bits = 8 * sb, f6 = i.funct6;
    const bool vv = i.rm == OPIVV, vi = i.rm == OPIVI;
    const std::uint64_t vl = vl_;
    const unsigned regs = registersOf(t.lmul8);
    auto aligned = [&](unsigned reg, unsigned n) { requireGroup(i, reg, n); };
    // The scalar operand: x[rs1] or simm5; shifts, slides and gathers take rs1 as uimm5.
    const bool unsignedImmediate = f6 == 0x0c || f6 == 0x0e || f6 == 0x0f || (f6 >= 0x25 && f6 <= 0x2f);
    const std::uint64_t scalar =
        vi ? (unsignedImmediate ? std::uint64_t{i.rs1} : static_cast<std::uint64_t>(i.imm)) : xreg_[i.rs1];
    auto src1 = [&](std::uint64_t e) { return vv ? element(i.rs1, e, sb) : truncated(scalar, sb); };
    auto active = [&](std::uint64_t e) { return i.vm || maskBit(0, e); };
    r.vl = static_cast<std::uint32_t>(vl);
    // The forms each funct6 has (1 .vv, 2 .vx, 4 .vi; the specification's OPIVV/OPIVX/OPIVI table).
    static constexpr std::uint8_t kForms[64] = {
        7, 0, 3, 6, 3, 3, 3, 3, 0, 7, 7, 7, 7, 0, 7, 6, 7, 7, 3, 3, 0, 0, 0, 7, 7, 7, 3, 3, 7, 7, 6, 6,
        7, 7, 3, 3, 0, 7, 0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!(kForms[f6] & (vv ? 1 : vi ? 4 : 2)))
        illegal(i, "a reserved vector integer encoding (no such form of this funct6)");

    if (vi && f6 == 0x27) {  // vmv<nr>r.v: whole registers, whatever vl
        const unsigned n = (i.rs1 & 7) + 1;
        if (n & (n - 1))
            illegal(i, "a reserved vmv<nr>r.v (nr 1, 2, 4 or 8)");
        aligned(i.rd, n);
        aligned(i.rs2, n);
        const std::uint64_t evl = std::uint64_t{n} * kVlenBytes / sb;
        for (std::uint64_t e = vstart_; e < evl; ++e)
            setElement(i.rd, e, sb, element(i.rs2, e, sb));
        r.vl = static_cast<std::uint32_t>(evl);
        r.lmul8 = static_cast<std::uint8_t>(8 * n);
        return;
    }
    if (f6 >= 0x2c && f6 <= 0x2f) {  // narrowing shifts and clips: vs2 at 2·SEW
        if (sb == 8)
            illegal(i, "a narrowing instruction at SEW 64");
        aligned(i.rd, regs);
        aligned(i.rs2, registersOf(2 * t.lmul8));
        for (std::uint64_t e = vstart_; e < vl; ++e) {
            if (!active(e))
                continue;
            const std::uint64_t wide = element(i.rs2, e, 2 * sb);
            const unsigned shift = src1(e) & (2 * bits - 1);
            std::uint64_t v = 0;
            if (f6 == 0x2c) {
                v = wide >> shift;
            } else if (f6 == 0x2d) {
                v = static_cast<std::uint64_t>(signedOf(wide, 2 * sb) >> shift);
            } else if (f6 == 0x2e) {
                const UInt128 x = roundedShiftUnsigned(wide, shift, vxrm_);
                v = x > maxUnsigned(sb) ? (vxsat_ = 1, maxUnsigned(sb)) : static_cast<std::uint64_t>(x);
            } else {
                const Int128 x = roundedShift(signedOf(wide, 2 * sb), shift, vxrm_);
                v = x > maxSigned(sb)   ? (vxsat_ = 1, static_cast<std::uint64_t>(maxSigned(sb)))
                    : x < minSigned(sb) ? (vxsat_ = 1, static_cast<std::uint64_t>(minSigned(sb)))
                                        : static_cast<std::uint64_t>(x);
            }
            setElement(i.rd, e, sb, v);
        }
        return;
    }
    if (f6 == 0x30 || f6 == 0x31) {  // vwredsum[u].vs: a 2·SEW sum of the widened elements
        if (!vv || sb == 8)
            illegal(i, "a reserved widening reduction");
        if (vl == 0)
            return;
        std::uint64_t sum = element(i.rs1, 0, 2 * sb);
        for (std::uint64_t e = 0; e < vl; ++e)
            if (active(e))
                sum += f6 == 0x31 ? static_cast<std::uint64_t>(signedOf(element(i.rs2, e, sb), sb))
                                  : element(i.rs2, e, sb);
        setElement(i.rd, 0, 2 * sb, truncated(sum, 2 * sb));
        return;
    }
    aligned(i.rs2, regs);
    if (vv)
        aligned(i.rs1, regs);
    const bool maskResult = (f6 >= 0x18 && f6 <= 0x1f) || f6 == 0x11 || f6 == 0x13;
    if (!maskResult)
        aligned(i.rd, regs);
    switch (f6) {
    case 0x0c:
    case 0x0e:
        if (f6 == 0x0c || vv) {  // vrgather.v[vxi], vrgatherei16.vv
            const unsigned ib = f6 == 0x0e ? 2 : sb;
            if (f6 == 0x0e) {  // the indices at EEW 16: EMUL = 16/SEW · LMUL, at most 8
                if (2 * t.lmul8 / sb > 64)
                    illegal(i, "vrgatherei16 whose index EMUL (16/SEW · LMUL) exceeds 8");
                aligned(i.rs1, registersOf(2 * t.lmul8 / sb));
            }
            for (std::uint64_t e = vstart_; e < vl; ++e) {
                if (!active(e))
                    continue;
                const std::uint64_t index = vv ? element(i.rs1, e, ib) : scalar;
                setElement(i.rd, e, sb, index < t.vlmax ? element(i.rs2, index, sb) : 0);
            }
            return;
        }
        // vslideup.vx/vi: vd[e] = vs2[e − offset] for e ≥ offset.
        for (std::uint64_t e = std::max(vstart_, scalar); e < vl; ++e)
            if (active(e))
                setElement(i.rd, e, sb, element(i.rs2, e - scalar, sb));
        return;
    case 0x0f:  // vslidedown: vd[e] = vs2[e + offset], 0 past VLMAX
        if (vv)
            illegal(i, "vslidedown has no .vv form");
        for (std::uint64_t e = vstart_; e < vl; ++e)
            if (active(e))
                setElement(i.rd, e, sb,
                           scalar < t.vlmax && e + scalar < t.vlmax ? element(i.rs2, e + scalar, sb) : 0);
        return;
    case 0x17:  // vmerge (masked) / vmv.v.* (unmasked, vs2 = v0)
        if (i.vm && i.rs2 != 0)
            illegal(i, "vmv.v.* with vs2 other than v0");
        for (std::uint64_t e = vstart_; e < vl; ++e)
            setElement(i.rd, e, sb, i.vm || maskBit(0, e) ? src1(e) : element(i.rs2, e, sb));
        return;
    case 0x10:
    case 0x12:  // vadc, vsbc: with the carry/borrow in v0
        if (i.vm || i.rd == 0)
            illegal(i, "vadc/vsbc must be masked (the carry in v0) and may not write v0");
        for (std::uint64_t e = vstart_; e < vl; ++e) {
            const std::uint64_t a = element(i.rs2, e, sb), b = src1(e), c = maskBit(0, e);
            setElement(i.rd, e, sb, truncated(f6 == 0x10 ? a + b + c : a - b - c, sb));
        }
        return;
    case 0x11:
    case 0x13:  // vmadc, vmsbc: the carry/borrow out, as a mask
        for (std::uint64_t e = vstart_; e < vl; ++e) {
            const UInt128 a = element(i.rs2, e, sb), b = src1(e), c = i.vm ? 0 : maskBit(0, e);
            const bool out = f6 == 0x11 ? ((a + b + c) >> bits) != 0 : a < b + c;
            setMaskBit(i.rd, e, out);
        }
        return;
    default: break;
    }
    for (std::uint64_t e = vstart_; e < vl; ++e) {
        if (!active(e))
            continue;
        const std::uint64_t a = element(i.rs2, e, sb), b = src1(e);
        const std::int64_t sa = signedOf(a, sb), sbv = signedOf(b, sb);
        const unsigned shift = b & (bits - 1);
        if (maskResult) {
            bool m = false;
            switch (f6) {
            case 0x18: m = a == b; break;
            case 0x19: m = a != b; break;
            case 0x1a: m = a < b; break;
            case 0x1b: m = sa < sbv; break;
            case 0x1c: m = a <= b; break;
            case 0x1d: m = sa <= sbv; break;
            case 0x1e: m = a > b; break;
            default: m = sa > sbv; break;
            }
            setMaskBit(i.rd, e, m);
            continue;
        }
        auto saturate = [&](Int128 v) {
            if (v > maxSigned(sb) || v < minSigned(sb)) {
                vxsat_ = 1;
                return static_cast<std::uint64_t>(v > 0 ? maxSigned(sb) : minSigned(sb));
            }
            return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
        };
        std::uint64_t v = 0;
        switch (f6) {
        case 0x00: v = a + b; break;
        case 0x02: v = a - b; break;
        case 0x03: v = b - a; break;
        case 0x04: v = std::min(a, b); break;
        case 0x05: v = static_cast<std::uint64_t>(std::min(sa, sbv)); break;
        case 0x06: v = std::max(a, b); break;
        case 0x07: v = static_cast<std::uint64_t>(std::max(sa, sbv)); break;
        case 0x09: v = a & b; break;
        case 0x0a: v = a | b; break;
        case 0x0b: v = a ^ b; break;
        case 0x20: v = a + b > maxUnsigned(sb) || a + b < a ? (vxsat_ = 1, maxUnsigned(sb)) : a + b; break;
        case 0x21: v = saturate(Int128{sa} + sbv); break;
        case 0x22: v = a < b ? (vxsat_ = 1, 0) : a - b; break;
        case 0x23: v = saturate(Int128{sa} - sbv); break;
        case 0x25: v = a << shift; break;
        case 0x27:  // vsmul: (a · b) >> (SEW − 1), rounded and saturated
            v = saturate(roundedShift(Int128{sa} * sbv, bits - 1, vxrm_));
            break;
        case 0x28: v = a >> shift; break;
        case 0x29: v = static_cast<std::uint64_t>(sa >> shift); break;
        case 0x2a: v = static_cast<std::uint64_t>(roundedShiftUnsigned(a, shift, vxrm_)); break;
        case 0x2b: v = static_cast<std::uint64_t>(roundedShift(sa, shift, vxrm_)); break;
        default: illegal(i, "a reserved or unsupported vector integer instruction");
        }
        setElement(i.rd, e, sb, truncated(v, sb));
    }
}

}  // namespace tessim::riscv
