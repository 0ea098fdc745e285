#include "workloads/ftm/ScalarDataMemory.h"

#include <string>

#include <fmt/format.h>

namespace tessim {

ScalarDataMemory readScalarDataMemory(config::Reader& plan, const TargetInfo& target) {
    const MemorySpaceInfo* l1d = target.findSpace("l1d");
    const MemorySpaceInfo* sm = target.findSpace("sm");
    const std::string mode = plan.oneOf("l1d", {"sram", "cache"}, std::string(l1d ? "cache" : "sram"));
    ScalarDataMemory m;
    m.cache = mode == "cache";
    if (m.cache && !l1d)
        plan.fail("l1d", fmt::format("target '{}' has no l1d cache (the cache mode runs on target "
                                     "ftm2000-l1d-cache)",
                                     target.name));
    if (!m.cache && !sm)
        plan.fail("l1d", fmt::format("target '{}' has no sm (the L1D's SRAM mode)", target.name));
    m.space = m.cache ? l1d->id : sm->id;
    return m;
}

}  // namespace tessim
