// A target built entirely from YAML: memories, DMA engines and compute engines with their units,
// each a top-level key whose `impl` says what it is (`sram: {impl: scratchpad, size: 1 MiB}`,
// `core: {impl: engine, memories: [sram, ddr], dma: dma0, units: {...}}`), so --set paths read
// naturally: --set target.sram.size=2MiB.
// Chips (minimal, npu, k1, ftm2000) differ only in their YAML; this class holds no component
// logic, only construction and wiring.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/dma/DmaEngine.h"
#include "models/memory/Interconnect.h"
#include "models/memory/Memory.h"
#include "sim/config/Node.h"
#include "sim/config/Reader.h"
#include "sim/energy/EnergyLedger.h"
#include "sim/engine/Engine.h"
#include "sim/engine/SyncHub.h"
#include "sim/machine/LevelTraffic.h"
#include "sim/machine/TargetInfo.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

struct ExpandedTopology;

class ConfiguredTarget : private FunctionalMemory {
public:
    // `root` is the target's YAML tree (includes and --set overrides applied).
    explicit ConfiguredTarget(const config::Node& root);
    ~ConfiguredTarget();

    const TargetInfo& info() const { return info_; }
    std::vector<Engine*> engines();
    Engine* findEngine(const std::string& name);
    void setFunctional(bool on);
    void setTrace(SpanObserver* trace);
    FunctionalMemory& functionalMemory() { return *this; }
    // The last engine, DMA or DDR write completion (after completePostedWrites()).
    Tick kernelEnd() const;
    // Writes a DDR accepted into its posted-write queue complete only when they reach the DRAM:
    // called once the simulation has stopped, before kernelEnd() is read.
    void completePostedWrites();
    // Then the lines still dirty in caches are written back (upper levels first, as their
    // write-backs dirty the levels below), after the kernel's end: their traffic and energy count,
    // the kernel's time does not. Collect before it for the kernel window's energy alone.
    void writeBackDirtyLines();
    // Every dirty line of every cache written back from `from`, and every posted write drained:
    // when the last of them reached its memory (`from` when nothing was pending).
    Tick drainWrites(Tick from);
    bool hasCaches() const;
    // Bytes the end-of-run write-back wrote below the caches, and when it was done.
    std::uint64_t dirtyAtEndBytes() const { return dirtyAtEndBytes_; }
    Tick writebackEnd() const { return writebackEnd_; }
    // An engine whose stream never finished: what it waits for (a barrier or join that is never
    // released), and the op it waits in (its index in the engine's stream).
    struct WaitingEngine {
        std::string engine;  // as a schedule names it
        std::string waits;   // "npu.core: barrier 3 (count 2, 1 arrived)"
        std::uint64_t op;
    };
    // Once the simulation has stopped: the engines still waiting. Empty after a complete run.
    std::vector<WaitingEngine> unfinishedEngines() const;
    std::vector<LevelTraffic> traffic() const;
    void countUntimedTraffic(const std::string& memory, std::uint64_t readBytes, std::uint64_t writeBytes);
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const;
    // The target's tree as built (includes, --set and energy references resolved), and the energy
    // table it read (null without one): the run echoes them in its report.
    const config::Node& resolvedTree() const { return resolvedTree_; }
    const config::Node* resolvedEnergyTable() const { return energyTable_ ? &*energyTable_ : nullptr; }

    Memory* findMemory(const std::string& name);
    // Engines and DMA channels by initiator id (per-initiator statistics name them from here).
    const InitiatorRegistry& initiators() const { return initiators_; }
    // Every memory reports its timed accesses to `observer` (null: none).
    void setAccessObserver(AccessObserver* observer);
    // Forgets the timing state of every memory and interconnect (probes start each pattern fresh).
    void resetMemoryTiming();
    // The memory that holds the bytes of a (non-role) space: itself, or the last level behind a cache.
    std::string backingMemoryName(std::uint8_t space) { return memoryForSpace(space).name(); }

private:
    void read(std::uint8_t space, std::uint64_t addr, void* data, std::uint64_t bytes) override;
    void write(std::uint8_t space, std::uint64_t addr, const void* data, std::uint64_t bytes) override;
    Memory& memoryForSpace(std::uint8_t space);
    // Construction, in order (models/targets/Topology.h places instances, roles, groups, clusters).
    config::Node resolveEnergyTable(const config::Node& input);
    Tick readSettings(config::Reader& r);  // name, clock; returns the quantum
    struct ComponentKeys {
        std::vector<std::string> memories, dma, interconnects, engines;
    };
    static ComponentKeys componentKeys(const config::Reader& r, const config::Node& root,
                                       const ExpandedTopology& topology);
    void buildMemories(const config::Reader& r, const ExpandedTopology& topology,
                       const std::vector<std::string>& keys);
    void buildDmaEngines(const config::Reader& r, const std::vector<std::string>& keys);
    void buildEngines(const config::Reader& r, const ExpandedTopology& topology,
                      const std::vector<std::string>& keys, Tick quantum);
    template <class Initiator>
    std::vector<std::uint8_t> connect(config::Reader& owner, const std::string& key, Initiator& initiator);
    // Interconnects, `via:` and cache `next:` levels (models/memory).
    void wireMemoryLevels(const config::Reader& r, const std::vector<std::string>& interconnectKeys,
                          const std::vector<std::string>& memoryKeys);

    // Gives each engine and each DMA channel its initiator id, and the memories the registry.
    void assignInitiators();

    TargetInfo info_;
    InitiatorRegistry initiators_;
    SyncHub sync_;
    std::vector<std::unique_ptr<Memory>> memories_;  // index = space id
    std::vector<std::unique_ptr<DmaEngine>> dmaEngines_;
    std::vector<std::unique_ptr<Interconnect>> interconnects_;
    std::vector<Interconnect*> via_;  // per space: the interconnect in front, or null
    std::vector<std::uint8_t> backingSpace_;
    std::vector<std::vector<std::uint8_t>> groupMembers_;  // by multicast group id (0 unused)  // per space:
                                                           // itself, or the last level of its cache chain
    std::vector<std::unique_ptr<Engine>> engines_;
    config::Node resolvedTree_;
    std::optional<config::Node> energyTable_;
    Tick postedWritesEnd_ = 0;
    std::uint64_t dirtyAtEndBytes_ = 0;
    Tick writebackEnd_ = 0;
};

}  // namespace tessim
