// An engine: an SC_THREAD that pulls ops from its stream and issues them in order to its
// functional units, with a register scoreboard, an issue width (dual issue, VLIW bundles),
// memory accesses through TLM with annotated delays, and temporal decoupling. Every cycle of the
// kernel is attributed to exactly one StallReason.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "sim/core/DmaControl.h"
#include "sim/core/MemoryAccess.h"
#include "sim/core/Time.h"
#include "sim/engine/FunctionalUnit.h"
#include "sim/engine/StallBreakdown.h"
#include "sim/engine/SyncHub.h"
#include "sim/ir/OpStream.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

struct EngineConfig {
    std::string name;
    ClockDomain clock;
    unsigned issueWidth = 1;
    bool vliw = false;            // honour Op::kBundleStart: a bundle issues in one cycle
    unsigned registerBytes = 32;  // vector register size (VLEN / 8)
    Tick quantum = 1'000'000;     // temporal-decoupling quantum (1 µs)
    bool isMainCompute = true;    // counts for stall_fraction
};

// Where the trace of an engine's activity goes (Chrome trace events); null = no tracing.
class TraceSink;

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

class Engine : public sc_core::sc_module, private FunctionalMemory {
public:
    SC_HAS_PROCESS(Engine);
    Engine(sc_core::sc_module_name name, EngineConfig config,
           std::vector<std::unique_ptr<FunctionalUnit>> units, SyncHub& sync);
    ~Engine() override;

    // Memories: bind memory(target socket) in any order, then map each space id to its index.
    tlm_utils::multi_passthrough_initiator_socket<Engine> memory;
    sc_core::sc_port<DmaControlIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> dma;

    void mapSpace(std::uint8_t space, unsigned socketIndex);
    // Memory names by space id, for error messages that a user can act on.
    void setSpaceNames(std::vector<std::string> names) { spaceNames_ = std::move(names); }
    void setStream(std::unique_ptr<OpStream> stream) { stream_ = std::move(stream); }
    void setFunctional(bool on) { functional_ = on; }
    void setTrace(TraceSink* trace) { trace_ = trace; }
    void setInitiator(std::uint16_t id) { access_.initiator = id; }

    const EngineConfig& config() const { return config_; }
    // Last cycle in which the engine had work (issue or completion), after the run.
    std::uint64_t finishCycle() const { return finishCycle_; }
    // Stall breakdown over [0, kernelEndCycle): the tail after finishCycle() is idle.
    StallBreakdown stalls(std::uint64_t kernelEndCycle) const;
    std::uint64_t opsIssued() const { return opsIssued_; }
    // Work done (FLOP, MAC: the unit of peakWorkPerCycle()) by the ops issued.
    double workDone() const { return workDone_; }
    // Marks in stream order (per-layer results of multi-layer workloads).
    const std::vector<EngineMark>& marks() const { return marks_; }
    bool hasStream() const { return stream_ != nullptr; }
    double peakWorkPerCycle() const;
    const std::vector<std::unique_ptr<FunctionalUnit>>& units() const { return units_; }
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const;

    // Functional register state (tests, checks).
    const std::vector<double>& vectorRegister(unsigned r) const { return vregs_[r]; }
    double scalarRegister(unsigned r) const { return sregs_[r]; }

private:
    void run();
    void runStream();
    void issue(const Op& op);
    void issueCompute(const Op& op);
    void issueMemory(const Op& op);
    void issueDmaStart(const Op& op);
    void waitUntil(std::uint64_t cycle, StallReason reason);
    void synchronise();
    // Accounts the cycles up to and including the issue cycle of an op.
    void accountIssue(std::uint64_t issueCycle, StallReason gapReason, StallReason opReason);
    std::uint64_t reserveSlot(std::uint64_t earliest, bool bundleStart);
    unsigned pickUnit(OpKind kind, std::uint64_t& freeAt);
    Tick memoryAccess(const Op& op, Tick at, bool write, std::vector<std::uint8_t>* data);

    void executeFunctional(const Op& op, const std::vector<std::uint8_t>* loaded);
    void storeBytes(const Op& op, std::vector<std::uint8_t>& out) const;
    void read(std::uint8_t space, std::uint64_t addr, void* data, std::uint64_t bytes) override;
    void write(std::uint8_t space, std::uint64_t addr, const void* data, std::uint64_t bytes) override;

    EngineConfig config_;
    std::vector<std::unique_ptr<FunctionalUnit>> units_;
    SyncHub& sync_;
    std::unique_ptr<OpStream> stream_;
    bool functional_ = false;
    TraceSink* trace_ = nullptr;

    // Unit dispatch: op kind → candidate (unit, instance) pairs with their busy-until cycle.
    struct Slot {
        unsigned unit;
        std::uint64_t freeAt = 0;
    };
    std::vector<Slot> slots_;
    std::array<std::vector<unsigned>, 16> slotsForKind_;

    // Scoreboard: cycle at which each register's value is ready and who produced it.
    std::array<std::uint64_t, kRegIds> regReady_{};
    std::array<bool, kRegIds> regFromMemory_{};

    std::array<int, 256> spaceToSocket_;
    std::vector<std::string> spaceNames_;
    tlm::tlm_generic_payload payload_;
    AccessExtension access_;

    std::uint64_t cycle_ = 0;       // next cycle not yet accounted
    std::uint64_t issueCycle_ = 0;  // cycle of the last issue
    unsigned slotsUsed_ = 0;        // ops issued in issueCycle_
    StallReason lastIssueReason_ = StallReason::Idle;
    std::uint64_t finishCycle_ = 0;
    std::uint64_t memoryDrain_ = 0;   // cycle the last store is accepted
    std::uint64_t computeDrain_ = 0;  // cycle the last result without a register completes
    std::uint64_t opsIssued_ = 0;
    double workDone_ = 0.0;
    std::uint64_t memoryOps_ = 0;
    std::uint64_t bytesRead_ = 0;
    std::uint64_t bytesWritten_ = 0;
    std::uint64_t dmaStarts_ = 0;
    DmaBytesBySpace dmaBytes_;
    StallBreakdown stalls_;
    std::vector<EngineMark> marks_;
    tlm_utils::tlm_quantumkeeper quantum_;

    std::vector<std::vector<double>> vregs_;
    std::vector<std::uint8_t> functionalBuffer_;
    std::array<double, kRegIds - kScalarRegBase> sregs_{};
};

}  // namespace tessim
