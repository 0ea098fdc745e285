// A kernel's work split over threads pinned to cores: each thread's engine and its contiguous
// slice of the kernel's items (outputs, elements; contiguousSlices in Slices.h), and the slices'
// echo in the resolved plan, written once for every threaded kernel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

struct ThreadSlice {
    std::string engine;
    std::uint64_t first = 0;  // first item
    std::uint64_t count = 0;  // items
};

// plan.threads (the count), plan.engines (in thread order) and plan.slices, each slice
// {firstKey: first · scale, countKey: count · scale} (scale: e.g. bytes per element).
inline void echoThreadSlices(nlohmann::ordered_json& plan, const std::vector<ThreadSlice>& threads,
                             const char* firstKey, const char* countKey, std::uint64_t scale = 1) {
    plan["threads"] = threads.size();
    nlohmann::ordered_json engines = nlohmann::ordered_json::array();
    nlohmann::ordered_json slices = nlohmann::ordered_json::array();
    for (const auto& t : threads) {
        engines.push_back(t.engine);
        slices.push_back(nlohmann::ordered_json{{firstKey, t.first * scale}, {countKey, t.count * scale}});
    }
    plan["engines"] = engines;
    plan["slices"] = slices;
}

}  // namespace tessim
