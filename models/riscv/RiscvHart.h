// One RV64GC hart with the V extension (RVV 1.0, VLEN 256 as the X60's) in Linux user mode,
// functional only: registers, fcsr, the vector state, the program counter and the semantics of
// every decoded instruction. It executes an instruction at a time and tells
// the caller what the timing needs (the instruction, the address it touched, a taken branch);
// how long that takes is the engine's business. System calls go to the handler.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

#include "models/riscv/GuestMemory.h"
#include "models/riscv/RiscvInstruction.h"

namespace tessim::riscv {

class Hart;

// The operating system below the hart: an ecall hands it the hart (a7 the call, a0–a5 its
// arguments, a0 the result).
class SystemCallHandler {
public:
    virtual ~SystemCallHandler() = default;
    virtual void systemCall(Hart& hart) = 0;
};

// An instruction the hart cannot execute (an illegal or not yet supported encoding, an unknown
// CSR, a reserved rounding mode): the run stops, naming it.
struct IllegalInstruction {
    std::uint64_t pc;
    std::uint32_t bits;
    std::uint8_t length;
    const char* reason;
};

// What one executed instruction did, for the timing model.
struct Retired {
    const Instruction* instruction = nullptr;
    std::uint64_t pc = 0;
    std::uint64_t address = 0;     // virtual address of a load, store or AMO
    std::uint8_t accessBytes = 0;  // of one element for a vector load or store
    bool taken = false;            // a branch or jump changed the flow
    // A vector instruction: the elements it processed (vl, or the registers' worth of a whole-
    // register move, load or store), its element width in bytes and LMUL in eighths; a strided
    // access its stride (0 for unit stride), an indexed one `indexed`.
    std::uint32_t vl = 0;
    std::uint8_t sew = 0;
    std::uint8_t lmul8 = 0;
    std::int64_t stride = 0;
    bool indexed = false;
};

class Hart {
public:
    Hart(GuestMemory& memory, SystemCallHandler& system);

    // Executes the instruction at pc. GuestAccessFault or IllegalInstruction when it cannot.
    // An instruction that reads the clock (rdcycle, rdtime, an ecall: clock_gettime) is left
    // unexecuted, and false returned, unless `clockCurrent`: the caller first has the instructions
    // before it timed, so that it reads the cycle it runs at.
    bool step(Retired& retired, bool clockCurrent = true);

    std::uint64_t x(unsigned r) const { return xreg_[r]; }
    void setX(unsigned r, std::uint64_t v) {
        if (r)
            xreg_[r] = v;
    }
    std::uint64_t f(unsigned r) const { return freg_[r]; }
    void setF(unsigned r, std::uint64_t bits) { freg_[r] = bits; }
    std::uint64_t pc() const { return pc_; }
    // The vector state (RVV 1.0): VLEN in bytes, vl, vtype (bit 63: vill) and the registers.
    static constexpr unsigned kVlenBytes = 32;
    std::uint64_t vl() const { return vl_; }
    std::uint64_t vtype() const { return vtype_; }
    const std::uint8_t* vectorRegister(unsigned r) const { return &vreg_[r * kVlenBytes]; }
    void setPc(std::uint64_t pc) { pc_ = pc; }
    // A new thread's hart (clone): the parent's registers, vector and FP state, pc; no reservation.
    void copyStateFrom(const Hart& parent);
    // LR/SC: the reservation is lost (another hart may have written the word).
    void clearReservation() { reserved_ = false; }
    std::uint64_t instructionsRetired() const { return retired_; }
    GuestMemory& memory() { return memory_; }
    // The value the cycle and time CSRs read (the simulated clock; default: instructions retired).
    void setClock(std::function<std::uint64_t()> cycles, std::function<std::uint64_t()> timeTicks) {
        cycles_ = std::move(cycles);
        time_ = std::move(timeTicks);
    }

    // fcsr: accrued exception flags (NV DZ OF UF NX) and the dynamic rounding mode.
    std::uint32_t fflags = 0;
    std::uint32_t frm = 0;

private:
    const Instruction& fetch();
    void execute(const Instruction& i, Retired& r);
    void executeAtomic(const Instruction& i, Retired& r);
    void executeFloat(const Instruction& i, Retired& r);
    void correctTiesAway(const Instruction& i);  // RMM: the RNE result corrected where it was a tie
    // RiscvVector.cpp: vsetvl*, loads and stores, integer and floating-point arithmetic.
    void executeVector(const Instruction& i, Retired& r);
    void setVectorType(const Instruction& i, std::uint64_t avl, std::uint64_t vtype);
    void executeVectorMemory(const Instruction& i, Retired& r);
    void executeVectorInteger(const Instruction& i, Retired& r);
    void executeVectorMaskCategory(const Instruction& i, Retired& r);
    void executeVectorFloat(const Instruction& i, Retired& r);
    void executeVectorFloatWidening(const Instruction& i, Retired& r);
    void executeVectorConvert(const Instruction& i, Retired& r);
    std::uint64_t vectorScalarOperand(unsigned rs1, unsigned sewBytes) const;
    void slideOne(const Instruction& i, std::uint64_t scalar, unsigned sewBytes, bool up);
    // Illegal unless `reg` starts a group of `registers` within v0…v31.
    void requireGroup(const Instruction& i, unsigned reg, unsigned registers) const;
    std::uint64_t element(unsigned reg, std::uint64_t index, unsigned bytes) const;
    void setElement(unsigned reg, std::uint64_t index, unsigned bytes, std::uint64_t value);
    bool maskBit(unsigned reg, std::uint64_t index) const {
        return (vreg_[reg * kVlenBytes + index / 8] >> (index % 8)) & 1;
    }
    void setMaskBit(unsigned reg, std::uint64_t index, bool value);
    std::uint64_t readCsr(const Instruction& i, unsigned csr);
    void writeCsr(const Instruction& i, unsigned csr, std::uint64_t value);
    [[noreturn]] void illegal(const Instruction& i, const char* reason) const;

    GuestMemory& memory_;
    SystemCallHandler& system_;
    std::array<std::uint64_t, 32> xreg_{};
    std::array<std::uint64_t, 32> freg_{};
    std::uint64_t pc_ = 0;
    std::uint64_t retired_ = 0;
    std::array<std::uint8_t, 32 * kVlenBytes> vreg_{};
    std::uint64_t vl_ = 0, vstart_ = 0;
    std::uint64_t vtype_ = std::uint64_t{1} << 63;  // vill until the first vsetvl
    std::uint32_t vxrm_ = 0, vxsat_ = 0;            // fixed-point rounding mode and saturation flag
    // lr/sc: the reserved address, or none.
    bool reserved_ = false;
    std::uint64_t reservation_ = 0;
    std::function<std::uint64_t()> cycles_, time_;
    // Decoded instructions by pc (direct-mapped; an entry is used only when the bits fetched
    // still match, so self-modifying code decodes afresh).
    struct CacheEntry {
        std::uint64_t pc = ~std::uint64_t{0};
        Instruction instruction;
    };
    static constexpr std::size_t kDecodeCacheEntries = 1u << 14;
    std::unique_ptr<CacheEntry[]> decoded_;
};

}  // namespace tessim::riscv
