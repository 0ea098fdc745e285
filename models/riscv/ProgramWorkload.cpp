#include "models/riscv/ProgramWorkload.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "models/riscv/BranchPredictor.h"
#include "models/riscv/ElfProgram.h"
#include "models/riscv/LinuxProcess.h"
#include "models/riscv/RiscvVector.h"
#include "sim/core/Time.h"
#include "sim/engine/StallBreakdown.h"

namespace tessim {

namespace {

using riscv::InstructionClass;
using riscv::Mnemonic;

// Instructions executed per refill: enough to amortise the call, few enough that the program's
// output and the simulation stay close.
constexpr unsigned kChunk = 256;
constexpr unsigned kClasses = static_cast<unsigned>(InstructionClass::VectorFp) + 1;
constexpr const char* kClassNames[kClasses] = {
    "alu",           "multiply",    "divide",       "load",           "store",    "branch",    "jump",
    "atomic",        "fp_load",     "fp_store",     "fp_arith",       "fp_fma",   "fp_divide", "system",
    "vector_config", "vector_load", "vector_store", "vector_integer", "vector_fp"};

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

struct ProgramState {
    ProgramRequest request;
    riscv::ElfProgram elf;
    std::unique_ptr<riscv::LinuxProcess> process;
    const EngineInfo* engine = nullptr;
    const MemorySpaceInfo* memory = nullptr;
    std::array<std::uint64_t, kClasses> byClass{};
    const EngineClock* engineClock = nullptr;  // the core's local time, once the engine pulls the stream
    std::uint64_t cycle() const { return engineClock ? engineClock->localCycle() : 0; }
    // The per-function profile: cycles and instructions by function start; a chunk of ops never
    // spans two functions, so the cycles the engine took for a chunk belong to one.
    struct FunctionCost {
        std::string name;
        std::uint64_t cycles = 0, instructions = 0;
        std::array<std::uint64_t, kStallReasons> byReason{};  // where its cycles went
    };
    std::map<std::uint64_t, FunctionCost> profile;
    std::uint64_t profiledCycles = 0;  // engine cycle up to which cycles are attributed
    std::array<std::uint64_t, kStallReasons> profiledByReason{};  // the engine's, at profiledCycles
    std::uint64_t lastFunction = 0;  // start of the function the last chunk ran in
    std::uint64_t takenBranches = 0;
    std::optional<riscv::BranchPredictor> predictor;  // the core's front end (engine->predictor)
    // --trace: one span per stay in a function, on the track "<engine> functions".
    SpanObserver* trace = nullptr;
    std::uint64_t spanStart = 0;  // cycle at which the current stay began
    void traceFunction(std::uint64_t function, std::uint64_t untilCycle) {
        const auto visited = profile.find(function);
        if (!trace || untilCycle <= spanStart || visited == profile.end())
            return;
        trace->span(engine->name + " functions", visited->second.name, engine->clock.at(spanStart),
                    engine->clock.at(untilCycle));
        spanStart = untilCycle;
    }
};

class ProgramStream : public ChunkedOpStream {
public:
    explicit ProgramStream(ProgramState& s) : s_(s), started_(std::chrono::steady_clock::now()) {}

    void setEngineClock(const EngineClock* clock) override { s_.engineClock = clock; }

protected:
    bool refill(std::vector<Op>& out) override {
        riscv::LinuxProcess& process = *s_.process;
        // A fault stops the run once the engine has timed the instructions before it, so that the
        // message gives the cycle at which the faulting one would have issued.
        if (faultPc_)
            fault(*faultPc_, faultWhat_);
        attributeCycles();
        if (process.exited())
            return false;
        checkLimits();
        riscv::Hart& hart = process.hart();
        if (hart.pc() < function_.start || hart.pc() >= function_.end) {
            function_ = s_.elf.functionAt(hart.pc());
            auto& cost = s_.profile[function_.start];
            if (cost.name.empty())
                cost.name = function_.name;
        }
        if (function_.start != s_.lastFunction)
            s_.traceFunction(s_.lastFunction, s_.profiledCycles);  // the stay in the last one ended
        s_.lastFunction = function_.start;
        riscv::Retired r;
        unsigned n = 0;
        for (; n < kChunk && !process.exited(); ++n) {
            // A chunk ends where the program enters another function (the profile), and before an
            // instruction that reads the clock, so that the engine has timed what came before it.
            if (n > 0 && (hart.pc() < function_.start || hart.pc() >= function_.end))
                break;
            try {
                if (!hart.step(r, n == 0))
                    break;
            } catch (const riscv::IllegalInstruction& e) {
                faultAt(e.pc, fmt::format("{} ({})", e.reason, describe(e.bits, e.length)));
                break;
            } catch (const riscv::GuestAccessFault& e) {
                faultAt(hart.pc(),
                        fmt::format("a {} at {:#x}, where nothing the program may {} is mapped ({})",
                                    e.access, e.address, e.access, describeAt(hart.pc())));
                break;
            } catch (const riscv::GuestMemoryExhausted& e) {
                faultAt(hart.pc(), fmt::format("more pages touched than the {} B of memory '{}' holds ({})",
                                               e.bytes, s_.memory->name, describeAt(hart.pc())));
                break;
            } catch (const riscv::UnsupportedSystemCall& e) {
                faultAt(e.pc, fmt::format("system call {} (a7), which tessim does not provide", e.number));
                break;
            }
            append(r, out);
        }
        s_.profile[function_.start].instructions += n;
        if (out.empty() && faultPc_)
            fault(*faultPc_, faultWhat_);
        return true;
    }

private:
    // The cycles the engine took since the last chunk belong to the function that chunk ran in.
    void attributeCycles() {
        const std::uint64_t now = s_.cycle();
        if (now > s_.profiledCycles && !s_.profile.empty()) {
            auto& cost = s_.profile[s_.lastFunction];
            cost.cycles += now - s_.profiledCycles;
            for (std::size_t r = 0; r < kStallReasons && s_.engineClock; ++r) {
                const std::uint64_t so = s_.engineClock->cyclesFor(r);
                cost.byReason[r] += so - s_.profiledByReason[r];
                s_.profiledByReason[r] = so;
            }
        }
        s_.profiledCycles = std::max(now, s_.profiledCycles);
    }

    void append(const riscv::Retired& r, std::vector<Op>& out) {
        const riscv::Instruction& i = *r.instruction;
        const InstructionClass cls = riscv::instructionClass(i.mnemonic);
        ++s_.byClass[static_cast<unsigned>(cls)];
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
            s_.takenBranches += r.taken;
            const std::uint64_t next = s_.process->hart().pc();
            bool wrong = false;
            if (cls == InstructionClass::Branch) {
                wrong = s_.predictor->conditional(r.pc, r.taken);
            } else {
                // The ABI's link registers: ra (x1) and t0 (x5, alternate link).
                auto isLink = [](unsigned reg) { return reg == 1 || reg == 5; };
                const bool indirect = i.mnemonic == Mnemonic::Jalr;
                wrong = s_.predictor->jump(r.pc, next, r.pc + i.length, isLink(i.rd),
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
            memoryOperand(op, r, cls == InstructionClass::FpLoad, i.rs1);
            break;
        case InstructionClass::Store:
        case InstructionClass::FpStore:
            op.kind = OpKind::ScalarStore;
            op.src[0] = cls == InstructionClass::Store ? xreg(i.rs2) : freg(i.rs2);
            memoryOperand(op, r, cls == InstructionClass::FpStore, i.rs1);
            break;
        case InstructionClass::Atomic: {  // the read, then (but for lr) the write of the line
            op.kind = OpKind::ScalarLoad;
            op.dst = xreg(i.rd);
            memoryOperand(op, r, false, i.rs1);
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
            op.vl = static_cast<std::uint32_t>(s_.process->hart().vl());
            op.imm = 1;
            break;
        case InstructionClass::VectorLoad:
        case InstructionClass::VectorStore: vectorMemory(r, cls == InstructionClass::VectorStore, op); break;
        case InstructionClass::VectorAlu:
        case InstructionClass::VectorFp: vectorArithmetic(r, op); break;
        case InstructionClass::System:
            op.kind =
                OpKind::SAdd;  // csr*, fence, ecall: one issue slot (assumption until the pipeline model)
            op.dst = xreg(i.rd);
            break;
        }
        out.push_back(op);
    }

    static DType vectorType(unsigned bytes, bool fp) {
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
    void vectorMemory(const riscv::Retired& r, bool store, Op& op) {
        const riscv::Instruction& i = *r.instruction;
        const bool segment = i.rs3 > 1 && i.rs2 != 8 && i.funct6 == 0;
        op.kind = segment ? (store ? OpKind::SegStore : OpKind::SegLoad)
                  : store ? OpKind::VStore
                          : OpKind::VLoad;
        if (segment)
            op.count = i.rs3;
        (store ? op.src[0] : op.dst) = vreg(i.rd);
        op.space = s_.memory->id;
        op.dtype = vectorType(r.sew, false);
        op.vl = std::max<std::uint32_t>(r.vl, 1);
        op.base = xreg(i.rs1);
        op.addr = s_.process->memory().physical(r.address);
        op.stride = r.indexed ? r.sew : r.stride == r.sew ? 0 : r.stride;
        op.lmul8 = r.lmul8;  // EMUL: the X60 prices a vector access by its register group
    }

    // Vector arithmetic on the vector unit's op kinds: multiply-adds, multiplies, reductions,
    // slides, gathers and broadcasts as such; widening multiply-adds and sums as the widening
    // FMA; moves to a scalar register as a scalar op; everything else as an add.
    void vectorArithmetic(const riscv::Retired& r, Op& op) {
        const riscv::Instruction& i = *r.instruction;
        const bool fp = i.mnemonic == Mnemonic::VectorFloat, mv = i.mnemonic == Mnemonic::VectorMask;
        const bool scalarForm = i.rm >= riscv::OPIVI;  // .vi, .vx, .vf
        const unsigned f6 = i.funct6;
        op.dtype = vectorType(r.sew, fp);
        op.vl = std::max<std::uint32_t>(r.vl, 1);
        op.lmul8 = r.lmul8;  // the X60 prices a vector instruction by its LMUL, not its vl
        op.kind = OpKind::Add;
        if (!fp && !mv && f6 >= 0x09 && f6 <= 0x0b)  // vand, vor, vxor: timed apart (add_logic)
            op.flags |= Op::kBitwise;
        op.dst = vreg(i.rd);
        op.src[0] = vreg(i.rs2);
        op.src[1] = !scalarForm            ? vreg(i.rs1)
                    : i.rm == riscv::OPFVF ? freg(i.rs1)
                    : i.rm == riscv::OPIVI ? kNoReg
                                           : xreg(i.rs1);
        // The unary forms use the vs1 field as an opcode (vmv.x.s, vzext, vmsbf, vid, vfsqrt …).
        if (!scalarForm && (f6 == 0x10 || f6 == 0x12 || f6 == 0x13 || f6 == 0x14) && i.rm != riscv::OPIVV)
            op.src[1] = kNoReg;
        const unsigned group = std::max(1u, static_cast<unsigned>(r.lmul8) / 8);
        const bool reduction = (fp && f6 <= 7 && (f6 & 1)) || (mv && f6 <= 7) ||
                               (!fp && !mv && (f6 == 0x30 || f6 == 0x31)) ||
                               (fp && (f6 == 0x31 || f6 == 0x33));
        const bool toScalar = f6 == 0x10 && !scalarForm;   // vmv.x.s, vfmv.f.s, vcpop.m, vfirst.m
        const bool fromScalar = f6 == 0x10 && scalarForm;  // vmv.s.x, vfmv.s.f
        const bool maskResult = (!mv && f6 >= 0x18 && f6 <= 0x1f) ||
                                (!fp && !mv && (f6 == 0x11 || f6 == 0x13)) || (mv && f6 == 0x14 && i.rs1 < 4);
        if (toScalar || fromScalar || (mv && f6 >= 0x18 && f6 <= 0x1f))
            op.lmul8 = 0;  // one register (or element) whatever LMUL says
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
        } else if ((fp && f6 == 0x24) || (mv && f6 >= 0x24 && f6 <= 0x27)) {
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

    void memoryOperand(Op& op, const riscv::Retired& r, bool fp, unsigned base) {
        op.space = s_.memory->id;
        op.dtype = accessType(r.accessBytes, fp);
        op.vl = 1;
        op.base = xreg(base);
        op.addr = s_.process->memory().physical(r.address);
    }

    // Scalar FP on the FP pipe, as the unit table times it: fadd, fmul, fmadd, fdiv (and sqrt) at
    // f32 or f64, fcvt for results into an FP register, fcmp for results into an integer one.
    void fpOp(const riscv::Instruction& i, InstructionClass cls, Op& op) {
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

    void checkLimits() {
        if (s_.request.maxCycles && s_.cycle() > s_.request.maxCycles)
            throw riscv::ProgramError(fmt::format(
                "{}: the program did not end within --max-cycles {} ({} instructions retired, pc {:#x}{})",
                s_.request.path, s_.request.maxCycles, s_.process->hart().instructionsRetired(),
                s_.process->hart().pc(), function(s_.process->hart().pc())));
        if (s_.request.timeoutSeconds > 0) {
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
            if (elapsed > s_.request.timeoutSeconds)
                throw riscv::ProgramError(fmt::format(
                    "{}: the program did not end within --timeout {} s of host time ({} instructions "
                    "retired, pc {:#x}{})",
                    s_.request.path, s_.request.timeoutSeconds, s_.process->hart().instructionsRetired(),
                    s_.process->hart().pc(), function(s_.process->hart().pc())));
        }
    }

    std::string function(std::uint64_t pc) const {
        const std::string f = s_.elf.symbolize(pc);
        return f.empty() ? "" : " in " + f;
    }
    std::string describeAt(std::uint64_t pc) {
        std::uint32_t bits = 0;
        try {
            bits = s_.process->memory().fetch16(pc);
            if ((bits & 3) == 3)
                bits |= std::uint32_t{s_.process->memory().fetch16(pc + 2)} << 16;
        } catch (const riscv::GuestAccessFault&) {
            return "the pc itself is not executable";
        }
        return describe(bits, (bits & 3) == 3 ? 4 : 2);
    }
    std::string describe(std::uint32_t bits, unsigned length) const {
        const riscv::Instruction i = riscv::decode(bits);
        const std::string vector = riscv::vectorName(i);
        const std::string name = vector.empty() ? std::string(riscv::mnemonicName(i.mnemonic)) : vector;
        return length == 2 ? fmt::format("encoding {:#06x}, {} (compressed)", bits & 0xffff, name)
                           : fmt::format("encoding {:#010x}, {}", bits, name);
    }
    void faultAt(std::uint64_t pc, std::string what) {
        faultPc_ = pc;
        faultWhat_ = std::move(what);
    }
    [[noreturn]] void fault(std::uint64_t pc, const std::string& what) {
        throw riscv::ProgramError(fmt::format("{}: {} at pc {:#x}{}, on {}, cycle {}, after {} instructions",
                                              s_.request.path, what, pc, function(pc), s_.engine->name,
                                              s_.cycle(), s_.process->hart().instructionsRetired()));
    }

    ProgramState& s_;
    std::chrono::steady_clock::time_point started_;
    std::optional<std::uint64_t> faultPc_;  // the pending fault's pc
    riscv::ElfProgram::Function function_;  // the function the current chunk runs in
    std::string faultWhat_;
};

class ProgramWorkload : public Workload {
public:
    explicit ProgramWorkload(std::unique_ptr<ProgramState> s) : s_(std::move(s)) {}

    nlohmann::ordered_json resolvedWorkload() const override {
        nlohmann::ordered_json j;
        j["kernel"] = "program";
        j["program"] = s_->request.path;
        j["arguments"] = s_->request.arguments;
        j["entry"] = fmt::format("{:#x}", s_->elf.entry);
        return j;
    }
    nlohmann::ordered_json resolvedPlan() const override {
        return {{"engine", s_->engine->name}, {"memory", s_->memory->name}};
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> v;
        v.push_back(EngineStream{s_->engine->name, std::make_unique<ProgramStream>(*s_)});
        return v;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override { return {}; }
    // The run's tail after the last chunk was handed out (its ops completing) belongs to the
    // function that issued them, so the profile's cycles add up to the run's.
    void setTrace(SpanObserver* trace) override { s_->trace = trace; }
    nlohmann::ordered_json profile(Tick kernelEnd) const override {
        std::vector<ProgramState::FunctionCost> rows;
        const std::uint64_t end = s_->engine->clock.cyclesCeil(kernelEnd);
        s_->traceFunction(s_->lastFunction, end);
        for (const auto& [start, cost] : s_->profile) {
            rows.push_back(cost);
            if (start == s_->lastFunction && end > s_->profiledCycles)
                rows.back().cycles += end - s_->profiledCycles;
        }
        std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
            return a.cycles != b.cycles ? a.cycles > b.cycles : a.name < b.name;
        });
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& r : rows) {
            nlohmann::ordered_json f;
            f["function"] = r.name;
            f["cycles"] = r.cycles;
            f["share"] = end ? static_cast<double>(r.cycles) / static_cast<double>(end) : 0.0;
            f["instructions"] = r.instructions;
            f["ipc"] = r.cycles ? static_cast<double>(r.instructions) / static_cast<double>(r.cycles) : 0.0;
            // Where its cycles went, as the engine's stall breakdown counts them; "drain": the
            // run's end waiting for the last ops in flight (in the function that issued them).
            nlohmann::ordered_json why;
            std::uint64_t counted = 0;
            for (std::size_t k = 0; k < kStallReasons; ++k)
                if (r.byReason[k] > 0 && static_cast<StallReason>(k) != StallReason::Idle) {
                    why[std::string(stallReasonName(static_cast<StallReason>(k)))] = r.byReason[k];
                    counted += r.byReason[k];
                }
            if (r.cycles > counted)
                why["drain"] = r.cycles - counted;
            f["cycles_by_reason"] = why;
            out.push_back(std::move(f));
        }
        return out;
    }
    // The hart is the functional model: its memory holds the program's values.
    void initialise(FunctionalMemory&) override {}
    FunctionalCheck check(FunctionalMemory&) override { return {}; }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double) const override {
        auto& node = stats.child("workload");
        const riscv::LinuxProcess& p = *s_->process;
        const std::uint64_t retired = s_->process->hart().instructionsRetired();
        node.add("exit_status", static_cast<std::uint64_t>(p.exitStatus()), "", "the program's exit status");
        node.add("instructions", retired, "", "instructions retired");
        node.add("ipc", cycles ? static_cast<double>(retired) / static_cast<double>(cycles) : 0.0, "",
                 "instructions retired per main-clock cycle");
        node.add("taken_branches", s_->takenBranches, "", "branches and jumps taken");
        const riscv::BranchPredictor& bp = *s_->predictor;
        node.add("conditional_branches", bp.conditionals(), "", "conditional branches executed");
        node.add("conditional_mispredictions", bp.conditionalMisses(), "",
                 "conditional branches the predictor got wrong");
        node.add("jump_mispredictions", bp.jumpMisses(), "",
                 "jumps whose target the predictor got wrong (returns, other indirect jumps)");
        node.add("mispredict_penalty", std::uint64_t{s_->engine->predictor.mispredictPenalty}, "cycles",
                 "front-end refill after each misprediction (the core's mispredict_penalty)");
        node.add("system_calls", p.systemCalls(), "", "system calls made");
        node.add("output_bytes", p.bytesWritten(), "B", "bytes written to stdout and stderr");
        node.add("pages_touched", p.memory().framesUsed(), "",
                 "4 KiB pages the program touched (each has a physical frame)");
        auto& mix = node.child("instruction_mix");
        for (unsigned c = 0; c < kClasses; ++c)
            mix.add(kClassNames[c], s_->byClass[c], "", "instructions of this class");
    }

private:
    std::unique_ptr<ProgramState> s_;
};

}  // namespace

std::unique_ptr<Workload> makeProgramWorkload(const ProgramRequest& request, const TargetInfo& target) {
    auto s = std::make_unique<ProgramState>();
    s->request = request;
    s->elf = riscv::loadElfProgram(request.path);
    s->engine = &target.mainEngine();
    s->predictor.emplace(s->engine->predictor);
    // x0–x31 and f0–f31 are the engine's scalar registers s0–s63, v0–v31 its vector registers.
    if (s->engine->scalarRegisters < 64 || s->engine->vectorRegisters < 32)
        throw riscv::ProgramError(fmt::format(
            "target '{}': its main engine {} has {} scalar and {} vector registers; a RISC-V program needs "
            "64 "
            "scalar (x0–x31 and f0–f31) and 32 vector registers (scalar_registers, vector_registers)",
            target.name, s->engine->name, s->engine->scalarRegisters, s->engine->vectorRegisters));
    if (s->engine->memories.empty())
        throw riscv::ProgramError(
            fmt::format("target '{}': its main engine {} reaches no memory to run a program from",
                        target.name, s->engine->name));
    for (const auto& space : target.spaces)
        if (space.id == s->engine->memories[0])
            s->memory = &space;
    s->process = std::make_unique<riscv::LinuxProcess>(s->elf, request.arguments, std::vector<std::string>{},
                                                       s->memory->size);
    if (request.stdoutToStderr)
        s->process->setStdoutFd(2);
    // The program's clocks are its core's local time (ps → ns; the time CSR at 10 MHz).
    ProgramState* state = s.get();
    const ClockDomain clock = s->engine->clock;
    s->process->setClock([state, clock] { return clock.at(state->cycle()) / 1000; });
    s->process->hart().setClock([state] { return state->cycle(); },
                                [state, clock] { return clock.at(state->cycle()) / 100000; });
    return std::make_unique<ProgramWorkload>(std::move(s));
}

}  // namespace tessim
