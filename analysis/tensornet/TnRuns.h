// Simulations of TT / TR layers and their dense baselines: run in parallel as child processes, each
// report reduced to the time, cycles and energy a comparison needs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/reproduce/Reproduction.h"

namespace tessim::tn {

struct Measurement {
    double seconds = 0.0;
    double energyJ = 0.0;
    std::uint64_t cycles = 0;
};

// From a tessim.report/1 object (std::runtime_error when a key is missing).
Measurement measure(const nlohmann::json& report);

// The description of a run (target, workload, plan, overrides): equal keys simulate alike.
std::string runKey(const ReproRun& run);

// Runs every run (names unique), `jobs` at a time (0: every core); measurements by run name. Runs
// of equal description are simulated once and share the measurement.
// The first failure is rethrown as std::runtime_error after the others finish.
std::map<std::string, Measurement> runMeasured(const std::vector<ReproRun>& runs, const ReproRunner& runner,
                                               unsigned jobs);

}  // namespace tessim::tn
