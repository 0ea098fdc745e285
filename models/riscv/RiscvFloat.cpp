// F and D semantics of the RV64 hart on the host's IEEE 754 arithmetic: the rounding mode set
// in the host FPU for each operation, the host's exception flags read back into fflags, and the
// RISC-V rules applied on top (canonical NaNs, NaN boxing, min/max and conversion results).
// Built with -frounding-math (CMakeLists.txt) so that the compiler keeps every operation where
// it is written, between setting the mode and reading the flags.
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "models/riscv/FloatRules.h"
#include "models/riscv/RiscvHart.h"

namespace tessim::riscv {

using namespace fp;

void Hart::executeFloat(const Instruction& i, Retired& r) {
    using M = Mnemonic;
    // Loads, stores and moves need no rounding mode and raise nothing.
    switch (i.mnemonic) {
    case M::Flw:
        r.address = xreg_[i.rs1] + static_cast<std::uint64_t>(i.imm);
        r.accessBytes = 4;
        freg_[i.rd] = box(memory_.load<std::uint32_t>(r.address));
        return;
    case M::Fld:
        r.address = xreg_[i.rs1] + static_cast<std::uint64_t>(i.imm);
        r.accessBytes = 8;
        freg_[i.rd] = memory_.load<std::uint64_t>(r.address);
        return;
    case M::Fsw:
        r.address = xreg_[i.rs1] + static_cast<std::uint64_t>(i.imm);
        r.accessBytes = 4;
        memory_.store(r.address, static_cast<std::uint32_t>(freg_[i.rs2]));
        return;
    case M::Fsd:
        r.address = xreg_[i.rs1] + static_cast<std::uint64_t>(i.imm);
        r.accessBytes = 8;
        memory_.store(r.address, freg_[i.rs2]);
        return;
    case M::FmvXW:
        setX(i.rd,
             static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(freg_[i.rs1]))));
        return;
    case M::FmvXD: setX(i.rd, freg_[i.rs1]); return;
    case M::FmvWX: freg_[i.rd] = box(static_cast<std::uint32_t>(xreg_[i.rs1])); return;
    case M::FmvDX: freg_[i.rd] = xreg_[i.rs1]; return;
    default: break;
    }

    const unsigned rm = i.rm == 7 ? frm : i.rm;
    if (rm > 4)
        illegal(i, "a reserved rounding mode");
    // RMM computes in RNE, then corrects ties (tiesAway).
    std::fesetround(kHostMode[rm]);
    clearHostFlags();

    const std::uint32_t s1 = unbox(freg_[i.rs1]), s2 = unbox(freg_[i.rs2]), s3 = unbox(freg_[i.rs3]);
    const std::uint64_t d1 = freg_[i.rs1], d2 = freg_[i.rs2], d3 = freg_[i.rs3];
    const float a = asFloat(s1), b = asFloat(s2), c = asFloat(s3);
    const double x = asDouble(d1), y = asDouble(d2), z = asDouble(d3);
    std::uint32_t flags = 0;  // raised by the rules below, beside the host's
    bool useHost = true;      // fold the host's flags in
    auto setS = [&](float v) { freg_[i.rd] = box(canonical(v)); };
    auto setD = [&](double v) { freg_[i.rd] = canonical(v); };
    // ∞ × 0 in a fused multiply-add is invalid even when the addend is a quiet NaN.
    auto fmaInvalid = [&](auto p, auto q) {
        if ((std::isinf(p) && q == 0) || (p == 0 && std::isinf(q)))
            flags |= kNV;
    };
    switch (i.mnemonic) {
    case M::FaddS: setS(a + b); break;
    case M::FsubS: setS(a - b); break;
    case M::FmulS: setS(a * b); break;
    case M::FdivS: setS(a / b); break;
    case M::FsqrtS: setS(std::sqrt(a)); break;
    case M::FmaddS:
        fmaInvalid(a, b);
        setS(std::fma(a, b, c));
        break;
    case M::FmsubS:
        fmaInvalid(a, b);
        setS(std::fma(a, b, -c));
        break;
    case M::FnmsubS:
        fmaInvalid(a, b);
        setS(std::fma(-a, b, c));
        break;
    case M::FnmaddS:
        fmaInvalid(a, b);
        setS(std::fma(-a, b, -c));
        break;
    case M::FaddD: setD(x + y); break;
    case M::FsubD: setD(x - y); break;
    case M::FmulD: setD(x * y); break;
    case M::FdivD: setD(x / y); break;
    case M::FsqrtD: setD(std::sqrt(x)); break;
    case M::FmaddD:
        fmaInvalid(x, y);
        setD(std::fma(x, y, z));
        break;
    case M::FmsubD:
        fmaInvalid(x, y);
        setD(std::fma(x, y, -z));
        break;
    case M::FnmsubD:
        fmaInvalid(x, y);
        setD(std::fma(-x, y, z));
        break;
    case M::FnmaddD:
        fmaInvalid(x, y);
        setD(std::fma(-x, y, -z));
        break;
    case M::FsgnjS:
        freg_[i.rd] = box((s1 & 0x7fffffffu) | (s2 & 0x80000000u));
        useHost = false;
        break;
    case M::FsgnjnS:
        freg_[i.rd] = box((s1 & 0x7fffffffu) | (~s2 & 0x80000000u));
        useHost = false;
        break;
    case M::FsgnjxS:
        freg_[i.rd] = box(s1 ^ (s2 & 0x80000000u));
        useHost = false;
        break;
    case M::FsgnjD:
        freg_[i.rd] = (d1 & ~(1ull << 63)) | (d2 & (1ull << 63));
        useHost = false;
        break;
    case M::FsgnjnD:
        freg_[i.rd] = (d1 & ~(1ull << 63)) | (~d2 & (1ull << 63));
        useHost = false;
        break;
    case M::FsgnjxD:
        freg_[i.rd] = d1 ^ (d2 & (1ull << 63));
        useHost = false;
        break;
    case M::FminS:
    case M::FmaxS:
        freg_[i.rd] = box(minMax(a, b, s1, s2, i.mnemonic == M::FmaxS, flags, kCanonicalNaN32));
        useHost = false;
        break;
    case M::FminD:
    case M::FmaxD:
        freg_[i.rd] = minMax(x, y, d1, d2, i.mnemonic == M::FmaxD, flags, kCanonicalNaN64);
        useHost = false;
        break;
    case M::FeqS:
        setX(i.rd, compare(2, a, b, s1, s2, flags));
        useHost = false;
        break;
    case M::FltS:
        setX(i.rd, compare(1, a, b, s1, s2, flags));
        useHost = false;
        break;
    case M::FleS:
        setX(i.rd, compare(0, a, b, s1, s2, flags));
        useHost = false;
        break;
    case M::FeqD:
        setX(i.rd, compare(2, x, y, d1, d2, flags));
        useHost = false;
        break;
    case M::FltD:
        setX(i.rd, compare(1, x, y, d1, d2, flags));
        useHost = false;
        break;
    case M::FleD:
        setX(i.rd, compare(0, x, y, d1, d2, flags));
        useHost = false;
        break;
    case M::FclassS:
        setX(i.rd, classify(a, isSignalling(s1)));
        useHost = false;
        break;
    case M::FclassD:
        setX(i.rd, classify(x, isSignalling(d1)));
        useHost = false;
        break;
    case M::FcvtWS:
        setX(i.rd, toInteger<std::int32_t>(a, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtWuS:
        setX(i.rd, toInteger<std::uint32_t>(a, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtLS:
        setX(i.rd, toInteger<std::int64_t>(a, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtLuS:
        setX(i.rd, toInteger<std::uint64_t>(a, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtWD:
        setX(i.rd, toInteger<std::int32_t>(x, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtWuD:
        setX(i.rd, toInteger<std::uint32_t>(x, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtLD:
        setX(i.rd, toInteger<std::int64_t>(x, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtLuD:
        setX(i.rd, toInteger<std::uint64_t>(x, rm == 4, flags));
        useHost = false;
        break;
    case M::FcvtSW: setS(static_cast<float>(static_cast<std::int32_t>(xreg_[i.rs1]))); break;
    case M::FcvtSWu: setS(static_cast<float>(static_cast<std::uint32_t>(xreg_[i.rs1]))); break;
    case M::FcvtSL: setS(static_cast<float>(static_cast<std::int64_t>(xreg_[i.rs1]))); break;
    case M::FcvtSLu: setS(static_cast<float>(xreg_[i.rs1])); break;
    case M::FcvtDW: setD(static_cast<double>(static_cast<std::int32_t>(xreg_[i.rs1]))); break;
    case M::FcvtDWu: setD(static_cast<double>(static_cast<std::uint32_t>(xreg_[i.rs1]))); break;
    case M::FcvtDL: setD(static_cast<double>(static_cast<std::int64_t>(xreg_[i.rs1]))); break;
    case M::FcvtDLu: setD(static_cast<double>(xreg_[i.rs1])); break;
    case M::FcvtSD: setS(static_cast<float>(x)); break;
    case M::FcvtDS: setD(static_cast<double>(a)); break;
    default: illegal(i, "an unsupported floating-point instruction");
    }
    fflags |= flags | (useHost ? hostFlags() : 0);
    std::fesetround(FE_TONEAREST);
    if (rm == 4)
        correctTiesAway(i);
}

void Hart::correctTiesAway(const Instruction& i) {
    using M = Mnemonic;
    using L = long double;
    const float a = asFloat(unbox(freg_[i.rs1])), b = asFloat(unbox(freg_[i.rs2])),
                c = asFloat(unbox(freg_[i.rs3]));
    const double x = asDouble(freg_[i.rs1]), y = asDouble(freg_[i.rs2]), z = asDouble(freg_[i.rs3]);
    const std::uint64_t n = xreg_[i.rs1];
    auto single = [&](auto compute) {
        freg_[i.rd] = box(bitsOf(tiesAway(asFloat(unbox(freg_[i.rd])), roundToOdd(compute))));
    };
    auto twice = [&](auto compute) {
        freg_[i.rd] = bitsOf(tiesAway(asDouble(freg_[i.rd]), roundToOdd(compute)));
    };
    switch (i.mnemonic) {
    case M::FaddS: single([&] { return L(a) + L(b); }); break;
    case M::FsubS: single([&] { return L(a) - L(b); }); break;
    case M::FmulS: single([&] { return L(a) * L(b); }); break;
    case M::FdivS: single([&] { return L(a) / L(b); }); break;
    case M::FmaddS: single([&] { return std::fma(L(a), L(b), L(c)); }); break;
    case M::FmsubS: single([&] { return std::fma(L(a), L(b), -L(c)); }); break;
    case M::FnmsubS: single([&] { return std::fma(-L(a), L(b), L(c)); }); break;
    case M::FnmaddS: single([&] { return std::fma(-L(a), L(b), -L(c)); }); break;
    case M::FaddD: twice([&] { return L(x) + L(y); }); break;
    case M::FsubD: twice([&] { return L(x) - L(y); }); break;
    case M::FmulD: twice([&] { return L(x) * L(y); }); break;
    case M::FdivD: twice([&] { return L(x) / L(y); }); break;
    case M::FmaddD: twice([&] { return std::fma(L(x), L(y), L(z)); }); break;
    case M::FmsubD: twice([&] { return std::fma(L(x), L(y), -L(z)); }); break;
    case M::FnmsubD: twice([&] { return std::fma(-L(x), L(y), L(z)); }); break;
    case M::FnmaddD: twice([&] { return std::fma(-L(x), L(y), -L(z)); }); break;
    case M::FcvtSD: single([&] { return L(x); }); break;
    case M::FcvtSW: single([&] { return L(static_cast<std::int32_t>(n)); }); break;
    case M::FcvtSWu: single([&] { return L(static_cast<std::uint32_t>(n)); }); break;
    case M::FcvtSL: single([&] { return L(static_cast<std::int64_t>(n)); }); break;
    case M::FcvtSLu: single([&] { return L(n); }); break;
    case M::FcvtDL: twice([&] { return L(static_cast<std::int64_t>(n)); }); break;
    case M::FcvtDLu: twice([&] { return L(n); }); break;
    default: break;  // exact (fcvt.d.s, fcvt.d.w[u]), no ties (fsqrt), or no rounding at all
    }
}

}  // namespace tessim::riscv
