// RV64GC + Zba/Zbb/Zbs + V decoding (the RISC-V unprivileged specification, 20191213, the bit
// manipulation specification 1.0.0 and the vector specification 1.0). Compressed encodings
// expand to their 32-bit equivalents.
#include "models/riscv/RiscvInstruction.h"

namespace tessim::riscv {

namespace {

constexpr std::string_view kNames[] = {
#define TESSIM_RISCV_NAME(e, name, cls) name,
    TESSIM_RISCV_INSTRUCTIONS(TESSIM_RISCV_NAME)
#undef TESSIM_RISCV_NAME
};
constexpr InstructionClass kClasses[] = {
#define TESSIM_RISCV_CLASS(e, name, cls) InstructionClass::cls,
    TESSIM_RISCV_INSTRUCTIONS(TESSIM_RISCV_CLASS)
#undef TESSIM_RISCV_CLASS
};

constexpr std::uint32_t field(std::uint32_t bits, unsigned hi, unsigned lo) {
    return (bits >> lo) & ((1u << (hi - lo + 1)) - 1);
}
constexpr std::int64_t signExtend(std::uint64_t value, unsigned width) {
    const std::uint64_t sign = std::uint64_t{1} << (width - 1);
    return static_cast<std::int64_t>((value ^ sign) - sign);
}

Instruction make(Mnemonic m, unsigned rd, unsigned rs1, unsigned rs2, std::int64_t imm) {
    Instruction i;
    i.mnemonic = m;
    i.rd = static_cast<std::uint8_t>(rd);
    i.rs1 = static_cast<std::uint8_t>(rs1);
    i.rs2 = static_cast<std::uint8_t>(rs2);
    i.imm = imm;
    return i;
}

Mnemonic opImm(std::uint32_t b) {
    const unsigned f3 = field(b, 14, 12), f6 = field(b, 31, 26), f12 = field(b, 31, 20);
    switch (f3) {
    case 0: return Mnemonic::Addi;
    case 2: return Mnemonic::Slti;
    case 3: return Mnemonic::Sltiu;
    case 4: return Mnemonic::Xori;
    case 6: return Mnemonic::Ori;
    case 7: return Mnemonic::Andi;
    case 1:
        if (f6 == 0x00)
            return Mnemonic::Slli;
        if (f6 == 0x12)
            return Mnemonic::Bclri;
        if (f6 == 0x0a)
            return Mnemonic::Bseti;
        if (f6 == 0x1a)
            return Mnemonic::Binvi;
        switch (f12) {
        case 0x600: return Mnemonic::Clz;
        case 0x601: return Mnemonic::Ctz;
        case 0x602: return Mnemonic::Cpop;
        case 0x604: return Mnemonic::SextB;
        case 0x605: return Mnemonic::SextH;
        default: return Mnemonic::Illegal;
        }
    case 5:
        if (f12 == 0x287)
            return Mnemonic::OrcB;
        if (f12 == 0x6b8)
            return Mnemonic::Rev8;
        if (f6 == 0x00)
            return Mnemonic::Srli;
        if (f6 == 0x10)
            return Mnemonic::Srai;
        if (f6 == 0x18)
            return Mnemonic::Rori;
        if (f6 == 0x12)
            return Mnemonic::Bexti;
        return Mnemonic::Illegal;
    }
    return Mnemonic::Illegal;
}

Mnemonic opImm32(std::uint32_t b) {
    const unsigned f3 = field(b, 14, 12), f7 = field(b, 31, 25), rs2 = field(b, 24, 20);
    if (f3 == 0)
        return Mnemonic::Addiw;
    if (f3 == 1) {
        if (f7 == 0x00)
            return Mnemonic::Slliw;
        if (field(b, 31, 26) == 0x02)
            return Mnemonic::SlliUw;
        if (f7 == 0x30 && rs2 == 0)
            return Mnemonic::Clzw;
        if (f7 == 0x30 && rs2 == 1)
            return Mnemonic::Ctzw;
        if (f7 == 0x30 && rs2 == 2)
            return Mnemonic::Cpopw;
    }
    if (f3 == 5) {
        if (f7 == 0x00)
            return Mnemonic::Srliw;
        if (f7 == 0x20)
            return Mnemonic::Sraiw;
        if (f7 == 0x30)
            return Mnemonic::Roriw;
    }
    return Mnemonic::Illegal;
}

Mnemonic op(std::uint32_t b) {
    const unsigned f3 = field(b, 14, 12), f7 = field(b, 31, 25);
    static constexpr Mnemonic base[8] = {Mnemonic::Add, Mnemonic::Sll, Mnemonic::Slt, Mnemonic::Sltu,
                                         Mnemonic::Xor, Mnemonic::Srl, Mnemonic::Or,  Mnemonic::And};
    static constexpr Mnemonic mul[8] = {Mnemonic::Mul, Mnemonic::Mulh, Mnemonic::Mulhsu, Mnemonic::Mulhu,
                                        Mnemonic::Div, Mnemonic::Divu, Mnemonic::Rem,    Mnemonic::Remu};
    switch (f7) {
    case 0x00: return base[f3];
    case 0x01: return mul[f3];
    case 0x20:
        if (f3 == 0)
            return Mnemonic::Sub;
        if (f3 == 5)
            return Mnemonic::Sra;
        if (f3 == 7)
            return Mnemonic::Andn;
        if (f3 == 6)
            return Mnemonic::Orn;
        if (f3 == 4)
            return Mnemonic::Xnor;
        break;
    case 0x10:
        if (f3 == 2)
            return Mnemonic::Sh1add;
        if (f3 == 4)
            return Mnemonic::Sh2add;
        if (f3 == 6)
            return Mnemonic::Sh3add;
        break;
    case 0x05:
        if (f3 == 4)
            return Mnemonic::Min;
        if (f3 == 5)
            return Mnemonic::Minu;
        if (f3 == 6)
            return Mnemonic::Max;
        if (f3 == 7)
            return Mnemonic::Maxu;
        break;
    case 0x30:
        if (f3 == 1)
            return Mnemonic::Rol;
        if (f3 == 5)
            return Mnemonic::Ror;
        break;
    case 0x24:
        if (f3 == 1)
            return Mnemonic::Bclr;
        if (f3 == 5)
            return Mnemonic::Bext;
        break;
    case 0x14:
        if (f3 == 1)
            return Mnemonic::Bset;
        break;
    case 0x34:
        if (f3 == 1)
            return Mnemonic::Binv;
        break;
    }
    return Mnemonic::Illegal;
}

Mnemonic op32(std::uint32_t b) {
    const unsigned f3 = field(b, 14, 12), f7 = field(b, 31, 25), rs2 = field(b, 24, 20);
    switch (f7) {
    case 0x00:
        if (f3 == 0)
            return Mnemonic::Addw;
        if (f3 == 1)
            return Mnemonic::Sllw;
        if (f3 == 5)
            return Mnemonic::Srlw;
        break;
    case 0x20:
        if (f3 == 0)
            return Mnemonic::Subw;
        if (f3 == 5)
            return Mnemonic::Sraw;
        break;
    case 0x01:
        if (f3 == 0)
            return Mnemonic::Mulw;
        if (f3 == 4)
            return Mnemonic::Divw;
        if (f3 == 5)
            return Mnemonic::Divuw;
        if (f3 == 6)
            return Mnemonic::Remw;
        if (f3 == 7)
            return Mnemonic::Remuw;
        break;
    case 0x04:
        if (f3 == 0)
            return Mnemonic::AddUw;
        if (f3 == 4 && rs2 == 0)
            return Mnemonic::ZextH;
        break;
    case 0x10:
        if (f3 == 2)
            return Mnemonic::Sh1addUw;
        if (f3 == 4)
            return Mnemonic::Sh2addUw;
        if (f3 == 6)
            return Mnemonic::Sh3addUw;
        break;
    case 0x30:
        if (f3 == 1)
            return Mnemonic::Rolw;
        if (f3 == 5)
            return Mnemonic::Rorw;
        break;
    }
    return Mnemonic::Illegal;
}

Mnemonic amo(std::uint32_t b) {
    const unsigned f3 = field(b, 14, 12), f5 = field(b, 31, 27);
    if (f3 != 2 && f3 != 3)
        return Mnemonic::Illegal;
    const bool d = f3 == 3;
    switch (f5) {
    case 0x02: return field(b, 24, 20) ? Mnemonic::Illegal : d ? Mnemonic::LrD : Mnemonic::LrW;
    case 0x03: return d ? Mnemonic::ScD : Mnemonic::ScW;
    case 0x01: return d ? Mnemonic::AmoswapD : Mnemonic::AmoswapW;
    case 0x00: return d ? Mnemonic::AmoaddD : Mnemonic::AmoaddW;
    case 0x04: return d ? Mnemonic::AmoxorD : Mnemonic::AmoxorW;
    case 0x0c: return d ? Mnemonic::AmoandD : Mnemonic::AmoandW;
    case 0x08: return d ? Mnemonic::AmoorD : Mnemonic::AmoorW;
    case 0x10: return d ? Mnemonic::AmominD : Mnemonic::AmominW;
    case 0x14: return d ? Mnemonic::AmomaxD : Mnemonic::AmomaxW;
    case 0x18: return d ? Mnemonic::AmominuD : Mnemonic::AmominuW;
    case 0x1c: return d ? Mnemonic::AmomaxuD : Mnemonic::AmomaxuW;
    }
    return Mnemonic::Illegal;
}

Mnemonic opFp(std::uint32_t b) {
    const unsigned f3 = field(b, 14, 12), f7 = field(b, 31, 25), rs2 = field(b, 24, 20);
    const bool d = f7 & 1;
    auto sd = [d](Mnemonic s, Mnemonic dd) { return d ? dd : s; };
    switch (f7 >> 1) {  // funct7 without its format bit
    case 0x00: return sd(Mnemonic::FaddS, Mnemonic::FaddD);
    case 0x02: return sd(Mnemonic::FsubS, Mnemonic::FsubD);
    case 0x04: return sd(Mnemonic::FmulS, Mnemonic::FmulD);
    case 0x06: return sd(Mnemonic::FdivS, Mnemonic::FdivD);
    case 0x16: return rs2 == 0 ? sd(Mnemonic::FsqrtS, Mnemonic::FsqrtD) : Mnemonic::Illegal;
    case 0x08:
        if (f3 == 0)
            return sd(Mnemonic::FsgnjS, Mnemonic::FsgnjD);
        if (f3 == 1)
            return sd(Mnemonic::FsgnjnS, Mnemonic::FsgnjnD);
        if (f3 == 2)
            return sd(Mnemonic::FsgnjxS, Mnemonic::FsgnjxD);
        break;
    case 0x0a:
        if (f3 == 0)
            return sd(Mnemonic::FminS, Mnemonic::FminD);
        if (f3 == 1)
            return sd(Mnemonic::FmaxS, Mnemonic::FmaxD);
        break;
    case 0x10:
        if (!d && rs2 == 1)
            return Mnemonic::FcvtSD;
        if (d && rs2 == 0)
            return Mnemonic::FcvtDS;
        break;
    case 0x28:
        if (f3 == 0)
            return sd(Mnemonic::FleS, Mnemonic::FleD);
        if (f3 == 1)
            return sd(Mnemonic::FltS, Mnemonic::FltD);
        if (f3 == 2)
            return sd(Mnemonic::FeqS, Mnemonic::FeqD);
        break;
    case 0x30: {
        static constexpr Mnemonic s[4] = {Mnemonic::FcvtWS, Mnemonic::FcvtWuS, Mnemonic::FcvtLS,
                                          Mnemonic::FcvtLuS};
        static constexpr Mnemonic dd[4] = {Mnemonic::FcvtWD, Mnemonic::FcvtWuD, Mnemonic::FcvtLD,
                                           Mnemonic::FcvtLuD};
        return rs2 < 4 ? (d ? dd[rs2] : s[rs2]) : Mnemonic::Illegal;
    }
    case 0x34: {
        static constexpr Mnemonic s[4] = {Mnemonic::FcvtSW, Mnemonic::FcvtSWu, Mnemonic::FcvtSL,
                                          Mnemonic::FcvtSLu};
        static constexpr Mnemonic dd[4] = {Mnemonic::FcvtDW, Mnemonic::FcvtDWu, Mnemonic::FcvtDL,
                                           Mnemonic::FcvtDLu};
        return rs2 < 4 ? (d ? dd[rs2] : s[rs2]) : Mnemonic::Illegal;
    }
    case 0x38:
        if (rs2 != 0)
            break;
        if (f3 == 0)
            return sd(Mnemonic::FmvXW, Mnemonic::FmvXD);
        if (f3 == 1)
            return sd(Mnemonic::FclassS, Mnemonic::FclassD);
        break;
    case 0x3c:
        if (rs2 == 0 && f3 == 0)
            return sd(Mnemonic::FmvWX, Mnemonic::FmvDX);
        break;
    }
    return Mnemonic::Illegal;
}

// A vector load or store (LOAD-FP/STORE-FP with a vector width): the element width in bytes.
Instruction vectorMemory(std::uint32_t b, bool store) {
    static constexpr std::uint8_t kWidthBytes[8] = {1, 0, 0, 0, 0, 2, 4, 8};
    Instruction i = make(store ? Mnemonic::VectorStore : Mnemonic::VectorLoad, field(b, 11, 7),
                         field(b, 19, 15), field(b, 24, 20), 0);
    if (field(b, 28, 28))  // mew: element widths above 64 bits are reserved
        return Instruction{};
    i.rm = kWidthBytes[field(b, 14, 12)];
    i.rs3 = static_cast<std::uint8_t>(field(b, 31, 29) + 1);
    i.funct6 = static_cast<std::uint8_t>(field(b, 27, 26));
    i.vm = static_cast<std::uint8_t>(field(b, 25, 25));
    return i;
}

Instruction vectorArithmetic(std::uint32_t b) {
    const unsigned f3 = field(b, 14, 12);
    Instruction i;
    if (f3 == 7) {  // vsetvli (bit 31 = 0), vsetivli (11), vsetvl (1000000)
        if (!field(b, 31, 31))
            i = make(Mnemonic::Vsetvli, field(b, 11, 7), field(b, 19, 15), 0, field(b, 30, 20));
        else if (field(b, 31, 30) == 3)
            i = make(Mnemonic::Vsetivli, field(b, 11, 7), 0, 0, field(b, 29, 20));
        else if (field(b, 31, 25) == 0x40)
            i = make(Mnemonic::Vsetvl, field(b, 11, 7), field(b, 19, 15), field(b, 24, 20), 0);
        if (i.mnemonic == Mnemonic::Vsetivli)
            i.rs1 = static_cast<std::uint8_t>(field(b, 19, 15));  // the AVL itself, uimm5
        return i;
    }
    static constexpr Mnemonic kByCategory[7] = {
        Mnemonic::VectorInteger, Mnemonic::VectorFloat, Mnemonic::VectorMask, Mnemonic::VectorInteger,
        Mnemonic::VectorInteger, Mnemonic::VectorFloat, Mnemonic::VectorMask};
    i = make(kByCategory[f3], field(b, 11, 7), field(b, 19, 15), field(b, 24, 20),
             signExtend(field(b, 19, 15), 5));
    i.rm = static_cast<std::uint8_t>(f3);
    i.funct6 = static_cast<std::uint8_t>(field(b, 31, 26));
    i.vm = static_cast<std::uint8_t>(field(b, 25, 25));
    return i;
}

Instruction decode32(std::uint32_t b) {
    const unsigned opcode = field(b, 6, 0), rd = field(b, 11, 7), f3 = field(b, 14, 12);
    const unsigned rs1 = field(b, 19, 15), rs2 = field(b, 24, 20);
    const std::int64_t iImm = signExtend(field(b, 31, 20), 12);
    const std::int64_t sImm = signExtend((field(b, 31, 25) << 5) | field(b, 11, 7), 12);
    const std::int64_t bImm = signExtend((field(b, 31, 31) << 12) | (field(b, 7, 7) << 11) |
                                             (field(b, 30, 25) << 5) | (field(b, 11, 8) << 1),
                                         13);
    const std::int64_t uImm = signExtend(b & 0xfffff000u, 32);
    const std::int64_t jImm = signExtend((field(b, 31, 31) << 20) | (field(b, 19, 12) << 12) |
                                             (field(b, 20, 20) << 11) | (field(b, 30, 21) << 1),
                                         21);
    Instruction i;
    switch (opcode) {
    case 0x37: i = make(Mnemonic::Lui, rd, 0, 0, uImm); break;
    case 0x17: i = make(Mnemonic::Auipc, rd, 0, 0, uImm); break;
    case 0x6f: i = make(Mnemonic::Jal, rd, 0, 0, jImm); break;
    case 0x67:
        if (f3 == 0)
            i = make(Mnemonic::Jalr, rd, rs1, 0, iImm);
        break;
    case 0x63: {
        static constexpr Mnemonic m[8] = {Mnemonic::Beq, Mnemonic::Bne, Mnemonic::Illegal, Mnemonic::Illegal,
                                          Mnemonic::Blt, Mnemonic::Bge, Mnemonic::Bltu,    Mnemonic::Bgeu};
        i = make(m[f3], 0, rs1, rs2, bImm);
        break;
    }
    case 0x03: {
        static constexpr Mnemonic m[8] = {Mnemonic::Lb,  Mnemonic::Lh,  Mnemonic::Lw,  Mnemonic::Ld,
                                          Mnemonic::Lbu, Mnemonic::Lhu, Mnemonic::Lwu, Mnemonic::Illegal};
        i = make(m[f3], rd, rs1, 0, iImm);
        break;
    }
    case 0x23: {
        static constexpr Mnemonic m[4] = {Mnemonic::Sb, Mnemonic::Sh, Mnemonic::Sw, Mnemonic::Sd};
        if (f3 < 4)
            i = make(m[f3], 0, rs1, rs2, sImm);
        break;
    }
    case 0x13: {
        const Mnemonic m = opImm(b);
        // Shifts, single-bit and rotate immediates take a 6-bit shamt; the rest a 12-bit immediate.
        const bool shamt = f3 == 1 || f3 == 5;
        i = make(m, rd, rs1, 0, shamt ? std::int64_t{field(b, 25, 20)} : iImm);
        break;
    }
    case 0x1b: i = make(opImm32(b), rd, rs1, 0, f3 == 0 ? iImm : std::int64_t{field(b, 25, 20)}); break;
    case 0x33: i = make(op(b), rd, rs1, rs2, 0); break;
    case 0x3b: i = make(op32(b), rd, rs1, rs2, 0); break;
    case 0x0f:
        if (f3 == 0)
            i = make(Mnemonic::Fence, 0, 0, 0, 0);
        else if (f3 == 1)
            i = make(Mnemonic::FenceI, 0, 0, 0, 0);
        break;
    case 0x73:
        if (b == 0x00000073u) {
            i = make(Mnemonic::Ecall, 0, 0, 0, 0);
        } else if (b == 0x00100073u) {
            i = make(Mnemonic::Ebreak, 0, 0, 0, 0);
        } else if (f3 != 0 && f3 != 4) {
            static constexpr Mnemonic m[8] = {Mnemonic::Illegal, Mnemonic::Csrrw,   Mnemonic::Csrrs,
                                              Mnemonic::Csrrc,   Mnemonic::Illegal, Mnemonic::Csrrwi,
                                              Mnemonic::Csrrsi,  Mnemonic::Csrrci};
            i = make(m[f3], rd, rs1, 0, field(b, 31, 20));
        }
        break;
    case 0x2f:
        i = make(amo(b), rd, rs1, rs2, 0);
        i.rm = static_cast<std::uint8_t>(field(b, 26, 25));
        break;
    case 0x07:
        if (f3 == 2 || f3 == 3)
            i = make(f3 == 2 ? Mnemonic::Flw : Mnemonic::Fld, rd, rs1, 0, iImm);
        else if (f3 == 0 || f3 >= 5)
            i = vectorMemory(b, false);
        break;
    case 0x27:
        if (f3 == 2 || f3 == 3)
            i = make(f3 == 2 ? Mnemonic::Fsw : Mnemonic::Fsd, 0, rs1, rs2, sImm);
        else if (f3 == 0 || f3 >= 5)
            i = vectorMemory(b, true);
        break;
    case 0x57: i = vectorArithmetic(b); break;
    case 0x43:
    case 0x47:
    case 0x4b:
    case 0x4f: {
        const unsigned fmt = field(b, 26, 25);
        if (fmt > 1)
            break;
        static constexpr Mnemonic s[4] = {Mnemonic::FmaddS, Mnemonic::FmsubS, Mnemonic::FnmsubS,
                                          Mnemonic::FnmaddS};
        static constexpr Mnemonic d[4] = {Mnemonic::FmaddD, Mnemonic::FmsubD, Mnemonic::FnmsubD,
                                          Mnemonic::FnmaddD};
        const unsigned k = (opcode - 0x43) >> 2;
        i = make(fmt ? d[k] : s[k], rd, rs1, rs2, 0);
        i.rs3 = static_cast<std::uint8_t>(field(b, 31, 27));
        i.rm = static_cast<std::uint8_t>(f3);
        break;
    }
    case 0x53:
        i = make(opFp(b), rd, rs1, rs2, 0);
        i.rm = static_cast<std::uint8_t>(f3);
        break;
    default: break;
    }
    i.length = 4;
    i.bits = b;
    return i;
}

// ---- compressed (RVC, RV64) ----

Instruction decode16(std::uint32_t b) {
    const unsigned quadrant = b & 3, f3 = field(b, 15, 13);
    const unsigned rdP = 8 + field(b, 4, 2), rs1P = 8 + field(b, 9, 7);
    const unsigned rd = field(b, 11, 7), rs2 = field(b, 6, 2);
    const std::int64_t imm6 = signExtend((field(b, 12, 12) << 5) | field(b, 6, 2), 6);
    const std::uint32_t shamt = (field(b, 12, 12) << 5) | field(b, 6, 2);
    // Load/store offsets of words (lw/sw) and double words (ld/sd/fld/fsd).
    const std::uint32_t wOff = (field(b, 12, 10) << 3) | (field(b, 6, 6) << 2) | (field(b, 5, 5) << 6);
    const std::uint32_t dOff = (field(b, 12, 10) << 3) | (field(b, 6, 5) << 6);
    Instruction i;
    switch (quadrant << 3 | f3) {
    case 000: {  // c.addi4spn
        const std::uint32_t imm =
            (field(b, 12, 11) << 4) | (field(b, 10, 7) << 6) | (field(b, 6, 6) << 2) | (field(b, 5, 5) << 3);
        if (imm)
            i = make(Mnemonic::Addi, rdP, 2, 0, imm);
        break;
    }
    case 001: i = make(Mnemonic::Fld, rdP, rs1P, 0, dOff); break;
    case 002: i = make(Mnemonic::Lw, rdP, rs1P, 0, wOff); break;
    case 003: i = make(Mnemonic::Ld, rdP, rs1P, 0, dOff); break;
    case 005: i = make(Mnemonic::Fsd, 0, rs1P, rdP, dOff); break;
    case 006: i = make(Mnemonic::Sw, 0, rs1P, rdP, wOff); break;
    case 007: i = make(Mnemonic::Sd, 0, rs1P, rdP, dOff); break;
    case 010: i = make(Mnemonic::Addi, rd, rd, 0, imm6); break;  // c.addi, c.nop
    case 011:
        if (rd)
            i = make(Mnemonic::Addiw, rd, rd, 0, imm6);
        break;
    case 012: i = make(Mnemonic::Addi, rd, 0, 0, imm6); break;  // c.li
    case 013:
        if (rd == 2) {  // c.addi16sp
            const std::int64_t imm =
                signExtend((field(b, 12, 12) << 9) | (field(b, 6, 6) << 4) | (field(b, 5, 5) << 6) |
                               (field(b, 4, 3) << 7) | (field(b, 2, 2) << 5),
                           10);
            if (imm)
                i = make(Mnemonic::Addi, 2, 2, 0, imm);
        } else if (imm6 != 0) {  // c.lui
            i = make(Mnemonic::Lui, rd, 0, 0, imm6 * 4096);
        }
        break;
    case 014:
        switch (field(b, 11, 10)) {
        case 0: i = make(Mnemonic::Srli, rs1P, rs1P, 0, shamt); break;
        case 1: i = make(Mnemonic::Srai, rs1P, rs1P, 0, shamt); break;
        case 2: i = make(Mnemonic::Andi, rs1P, rs1P, 0, imm6); break;
        case 3: {
            static constexpr Mnemonic m[8] = {Mnemonic::Sub,     Mnemonic::Xor,    Mnemonic::Or,
                                              Mnemonic::And,     Mnemonic::Subw,   Mnemonic::Addw,
                                              Mnemonic::Illegal, Mnemonic::Illegal};
            i = make(m[(field(b, 12, 12) << 2) | field(b, 6, 5)], rs1P, rs1P, rdP, 0);
            break;
        }
        }
        break;
    case 015: {  // c.j
        const std::int64_t off =
            signExtend((field(b, 12, 12) << 11) | (field(b, 11, 11) << 4) | (field(b, 10, 9) << 8) |
                           (field(b, 8, 8) << 10) | (field(b, 7, 7) << 6) | (field(b, 6, 6) << 7) |
                           (field(b, 5, 3) << 1) | (field(b, 2, 2) << 5),
                       12);
        i = make(Mnemonic::Jal, 0, 0, 0, off);
        break;
    }
    case 016:
    case 017: {  // c.beqz, c.bnez
        const std::int64_t off =
            signExtend((field(b, 12, 12) << 8) | (field(b, 11, 10) << 3) | (field(b, 6, 5) << 6) |
                           (field(b, 4, 3) << 1) | (field(b, 2, 2) << 5),
                       9);
        i = make(f3 == 6 ? Mnemonic::Beq : Mnemonic::Bne, 0, rs1P, 0, off);
        break;
    }
    case 020: i = make(Mnemonic::Slli, rd, rd, 0, shamt); break;
    case 021: {  // c.fldsp
        const std::uint32_t off = (field(b, 12, 12) << 5) | (field(b, 6, 5) << 3) | (field(b, 4, 2) << 6);
        i = make(Mnemonic::Fld, rd, 2, 0, off);
        break;
    }
    case 022:
        if (rd) {  // c.lwsp
            const std::uint32_t off = (field(b, 12, 12) << 5) | (field(b, 6, 4) << 2) | (field(b, 3, 2) << 6);
            i = make(Mnemonic::Lw, rd, 2, 0, off);
        }
        break;
    case 023:
        if (rd) {  // c.ldsp
            const std::uint32_t off = (field(b, 12, 12) << 5) | (field(b, 6, 5) << 3) | (field(b, 4, 2) << 6);
            i = make(Mnemonic::Ld, rd, 2, 0, off);
        }
        break;
    case 024:
        if (!field(b, 12, 12)) {
            if (rs2 == 0 && rd)
                i = make(Mnemonic::Jalr, 0, rd, 0, 0);  // c.jr
            else if (rs2)
                i = make(Mnemonic::Add, rd, 0, rs2, 0);  // c.mv
        } else if (rd == 0 && rs2 == 0) {
            i = make(Mnemonic::Ebreak, 0, 0, 0, 0);
        } else if (rs2 == 0) {
            i = make(Mnemonic::Jalr, 1, rd, 0, 0);  // c.jalr
        } else {
            i = make(Mnemonic::Add, rd, rd, rs2, 0);
        }
        break;
    case 025: {  // c.fsdsp
        const std::uint32_t off = (field(b, 12, 10) << 3) | (field(b, 9, 7) << 6);
        i = make(Mnemonic::Fsd, 0, 2, rs2, off);
        break;
    }
    case 026: {  // c.swsp
        const std::uint32_t off = (field(b, 12, 9) << 2) | (field(b, 8, 7) << 6);
        i = make(Mnemonic::Sw, 0, 2, rs2, off);
        break;
    }
    case 027: {  // c.sdsp
        const std::uint32_t off = (field(b, 12, 10) << 3) | (field(b, 9, 7) << 6);
        i = make(Mnemonic::Sd, 0, 2, rs2, off);
        break;
    }
    default: break;
    }
    i.length = 2;
    i.bits = b & 0xffffu;
    return i;
}

}  // namespace

std::string_view mnemonicName(Mnemonic m) {
    return kNames[static_cast<std::size_t>(m)];
}

InstructionClass instructionClass(Mnemonic m) {
    return kClasses[static_cast<std::size_t>(m)];
}

Instruction decode(std::uint32_t bits) {
    return (bits & 3) == 3 ? decode32(bits) : decode16(bits & 0xffffu);
}

}  // namespace tessim::riscv
