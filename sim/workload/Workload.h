// A kernel schedule generator bound to a workload (shapes) and a plan (tiling, strategy): it
// yields one lazily generated op stream per engine, the compulsory traffic that bounds the
// schedule, and, for functional runs, the input data and the reference check.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/FunctionalMemory.h"
#include "sim/core/SpanObserver.h"
#include "sim/core/Time.h"
#include "sim/ir/OpStream.h"
#include "sim/machine/TargetInfo.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

struct FunctionalCheck {
    bool checked = false;
    std::uint64_t elements = 0;
    std::uint64_t mismatches = 0;
    double maxAbsError = 0.0;
    std::string firstMismatch;  // where and what, for the report
    // Where the first differing output lies (memory space id and byte address), so that a validator
    // can name who wrote it; set only where a kernel knows it.
    bool firstMismatchLocated = false;
    std::uint8_t firstMismatchSpace = 0;
    std::uint64_t firstMismatchAddress = 0;

    // One output against its reference: counted, its absolute error kept; `mismatch` is the
    // kernel's own verdict (exact, or within its tolerance). True for the first mismatch only:
    // the caller then describes it (firstMismatch) and locates it.
    bool countOutput(double got, double want, bool mismatch) {
        ++elements;
        maxAbsError = std::max(maxAbsError, std::fabs(got - want));
        return mismatch && mismatches++ == 0;
    }

    void locateFirstMismatch(std::uint8_t space, std::uint64_t address) {
        firstMismatchLocated = true;
        firstMismatchSpace = space;
        firstMismatchAddress = address;
    }
};

// Traffic a workload's ideal interface moves to or from one memory space without simulated
// accesses (SCALE-Sim's CALC interface): counted in traffic_bytes and energy, not in time.
struct UntimedTraffic {
    std::string memory;  // memory space name
    std::uint64_t readBytes = 0, writeBytes = 0;
};

class Workload {
public:
    virtual ~Workload() = default;
    // Workload and plan as used, with automatic choices made explicit.
    virtual nlohmann::ordered_json resolvedWorkload() const = 0;
    virtual nlohmann::ordered_json resolvedPlan() const = 0;
    // One stream per engine that takes part; engines not named stay idle.
    virtual std::vector<EngineStream> streams() = 0;
    // The streams mark their own VLIW bundles (Op::kBundleStart). Others are written for a
    // single-issue core, and the run packs them for a VLIW engine (BundlePacker).
    virtual bool formsBundles() const { return false; }
    // Bytes that any schedule must move at each level (inputs read once, outputs written once).
    virtual std::map<std::string, std::uint64_t> compulsoryBytes() const = 0;
    // Of those, the bytes it must write (outputs once): a level whose stores take its port longer
    // than its reads (a cache's `store_bytes_per_cycle`) bounds them at its store rate. A level not
    // named: not split (every byte at the level's peak, a looser bound).
    virtual std::map<std::string, std::uint64_t> compulsoryWriteBytes() const { return {}; }
    // Bytes it must read that start in main memory, with every cache cold: each passes every level
    // behind a cache its ops address at least once, which gives those levels their bounds. 0 when
    // the workload does not say (no bound is derived for the levels behind).
    virtual std::uint64_t coldReadBytes() const { return 0; }
    // Traffic moved outside the simulated accesses (see UntimedTraffic); most kernels move none.
    virtual std::vector<UntimedTraffic> untimedTraffic() const { return {}; }
    // Functional runs: write inputs into the target's memories, then check outputs afterwards.
    virtual void initialise(FunctionalMemory& memory) = 0;
    virtual FunctionalCheck check(FunctionalMemory& memory) = 0;
    // An analytical estimate of the run's seconds from the plan (its loops and the bytes it moves),
    // for choosing between kernels that could run the same layer; 0: the kernel gives none. Never
    // a result: the simulation gives those.
    virtual double estimatedSeconds() const { return 0.0; }
    // Per-layer results for multi-layer workloads (empty for single kernels).
    virtual bool multiLayer() const { return false; }
    // Multi-layer workloads whose streams mark the end of each layer (a Nop with a nonzero tag,
    // issued once every op and DMA of the layer has completed; see EngineMark): one object per
    // layer, in order, with `name`, `mark` (that tag) and `engine` (the engine that issues it),
    // plus whatever the workload reports per layer. Asked after the run; the run adds the
    // layer's cycles, seconds and stall fraction from the marks. Empty: no `layers` in the report.
    virtual nlohmann::ordered_json layers() const { return nlohmann::ordered_json::array(); }
    // Work of the input model that this schedule leaves out (operators the target cannot run), one
    // object per operator with `op`, `node`, `flops`, `bytes` and `reason`; null: nothing left out,
    // no `not_simulated` in the report.
    virtual nlohmann::ordered_json notSimulated() const { return nullptr; }
    // A program's per-function profile (one object per function: `function`, `instructions`,
    // `cycles`, ...), given the run's end; null: no `profile` in the report.
    virtual nlohmann::ordered_json profile(Tick kernelEnd) const {
        (void)kernelEnd;
        return nullptr;
    }
    // --trace: spans of the workload's own (a program's functions), told before the run; the
    // last ones are told by profile(), at the run's end.
    virtual void setTrace(SpanObserver* trace) { (void)trace; }
    // Figures of the workload itself (bytes per cycle of a memory kernel, ...) added to the
    // report's stats after the run; `cycles` are the main clock's. Most kernels add none.
    virtual void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const {
        (void)stats;
        (void)cycles;
        (void)seconds;
    }
};

}  // namespace tessim
