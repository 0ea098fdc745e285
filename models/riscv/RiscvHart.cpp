// Integer, atomic and CSR semantics of the RV64 hart (the floating point is RiscvFloat.cpp).
#include "models/riscv/RiscvHart.h"

namespace tessim::riscv {

namespace {

constexpr std::uint64_t sext32(std::uint64_t v) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(v)));
}
// 128-bit products for the high halves (mulh*): a GCC and Clang extension.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

constexpr std::uint64_t zext32(std::uint64_t v) {
    return v & 0xffffffffu;
}
constexpr std::int64_t s64(std::uint64_t v) {
    return static_cast<std::int64_t>(v);
}
constexpr std::int32_t s32(std::uint64_t v) {
    return static_cast<std::int32_t>(v);
}

std::uint64_t rotateLeft(std::uint64_t v, unsigned n) {
    return n ? (v << n) | (v >> (64 - n)) : v;
}
std::uint32_t rotateLeft32(std::uint32_t v, unsigned n) {
    return n ? (v << n) | (v >> (32 - n)) : v;
}

std::uint64_t divide(std::uint64_t a, std::uint64_t b) {
    if (b == 0)
        return ~std::uint64_t{0};
    if (s64(a) == INT64_MIN && s64(b) == -1)
        return a;
    return static_cast<std::uint64_t>(s64(a) / s64(b));
}
std::uint64_t remainder(std::uint64_t a, std::uint64_t b) {
    if (b == 0)
        return a;
    if (s64(a) == INT64_MIN && s64(b) == -1)
        return 0;
    return static_cast<std::uint64_t>(s64(a) % s64(b));
}
std::uint64_t divideW(std::uint64_t a, std::uint64_t b) {
    const std::int32_t x = s32(a), y = s32(b);
    if (y == 0)
        return ~std::uint64_t{0};
    if (x == INT32_MIN && y == -1)
        return sext32(static_cast<std::uint32_t>(x));
    return sext32(static_cast<std::uint32_t>(x / y));
}
std::uint64_t remainderW(std::uint64_t a, std::uint64_t b) {
    const std::int32_t x = s32(a), y = s32(b);
    if (y == 0)
        return sext32(static_cast<std::uint32_t>(x));
    if (x == INT32_MIN && y == -1)
        return 0;
    return sext32(static_cast<std::uint32_t>(x % y));
}

std::uint64_t orcB(std::uint64_t v) {
    std::uint64_t r = 0;
    for (unsigned i = 0; i < 64; i += 8)
        if ((v >> i) & 0xff)
            r |= std::uint64_t{0xff} << i;
    return r;
}

}  // namespace

Hart::Hart(GuestMemory& memory, SystemCallHandler& system)
    : memory_(memory), system_(system), decoded_(std::make_unique<CacheEntry[]>(kDecodeCacheEntries)) {}

void Hart::copyStateFrom(const Hart& parent) {
    xreg_ = parent.xreg_;
    freg_ = parent.freg_;
    vreg_ = parent.vreg_;
    pc_ = parent.pc_;
    vl_ = parent.vl_;
    vtype_ = parent.vtype_;
    vxrm_ = parent.vxrm_;
    fflags = parent.fflags;
    frm = parent.frm;
    reserved_ = false;
}

void Hart::illegal(const Instruction& i, const char* reason) const {
    throw IllegalInstruction{pc_, i.bits, i.length, reason};
}

const Instruction& Hart::fetch() {
    const std::uint16_t low = memory_.fetch16(pc_);
    std::uint32_t bits = low;
    if ((low & 3) == 3)
        bits |= std::uint32_t{memory_.fetch16(pc_ + 2)} << 16;
    CacheEntry& e = decoded_[(pc_ >> 1) & (kDecodeCacheEntries - 1)];
    if (e.pc != pc_ || e.instruction.bits != bits) {
        e.pc = pc_;
        e.instruction = decode(bits);
    }
    return e.instruction;
}

bool Hart::step(Retired& r, bool clockCurrent) {
    const Instruction& i = fetch();
    if (!clockCurrent && instructionClass(i.mnemonic) == InstructionClass::System &&
        (i.mnemonic == Mnemonic::Ecall || ((i.imm == 0xc00 || i.imm == 0xc01) &&
                                           i.mnemonic >= Mnemonic::Csrrw && i.mnemonic <= Mnemonic::Csrrci)))
        return false;
    r.instruction = &i;
    r.pc = pc_;
    r.address = 0;
    r.accessBytes = 0;
    r.taken = false;
    r.vl = 0;
    r.stride = 0;
    r.indexed = false;
    execute(i, r);
    ++retired_;
    return true;
}

void Hart::execute(const Instruction& i, Retired& r) {
    const std::uint64_t a = xreg_[i.rs1], b = xreg_[i.rs2];
    const std::uint64_t imm = static_cast<std::uint64_t>(i.imm);
    std::uint64_t next = pc_ + i.length;
    auto load = [&](auto sample) {
        using T = decltype(sample);
        r.address = a + imm;
        r.accessBytes = sizeof(T);
        return memory_.load<T>(r.address);
    };
    auto store = [&](auto value) {
        r.address = a + imm;
        r.accessBytes = sizeof(value);
        memory_.store(r.address, value);
    };
    auto branch = [&](bool taken) {
        if (taken) {
            next = pc_ + imm;
            r.taken = true;
        }
    };
    using M = Mnemonic;
    switch (i.mnemonic) {
    case M::Lui: setX(i.rd, imm); break;
    case M::Auipc: setX(i.rd, pc_ + imm); break;
    case M::Jal:
        setX(i.rd, next);
        next = pc_ + imm;
        r.taken = true;
        break;
    case M::Jalr: {
        const std::uint64_t target = (a + imm) & ~std::uint64_t{1};
        setX(i.rd, next);
        next = target;
        r.taken = true;
        break;
    }
    case M::Beq: branch(a == b); break;
    case M::Bne: branch(a != b); break;
    case M::Blt: branch(s64(a) < s64(b)); break;
    case M::Bge: branch(s64(a) >= s64(b)); break;
    case M::Bltu: branch(a < b); break;
    case M::Bgeu: branch(a >= b); break;
    case M::Lb: setX(i.rd, static_cast<std::uint64_t>(std::int64_t{load(std::int8_t{})})); break;
    case M::Lh: setX(i.rd, static_cast<std::uint64_t>(std::int64_t{load(std::int16_t{})})); break;
    case M::Lw: setX(i.rd, static_cast<std::uint64_t>(std::int64_t{load(std::int32_t{})})); break;
    case M::Ld: setX(i.rd, load(std::uint64_t{})); break;
    case M::Lbu: setX(i.rd, load(std::uint8_t{})); break;
    case M::Lhu: setX(i.rd, load(std::uint16_t{})); break;
    case M::Lwu: setX(i.rd, load(std::uint32_t{})); break;
    case M::Sb: store(static_cast<std::uint8_t>(b)); break;
    case M::Sh: store(static_cast<std::uint16_t>(b)); break;
    case M::Sw: store(static_cast<std::uint32_t>(b)); break;
    case M::Sd: store(b); break;
    case M::Addi: setX(i.rd, a + imm); break;
    case M::Slti: setX(i.rd, s64(a) < i.imm); break;
    case M::Sltiu: setX(i.rd, a < imm); break;
    case M::Xori: setX(i.rd, a ^ imm); break;
    case M::Ori: setX(i.rd, a | imm); break;
    case M::Andi: setX(i.rd, a & imm); break;
    case M::Slli: setX(i.rd, a << imm); break;
    case M::Srli: setX(i.rd, a >> imm); break;
    case M::Srai: setX(i.rd, static_cast<std::uint64_t>(s64(a) >> imm)); break;
    case M::Add: setX(i.rd, a + b); break;
    case M::Sub: setX(i.rd, a - b); break;
    case M::Sll: setX(i.rd, a << (b & 63)); break;
    case M::Slt: setX(i.rd, s64(a) < s64(b)); break;
    case M::Sltu: setX(i.rd, a < b); break;
    case M::Xor: setX(i.rd, a ^ b); break;
    case M::Srl: setX(i.rd, a >> (b & 63)); break;
    case M::Sra: setX(i.rd, static_cast<std::uint64_t>(s64(a) >> (b & 63))); break;
    case M::Or: setX(i.rd, a | b); break;
    case M::And: setX(i.rd, a & b); break;
    case M::Addiw: setX(i.rd, sext32(a + imm)); break;
    case M::Slliw: setX(i.rd, sext32(a << imm)); break;
    case M::Srliw: setX(i.rd, sext32(zext32(a) >> imm)); break;
    case M::Sraiw: setX(i.rd, sext32(static_cast<std::uint32_t>(s32(a) >> imm))); break;
    case M::Addw: setX(i.rd, sext32(a + b)); break;
    case M::Subw: setX(i.rd, sext32(a - b)); break;
    case M::Sllw: setX(i.rd, sext32(a << (b & 31))); break;
    case M::Srlw: setX(i.rd, sext32(zext32(a) >> (b & 31))); break;
    case M::Sraw: setX(i.rd, sext32(static_cast<std::uint32_t>(s32(a) >> (b & 31)))); break;
    case M::Fence:
    case M::FenceI: break;  // one hart, in order; the decode cache checks the bits it fetches
    case M::Ecall:
        pc_ = next;  // the handler may end the program or change registers
        system_.systemCall(*this);
        return;
    case M::Ebreak: illegal(i, "a breakpoint (ebreak) with no debugger attached");
    case M::Csrrw:
    case M::Csrrs:
    case M::Csrrc:
    case M::Csrrwi:
    case M::Csrrsi:
    case M::Csrrci: {
        const unsigned csr = static_cast<unsigned>(i.imm);
        const bool immediate = i.mnemonic == M::Csrrwi || i.mnemonic == M::Csrrsi || i.mnemonic == M::Csrrci;
        const std::uint64_t operand = immediate ? i.rs1 : a;
        const bool writes = i.mnemonic == M::Csrrw || i.mnemonic == M::Csrrwi || i.rs1 != 0;
        const std::uint64_t old =
            (i.mnemonic == M::Csrrw || i.mnemonic == M::Csrrwi) && i.rd == 0 && writes ? 0 : readCsr(i, csr);
        if (writes) {
            std::uint64_t value = operand;
            if (i.mnemonic == M::Csrrs || i.mnemonic == M::Csrrsi)
                value = old | operand;
            else if (i.mnemonic == M::Csrrc || i.mnemonic == M::Csrrci)
                value = old & ~operand;
            writeCsr(i, csr, value);
        }
        setX(i.rd, old);
        break;
    }
    case M::Mul: setX(i.rd, a * b); break;
    case M::Mulh: setX(i.rd, static_cast<std::uint64_t>((static_cast<Int128>(s64(a)) * s64(b)) >> 64)); break;
    case M::Mulhsu:
        setX(i.rd, static_cast<std::uint64_t>((static_cast<Int128>(s64(a)) * static_cast<Int128>(b)) >> 64));
        break;
    case M::Mulhu: setX(i.rd, static_cast<std::uint64_t>((static_cast<UInt128>(a) * b) >> 64)); break;
    case M::Div: setX(i.rd, divide(a, b)); break;
    case M::Divu: setX(i.rd, b ? a / b : ~std::uint64_t{0}); break;
    case M::Rem: setX(i.rd, remainder(a, b)); break;
    case M::Remu: setX(i.rd, b ? a % b : a); break;
    case M::Mulw: setX(i.rd, sext32(a * b)); break;
    case M::Divw: setX(i.rd, divideW(a, b)); break;
    case M::Divuw: setX(i.rd, zext32(b) ? sext32(zext32(a) / zext32(b)) : ~std::uint64_t{0}); break;
    case M::Remw: setX(i.rd, remainderW(a, b)); break;
    case M::Remuw: setX(i.rd, zext32(b) ? sext32(zext32(a) % zext32(b)) : sext32(a)); break;
    case M::Sh1add: setX(i.rd, (a << 1) + b); break;
    case M::Sh2add: setX(i.rd, (a << 2) + b); break;
    case M::Sh3add: setX(i.rd, (a << 3) + b); break;
    case M::AddUw: setX(i.rd, zext32(a) + b); break;
    case M::Sh1addUw: setX(i.rd, (zext32(a) << 1) + b); break;
    case M::Sh2addUw: setX(i.rd, (zext32(a) << 2) + b); break;
    case M::Sh3addUw: setX(i.rd, (zext32(a) << 3) + b); break;
    case M::SlliUw: setX(i.rd, zext32(a) << imm); break;
    case M::Andn: setX(i.rd, a & ~b); break;
    case M::Orn: setX(i.rd, a | ~b); break;
    case M::Xnor: setX(i.rd, ~(a ^ b)); break;
    case M::Clz: setX(i.rd, a ? static_cast<std::uint64_t>(__builtin_clzll(a)) : 64); break;
    case M::Ctz: setX(i.rd, a ? static_cast<std::uint64_t>(__builtin_ctzll(a)) : 64); break;
    case M::Cpop: setX(i.rd, static_cast<std::uint64_t>(__builtin_popcountll(a))); break;
    case M::Clzw:
        setX(i.rd, zext32(a) ? static_cast<std::uint64_t>(__builtin_clz(static_cast<std::uint32_t>(a))) : 32);
        break;
    case M::Ctzw:
        setX(i.rd, zext32(a) ? static_cast<std::uint64_t>(__builtin_ctz(static_cast<std::uint32_t>(a))) : 32);
        break;
    case M::Cpopw:
        setX(i.rd, static_cast<std::uint64_t>(__builtin_popcount(static_cast<std::uint32_t>(a))));
        break;
    case M::Max: setX(i.rd, s64(a) > s64(b) ? a : b); break;
    case M::Maxu: setX(i.rd, a > b ? a : b); break;
    case M::Min: setX(i.rd, s64(a) < s64(b) ? a : b); break;
    case M::Minu: setX(i.rd, a < b ? a : b); break;
    case M::SextB: setX(i.rd, static_cast<std::uint64_t>(std::int64_t{static_cast<std::int8_t>(a)})); break;
    case M::SextH: setX(i.rd, static_cast<std::uint64_t>(std::int64_t{static_cast<std::int16_t>(a)})); break;
    case M::ZextH: setX(i.rd, a & 0xffff); break;
    case M::Rol: setX(i.rd, rotateLeft(a, b & 63)); break;
    case M::Ror: setX(i.rd, rotateLeft(a, (64 - (b & 63)) & 63)); break;
    case M::Rori: setX(i.rd, rotateLeft(a, (64 - (imm & 63)) & 63)); break;
    case M::Rolw: setX(i.rd, sext32(rotateLeft32(static_cast<std::uint32_t>(a), b & 31))); break;
    case M::Rorw:
        setX(i.rd, sext32(rotateLeft32(static_cast<std::uint32_t>(a), (32 - (b & 31)) & 31)));
        break;
    case M::Roriw:
        setX(i.rd, sext32(rotateLeft32(static_cast<std::uint32_t>(a), (32 - (imm & 31)) & 31)));
        break;
    case M::OrcB: setX(i.rd, orcB(a)); break;
    case M::Rev8: setX(i.rd, __builtin_bswap64(a)); break;
    case M::Bclr: setX(i.rd, a & ~(std::uint64_t{1} << (b & 63))); break;
    case M::Bclri: setX(i.rd, a & ~(std::uint64_t{1} << (imm & 63))); break;
    case M::Bext: setX(i.rd, (a >> (b & 63)) & 1); break;
    case M::Bexti: setX(i.rd, (a >> (imm & 63)) & 1); break;
    case M::Binv: setX(i.rd, a ^ (std::uint64_t{1} << (b & 63))); break;
    case M::Binvi: setX(i.rd, a ^ (std::uint64_t{1} << (imm & 63))); break;
    case M::Bset: setX(i.rd, a | (std::uint64_t{1} << (b & 63))); break;
    case M::Bseti: setX(i.rd, a | (std::uint64_t{1} << (imm & 63))); break;
    case M::Illegal: illegal(i, "an illegal or unsupported encoding");
    default:
        if (instructionClass(i.mnemonic) == InstructionClass::Atomic)
            executeAtomic(i, r);
        else if (i.mnemonic >= M::Vsetvli)
            executeVector(i, r);
        else
            executeFloat(i, r);
        break;
    }
    pc_ = next;
}

void Hart::executeAtomic(const Instruction& i, Retired& r) {
    using M = Mnemonic;
    const std::uint64_t address = xreg_[i.rs1], b = xreg_[i.rs2];
    const bool word = i.mnemonic <= M::AmomaxuW;
    const unsigned bytes = word ? 4 : 8;
    if (address % bytes)
        illegal(i, "a misaligned atomic access (AMOs and lr/sc need natural alignment)");
    r.address = address;
    r.accessBytes = static_cast<std::uint8_t>(bytes);
    auto read = [&] {
        return word ? sext32(memory_.load<std::uint32_t>(address)) : memory_.load<std::uint64_t>(address);
    };
    auto write = [&](std::uint64_t v) {
        if (word)
            memory_.store(address, static_cast<std::uint32_t>(v));
        else
            memory_.store(address, v);
    };
    switch (i.mnemonic) {
    case M::LrW:
    case M::LrD:
        setX(i.rd, read());
        reserved_ = true;
        reservation_ = address;
        return;
    case M::ScW:
    case M::ScD: {
        const bool ok = reserved_ && reservation_ == address;
        reserved_ = false;
        if (ok)
            write(b);
        setX(i.rd, ok ? 0 : 1);
        return;
    }
    default: break;
    }
    const std::uint64_t old = read();
    const std::uint64_t operand = word ? sext32(b) : b;
    std::uint64_t value = 0;
    switch (i.mnemonic) {
    case M::AmoswapW:
    case M::AmoswapD: value = operand; break;
    case M::AmoaddW:
    case M::AmoaddD: value = old + operand; break;
    case M::AmoxorW:
    case M::AmoxorD: value = old ^ operand; break;
    case M::AmoandW:
    case M::AmoandD: value = old & operand; break;
    case M::AmoorW:
    case M::AmoorD: value = old | operand; break;
    case M::AmominW:
    case M::AmominD: value = s64(old) < s64(operand) ? old : operand; break;
    case M::AmomaxW:
    case M::AmomaxD: value = s64(old) > s64(operand) ? old : operand; break;
    case M::AmominuW: value = zext32(old) < zext32(operand) ? old : operand; break;
    case M::AmomaxuW: value = zext32(old) > zext32(operand) ? old : operand; break;
    case M::AmominuD: value = old < operand ? old : operand; break;
    case M::AmomaxuD: value = old > operand ? old : operand; break;
    default: illegal(i, "an unsupported atomic");
    }
    write(value);
    setX(i.rd, old);
}

std::uint64_t Hart::readCsr(const Instruction& i, unsigned csr) {
    switch (csr) {
    case 0x001: return fflags;
    case 0x002: return frm;
    case 0x003: return (frm << 5) | fflags;
    case 0xc00: return cycles_ ? cycles_() : retired_;
    case 0xc01: return time_ ? time_() : retired_;
    case 0xc02: return retired_;
    case 0x008: return vstart_;
    case 0x009: return vxsat_;
    case 0x00a: return vxrm_;
    case 0x00f: return (vxrm_ << 1) | vxsat_;
    case 0xc20: return vl_;
    case 0xc21: return vtype_;
    case 0xc22: return kVlenBytes;
    default: illegal(i, "an access to a CSR the hart does not have");
    }
}

void Hart::writeCsr(const Instruction& i, unsigned csr, std::uint64_t value) {
    switch (csr) {
    case 0x001: fflags = value & 0x1f; return;
    case 0x002: frm = value & 7; return;
    case 0x003:
        fflags = value & 0x1f;
        frm = (value >> 5) & 7;
        return;
    case 0x008: vstart_ = value & (8 * kVlenBytes - 1); return;
    case 0x009: vxsat_ = value & 1; return;
    case 0x00a: vxrm_ = value & 3; return;
    case 0x00f:
        vxsat_ = value & 1;
        vxrm_ = (value >> 1) & 3;
        return;
    default: illegal(i, "a write to a read-only or missing CSR");
    }
}

}  // namespace tessim::riscv
