#include "sim/engine/Scoreboard.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tessim {

Scoreboard::Scoreboard(std::string engine, unsigned vectorRegisters, unsigned scalarRegisters,
                       unsigned registerBytes, bool registerGroups)
    : engine_(std::move(engine)), vectorRegisters_(vectorRegisters), scalarRegisters_(scalarRegisters),
      registerBytes_(registerBytes), registerGroups_(registerGroups) {
    regValid_[kNoReg] = true;
    for (unsigned r = 0; r < vectorRegisters && r < kVectorRegs; ++r)
        regValid_[r] = true;
    for (unsigned r = 0; r < scalarRegisters && kScalarRegBase + r < kRegIds; ++r)
        regValid_[kScalarRegBase + r] = true;
}

void Scoreboard::lastResults(std::uint64_t& fromMemory, std::uint64_t& fromCompute) const {
    for (unsigned r = 0; r < kRegIds; ++r) {
        if (regFromMemory_[r])
            fromMemory = std::max(fromMemory, regReady_[r]);
        else
            fromCompute = std::max(fromCompute, regReady_[r]);
    }
}

void Scoreboard::failRegister(const Op& op) const {
    const std::uint8_t regs[] = {op.dst, op.src[0], op.src[1], op.src[2], op.base};
    for (std::uint8_t r : regs) {
        if (regValid_[r])
            continue;
        throw std::runtime_error(fmt::format(
            "engine {}: op '{}' names register {}, but the engine has {} vector registers (v0..v{}) and "
            "{} scalar registers (s0..s{})",
            engine_, opKindName(op.kind), registerName(r), vectorRegisters_, vectorRegisters_ - 1,
            scalarRegisters_, scalarRegisters_ - 1));
    }
    throw std::logic_error("failRegister called for an op with valid registers");
}

unsigned Scoreboard::lmulGroup(const Op& op) const {
    return lmulRegisters(op, registerBytes_);
}

unsigned Scoreboard::operandSpan(const Op& op, unsigned i, unsigned group) const {
    const std::uint8_t r = i == kDestination ? op.dst : op.src[i];
    if (r >= kScalarRegBase || !registerGroups_)
        return 1;
    switch (opInfo(op.kind).span) {
    // A reduction reads a whole group but its accumulator and result are one element.
    case RegisterSpan::ReduceSource: return i == 0 ? group : 1;
    case RegisterSpan::Widening: {
        // The wide operands take twice the sources' bytes (one register while that fits).
        const bool fitsOne = 2 * std::uint64_t{op.vl} * dtypeBytes(op.dtype) <= registerBytes_;
        return i == kDestination || i == 2 ? (fitsOne ? 1 : 2 * group) : group;
    }
    case RegisterSpan::SegmentDest: return i == kDestination ? op.count * group : group;
    case RegisterSpan::SegmentSource: return i == 0 ? op.count * group : group;
    case RegisterSpan::Convert: return i == 0 ? convertSourceRegisters(op, registerBytes_) : group;
    case RegisterSpan::Group: return group;
    }
    return group;
}

Scoreboard::Groups Scoreboard::multiGroup(const Op& op, const OpDescriptor& info) const {
    if (info.segment && (op.count < 1 || op.count > 8))
        throw std::runtime_error(fmt::format("engine {}: op '{}' has {} fields; a segment has 1 to 8",
                                             engine_, opKindName(op.kind), op.count));
    if (registerGroups_)
        return registerGroup(op, info);
    // Without groups, each field is one register id: the last must exist.
    const std::uint8_t first = info.span == RegisterSpan::SegmentDest ? op.dst : op.src[0];
    if (info.segment && first != kNoReg && first + op.count > vectorRegisters_)
        throw std::runtime_error(fmt::format(
            "engine {}: op '{}' of {} fields from {} needs registers up to v{}; the engine has v0..v{}",
            engine_, opKindName(op.kind), op.count, registerName(first), first + op.count - 1,
            vectorRegisters_ - 1));
    return Groups{};
}

Scoreboard::Groups Scoreboard::registerGroup(const Op& op, const OpDescriptor& info) const {
    const std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    if ((bytes <= registerBytes_ && !info.multiGroup()) || info.scalar)
        return Groups{};
    return spans(op, info).groups;
}

void Scoreboard::fillSpans(const Op& op, const OpDescriptor& info, SpanEntry& e, std::uint64_t a,
                           std::uint64_t b) const {
    Groups g;
    g.group = checkGroup(op, info);  // throws before the entry changes
    for (unsigned i = 0; i < 4; ++i)
        g.span[i] = static_cast<std::uint8_t>(operandSpan(op, i, g.group));
    e.groups = g;
    e.a = a;
    e.b = b;
}

// The RVV rules on the registers the op's operands span; its group (registerGroup() has left out
// the ops of one register).
unsigned Scoreboard::checkGroup(const Op& op, const OpDescriptor& info) const {
    const std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    const unsigned group = lmulGroup(op);
    // RVV 1.0: a widened destination spans at most 8 registers, a segment's fields at most 8.
    if (info.span == RegisterSpan::Widening && group > 4)
        throw std::runtime_error(fmt::format(
            "engine {}: op '{}' with vl {} of {} spans {} registers per source; its widened destination "
            "would span {} (at most 8: LMUL ≤ 4)",
            engine_, info.name, op.vl, dtypeName(op.dtype), group, 2 * group));
    if (info.segment && op.count * group > 8)
        throw std::runtime_error(fmt::format(
            "engine {}: op '{}' of {} fields × {} registers per field: fields × LMUL must be at most 8",
            engine_, opKindName(op.kind), op.count, group));
    auto check = [&](unsigned i) {
        const std::uint8_t r = i == kDestination ? op.dst : op.src[i];
        const unsigned span = operandSpan(op, i, group);
        if (r == kNoReg || span == 1)
            return;
        const unsigned align =
            info.span == RegisterSpan::Widening || info.span == RegisterSpan::Convert ? span : group;
        if (r % align != 0 || r + span > vectorRegisters_)
            throw std::runtime_error(fmt::format(
                "engine {}: op '{}' with vl {} of {} ({} B) spans a group of {} registers; register {} "
                "cannot start one (a group starts at a multiple of {} and ends by v{})",
                engine_, opKindName(op.kind), op.vl, dtypeName(op.dtype), bytes, span, registerName(r), align,
                vectorRegisters_ - 1));
    };
    check(0);
    check(kDestination);
    check(1);
    check(2);
    return group;
}

}  // namespace tessim
