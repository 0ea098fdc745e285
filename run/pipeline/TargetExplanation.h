// `tessim explain TARGET`: a target as the simulator builds it, before any run — its engines and
// memories (instances, roles, clusters), the peaks and bandwidth bounds they give, every parameter
// of its YAML with the source its comment names, and warnings for values that lack one or look
// wrong.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

// {"schema": "tessim.explain/1", "target", "description", "clock_hz", "peaks", "engines",
//  "memories", "clusters", "dma_engines", "multicast_groups", "parameters", "warnings",
//  "resolved"}; SI units. Bad input throws as a run would (config::ConfigError).
nlohmann::ordered_json explainTarget(const std::string& target, const std::vector<std::string>& sets);

std::string explanationToMarkdown(const nlohmann::ordered_json& explanation);

}  // namespace tessim
