#include "workloads/ftm/ScalarDataMemory.h"

#include <string>

#include <fmt/format.h>

#include "workloads/common/DmaOps.h"
#include "workloads/ftm/ModuloLoop.h"

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

unsigned fetchCoefficients(const ScalarDataMemory& m, const DspConvProblem& p, unsigned core,
                           std::uint32_t tag, std::vector<Op>& out) {
    const std::uint64_t kk = p.coefficientsPerFilter() * p.elem;
    const unsigned mine = m.cache ? 0 : p.filtersOf(core);
    if (mine > 0)
        out.push_back(
            bundleStart(dmaCopy(tag, 1, {static_cast<std::uint32_t>(kk), mine, 1},
                                {p.ddr, p.ddrW + core * kk, static_cast<std::int64_t>(kk * p.cores())},
                                {m.space, 0, static_cast<std::int64_t>(kk)})));
    return mine;
}

Op coefficientLoad(const ScalarDataMemory& m, const DspConvProblem& p, unsigned core, unsigned filter,
                   std::uint64_t element, std::uint8_t dst) {
    Op ld;
    ld.kind = OpKind::ScalarLoad;
    ld.dtype = p.dtype;
    ld.dst = dst;
    ld.space = m.space;
    const std::uint64_t f = m.cache ? core + std::uint64_t{filter} * p.cores() : filter;
    ld.addr = (m.cache ? p.ddrW : 0) + (f * p.coefficientsPerFilter() + element) * p.elem;
    return bundleStart(ld);
}

}  // namespace tessim
