#include "sim/engine/Engine.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/ProcessFailure.h"
#include "sim/ir/Footprint.h"
#include "sim/ir/OpTable.h"

namespace tessim {
namespace {

// Stalls at least this long appear in traces (shorter ones would flood the trace).
constexpr std::uint64_t kTracedStallCycles = 8;

// Compute and scalar ops issue to a compute unit's pipeline.
bool isCompute(OpKind k) {
    const OpClass c = opInfo(k).opClass;
    return c == OpClass::Compute || c == OpClass::Scalar;
}

bool isMemory(OpKind k) {
    return opInfo(k).opClass == OpClass::Memory;
}

}  // namespace

Engine::Engine(sc_core::sc_module_name name, EngineConfig config,
               std::vector<std::unique_ptr<FunctionalUnit>> units, SyncHub& sync)
    : sc_core::sc_module(name), memory("memory"), dma("dma"), config_(std::move(config)),
      units_(std::move(units)), sync_(config_, sync),
      scoreboard_(this->name(), config_.vectorRegisters, config_.scalarRegisters, config_.registerBytes,
                  config_.registerGroups) {
    spaceToSocket_.fill(-1);
    for (unsigned s = 0; s < concreteSpace_.size(); ++s)
        concreteSpace_[s] = static_cast<std::uint8_t>(s);
    for (unsigned u = 0; u < units_.size(); ++u) {
        for (unsigned i = 0; i < units_[u]->instances(); ++i)
            slots_.push_back(Slot{u, 0});
    }
    slotsForKind_.resize(opKindCount());
    for (unsigned k = 0; k < slotsForKind_.size(); ++k) {
        for (unsigned s = 0; s < slots_.size(); ++s) {
            if (units_[slots_[s].unit]->executes(static_cast<OpKind>(k)))
                slotsForKind_[k].push_back(s);
        }
    }
    for (const auto& unit : units_) {
        int slotClass = config_.slots.empty() ? -1 : config_.slotClassIndex(unit->slotClass());
        if (!config_.slots.empty() && slotClass < 0)
            throw std::runtime_error(fmt::format("engine {}: unit {} names no slot class of the engine",
                                                 config_.name, unit->name()));
        slotClassOfUnit_.push_back(slotClass);
    }
    slotTaken_.assign(slots_.size(), 0);
    slotClassUse_.assign(config_.slots.size(), 0);
    payload_.set_extension(&access_);
    payload_.set_byte_enable_ptr(nullptr);
    payload_.set_dmi_allowed(false);
    SC_THREAD(run);
}

// The payload would delete its extensions; ours is a member, so detach it first.
Engine::~Engine() {
    payload_.clear_extension(&access_);
}

void Engine::mapSpace(std::uint8_t space, unsigned socketIndex) {
    spaceToSocket_[space] = static_cast<int>(socketIndex);
}

void Engine::mapSpaceAlias(std::uint8_t alias, std::uint8_t concrete) {
    spaceToSocket_[alias] = spaceToSocket_[concrete];
    concreteSpace_[alias] = concrete;
}

double Engine::peakWorkPerCycle(DType t) const {
    double peak = 0.0;
    for (const auto& u : units_)
        peak += u->peakWorkPerCycleFor(t) * u->instances();
    return peak;
}

// The peak of the datatype the engine worked in (f32 before any work): narrower elements fill
// more lanes of a register. Work in several datatypes: total work over the least cycles that
// each datatype's work takes at its own peak.
double Engine::peakWorkPerCycle() const {
    unsigned kinds = 0;
    DType only = DType::F32;
    for (std::size_t d = 0; d < workByDType_.size(); ++d) {
        if (workByDType_[d] > 0) {
            ++kinds;
            only = static_cast<DType>(d);
        }
    }
    if (kinds <= 1)
        return peakWorkPerCycle(only);
    double cycles = 0.0;
    for (std::size_t d = 0; d < workByDType_.size(); ++d) {
        const double peak = peakWorkPerCycle(static_cast<DType>(d));
        if (workByDType_[d] > 0 && peak > 0)
            cycles += workByDType_[d] / peak;
    }
    return cycles > 0 ? workDone_ / cycles : 0.0;
}

EngineInfo Engine::describe() const {
    EngineInfo e;
    e.name = config_.name;
    e.clock = config_.clock;
    e.registerBytes = config_.registerBytes;
    e.peakWorkPerCycle = peakWorkPerCycle();
    for (unsigned d = 0; d < kDTypeCount; ++d)
        e.peakWorkByDType[d] = peakWorkPerCycle(static_cast<DType>(d));
    e.mainCompute = config_.isMainCompute;
    e.vectorRegisters = config_.vectorRegisters;
    e.scalarRegisters = config_.scalarRegisters;
    e.registerGroups = config_.registerGroups;
    e.vectorAlignment = config_.vectorAlignment;
    e.issueWidth = config_.issueWidth;
    e.predictor = config_.predictor;
    e.predictor.mispredictPenalty = config_.mispredictPenalty;
    e.vliw = config_.vliw;
    e.slots = config_.slots;
    for (const auto& unit : units_) {
        if (!e.macArray)
            e.macArray = unit->macArray();
        e.units.push_back(unit->describe());
    }
    e.dtypesByKind.assign(opKindCount(), 0);
    for (std::size_t k = 0; k < e.dtypesByKind.size(); ++k)
        for (const auto& unit : units_)
            if (unit->executes(static_cast<OpKind>(k)))
                for (unsigned d = 0; d < kDTypeCount; ++d)
                    if (unit->executesType(static_cast<DType>(d)))
                        e.dtypesByKind[k] |= static_cast<std::uint8_t>(1u << d);
    return e;
}

void Engine::run() {
    runProcessGuarded([this] {
        try {
            runStream();
        } catch (...) {
            OpFailure::rethrowNaming(access_.initiator, access_.op);
        }
    });
}

void Engine::runStream() {
    sync_.start();
    if (stream_ && config_.vliw) {
        runBundles();
    } else if (stream_) {
        const Op* ops = nullptr;
        // The table's rows, read once: no op kind is registered while a stream runs.
        const OpDescriptor* const* rows = detail::gOpRows.data();
        while (std::size_t n = stream_->nextChunk(ops)) {
            for (std::size_t i = 0; i < n; ++i) {
                access_.op = opsIssued_ + i;
                issue(ops[i], *rows[static_cast<std::size_t>(ops[i].kind)]);
                sync_.keepQuantum(nextIssueFloor());
            }
            opsIssued_ += n;
        }
    }
    // Drain: the engine is done when every result and memory access has completed.
    std::uint64_t computeDone = 0, memoryDone = 0;
    scoreboard_.lastResults(memoryDone, computeDone);
    for (const auto& s : slots_) {
        if (units_[s.unit]->unitClass() == UnitClass::Memory)
            memoryDone = std::max(memoryDone, s.freeAt);
        else
            computeDone = std::max(computeDone, s.freeAt);
    }
    memoryDone = std::max(memoryDone, memoryDrain_);
    computeDone = std::max(computeDone, computeDrain_);
    // The tail belongs to whatever finishes last.
    waitUntil(std::max(computeDone, memoryDone),
              memoryDone >= computeDone ? StallReason::Memory : StallReason::Compute);
    finishCycle_ = cycle_;
    sync_.synchronise(cycle_);
}

// Gathers each bundle (ops up to the next bundle mark, across chunks) and issues it whole.
void Engine::runBundles() {
    bundle_.clear();
    bundleOps_.clear();
    auto flush = [&] {
        if (bundle_.empty())
            return;
        issueBundle(bundle_);
        bundle_.clear();
        bundleOps_.clear();
        sync_.keepQuantum(cycle_);
    };
    const Op* ops = nullptr;
    while (std::size_t n = stream_->nextChunk(ops)) {
        for (std::size_t i = 0; i < n; ++i) {
            const Op& op = ops[i];
            if (opInfo(op.kind).opClass == OpClass::Mark && op.tag == 0) {
                // A filler slot: it may open a bundle, but does not split one.
                if (op.flags & Op::kBundleStart)
                    flush();
                continue;
            }
            if (!isCompute(op.kind) && !isMemory(op.kind)) {
                flush();
                access_.op = opsIssued_ + i;
                issue(op, opInfo(op.kind));
                sync_.keepQuantum(nextIssueFloor());
                continue;
            }
            if ((op.flags & Op::kBundleStart) && !bundle_.empty())
                flush();
            bundle_.push_back(op);
            bundleOps_.push_back(opsIssued_ + i);
        }
        opsIssued_ += n;
    }
    flush();
}

void Engine::waitUntil(std::uint64_t cycle, StallReason reason) {
    if (cycle > cycle_) {
        stalls_.add(reason, cycle - cycle_);
        cycle_ = cycle;
    }
}

std::uint64_t Engine::reserveSlot(std::uint64_t earliest, bool bundleStart) {
    const bool canShare = issueCycleHasSlot() && !(config_.vliw && bundleStart) && earliest <= issueCycle_;
    std::uint64_t s = canShare ? issueCycle_ : std::max(earliest, cycle_);
    if (canShare) {
        ++slotsUsed_;
    } else {
        issueCycle_ = s;
        slotsUsed_ = 1;
    }
    return s;
}

inline void Engine::accountIssue(std::uint64_t s, StallReason gapReason, StallReason opReason) {
    if (s >= cycle_) {
        if (trace_ && s - cycle_ >= kTracedStallCycles)
            trace_->span(name(), std::string(stallReasonName(gapReason)) + " stall", config_.clock.at(cycle_),
                         config_.clock.at(s));
        stalls_.add(gapReason, s - cycle_);
        stalls_.add(opReason, 1);
        cycle_ = s + 1;
        lastIssueReason_ = opReason;
    } else if (opReason == StallReason::Compute && lastIssueReason_ != StallReason::Compute) {
        // A cycle that issued both a memory op and a compute op counts as computing.
        stalls_.cycles[static_cast<std::size_t>(lastIssueReason_)] -= 1;
        stalls_.add(StallReason::Compute, 1);
        lastIssueReason_ = StallReason::Compute;
    }
}

inline unsigned Engine::pickUnit(OpKind kind, std::uint64_t& freeAt) {
    const auto& candidates = slotsForKind_[static_cast<std::size_t>(kind)];
    if (candidates.empty())
        throw std::runtime_error(
            fmt::format("engine {}: no unit executes op '{}'", name(), opKindName(kind)));
    unsigned best = candidates[0];
    if (candidates.size() == 1) {
        freeAt = slots_[best].freeAt;
        return best;
    }
    for (unsigned c : candidates)
        if (slots_[c].freeAt < slots_[best].freeAt)
            best = c;
    freeAt = slots_[best].freeAt;
    return best;
}

void Engine::issue(const Op& op, const OpDescriptor& info) {
    // Compares, not a jump table: compute and memory ops are nearly all a stream holds.
    if (info.opClass == OpClass::Compute || info.opClass == OpClass::Scalar)
        issueCompute(op, info);
    else if (info.opClass == OpClass::Memory)
        issueMemory(op, info);
    else
        issueOther(op, info);
}

__attribute__((noinline)) void Engine::issueOther(const Op& op, const OpDescriptor& info) {
    switch (info.opClass) {
    case OpClass::Mark:
        if (op.tag != 0)
            marks_.push_back(EngineMark{op.tag, cycle_, stalls_, workDone_, dmaBytes_});
        return;
    case OpClass::Transfer: issueDmaStart(op); return;
    case OpClass::Sync: issueControl(op); return;
    default: break;
    }
    throw std::runtime_error(fmt::format("engine {}: cannot issue op '{}'", name(), opKindName(op.kind)));
}

void Engine::issueControl(const Op& op) {
    const SyncRule rule = opInfo(op.kind).sync;
    if (rule == SyncRule::DrainStores) {  // the stores issued so far complete before the next op issues
        const std::uint64_t before = cycle_;
        waitUntil(memoryDrain_, StallReason::Memory);
        if (trace_ && cycle_ - before >= kTracedStallCycles)
            trace_->span(name(), "fence", config_.clock.at(before), config_.clock.at(cycle_));
        return;
    }
    if (rule == SyncRule::DmaTag) {
        if (dma.size() == 0)
            throw std::runtime_error(fmt::format("engine {}: dma_wait without a DMA engine", name()));
        const std::uint64_t before = cycle_;
        waitUntil(sync_.dmaDone(*dma[0], op.tag, cycle_, access_.initiator), StallReason::Memory);
        if (trace_ && cycle_ > before)
            trace_->span(name(), "dma_wait", config_.clock.at(before), config_.clock.at(cycle_));
        if (observer_)
            observer_->onSync(access_.initiator, SyncKind::DmaWait, op.tag, config_.clock.at(before),
                              config_.clock.at(cycle_));
        return;
    }
    const Tick arrived = config_.clock.at(cycle_);
    waitUntil(sync_.rendezvous(rule, op.tag, op.count, cycle_), StallReason::Sync);
    if (observer_)
        observer_->onSync(access_.initiator,
                          rule == SyncRule::Barrier ? SyncKind::Barrier
                          : rule == SyncRule::Join  ? SyncKind::Join
                                                    : SyncKind::Fork,
                          op.tag, arrived, config_.clock.at(cycle_));
}

inline void Engine::completeCompute(const Op& op, const OpDescriptor& info, unsigned slot, std::uint64_t s,
                                    const Scoreboard::Groups& group) {
    FunctionalUnit& unit = *units_[slots_[slot].unit];
    const IssueCost cost = unit.issue(op);
    std::uint64_t occupancy = cost.occupancy, latency = cost.latency;
    if (info.streamsOperands && !(op.flags & Op::kIdealOperands)) {  // memory may stretch it
        const std::uint64_t served = unit.streamOperands(op, s, occupancy, *this);
        occupancy = std::max(occupancy, served - s);
        latency = std::max(latency, served - s);
    }
    slots_[slot].freeAt = s + occupancy;
    workDone_ += cost.work;
    workByDType_[static_cast<std::size_t>(op.dtype)] += cost.work;
    if (op.dst != kNoReg)
        scoreboard_.markResult(op, group, s + latency, false);
    else
        computeDrain_ = std::max(computeDrain_, s + latency);
    // A taken branch redirects the front end: the next op issues in a later cycle (or beside it, when
    // the front end fetches the target in time), after the penalty; a mispredicted one (taken or
    // not) refills the pipeline.
    if (info.branch && (op.flags & (Op::kTaken | Op::kMispredicted))) {
        frontEndReady_ = (op.flags & Op::kMispredicted)
                             ? s + 1 + config_.mispredictPenalty
                             : s + (config_.takenBranchEndsGroup ? 1 : 0) + config_.branchPenalty;
    }
    if (trace_ && occupancy >= 16)
        trace_->span(name(), std::string(opKindName(op.kind)), config_.clock.at(s),
                     config_.clock.at(s + occupancy));
    if (observer_ && info.streamsOperands)
        reportMacOperands(op, s, s + occupancy);
    if (executor_) {
        if (info.unitSemantics)
            unit.executeFunctional(op, *this);
        else
            executor_->execute(op, nullptr);
    }
}

void Engine::issueCompute(const Op& op, const OpDescriptor& info) {
    const Scoreboard::Groups group = scoreboard_.check(op, info);
    const Scoreboard::Readiness dep = scoreboard_.operandsReady(op, group);
    std::uint64_t unitFree = 0;
    unsigned slot = pickUnit(op.kind, unitFree);
    const FunctionalUnit& unit = *units_[slots_[slot].unit];
    const std::uint64_t operandsAndUnit = std::max(dep.cycle, unitFree);
    std::uint64_t s = reserveSlot(std::max(operandsAndUnit, frontEndReady_), op.flags & Op::kBundleStart);
    StallReason gap =
        frontEndReady_ > operandsAndUnit ? StallReason::Branch
        : unitFree >= dep.cycle
            ? (unit.unitClass() == UnitClass::Compute ? StallReason::Compute : StallReason::Structural)
            : (dep.fromMemory ? StallReason::Memory : StallReason::Dependency);
    accountIssue(s, gap, StallReason::Compute);
    completeCompute(op, info, slot, s, group);
}

inline void Engine::completeMemory(const Op& op, const OpDescriptor& info, unsigned slot, std::uint64_t s,
                                   const Scoreboard::Groups& group) {
    const bool write = info.store;
    FunctionalUnit& unit = *units_[slots_[slot].unit];
    const IssueCost cost = unit.issue(op);
    const std::uint64_t occupancy = cost.occupancy;
    ++memoryOps_;

    std::vector<std::uint8_t>* data = nullptr;
    if (executor_) {
        data = &functionalBuffer_;
        if (write)
            executor_->storeBytes(op, *data);
    }
    Tick done = memoryAccess(op, config_.clock.at(s), write, data);
    std::uint64_t doneCycle = config_.clock.cyclesCeil(done);
    // Bank or port conflicts keep the load/store unit busy: later memory ops see them.
    std::uint64_t conflictCycles = config_.clock.cyclesCeil(access_.conflictTicks);
    slots_[slot].freeAt = s + occupancy + conflictCycles;
    if (write) {
        memoryDrain_ = std::max(memoryDrain_, doneCycle);
        if (config_.storeBuffer)
            holdStoreEntry(op, std::max(doneCycle, s + 1));
    } else if (op.dst != kNoReg) {
        scoreboard_.markResult(op, group, std::max(s + occupancy, doneCycle) + cost.latency, true);
        if (executor_)
            executor_->execute(op, data);
    }
}

// storesInFlight_ is kept in ascending order of when each entry frees: the first to free is the
// front, and a store stream (each entry freeing after the one before) inserts at the back.
void Engine::holdStoreEntry(const Op& op, std::uint64_t frees) {
    if (storeMerges(op)) {
        // The youngest entry, if not yet pruned (freed), now frees when this store is accepted too.
        auto it = std::lower_bound(storesInFlight_.begin(), storesInFlight_.end(), lastStore_.frees);
        if (it != storesInFlight_.end() && *it == lastStore_.frees) {
            // Raised, it moves up to its place among the later ones.
            const std::uint64_t raised = std::max(*it, frees);
            const auto to = std::upper_bound(it + 1, storesInFlight_.end(), raised);
            std::rotate(it, it + 1, to);
            *(to - 1) = raised;
            lastStore_.frees = raised;
            return;
        }
    }
    storesInFlight_.insert(std::upper_bound(storesInFlight_.begin(), storesInFlight_.end(), frees), frees);
    // valid only with merging on, so storeMerges() needs no test of the setting
    lastStore_ = LastStore{config_.storeMergeBytes != 0, op.space, op.addr >> config_.storeMergeShift, frees};
}

std::uint64_t Engine::storeBufferFree(std::uint64_t from) {
    // Entries freed by `from` are gone; with all held, the store waits for the one that frees first.
    // (Pruned only once the buffer could be full: a stream of L1 hits pays one test a store.)
    if (storesInFlight_.size() < config_.storeBuffer)
        return from;
    storesInFlight_.erase(storesInFlight_.begin(),
                          std::upper_bound(storesInFlight_.begin(), storesInFlight_.end(), from));
    if (storesInFlight_.size() < config_.storeBuffer)
        return from;
    return storesInFlight_[storesInFlight_.size() - config_.storeBuffer];
}

void Engine::issueMemory(const Op& op, const OpDescriptor& info) {
    const Scoreboard::Groups group = scoreboard_.check(op, info);
    const Scoreboard::Readiness dep = info.store && info.scalar && config_.storeDataDelay
                                          ? scoreboard_.storeReady(op, config_.storeDataDelay)
                                          : scoreboard_.operandsReady(op, group);
    std::uint64_t unitFree = 0;
    unsigned slot = pickUnit(op.kind, unitFree);
    // A full store buffer holds the store like a busy unit, unless it joins the youngest entry.
    if (info.store && config_.storeBuffer && !storeMerges(op))
        unitFree = std::max(unitFree, storeBufferFree(std::max(unitFree, dep.cycle)));
    const std::uint64_t operandsAndUnit = std::max(dep.cycle, unitFree);
    std::uint64_t s = reserveSlot(std::max(operandsAndUnit, frontEndReady_), op.flags & Op::kBundleStart);
    StallReason gap = frontEndReady_ > operandsAndUnit ? StallReason::Branch
                      : unitFree >= dep.cycle
                          ? StallReason::Structural
                          : (dep.fromMemory ? StallReason::Memory : StallReason::Dependency);
    accountIssue(s, gap, StallReason::Memory);
    completeMemory(op, info, slot, s, group);
}

// In a bundle every op reads its operands before any op writes: the timing model does so, but
// functional execution runs the ops one after another, so it refuses a bundle in which an op
// reads what an earlier op of the same bundle writes.
void Engine::checkNoReadAfterWriteInBundle(const std::vector<Op>& bundle) {
    std::array<bool, kRegIds> written{};
    for (std::size_t i = 0; i < bundle.size(); ++i) {
        const Op& op = bundle[i];
        access_.op = bundleOps_[i];  // the op an error names
        const std::uint8_t read[] = {op.src[0], op.src[1], op.src[2], op.base};
        for (std::uint8_t r : read)
            if (r != kNoReg && r < kRegIds && written[r])
                throw std::runtime_error(fmt::format(
                    "engine {}: op '{}' reads {}, which an earlier op of the same bundle writes; functional "
                    "execution cannot run such a bundle",
                    name(), opKindName(op.kind), registerName(r)));
        if (op.dst != kNoReg && op.dst < kRegIds)
            written[op.dst] = true;
    }
}

// Lock-step: every op of the bundle issues in the cycle when the last of their operands and
// units is ready; operands are read before any op of the bundle writes its result.
void Engine::issueBundle(const std::vector<Op>& bundle) {
    access_.op = bundleOps_.front();
    if (config_.slots.empty() && bundle.size() > config_.issueWidth)
        throw std::runtime_error(fmt::format("engine {}: a bundle of {} ops exceeds issue_width {}", name(),
                                             bundle.size(), config_.issueWidth));
    std::fill(slotTaken_.begin(), slotTaken_.end(), 0);
    std::fill(slotClassUse_.begin(), slotClassUse_.end(), 0u);
    std::vector<PlannedOp>& plan = bundlePlan_;
    plan.clear();
    std::uint64_t bound = frontEndReady_;
    StallReason boundReason = StallReason::Branch;
    bool anyCompute = false;
    for (std::size_t i = 0; i < bundle.size(); ++i) {
        const Op& op = bundle[i];
        access_.op = bundleOps_[i];
        const OpDescriptor& info = opInfo(op.kind);
        const Scoreboard::Groups group = scoreboard_.check(op, info);
        const auto& candidates = slotsForKind_[static_cast<std::size_t>(op.kind)];
        if (candidates.empty())
            throw std::runtime_error(
                fmt::format("engine {}: no unit executes op '{}'", name(), opKindName(op.kind)));
        int best = -1;
        for (unsigned c : candidates)
            if (!slotTaken_[c] && (best < 0 || slots_[c].freeAt < slots_[static_cast<unsigned>(best)].freeAt))
                best = static_cast<int>(c);
        if (best < 0) {
            const FunctionalUnit& u = *units_[slots_[candidates[0]].unit];
            throw std::runtime_error(fmt::format(
                "engine {}: a bundle holds more '{}' ops than there are unit instances to take them "
                "({} of unit {})",
                name(), opKindName(op.kind), candidates.size(), u.name()));
        }
        const auto slot = static_cast<unsigned>(best);
        slotTaken_[slot] = 1;
        const FunctionalUnit& unit = *units_[slots_[slot].unit];
        const int slotClass = slotClassOfUnit_[slots_[slot].unit];
        if (slotClass >= 0 && ++slotClassUse_[static_cast<std::size_t>(slotClass)] >
                                  config_.slots[static_cast<std::size_t>(slotClass)].count)
            throw std::runtime_error(fmt::format(
                "engine {}: a bundle holds more than {} ops of slot class '{}' (op '{}' on unit {})", name(),
                config_.slots[static_cast<std::size_t>(slotClass)].count,
                config_.slots[static_cast<std::size_t>(slotClass)].name, opKindName(op.kind), unit.name()));
        const Scoreboard::Readiness dep = scoreboard_.operandsReady(op, group);
        const std::uint64_t unitFree = slots_[slot].freeAt;
        const bool compute = isCompute(op.kind);
        anyCompute |= compute;
        const StallReason reason =
            unitFree >= dep.cycle
                ? (compute && unit.unitClass() == UnitClass::Compute ? StallReason::Compute
                                                                     : StallReason::Structural)
                : (dep.fromMemory ? StallReason::Memory : StallReason::Dependency);
        if (std::max(dep.cycle, unitFree) > bound) {
            bound = std::max(dep.cycle, unitFree);
            boundReason = reason;
        }
        // Field by field into the vector: composing the 12-byte struct on the stack and copying it
        // stalled on store forwarding (a quarter of this function's time).
        PlannedOp& planned = plan.emplace_back();
        planned.slot = slot;
        planned.group = group;
    }
    if (executor_)
        checkNoReadAfterWriteInBundle(bundle);
    const std::uint64_t s = std::max(bound, cycle_);
    accountIssue(s, boundReason, anyCompute ? StallReason::Compute : StallReason::Memory);
    issueCycle_ = s;
    slotsUsed_ = static_cast<unsigned>(bundle.size());
    for (std::size_t i = 0; i < bundle.size(); ++i) {
        access_.op = bundleOps_[i];
        if (isCompute(bundle[i].kind))
            completeCompute(bundle[i], opInfo(bundle[i].kind), plan[i].slot, s, plan[i].group);
        else
            completeMemory(bundle[i], opInfo(bundle[i].kind), plan[i].slot, s, plan[i].group);
    }
}

void Engine::issueDmaStart(const Op& op) {
    if (dma.size() == 0)
        throw std::runtime_error(fmt::format("engine {}: dma_start without a DMA engine", name()));
    std::uint64_t s = reserveSlot(cycle_, op.flags & Op::kBundleStart);
    accountIssue(s, StallReason::Structural, StallReason::Memory);
    ++dmaStarts_;
    DmaArgs transfer = op.dma;
    transfer.srcSpace = concreteSpace_[transfer.srcSpace];
    transfer.dstSpace = concreteSpace_[transfer.dstSpace];
    const std::uint64_t bytes = transfer.totalBytes();
    dmaBytes_.read[transfer.srcSpace] += bytes;
    if (transfer.group != 0 && groups_ && transfer.group < groups_->size()) {
        for (std::uint8_t space : (*groups_)[transfer.group])
            dmaBytes_.written[space] += bytes;
    } else {
        dmaBytes_.written[transfer.dstSpace] += bytes * (1u + transfer.multicastCount);
    }
    dma->start(transfer, op.tag, config_.clock.at(s),
               OpOrigin{access_.initiator, access_.op, config_.clock.at(s)});
}

Tick Engine::memoryAccess(const Op& op, Tick at, bool write, std::vector<std::uint8_t>* data) {
    const std::uint8_t space = concreteSpace_[op.space];
    int socket = spaceToSocket_[space];
    if (socket < 0)
        throw std::runtime_error(unreachableSpace(op));
    unsigned elem = dtypeBytes(op.dtype);
    const std::uint64_t elements = memoryElements(op);
    std::uint64_t bytes = elements * elem;
    bool strided = op.stride != 0 && op.stride != static_cast<std::int64_t>(elem);
    access_.elementBytes = strided ? elem : 0;
    access_.elements = strided ? elements : 0;
    access_.stride = strided ? op.stride : 0;
    access_.functional = data != nullptr;
    access_.space = space;
    access_.conflictTicks = 0;
    if (data && data->size() < bytes)
        data->resize(bytes);
    payload_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    payload_.set_address(op.addr);
    payload_.set_data_length(static_cast<unsigned>(bytes));
    payload_.set_streaming_width(static_cast<unsigned>(bytes));
    payload_.set_data_ptr(data ? data->data() : nullptr);
    payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = delayUntil(at);
    memory[static_cast<unsigned>(socket)]->b_transport(payload_, delay);
    if (payload_.is_response_error())
        throw std::runtime_error(fmt::format(
            "engine {}: {} of {} B at {}+{:#x} was refused ({}): outside the memory or not allowed", name(),
            opKindName(op.kind), bytes,
            space < spaceNames_.size() ? spaceNames_[space] : fmt::format("space {}", space), op.addr,
            payload_.get_response_string()));
    if (write)
        bytesWritten_ += bytes;
    else
        bytesRead_ += bytes;
    return absoluteAfter(delay);
}

// One access of a tile's operands (OperandPort, SystolicArray::streamOperands), timed through
// the memory's port like any other of the engine's accesses.
std::uint64_t Engine::operandAccess(const Op& op, std::uint8_t blockSpace, std::uint64_t addr,
                                    std::uint64_t bytes, bool write, std::uint64_t at) {
    const std::uint8_t space = concreteSpace_[blockSpace];
    const int socket = spaceToSocket_[space];
    if (socket < 0)
        throw std::runtime_error(unreachableSpace(op));
    access_.elementBytes = access_.elements = 0;
    access_.stride = 0;
    access_.functional = false;
    access_.source = AccessSource::MacOperand;
    access_.space = space;
    access_.conflictTicks = 0;
    payload_.set_data_ptr(nullptr);
    payload_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    payload_.set_address(addr);
    payload_.set_data_length(static_cast<unsigned>(bytes));
    payload_.set_streaming_width(static_cast<unsigned>(bytes));
    payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = delayUntil(config_.clock.at(at));
    memory[static_cast<unsigned>(socket)]->b_transport(payload_, delay);
    access_.source = AccessSource::Engine;
    if (payload_.is_response_error())
        throw std::runtime_error(
            fmt::format("engine {}: '{}' operands of {} B at {}+{:#x} were refused ({}): outside the memory",
                        name(), opKindName(op.kind), bytes,
                        space < spaceNames_.size() ? spaceNames_[space] : fmt::format("space {}", space),
                        addr, payload_.get_response_string()));
    return config_.clock.cyclesCeil(absoluteAfter(delay));
}

void Engine::reportMacOperands(const Op& op, std::uint64_t first, std::uint64_t last) {
    for (const FootprintRange& r : footprint(op)) {
        TimedAccess a;
        a.initiator = access_.initiator;
        a.space = concreteSpace_[r.space];
        a.source = AccessSource::MacOperand;
        a.write = r.write;
        a.addr = r.begin;
        a.bytes = r.totalBytes();
        a.arrival = config_.clock.at(first);
        a.completion = config_.clock.at(last);
        a.op = access_.op;
        observer_->onAccess(a.space < spaceNames_.size() ? spaceNames_[a.space].c_str() : name(), a);
    }
}

std::string Engine::unreachableSpace(const Op& op) const {
    auto nameOf = [&](unsigned s) {
        return s < spaceNames_.size() ? "'" + spaceNames_[s] + "'" : fmt::format("space {}", s);
    };
    std::string reached;
    for (unsigned s = 0; s < spaceToSocket_.size(); ++s)
        if (spaceToSocket_[s] >= 0)
            reached += (reached.empty() ? "" : ", ") + nameOf(s);
    return fmt::format(
        "engine {}: op '{}' addresses memory {}, which the engine does not reach (it reaches {})", name(),
        opKindName(op.kind), nameOf(op.space), reached.empty() ? "none" : reached);
}

StallBreakdown Engine::stalls(std::uint64_t kernelEndCycle) const {
    StallBreakdown b = stalls_;
    if (kernelEndCycle > cycle_)
        b.add(StallReason::Idle, kernelEndCycle - cycle_);
    return b;
}

void Engine::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(config_.name);
    node.add("ops_issued", opsIssued_, "ops", "ops issued");
    node.add("memory_ops", memoryOps_, "ops", "vector and scalar loads and stores");
    node.add("bytes_read", bytesRead_, "B", "bytes loaded by the engine's load/store units");
    node.add("bytes_written", bytesWritten_, "B", "bytes stored by the engine's load/store units");
    node.add("dma_starts", dmaStarts_, "descriptors", "DMA transfers started");
    node.add("finish_cycle", finishCycle_, "cycles", "cycle at which the engine completed its stream");
    for (const auto& u : units_)
        u->collect(config_.name + "." + u->name(), node, energy, seconds);
}

// ---- functional execution ------------------------------------------------------------------

void Engine::setFunctional(bool on) {
    if (!on)
        executor_.reset();
    else if (!executor_)
        executor_ =
            std::make_unique<FunctionalExecutor>(name(), config_.registerBytes, config_.registerGroups);
}

const std::vector<double>& Engine::vectorRegister(unsigned r) const {
    static const std::vector<double> none;
    return executor_ ? executor_->vectorRegister(r) : none;
}

double Engine::scalarRegister(unsigned r) const {
    return executor_ ? executor_->scalarRegister(r) : 0.0;
}

void Engine::read(std::uint8_t space, std::uint64_t addr, void* data, std::uint64_t bytes) {
    space = concreteSpace_[space];
    int socket = spaceToSocket_[space];
    if (socket < 0)
        throw std::runtime_error(fmt::format("engine {}: memory space {} is not connected", name(), space));
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(static_cast<unsigned>(bytes));
    gp.set_streaming_width(static_cast<unsigned>(bytes));
    if (memory[static_cast<unsigned>(socket)]->transport_dbg(gp) != bytes)
        throw std::runtime_error(
            fmt::format("engine {}: functional read of {} B at space {} offset {:#x} failed", name(), bytes,
                        space, addr));
}

void Engine::write(std::uint8_t space, std::uint64_t addr, const void* data, std::uint64_t bytes) {
    space = concreteSpace_[space];
    int socket = spaceToSocket_[space];
    if (socket < 0)
        throw std::runtime_error(fmt::format("engine {}: memory space {} is not connected", name(), space));
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(const_cast<void*>(data)));
    gp.set_data_length(static_cast<unsigned>(bytes));
    gp.set_streaming_width(static_cast<unsigned>(bytes));
    if (memory[static_cast<unsigned>(socket)]->transport_dbg(gp) != bytes)
        throw std::runtime_error(
            fmt::format("engine {}: functional write of {} B at space {} offset {:#x} failed", name(), bytes,
                        space, addr));
}

}  // namespace tessim
