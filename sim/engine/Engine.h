// An engine: an SC_THREAD that pulls ops from its stream and issues them in order to its
// functional units, with a register scoreboard (LMUL register groups where configured), memory
// accesses through TLM with annotated delays, and temporal decoupling (the quantum is honoured
// at every op). Two issue models:
// - in-order interlocked superscalar: up to issue_width ops per cycle, each op waiting for its
//   own operands and unit;
// - VLIW (vliw: true): the ops between bundle marks (Op::kBundleStart) issue together in one
//   cycle, lock-step: the bundle waits until every operand and unit of every op is ready. A
//   bundle may hold at most `slots` ops of each slot class (or issue_width ops without slot
//   classes) and at most as many ops for a unit as it has instances. Plain nops are fillers;
//   marks, DMA and synchronisation ops are not bundled: each issues alone and closes the
//   bundle before it.
//   Functional execution refuses a bundle in which an op reads a register that an earlier op
//   of the bundle writes (the hardware would read the old value).
// Every cycle of the kernel is attributed to exactly one StallReason.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "sim/core/AccessObserver.h"
#include "sim/core/DmaControl.h"
#include "sim/core/MemoryAccess.h"
#include "sim/core/SpanObserver.h"
#include "sim/core/Time.h"
#include "sim/engine/EngineConfig.h"
#include "sim/engine/FunctionalExecutor.h"
#include "sim/engine/FunctionalUnit.h"
#include "sim/engine/Scoreboard.h"
#include "sim/engine/StallBreakdown.h"
#include "sim/engine/SyncHub.h"
#include "sim/engine/Synchroniser.h"
#include "sim/ir/OpStream.h"
#include "sim/ir/OpTable.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

// Where the trace of an engine's activity goes (Chrome trace events); null = no tracing.

// A point of the stream that the schedule marked (a Nop with a nonzero tag, e.g. the end of a
// layer): the engine's accounted cycles, stall breakdown and work when it reached it.
// Bytes the engine's DMA transfers read from and wrote to each memory space (by space id).
struct DmaBytesBySpace {
    std::array<std::uint64_t, 256> read{};
    std::array<std::uint64_t, 256> written{};
};

struct EngineMark {
    std::uint32_t tag = 0;
    std::uint64_t cycle = 0;  // cycles [0, cycle) are accounted in stalls
    StallBreakdown stalls;
    double work = 0.0;
    DmaBytesBySpace dma;  // DMA bytes started before the mark
};

class Engine : public sc_core::sc_module, private FunctionalMemory, private OperandPort, private EngineClock {
public:
    SC_HAS_PROCESS(Engine);
    Engine(sc_core::sc_module_name name, EngineConfig config,
           std::vector<std::unique_ptr<FunctionalUnit>> units, SyncHub& sync);
    ~Engine() override;

    // Memories: bind memory(target socket) in any order, then map each space id to its index.
    tlm_utils::multi_passthrough_initiator_socket<Engine> memory;
    sc_core::sc_port<DmaControlIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> dma;

    void mapSpace(std::uint8_t space, unsigned socketIndex);
    // A role (a replicated memory's key, e.g. "l1") is this engine's instance of it: ops that
    // address the role reach `concrete`, which must already be mapped.
    void mapSpaceAlias(std::uint8_t alias, std::uint8_t concrete);
    // Memory names by space id, for error messages that a user can act on.
    void setSpaceNames(std::vector<std::string> names) { spaceNames_ = std::move(names); }
    void setStream(std::unique_ptr<OpStream> stream) {
        stream_ = std::move(stream);
        if (stream_)
            stream_->setEngineClock(this);
    }
    // A functional run computes values (FunctionalExecutor); without, the engine keeps none.
    void setFunctional(bool on);
    bool functional() const { return executor_ != nullptr; }
    // Multicast groups by id (index 0 unused), for the bytes each DMA transfer writes per memory.
    void setMulticastGroups(const std::vector<std::vector<std::uint8_t>>* groups) { groups_ = groups; }
    void setTrace(SpanObserver* trace) { trace_ = trace; }
    // Told of the operand reads and result writes of MAC tiles (memories report the rest).
    void setAccessObserver(AccessObserver* observer) { observer_ = observer; }
    // Every memory transaction of the engine names it with this id (AccessExtension::initiator).
    void setInitiator(std::uint16_t id) { access_.initiator = id; }

    const EngineConfig& config() const { return config_; }
    // The engine as planners see it: registers, issue model, units with their timing.
    EngineInfo describe() const;
    // Last cycle in which the engine had work (issue or completion), after the run.
    std::uint64_t finishCycle() const { return finishCycle_; }
    // Stall breakdown over [0, kernelEndCycle): the tail after finishCycle() is idle.
    StallBreakdown stalls(std::uint64_t kernelEndCycle) const;
    std::uint64_t opsIssued() const { return opsIssued_; }
    // The index in the stream of the op being issued, or waited in once the simulation stopped
    // (kNoOpIndex before the first).
    std::uint64_t currentOp() const { return access_.op; }
    // Work done (FLOP, MAC: the unit of peakWorkPerCycle()) by the ops issued.
    double workDone() const { return workDone_; }
    // Marks in stream order (per-layer results of multi-layer workloads).
    const std::vector<EngineMark>& marks() const { return marks_; }
    bool hasStream() const { return stream_ != nullptr; }
    // Peak work per cycle for the datatype(s) of the work done so far (see Engine.cpp).
    double peakWorkPerCycle() const;
    double peakWorkPerCycle(DType t) const;
    const std::vector<std::unique_ptr<FunctionalUnit>>& units() const { return units_; }
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const;

    // Functional register state (tests, checks).
    // Register values of a functional run (empty and 0 otherwise).
    const std::vector<double>& vectorRegister(unsigned r) const;
    double scalarRegister(unsigned r) const;

private:
    void run();
    void runStream();
    void runBundles();
    void issue(const Op& op, const OpDescriptor& info);  // info: opInfo(op.kind)
    void issueCompute(const Op& op, const OpDescriptor& info);
    void issueOther(const Op& op, const OpDescriptor& info);  // marks, DMA starts, sync
    void issueMemory(const Op& op, const OpDescriptor& info);
    void issueDmaStart(const Op& op);
    void issueControl(const Op& op);
    void issueBundle(const std::vector<Op>& bundle);
    void checkNoReadAfterWriteInBundle(const std::vector<Op>& bundle);
    // `info` is the op's table row (opInfo(op.kind)), looked up once per op.
    void completeCompute(const Op& op, const OpDescriptor& info, unsigned slot, std::uint64_t issueCycle,
                         const Scoreboard::Groups& group);
    void completeMemory(const Op& op, const OpDescriptor& info, unsigned slot, std::uint64_t issueCycle,
                        const Scoreboard::Groups& group);
    void waitUntil(std::uint64_t cycle, StallReason reason);
    // Accounts the cycles up to and including the issue cycle of an op.
    void accountIssue(std::uint64_t issueCycle, StallReason gapReason, StallReason opReason);
    // Whether the cycle that last issued still has a slot free (a dual-issue core's second op).
    bool issueCycleHasSlot() const {
        return slotsUsed_ > 0 && slotsUsed_ < config_.issueWidth && cycle_ == issueCycle_ + 1;
    }
    // The earliest cycle the next op can issue in: the last issue cycle while it has a slot free
    // (a VLIW bundle issues whole), else cycle_. Time is synchronised to it, never past it: an op
    // issued in a cycle the kernel has left would reach memory a cycle late, and only when a
    // quantum ended between the two ops.
    std::uint64_t nextIssueFloor() const {
        return !config_.vliw && issueCycleHasSlot() ? issueCycle_ : cycle_;
    }
    std::uint64_t reserveSlot(std::uint64_t earliest, bool bundleStart);
    unsigned pickUnit(OpKind kind, std::uint64_t& freeAt);
    Tick memoryAccess(const Op& op, Tick at, bool write, std::vector<std::uint8_t>* data);
    std::string unreachableSpace(const Op& op) const;
    void reportMacOperands(const Op& op, std::uint64_t first, std::uint64_t last);
    std::uint64_t operandAccess(const Op& op, std::uint8_t space, std::uint64_t addr, std::uint64_t bytes,
                                bool write, std::uint64_t at) override;

    void read(std::uint8_t space, std::uint64_t addr, void* data, std::uint64_t bytes) override;
    void write(std::uint8_t space, std::uint64_t addr, const void* data, std::uint64_t bytes) override;

    EngineConfig config_;
    std::vector<std::unique_ptr<FunctionalUnit>> units_;
    Synchroniser sync_;  // quantum, DMA waits, barriers, fork/join
    std::unique_ptr<OpStream> stream_;
    SpanObserver* trace_ = nullptr;
    AccessObserver* observer_ = nullptr;
    const std::vector<std::vector<std::uint8_t>>* groups_ = nullptr;

    // Unit dispatch: op kind → candidate (unit, instance) pairs with their busy-until cycle.
    struct Slot {
        unsigned unit;
        std::uint64_t freeAt = 0;
    };
    std::vector<Slot> slots_;
    std::vector<std::vector<unsigned>> slotsForKind_;  // by op kind
    std::vector<int> slotClassOfUnit_;                 // index into config_.slots, −1 without slot classes

    Scoreboard scoreboard_;

    std::array<int, 256> spaceToSocket_;
    std::array<std::uint8_t, 256> concreteSpace_;  // identity except for roles
    std::vector<std::string> spaceNames_;
    tlm::tlm_generic_payload payload_;
    AccessExtension access_;

    std::uint64_t cycle_ = 0;  // next cycle not yet accounted
    std::uint64_t localCycle() const override { return cycle_; }
    std::uint64_t cyclesFor(std::size_t reason) const override { return stalls_.cycles[reason]; }
    void synchronise() override { sync_.catchUp(cycle_); }
    std::uint64_t issueCycle_ = 0;  // cycle of the last issue
    unsigned slotsUsed_ = 0;        // ops issued in issueCycle_
    StallReason lastIssueReason_ = StallReason::Idle;
    std::uint64_t finishCycle_ = 0;
    std::uint64_t frontEndReady_ = 0;       // a taken branch's redirect: nothing issues before
    std::vector<Op> bundle_;                // VLIW: the bundle being gathered
    std::vector<std::uint64_t> bundleOps_;  // VLIW: the index of each op of bundle_ in the stream
    std::vector<char> slotTaken_;           // VLIW: unit instances taken by the bundle
    std::vector<unsigned> slotClassUse_;    // VLIW: ops of each slot class in the bundle
    struct PlannedOp {                      // VLIW: an op of the bundle, its unit and registers
        unsigned slot;
        Scoreboard::Groups group;
    };
    std::vector<PlannedOp> bundlePlan_;          // kept across bundles (no allocation per bundle)
    std::uint64_t memoryDrain_ = 0;              // cycle the last store is accepted
    std::vector<std::uint64_t> storesInFlight_;  // when each held store-buffer entry frees (store_buffer)
    // The first cycle at or after `from` when a store finds a free store-buffer entry.
    std::uint64_t storeBufferFree(std::uint64_t from);
    // The youngest store's aligned store_merge bytes (space, index) and when its entry frees: a
    // store into the same bytes joins that entry instead of taking one (store_merge).
    bool storeMerges(const Op& op) const {
        return lastStore_.valid && op.space == lastStore_.space &&
               op.addr >> config_.storeMergeShift == lastStore_.chunk;
    }
    struct LastStore {
        bool valid = false;
        std::uint8_t space = 0;
        std::uint64_t chunk = 0;
        std::uint64_t frees = 0;
    } lastStore_;
    void holdStoreEntry(const Op& op, std::uint64_t frees);
    std::uint64_t computeDrain_ = 0;  // cycle the last result without a register completes
    std::uint64_t opsIssued_ = 0;
    double workDone_ = 0.0;
    std::array<double, 6> workByDType_{};  // by DType
    std::uint64_t memoryOps_ = 0;
    std::uint64_t bytesRead_ = 0;
    std::uint64_t bytesWritten_ = 0;
    std::uint64_t dmaStarts_ = 0;
    DmaBytesBySpace dmaBytes_;
    StallBreakdown stalls_;
    std::vector<EngineMark> marks_;

    std::unique_ptr<FunctionalExecutor> executor_;  // functional runs only
    std::vector<std::uint8_t> functionalBuffer_;
};

}  // namespace tessim
