// `tessim probe ddr|cache|sram`: micro-patterns (latency, streaming bandwidth, row or set
// behaviour) and request streams on one of a target's memories, or on a DDR memory alone.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/memory/MemoryProbe.h"

namespace tessim {

struct MemoryProbeRequest {
    std::string kind;                    // ddr, cache or sram
    std::string target;                  // name or YAML path; empty: a DDR memory alone, named by `memory`
    std::string memory;                  // with a target: which memory of that kind (default: the first);
                                         // without: a DDR YAML file or parameter-set name
    std::vector<std::string> sets;       // target.<key>=<value> overrides
    ProbeOptions options;                // outstanding requests, request and stream bytes
    std::vector<DdrStreamSpec> streams;  // request streams (ddr only)
};

// One tessim.probe/1 object; bad input throws (ConfigError or std::runtime_error).
nlohmann::ordered_json probeMemory(const MemoryProbeRequest& request);

}  // namespace tessim
