// An engine's register scoreboard: which register ids exist, how many registers each operand
// of an op spans (LMUL groups, widening, segments; the RVV 1.0 rules), and the cycle at which
// each register's value is ready and whether it comes from memory (the stall it causes).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sim/ir/OpTable.h"

namespace tessim {

class Scoreboard {
public:
    // When an op's operands are ready, and whether the last of them comes from memory.
    struct Readiness {
        std::uint64_t cycle = 0;
        bool fromMemory = false;
    };

    // An op's LMUL group and the registers each operand spans (0..2 its sources, 3 its result),
    // from check(): operandsReady() and markResult() take them.
    struct Groups {
        unsigned group = 1;
        std::array<std::uint8_t, 4> span{1, 1, 1, 1};
    };

    // registerBytes: one vector register; registerGroups: LMUL groups (off: a register id names
    // a whole vector of any length). `engine` names it in errors.
    Scoreboard(std::string engine, unsigned vectorRegisters, unsigned scalarRegisters, unsigned registerBytes,
               bool registerGroups);

    // Every id the op names exists (else a runtime error); returns the registers its vector
    // operands span (1 without register groups).
    Groups check(const Op& op, const OpDescriptor& info) const {
        if (!(regValid_[op.dst] & regValid_[op.src[0]] & regValid_[op.src[1]] & regValid_[op.src[2]] &
              regValid_[op.base]))
            failRegister(op);
        if (info.multiGroup())
            return multiGroup(op, info);
        return registerGroups_ ? registerGroup(op, info) : Groups{};
    }

    Readiness operandsReady(const Op& op, const Groups& groups) const {
        Readiness ready;
        if (op.base != kNoReg)  // the address register of a load or store
            consider(op.base, ready);
        if (groups.group == 1 && groups.span == Groups{}.span) {  // the common case, kept short
            for (std::uint8_t r : op.src)
                if (r != kNoReg)
                    consider(r, ready);
            return ready;
        }
        for (unsigned i = 0; i < 3; ++i)
            if (op.src[i] != kNoReg)
                for (unsigned j = 0; j < groups.span[i]; ++j)
                    consider(op.src[i] + j, ready);
        return ready;
    }

    // A scalar store that reads its data `dataDelay` cycles after issue: its address register by
    // issue, its data register by issue + dataDelay.
    Readiness storeReady(const Op& op, unsigned dataDelay) const {
        Readiness ready;
        if (op.base != kNoReg)
            consider(op.base, ready);
        for (std::uint8_t r : op.src)
            if (r != kNoReg && regReady_[r] > ready.cycle + dataDelay) {
                ready.cycle = regReady_[r] - dataDelay;
                ready.fromMemory = regFromMemory_[r];
            }
        return ready;
    }

    // The op's result is ready at `ready` (in every register its destination spans).
    void markResult(const Op& op, const Groups& groups, std::uint64_t ready, bool fromMemory) {
        for (unsigned j = 0; j < groups.span[kDestination]; ++j) {
            regReady_[op.dst + j] = ready;
            regFromMemory_[op.dst + j] = fromMemory;
        }
    }

    // The last result to become ready that comes from memory, and the last from compute.
    void lastResults(std::uint64_t& fromMemory, std::uint64_t& fromCompute) const;

    // Registers per operand at the op's vl and SEW: a power of two (LMUL), 1 for fractions.
    unsigned lmulGroup(const Op& op) const;

private:
    // Registers operand i spans (kDestination: the result) in an op of LMUL group `group`.
    static constexpr unsigned kDestination = 3;
    unsigned operandSpan(const Op& op, unsigned i, unsigned group) const;
    // check() for widening and segment ops (their operands span several groups).
    Groups multiGroup(const Op& op, const OpDescriptor& info) const;
    Groups registerGroup(const Op& op, const OpDescriptor& info) const;
    // An op's group and operand spans (register groups on), checked against the RVV rules once per
    // op shape: a loop issues the same few shapes over and over. Direct-mapped by a hash of the
    // fields they depend on (kind, dtype, vl, count, registers).
    struct SpanEntry {
        std::uint64_t a = ~std::uint64_t{0}, b = ~std::uint64_t{0};  // the key
        Groups groups;
    };
    const SpanEntry& spans(const Op& op, const OpDescriptor& info) const {
        const std::uint64_t a = static_cast<std::uint64_t>(op.kind) |
                                std::uint64_t{static_cast<std::uint8_t>(op.dtype)} << 16 |
                                std::uint64_t{op.vl} << 32;
        const std::uint64_t b = std::uint64_t{op.count} | std::uint64_t{op.dst} << 32 |
                                std::uint64_t{op.src[0]} << 40 | std::uint64_t{op.src[1]} << 48 |
                                std::uint64_t{op.src[2]} << 56;
        SpanEntry& e = spanCache_[((a ^ (b * 0x9E3779B97F4A7C15ull)) * 0xC2B2AE3D27D4EB4Full) >> 58];
        if (e.a != a || e.b != b)
            fillSpans(op, info, e, a, b);
        return e;
    }
    void fillSpans(const Op& op, const OpDescriptor& info, SpanEntry& e, std::uint64_t a,
                   std::uint64_t b) const;
    unsigned checkGroup(const Op& op, const OpDescriptor& info) const;
    [[noreturn]] void failRegister(const Op& op) const;
    void consider(std::size_t r, Readiness& ready) const {
        if (regReady_[r] > ready.cycle) {
            ready.cycle = regReady_[r];
            ready.fromMemory = regFromMemory_[r];
        }
    }

    std::string engine_;
    unsigned vectorRegisters_;
    unsigned scalarRegisters_;
    unsigned registerBytes_;
    bool registerGroups_;
    std::array<std::uint64_t, kRegIds> regReady_{};
    std::array<bool, kRegIds> regFromMemory_{};
    std::array<bool, 256> regValid_{};  // kNoReg counts as valid: "no operand"
    mutable std::array<SpanEntry, 64> spanCache_{};
};

}  // namespace tessim
