// A simulated chip, as the run pipeline sees it: engines to feed with op streams, memories to
// initialise and read back in functional runs, statistics and energy to collect.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/energy/EnergyLedger.h"
#include "sim/engine/Engine.h"
#include "sim/machine/TargetInfo.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

struct LevelTraffic {
    std::string level;
    std::uint64_t read = 0;
    std::uint64_t write = 0;
    // What was requested: less than read/write (whole bursts on the bus) when accesses do not
    // fill their bursts.
    std::uint64_t usefulRead = 0;
    std::uint64_t usefulWrite = 0;
};

class Target {
public:
    virtual ~Target() = default;
    virtual const TargetInfo& info() const = 0;
    virtual std::vector<Engine*> engines() = 0;
    virtual Engine* findEngine(const std::string& name) = 0;
    virtual void setFunctional(bool on) = 0;
    virtual void setTrace(TraceSink* trace) = 0;
    // Byte access to memory spaces' backing stores (functional initialisation and checks).
    virtual FunctionalMemory& functionalMemory() = 0;
    // Tick by which every engine and DMA transfer has finished.
    virtual Tick kernelEnd() const = 0;
    virtual std::vector<LevelTraffic> traffic() const = 0;
    // Bytes an ideal interface moved to or from memory space `memory` outside the simulation:
    // counted in traffic and energy, not in timing. Throws when the target lacks the space.
    virtual void countUntimedTraffic(const std::string& memory, std::uint64_t readBytes,
                                     std::uint64_t writeBytes) = 0;
    virtual void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const = 0;
    // The resolved configuration, as the report echoes it.
    virtual nlohmann::ordered_json resolved() const = 0;
};

}  // namespace tessim
