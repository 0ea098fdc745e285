#include "sim/workload/PlanEngine.h"

#include <algorithm>

#include <fmt/format.h>

namespace tessim {

std::vector<const EngineInfo*> planEngines(const config::Reader& pl, const TargetInfo& target,
                                           const std::string& countKey, unsigned defaultCount) {
    if (pl.has("engines")) {
        if (pl.has("engine"))
            pl.fail("engine", "give either 'engine' or 'engines', not both");
        std::vector<std::string> names = pl.get<std::vector<std::string>>("engines");
        if (names.empty())
            pl.fail("engines", "the engine list is empty");
        if (pl.has(countKey) && pl.get<unsigned>(countKey) != names.size())
            pl.fail(countKey, fmt::format("'{}' is {} but 'engines' names {}", countKey,
                                          pl.get<unsigned>(countKey), names.size()));
        std::vector<const EngineInfo*> engines;
        for (const auto& name : names) {
            const EngineInfo* e = target.findEngine(name);
            if (!e)
                pl.fail("engines", "target '" + target.name + "' has no engine '" + name + "'");
            if (std::find(engines.begin(), engines.end(), e) != engines.end())
                pl.fail("engines", "engine '" + name + "' is named twice");
            engines.push_back(e);
        }
        return engines;
    }
    if (defaultCount == 0 || pl.has("engine"))
        defaultCount =
            pl.has("engine")
                ? 1u
                : static_cast<unsigned>(std::count_if(target.engines.begin(), target.engines.end(),
                                                      [](const EngineInfo& e) { return e.mainCompute; }));
    const unsigned cores =
        pl.get<unsigned>(countKey, std::max(1u, defaultCount), config::Range<unsigned>{1, 4096});
    if (cores == 1)
        return {&planEngine(pl, target)};
    if (pl.has("engine"))
        pl.fail("engine", "'engine' names one engine; with '" + countKey + "' > 1 name them in 'engines'");
    std::vector<const EngineInfo*> engines;
    for (const auto& e : target.engines)
        if (e.mainCompute && engines.size() < cores)
            engines.push_back(&e);
    if (engines.size() < cores) {
        const auto available = std::count_if(target.engines.begin(), target.engines.end(),
                                             [](const EngineInfo& e) { return e.mainCompute; });
        pl.fail(countKey, fmt::format("the plan asks for {} {} but target '{}' has {} main compute engine{}",
                                      cores, countKey, target.name, available, available == 1 ? "" : "s"));
    }
    return engines;
}

}  // namespace tessim
