#include "models/riscv/ProgramOps.h"

#include <algorithm>

namespace tessim::riscv {

const char* const kInstructionClassNames[kInstructionClasses] = {
    "alu",           "multiply",    "divide",       "load",           "store",    "branch",    "jump",
    "atomic",        "fp_load",     "fp_store",     "fp_arith",       "fp_fma",   "fp_divide", "system",
    "vector_config", "vector_load", "vector_store", "vector_integer", "vector_fp"};

namespace {

// Integer registers x1..x31 are the engine's scalar registers s1..s31 (x0 is none), the FP
// registers f0..f31 its scalar registers s32..s63 and the vector registers v0..v31 its vector
// registers, so the scoreboard sees every true dependence through each file.
std::uint8_t xreg(unsigned r) {
    return r ? static_cast<std::uint8_t>(kScalarRegBase + r) : kNoReg;
}
std::uint8_t freg(unsigned r) {
    return static_cast<std::uint8_t>(kScalarRegBase + 32 + r);
}
std::uint8_t vreg(unsigned r) {
    return static_cast<std::uint8_t>(r);
}

bool isComparison(Mnemonic m) {
    switch (m) {
    case Mnemonic::FeqS:
    case Mnemonic::FltS:
    case Mnemonic::FleS:
    case Mnemonic::FeqD:
    case Mnemonic::FltD:
    case Mnemonic::FleD: return true;
    default: return false;
    }
}

// Which register file each operand of an FP instruction is in.
bool writesIntegerRegister(Mnemonic m) {
    if (isComparison(m))
        return true;
    switch (m) {
    case Mnemonic::FclassS:
    case Mnemonic::FclassD:
    case Mnemonic::FcvtWS:
    case Mnemonic::FcvtWuS:
    case Mnemonic::FcvtLS:
    case Mnemonic::FcvtLuS:
    case Mnemonic::FcvtWD:
    case Mnemonic::FcvtWuD:
    case Mnemonic::FcvtLD:
    case Mnemonic::FcvtLuD:
    case Mnemonic::FmvXW:
    case Mnemonic::FmvXD: return true;
    default: return false;
    }
}
bool readsIntegerRegister(Mnemonic m) {
    switch (m) {
    case Mnemonic::FcvtSW:
    case Mnemonic::FcvtSWu:
    case Mnemonic::FcvtSL:
    case Mnemonic::FcvtSLu:
    case Mnemonic::FcvtDW:
    case Mnemonic::FcvtDWu:
    case Mnemonic::FcvtDL:
    case Mnemonic::FcvtDLu:
    case Mnemonic::FmvWX:
    case Mnemonic::FmvDX: return true;
    default: return false;
    }
}
// The D instructions follow the F ones in the instruction table (RiscvInstruction.h), from fmadd.d on.
// RV64 word operations of the M extension (on the low 32 bits).
bool isWord(Mnemonic m) {
    switch (m) {
    case Mnemonic::Mulw:
    case Mnemonic::Divw:
    case Mnemonic::Divuw:
    case Mnemonic::Remw:
    case Mnemonic::Remuw: return true;
    default: return false;
    }
}

bool isDouble(Mnemonic m) {
    return m >= Mnemonic::FmaddD;
}

DType accessType(unsigned bytes, bool fp) {
    switch (bytes) {
    case 1: return DType::I8;
    case 2: return DType::I16;
    case 4: return fp ? DType::F32 : DType::I32;
    default: return DType::F64;  // 8 bytes (the op IR has no 64-bit integer type: the size is what counts)
    }
}

}  // namespace

InstructionOps::InstructionOps(std::uint8_t memorySpace, const BranchPredictorInfo& predictor)
    : space_(memorySpace), predictor_(predictor) {}

void InstructionOps::append(const Retired& r, const Hart& hart, GuestMemory& memory, std::vector<Op>& out) {
    const Instruction& i = *r.instruction;
    const InstructionClass cls = instructionClass(i.mnemonic);
    ++byClass_[static_cast<unsigned>(cls)];
    Op op;
    op.dtype = DType::I32;
    switch (cls) {
    case InstructionClass::Alu:
    case InstructionClass::Multiply:
    case InstructionClass::Divide:
        op.kind = cls == InstructionClass::Alu        ? OpKind::SAdd
                  : cls == InstructionClass::Multiply ? OpKind::SMul
                                                      : OpKind::SDiv;
        if (isWord(i.mnemonic))
            op.flags |= Op::kWord;
        op.dst = xreg(i.rd);
        op.src[0] = xreg(i.rs1);
        op.src[1] = xreg(i.rs2);
        break;
    case InstructionClass::Branch:
    case InstructionClass::Jump: {
        op.kind = OpKind::Branch;
        op.src[0] = xreg(i.rs1);
        op.flags = r.taken ? Op::kTaken : 0;
        takenBranches_ += r.taken;
        const std::uint64_t next = hart.pc();
        bool wrong = false;
        if (cls == InstructionClass::Branch) {
            wrong = predictor_.conditional(r.pc, r.taken);
        } else {
            // The ABI's link registers: ra (x1) and t0 (x5, alternate link).
            auto isLink = [](unsigned reg) { return reg == 1 || reg == 5; };
            const bool indirect = i.mnemonic == Mnemonic::Jalr;
            wrong = predictor_.jump(r.pc, next, r.pc + i.length, isLink(i.rd),
                                    indirect && i.rd == 0 && isLink(i.rs1), indirect);
        }
        if (wrong)
            op.flags |= Op::kMispredicted;
        break;
    }
    case InstructionClass::Load:
    case InstructionClass::FpLoad:
        op.kind = OpKind::ScalarLoad;
        op.dst = cls == InstructionClass::Load ? xreg(i.rd) : freg(i.rd);
        memoryOperand(op, r, memory, cls == InstructionClass::FpLoad, i.rs1);
        break;
    case InstructionClass::Store:
    case InstructionClass::FpStore:
        op.kind = OpKind::ScalarStore;
        op.src[0] = cls == InstructionClass::Store ? xreg(i.rs2) : freg(i.rs2);
        memoryOperand(op, r, memory, cls == InstructionClass::FpStore, i.rs1);
        break;
    case InstructionClass::Atomic: {  // the read, then (but for lr) the write of the line
        op.kind = OpKind::ScalarLoad;
        op.dst = xreg(i.rd);
        memoryOperand(op, r, memory, false, i.rs1);
        if (i.mnemonic != Mnemonic::LrW && i.mnemonic != Mnemonic::LrD) {
            out.push_back(op);
            op.kind = OpKind::ScalarStore;
            op.dst = kNoReg;
            op.src[0] = xreg(i.rs2);
        }
        break;
    }
    case InstructionClass::FpArith:
    case InstructionClass::FpFma:
    case InstructionClass::FpDivide: fpOp(i, cls, op); break;
    case InstructionClass::VectorConfig:
        op.kind = OpKind::VSetVl;
        op.dst = xreg(i.rd);
        op.src[0] = i.mnemonic == Mnemonic::Vsetivli ? kNoReg : xreg(i.rs1);
        op.vl = static_cast<std::uint32_t>(hart.vl());
        op.imm = 1;
        break;
    case InstructionClass::VectorLoad:
    case InstructionClass::VectorStore:
        vectorMemory(r, memory, cls == InstructionClass::VectorStore, op);
        break;
    case InstructionClass::VectorAlu:
    case InstructionClass::VectorFp: vectorArithmetic(r, op); break;
    case InstructionClass::System:
        op.kind = OpKind::SAdd;  // csr*, fence, ecall: one issue slot (assumption until the pipeline model)
        op.dst = xreg(i.rd);
        break;
    }
    out.push_back(op);
}

DType InstructionOps::vectorType(unsigned bytes, bool fp) {
    switch (bytes) {
    case 1: return DType::I8;
    case 2: return fp ? DType::F16 : DType::I16;
    case 4: return fp ? DType::F32 : DType::I32;
    default: return DType::F64;  // 64-bit elements (the op IR has no 64-bit integer type)
    }
}

// A vector load or store: its elements from the first one's address, unit stride, strided,
// or (indexed: timed as a strided access from the first address; the element addresses do not
// reach the caches yet) element by element; segments as segment ops.
void InstructionOps::vectorMemory(const Retired& r, GuestMemory& memory, bool store, Op& op) const {
    const Instruction& i = *r.instruction;
    const bool segment = i.rs3 > 1 && i.rs2 != 8 && i.funct6 == 0;
    op.kind = segment ? (store ? OpKind::SegStore : OpKind::SegLoad) : store ? OpKind::VStore : OpKind::VLoad;
    if (segment)
        op.count = i.rs3;
    (store ? op.src[0] : op.dst) = vreg(i.rd);
    op.space = space_;
    op.dtype = vectorType(r.sew, false);
    op.vl = std::max<std::uint32_t>(r.vl, 1);
    op.base = xreg(i.rs1);
    op.addr = memory.physical(r.address);
    op.stride = r.indexed ? r.sew : r.stride == r.sew ? 0 : r.stride;
    op.lmul8 = r.lmul8;  // EMUL: the X60 prices a vector access by its register group
}

// The integer ops the X60 runs at half the add's rate — 2, 4, 8, 16 cycles at m1…m8 where vadd,
// vmin, vsadd, vaadd and vmulh take 1, 2, 4, 8 (../shared/data/k1-board/x60-instructions-vlmax.csv):
// vand/vor/vxor; vadc/vmadc/vsbc/vmsbc; vmerge and vmv.v.v; the compares vmseq…vmsgt; the shifts
// vsll, vsrl, vsra, vssrl, vssra and the narrowing ones (vnsrl, vnsra, vnclipu, vnclip: at their
// source's group, twice the destination's); the extensions vzext/vsext; vid and viota; vmv<nr>r.v.
bool InstructionOps::halfRateAlu(const Instruction& i, bool scalarForm) {
    const unsigned f6 = i.funct6;
    if (i.mnemonic == Mnemonic::VectorMask)  // OPMVV: vzext/vsext (VXUNARY0, vs1 2…7); vid, viota
        return !scalarForm &&
               ((f6 == 0x12 && i.rs1 >= 2 && i.rs1 <= 7) || (f6 == 0x14 && (i.rs1 == 16 || i.rs1 == 17)));
    if (i.mnemonic == Mnemonic::VectorFloat)
        return false;
    return (f6 >= 0x09 && f6 <= 0x0b) || (f6 >= 0x10 && f6 <= 0x13) || (f6 == 0x27 && i.rm == OPIVI) ||
           (f6 == 0x17 && !(i.vm && scalarForm)) || (f6 >= 0x18 && f6 <= 0x1f) || f6 == 0x25 ||
           (f6 >= 0x28 && f6 <= 0x2f);
}

// Vector arithmetic on the vector unit's op kinds: multiply-adds, multiplies, divides, reductions,
// slides, gathers and broadcasts as such; widening multiply-adds and sums as the widening
// FMA; moves to a scalar register as a scalar op; everything else as an add.
void InstructionOps::vectorArithmetic(const Retired& r, Op& op) const {
    const Instruction& i = *r.instruction;
    const bool fp = i.mnemonic == Mnemonic::VectorFloat, mv = i.mnemonic == Mnemonic::VectorMask;
    const bool scalarForm = i.rm >= OPIVI;  // .vi, .vx, .vf
    const unsigned f6 = i.funct6;
    op.dtype = vectorType(r.sew, fp);
    if (!fp && op.dtype == DType::F64)
        op.flags |= Op::kInteger64;  // vmul, vmacc, vredsum at e64: the integer rows, not FP64's
    op.vl = std::max<std::uint32_t>(r.vl, 1);
    op.lmul8 = r.lmul8;  // the X60 prices a vector instruction by its LMUL, not its vl
    op.kind = OpKind::Add;
    if (halfRateAlu(i, scalarForm))  // vand, shifts, compares, merges, vadc …: timed apart (add_logic)
        op.flags |= Op::kBitwise;
    if (!fp && !mv && f6 >= 0x2c && f6 <= 0x2f)  // narrowing: priced by the source's group
        op.lmul8 = static_cast<std::uint8_t>(std::min(64, 2 * r.lmul8));
    if (!fp && !mv && f6 == 0x27 && i.rm == OPIVI)  // vmv<nr>r.v: nr registers whatever vtype says
        op.lmul8 = static_cast<std::uint8_t>(8 * std::min(8, i.rs1 + 1));
    op.dst = vreg(i.rd);
    op.src[0] = vreg(i.rs2);
    op.src[1] = !scalarForm     ? vreg(i.rs1)
                : i.rm == OPFVF ? freg(i.rs1)
                : i.rm == OPIVI ? kNoReg
                                : xreg(i.rs1);
    // The unary forms use the vs1 field as an opcode (vmv.x.s, vzext, vmsbf, vid, vfsqrt …).
    if (!scalarForm && (f6 == 0x10 || f6 == 0x12 || f6 == 0x13 || f6 == 0x14) && i.rm != OPIVV)
        op.src[1] = kNoReg;
    const unsigned group = std::max(1u, static_cast<unsigned>(r.lmul8) / 8);
    const bool reduction = (fp && f6 <= 7 && (f6 & 1)) || (mv && f6 <= 7) ||
                           (!fp && !mv && (f6 == 0x30 || f6 == 0x31)) || (fp && (f6 == 0x31 || f6 == 0x33));
    // OPMV*/OPFV* only: OPIV* 0x10 is vadc.
    const bool toScalar = f6 == 0x10 && !scalarForm && (mv || fp);   // vmv.x.s, vfmv.f.s, vcpop.m, vfirst.m
    const bool fromScalar = f6 == 0x10 && scalarForm && (mv || fp);  // vmv.s.x, vfmv.s.f
    const bool maskResult = (!mv && f6 >= 0x18 && f6 <= 0x1f) || (!fp && !mv && (f6 == 0x11 || f6 == 0x13)) ||
                            (mv && f6 == 0x14 && i.rs1 < 4);
    if (toScalar || (mv && f6 >= 0x18 && f6 <= 0x1f))
        op.lmul8 = 0;  // one register (or element) whatever LMUL says
    // vmv.s.x: 1 cycle up to m2, 2 at m4, 4 at m8 on the board (x60-instructions-vlmax.csv), a
    // broadcast of a quarter of the group.
    if (fromScalar)
        op.lmul8 = static_cast<std::uint8_t>(std::max(1, r.lmul8 / 4));
    if (toScalar) {
        op.kind = OpKind::SAdd;
        op.dtype = DType::I32;
        op.dst = fp ? freg(i.rd) : xreg(i.rd);
        op.src[1] = kNoReg;
        return;
    }
    if (fromScalar) {
        op.kind = OpKind::Broadcast;
        op.vl = 1;
        op.src[0] = fp ? freg(i.rs1) : xreg(i.rs1);
        op.src[1] = kNoReg;
        return;
    }
    if (mv && f6 >= 0x18 && f6 <= 0x1f) {  // mask logicals: vl bits
        op.dtype = DType::I8;
        op.vl = std::max<std::uint32_t>((r.vl + 7) / 8, 1);
        return;
    }
    if (maskResult && i.rd % group)
        op.dst = kNoReg;  // a mask in a register that cannot start the sources' group: not tracked
    if (reduction) {
        op.kind = OpKind::Reduce;
        if (fp && (f6 == 0x03 || f6 == 0x33))
            op.flags |= Op::kOrdered;
        op.dst = vreg(i.rd);
        op.src[1] = vreg(i.rs1);
    } else if ((fp && f6 >= 0x28 && f6 <= 0x2f) || (mv && f6 >= 0x29 && f6 <= 0x2f)) {
        op.kind = OpKind::Fma;
        op.src[2] = vreg(i.rd);
    } else if ((mv && f6 >= 0x20 && f6 <= 0x23) || (fp && (f6 == 0x20 || f6 == 0x21)) ||
               (fp && f6 == 0x13 && i.rs1 == 0 && !scalarForm)) {  // vdiv(u), vrem(u), vf(r)div, vfsqrt
        op.kind = OpKind::Div;
    } else if (fp && f6 == 0x12 && !scalarForm) {  // vfcvt, vfwcvt, vfncvt (VFUNARY0)
        convert(r, op);
    } else if (mv && f6 == 0x12 && !scalarForm && i.rs1 >= 2 && i.rs1 <= 7) {  // vzext/vsext.vf8/4/2
        op.kind = OpKind::Convert;
        op.flags &= static_cast<std::uint8_t>(~Op::kBitwise);
        op.count = static_cast<std::uint32_t>(vectorType(r.sew >> ((9 - i.rs1) / 2), false));
    } else if ((fp && f6 == 0x24) || (mv && f6 >= 0x24 && f6 <= 0x27) ||
               (!fp && !mv && f6 == 0x27 && i.rm != OPIVI)) {  // …, vsmul
        op.kind = OpKind::Mul;
    } else if ((mv || fp) && f6 >= 0x30) {  // widening: vwmacc, vfwmacc, vfwadd …
        op.kind = OpKind::WidenFma;
        op.src[2] = vreg(i.rd);
    } else if ((f6 == 0x0e || f6 == 0x0f) && scalarForm) {  // vslideup/down, v[f]slide1up/down
        op.kind = OpKind::Slide;
        op.imm = f6 == 0x0e ? -1.0 : 1.0;
        op.src[1] = kNoReg;
    } else if ((!fp && !mv && (f6 == 0x0c || (f6 == 0x0e && !scalarForm))) || (mv && f6 == 0x17)) {
        op.kind = OpKind::Gather;
        if (mv)
            op.src[1] = kNoReg;
    } else if (f6 == 0x17 && i.vm && scalarForm) {  // vmv.v.x, vmv.v.i, vfmv.v.f
        op.kind = OpKind::Broadcast;
        op.src[0] = op.src[1];
        op.src[1] = kNoReg;
    }
}

// VFUNARY0's conversions by their vs1 field: 0–7 single-width, 8–15 widening (the destination at
// 2·SEW, priced at its group), 16–23 narrowing (the source at 2·SEW, priced at its group); within
// each, to an integer (xu.f, x.f, rtz), to FP from an integer (f.xu, f.x) or FP to FP (f.f, rod).
void InstructionOps::convert(const Retired& r, Op& op) {
    const unsigned f = r.instruction->rs1 & 7, width = r.instruction->rs1 >> 3;  // width: 0, 1 wide, 2 narrow
    const bool toInt = f <= 1 || f >= 6, fromInt = f == 2 || f == 3;
    const unsigned destBytes = width == 1 ? 2 * r.sew : r.sew, srcBytes = width == 2 ? 2 * r.sew : r.sew;
    op.kind = OpKind::Convert;
    op.flags &= static_cast<std::uint8_t>(~Op::kInteger64);
    op.dtype = vectorType(destBytes, !toInt);
    op.count = static_cast<std::uint32_t>(vectorType(srcBytes, !fromInt));
    if (width != 0)
        op.lmul8 = static_cast<std::uint8_t>(std::min(64, 2 * r.lmul8));
}

void InstructionOps::memoryOperand(Op& op, const Retired& r, GuestMemory& memory, bool fp,
                                   unsigned base) const {
    op.space = space_;
    op.dtype = accessType(r.accessBytes, fp);
    op.vl = 1;
    op.base = xreg(base);
    op.addr = memory.physical(r.address);
}

// Scalar FP on the FP pipe, as the unit table times it: fadd, fmul, fmadd, fdiv (and sqrt) at
// f32 or f64, fcvt for results into an FP register, fcmp for results into an integer one.
void InstructionOps::fpOp(const Instruction& i, InstructionClass cls, Op& op) const {
    op.dtype = isDouble(i.mnemonic) ? DType::F64 : DType::F32;
    op.vl = 1;
    op.src[0] = freg(i.rs1);
    if (writesIntegerRegister(i.mnemonic)) {
        op.kind = OpKind::FCmp;
        op.dst = xreg(i.rd);
        if (isComparison(i.mnemonic))
            op.src[1] = freg(i.rs2);
        return;
    }
    op.dst = freg(i.rd);
    if (readsIntegerRegister(i.mnemonic) || i.mnemonic == Mnemonic::FcvtSD ||
        i.mnemonic == Mnemonic::FcvtDS) {
        op.kind = OpKind::FCvt;
        if (readsIntegerRegister(i.mnemonic))
            op.src[0] = xreg(i.rs1);
        return;
    }
    const bool multiply = i.mnemonic == Mnemonic::FmulS || i.mnemonic == Mnemonic::FmulD;
    const bool squareRoot = i.mnemonic == Mnemonic::FsqrtS || i.mnemonic == Mnemonic::FsqrtD;
    op.kind = cls == InstructionClass::FpFma      ? OpKind::FMadd
              : cls == InstructionClass::FpDivide ? OpKind::FDiv
              : multiply                          ? OpKind::FMul
                                                  : OpKind::FAdd;
    if (!squareRoot)
        op.src[1] = freg(i.rs2);
    if (cls == InstructionClass::FpFma)
        op.src[2] = freg(i.rs3);
}

}  // namespace tessim::riscv
