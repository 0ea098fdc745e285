// The run report (schema tessim.report/1, see DESIGN.md) and its Markdown and CSV renderings.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/energy/EnergyLedger.h"
#include "sim/engine/StallBreakdown.h"
#include "sim/machine/LevelTraffic.h"
#include "sim/machine/TargetInfo.h"
#include "sim/stats/StatsTree.h"
#include "sim/workload/Workload.h"

namespace tessim {

struct EngineOutcome {
    std::string name;
    bool mainCompute = false;
    StallBreakdown stalls;
    double work = 0.0;
    double peakWorkPerSecond = 0.0;
};

struct RunOutcome {
    std::string targetName, workloadName, planName;
    nlohmann::ordered_json targetResolved, workloadResolved, planResolved;
    TargetInfo info;
    Tick kernelEnd = 0;
    std::vector<EngineOutcome> engines;
    std::vector<LevelTraffic> traffic;
    // Targets with caches: what the lines still dirty at the kernel's end wrote below the caches
    // (in `traffic`, and in energy), and how long that write-back took after the end.
    bool hasCaches = false;
    std::uint64_t dirtyAtEndBytes = 0;
    Tick writebackAfterEnd = 0;
    std::map<std::string, std::uint64_t> compulsory;
    std::map<std::string, std::uint64_t> compulsoryWrite;  // of `compulsory`, bytes written (where split)
    StatsTree stats;
    EnergyLedger energy;        // the whole run: the kernel and the write-back after it
    EnergyLedger kernelEnergy;  // the kernel window alone (up to kernelEnd)
    FunctionalCheck functional;
    nlohmann::ordered_json layers;        // per-layer results (array), or null: no `layers` key
    nlohmann::ordered_json notSimulated;  // operators left out (array), or null: no `not_simulated` key
    nlohmann::ordered_json profile;       // a program's functions (array), or null: no `profile` key
};

// The cache instances the engines that worked reach (a thread's own L1, its cluster's L2): the
// instances a cache level's bound counts.
std::set<std::uint8_t> cachesReached(const RunOutcome& outcome);
// The memories of `level` a bound counts: those in `reached` where the run reached any (a cache
// level), else all of them.
std::vector<const MemorySpaceInfo*>
levelInstances(const TargetInfo& info, const std::set<std::uint8_t>& reached, const std::string& level);
nlohmann::ordered_json buildReport(const RunOutcome& outcome);
// Every top-level key a report can have (tessim.report/1); a test holds buildReport to it.
const std::vector<std::string>& reportTopLevelKeys();
std::string reportToMarkdown(const nlohmann::ordered_json& report);
std::string reportToCsv(const nlohmann::ordered_json& report);

}  // namespace tessim
