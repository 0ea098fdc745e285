// A decoded RV64GC instruction (RV64IMAFDC, Zicsr, Zifencei, Zba, Zbb, Zbs) or RVV 1.0 one: the
// mnemonic, its operands and its timing class. A compressed instruction decodes to the
// instruction it expands to (length 2), so the executor knows one form of each. A vector
// arithmetic instruction is one of three mnemonics (integer, mask/multiply, floating point, by
// its funct3 category) with its funct6 beside it; vectorName() spells it out (RiscvVector.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace tessim::riscv {

// How the timing model sees an instruction (which unit, which op kind).
enum class InstructionClass : std::uint8_t {
    Alu,       // integer add, logic, compare, shift, bit manipulation
    Multiply,  // integer multiply
    Divide,    // integer divide and remainder
    Load,      // integer load
    Store,     // integer store
    Branch,    // conditional branch
    Jump,      // jal, jalr
    Atomic,    // lr, sc, amo*
    FpLoad,
    FpStore,
    FpArith,  // add, sub, mul, min/max, sign injection, compare, class, moves, conversions
    FpFma,
    FpDivide,      // div and sqrt
    System,        // ecall, ebreak, csr*, fence, fence.i
    VectorConfig,  // vsetvli, vsetivli, vsetvl
    VectorLoad,    // every vector load: unit-stride, strided, indexed, segment, whole-register, mask, ff
    VectorStore,
    VectorAlu,  // integer, fixed-point, mask and permutation instructions (OPIVV/OPIVX/OPIVI/OPMVV/OPMVX)
    VectorFp,   // floating point (OPFVV, OPFVF)
};

// X(enumerator, mnemonic, class)
// clang-format off
#define TESSIM_RISCV_INSTRUCTIONS(X) \
    X(Illegal, "illegal", System) X(Lui, "lui", Alu) X(Auipc, "auipc", Alu) \
    X(Jal, "jal", Jump) X(Jalr, "jalr", Jump) X(Beq, "beq", Branch) \
    X(Bne, "bne", Branch) X(Blt, "blt", Branch) X(Bge, "bge", Branch) \
    X(Bltu, "bltu", Branch) X(Bgeu, "bgeu", Branch) X(Lb, "lb", Load) \
    X(Lh, "lh", Load) X(Lw, "lw", Load) X(Ld, "ld", Load) \
    X(Lbu, "lbu", Load) X(Lhu, "lhu", Load) X(Lwu, "lwu", Load) \
    X(Sb, "sb", Store) X(Sh, "sh", Store) X(Sw, "sw", Store) \
    X(Sd, "sd", Store) X(Addi, "addi", Alu) X(Slti, "slti", Alu) \
    X(Sltiu, "sltiu", Alu) X(Xori, "xori", Alu) X(Ori, "ori", Alu) \
    X(Andi, "andi", Alu) X(Slli, "slli", Alu) X(Srli, "srli", Alu) \
    X(Srai, "srai", Alu) X(Add, "add", Alu) X(Sub, "sub", Alu) \
    X(Sll, "sll", Alu) X(Slt, "slt", Alu) X(Sltu, "sltu", Alu) \
    X(Xor, "xor", Alu) X(Srl, "srl", Alu) X(Sra, "sra", Alu) \
    X(Or, "or", Alu) X(And, "and", Alu) X(Addiw, "addiw", Alu) \
    X(Slliw, "slliw", Alu) X(Srliw, "srliw", Alu) X(Sraiw, "sraiw", Alu) \
    X(Addw, "addw", Alu) X(Subw, "subw", Alu) X(Sllw, "sllw", Alu) \
    X(Srlw, "srlw", Alu) X(Sraw, "sraw", Alu) X(Fence, "fence", System) \
    X(FenceI, "fence.i", System) X(Ecall, "ecall", System) X(Ebreak, "ebreak", System) \
    X(Csrrw, "csrrw", System) X(Csrrs, "csrrs", System) X(Csrrc, "csrrc", System) \
    X(Csrrwi, "csrrwi", System) X(Csrrsi, "csrrsi", System) X(Csrrci, "csrrci", System) \
    X(Mul, "mul", Multiply) X(Mulh, "mulh", Multiply) X(Mulhsu, "mulhsu", Multiply) \
    X(Mulhu, "mulhu", Multiply) X(Div, "div", Divide) X(Divu, "divu", Divide) \
    X(Rem, "rem", Divide) X(Remu, "remu", Divide) X(Mulw, "mulw", Multiply) \
    X(Divw, "divw", Divide) X(Divuw, "divuw", Divide) X(Remw, "remw", Divide) \
    X(Remuw, "remuw", Divide) X(LrW, "lr.w", Atomic) X(ScW, "sc.w", Atomic) \
    X(AmoswapW, "amoswap.w", Atomic) X(AmoaddW, "amoadd.w", Atomic) X(AmoxorW, "amoxor.w", Atomic) \
    X(AmoandW, "amoand.w", Atomic) X(AmoorW, "amoor.w", Atomic) X(AmominW, "amomin.w", Atomic) \
    X(AmomaxW, "amomax.w", Atomic) X(AmominuW, "amominu.w", Atomic) X(AmomaxuW, "amomaxu.w", Atomic) \
    X(LrD, "lr.d", Atomic) X(ScD, "sc.d", Atomic) X(AmoswapD, "amoswap.d", Atomic) \
    X(AmoaddD, "amoadd.d", Atomic) X(AmoxorD, "amoxor.d", Atomic) X(AmoandD, "amoand.d", Atomic) \
    X(AmoorD, "amoor.d", Atomic) X(AmominD, "amomin.d", Atomic) X(AmomaxD, "amomax.d", Atomic) \
    X(AmominuD, "amominu.d", Atomic) X(AmomaxuD, "amomaxu.d", Atomic) X(Sh1add, "sh1add", Alu) \
    X(Sh2add, "sh2add", Alu) X(Sh3add, "sh3add", Alu) X(AddUw, "add.uw", Alu) \
    X(Sh1addUw, "sh1add.uw", Alu) X(Sh2addUw, "sh2add.uw", Alu) X(Sh3addUw, "sh3add.uw", Alu) \
    X(SlliUw, "slli.uw", Alu) X(Andn, "andn", Alu) X(Orn, "orn", Alu) \
    X(Xnor, "xnor", Alu) X(Clz, "clz", Alu) X(Ctz, "ctz", Alu) \
    X(Cpop, "cpop", Alu) X(Clzw, "clzw", Alu) X(Ctzw, "ctzw", Alu) \
    X(Cpopw, "cpopw", Alu) X(Max, "max", Alu) X(Maxu, "maxu", Alu) \
    X(Min, "min", Alu) X(Minu, "minu", Alu) X(SextB, "sext.b", Alu) \
    X(SextH, "sext.h", Alu) X(ZextH, "zext.h", Alu) X(Rol, "rol", Alu) \
    X(Rolw, "rolw", Alu) X(Ror, "ror", Alu) X(Rori, "rori", Alu) \
    X(Roriw, "roriw", Alu) X(Rorw, "rorw", Alu) X(OrcB, "orc.b", Alu) \
    X(Rev8, "rev8", Alu) X(Bclr, "bclr", Alu) X(Bclri, "bclri", Alu) \
    X(Bext, "bext", Alu) X(Bexti, "bexti", Alu) X(Binv, "binv", Alu) \
    X(Binvi, "binvi", Alu) X(Bset, "bset", Alu) X(Bseti, "bseti", Alu) \
    X(Flw, "flw", FpLoad) X(Fsw, "fsw", FpStore) X(Fld, "fld", FpLoad) \
    X(Fsd, "fsd", FpStore) X(FmaddS, "fmadd.s", FpFma) X(FmsubS, "fmsub.s", FpFma) \
    X(FnmsubS, "fnmsub.s", FpFma) X(FnmaddS, "fnmadd.s", FpFma) X(FaddS, "fadd.s", FpArith) \
    X(FsubS, "fsub.s", FpArith) X(FmulS, "fmul.s", FpArith) X(FdivS, "fdiv.s", FpDivide) \
    X(FsqrtS, "fsqrt.s", FpDivide) X(FsgnjS, "fsgnj.s", FpArith) X(FsgnjnS, "fsgnjn.s", FpArith) \
    X(FsgnjxS, "fsgnjx.s", FpArith) X(FminS, "fmin.s", FpArith) X(FmaxS, "fmax.s", FpArith) \
    X(FcvtWS, "fcvt.w.s", FpArith) X(FcvtWuS, "fcvt.wu.s", FpArith) X(FcvtLS, "fcvt.l.s", FpArith) \
    X(FcvtLuS, "fcvt.lu.s", FpArith) X(FmvXW, "fmv.x.w", FpArith) X(FeqS, "feq.s", FpArith) \
    X(FltS, "flt.s", FpArith) X(FleS, "fle.s", FpArith) X(FclassS, "fclass.s", FpArith) \
    X(FcvtSW, "fcvt.s.w", FpArith) X(FcvtSWu, "fcvt.s.wu", FpArith) X(FcvtSL, "fcvt.s.l", FpArith) \
    X(FcvtSLu, "fcvt.s.lu", FpArith) X(FmvWX, "fmv.w.x", FpArith) X(FmaddD, "fmadd.d", FpFma) \
    X(FmsubD, "fmsub.d", FpFma) X(FnmsubD, "fnmsub.d", FpFma) X(FnmaddD, "fnmadd.d", FpFma) \
    X(FaddD, "fadd.d", FpArith) X(FsubD, "fsub.d", FpArith) X(FmulD, "fmul.d", FpArith) \
    X(FdivD, "fdiv.d", FpDivide) X(FsqrtD, "fsqrt.d", FpDivide) X(FsgnjD, "fsgnj.d", FpArith) \
    X(FsgnjnD, "fsgnjn.d", FpArith) X(FsgnjxD, "fsgnjx.d", FpArith) X(FminD, "fmin.d", FpArith) \
    X(FmaxD, "fmax.d", FpArith) X(FcvtSD, "fcvt.s.d", FpArith) X(FcvtDS, "fcvt.d.s", FpArith) \
    X(FeqD, "feq.d", FpArith) X(FltD, "flt.d", FpArith) X(FleD, "fle.d", FpArith) \
    X(FclassD, "fclass.d", FpArith) X(FcvtWD, "fcvt.w.d", FpArith) X(FcvtWuD, "fcvt.wu.d", FpArith) \
    X(FcvtLD, "fcvt.l.d", FpArith) X(FcvtLuD, "fcvt.lu.d", FpArith) X(FmvXD, "fmv.x.d", FpArith) \
    X(FcvtDW, "fcvt.d.w", FpArith) X(FcvtDWu, "fcvt.d.wu", FpArith) X(FcvtDL, "fcvt.d.l", FpArith) \
    X(FcvtDLu, "fcvt.d.lu", FpArith) X(FmvDX, "fmv.d.x", FpArith) \
    X(Vsetvli, "vsetvli", VectorConfig) X(Vsetivli, "vsetivli", VectorConfig) X(Vsetvl, "vsetvl", VectorConfig) \
    X(VectorLoad, "vector load", VectorLoad) X(VectorStore, "vector store", VectorStore) \
    X(VectorInteger, "OPIV", VectorAlu) X(VectorMask, "OPMV", VectorAlu) X(VectorFloat, "OPFV", VectorFp)
// clang-format on

enum class Mnemonic : std::uint16_t {
#define TESSIM_RISCV_ENUM(e, name, cls) e,
    TESSIM_RISCV_INSTRUCTIONS(TESSIM_RISCV_ENUM)
#undef TESSIM_RISCV_ENUM
        Count
};

std::string_view mnemonicName(Mnemonic m);
InstructionClass instructionClass(Mnemonic m);

struct Instruction {
    Mnemonic mnemonic = Mnemonic::Illegal;
    std::uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
    std::uint8_t rm = 0;      // FP rounding mode field; for AMOs the aq/rl bits
    std::uint8_t length = 4;  // bytes: 2 for a compressed instruction
    std::int64_t imm = 0;     // sign-extended immediate; the CSR number for csr*; shamt for shifts
    std::uint32_t bits = 0;   // the encoding as fetched (16 bits for a compressed one)
    // Vector instructions: the mask bit (1: unmasked), funct6 of an arithmetic one (rm then holds
    // funct3, the operand form: 0 vv, 1 fvv, 2 mvv, 3 vi, 4 vx, 5 vf, 6 mvx), or for a load or
    // store its addressing (mop: 0 unit stride, 1 indexed unordered, 2 strided, 3 indexed ordered)
    // with rm the element width in bytes, rs3 the fields (nf) and rs2 the lumop/sumop or vs2.
    std::uint8_t vm = 1;
    std::uint8_t funct6 = 0;
};

// Decodes one encoding: a 32-bit one when its two low bits are 11, else the low 16 bits as a
// compressed one. Unknown or reserved encodings give Mnemonic::Illegal.
Instruction decode(std::uint32_t bits);

}  // namespace tessim::riscv
