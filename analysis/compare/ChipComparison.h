// `tessim compare --workload MODEL --targets k1,ftm2000,npu`: one model on several chips, each run
// as its own `tessim run` process (in parallel), side by side per layer and in total: time,
// energy, DDR bytes, the compute bound and the share of peak compute it reaches, what limits it
// (compute or the DDR), and the best chip per layer.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

struct CompareRequest {
    std::string workload;
    std::string plan;                  // optional: one plan for every chip
    std::vector<std::string> targets;  // names or paths
    // `key=value` for every chip, or `TARGET:key=value` for the chip named TARGET only.
    std::vector<std::string> sets;
    unsigned jobs = 1;
    double timeoutSeconds = 0.0;  // per chip; 0: none
};

// The comparison (schema tessim.compare/1). A chip that cannot run the model carries its error;
// std::invalid_argument (exit 2) when no chip runs it, with every chip's error.
nlohmann::ordered_json compareChips(const CompareRequest& request);

std::string comparisonMarkdown(const nlohmann::ordered_json& comparison);
std::string comparisonCsv(const nlohmann::ordered_json& comparison);

}  // namespace tessim
