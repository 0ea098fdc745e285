#include "workloads/ftm/DspConvMemories.h"

#include <fmt/format.h>

namespace tessim {
namespace {

// A per-core role's size is that of its instances.
std::uint64_t sizeOf(const MemorySpaceInfo& space, const TargetInfo& target) {
    return space.role && !space.instances.empty() ? target.spaces[space.instances[0]].size : space.size;
}

}  // namespace

DspConvMemories findDspConvMemories(config::Reader& plan, const TargetInfo& target, DspConvProblem& p) {
    DspConvMemories m;
    const MemorySpaceInfo* am = target.findSpace("am");
    const MemorySpaceInfo* sm = target.findSpace("sm");
    const MemorySpaceInfo* ddr = target.findSpace("ddr");
    if (!am || !sm || !ddr)
        plan.fail("strategy", fmt::format("target '{}' lacks memories am, sm and ddr", target.name));
    m.am = am;
    m.scalarMemory = readScalarDataMemory(plan, target);
    p.ddr = ddr->id;
    p.ddrBytesPerSecond = ddr->peakBandwidth;
    p.amBytesPerSecond = am->peakBandwidth;
    p.ddrBurstBytes = ddr->burstBytes;
    if (const EngineInfo* e = p.engines.empty() ? nullptr : target.findEngine(p.engines.front()))
        p.clockHz = e->clock.hz();
    if (p.cores() > 1) {
        const MulticastGroupInfo* g = target.findGroup("all_am");
        if (!g)
            plan.fail("cores", fmt::format("target '{}' has no multicast group all_am", target.name));
        m.group = g->id;
    }
    m.amSize = sizeOf(*am, target);
    const std::uint64_t smSize = sizeOf(*sm, target);
    const std::uint64_t smNeed = std::uint64_t{p.maxFiltersPerCore()} * p.coefficientsPerFilter() * p.elem;
    if (!m.scalarMemory.cache && smNeed > smSize)
        plan.fail("cores",
                  fmt::format("{} filters of {}×{}×{} per core need {} B of SM, which holds {} B",
                              p.maxFiltersPerCore(), p.channels, p.kh, p.kw, smNeed, smSize),
                  config::Shortfall::Capacity);
    return m;
}

}  // namespace tessim
