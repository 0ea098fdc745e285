// One simulation run, from names and overrides to the report: the library entry point behind
// `tessim run`, `tessim emit`, reproductions and tests. One run per process: the SystemC kernel
// cannot be elaborated twice.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/Node.h"

namespace tessim {

struct RunRequest {
    std::string target;             // name or path
    std::string workload;           // name or path (optional with a schedule file)
    std::string plan;               // name or path, optional
    std::vector<std::string> sets;  // "target.sram.size=2MiB", ...
    bool functional = false;
    std::string traceFile;        // Chrome trace-event JSON, optional
    std::string accessTraceFile;  // JSON Lines, one timed memory access per line, optional
    std::string scheduleFile;     // replay this JSONL schedule instead of generating one
};

// The three input trees after includes and --set overrides.
struct ResolvedInputs {
    config::Node target;
    config::Node workload;  // Null when absent
    config::Node plan;      // Null when absent
};
ResolvedInputs resolveInputs(const RunRequest& request);

// Runs the simulation and returns the tessim.report/1 object. Bad input throws ConfigError;
// a schedule that the target cannot execute throws std::runtime_error.
nlohmann::ordered_json runSimulation(const RunRequest& request);

// Reads and elaborates the run's inputs (target, workload, plan, --set) without simulating, so
// errors in them surface at once: the ConfigError a run would give. Once per process.
void checkRunInputs(const RunRequest& request);

// Writes the generated schedule as JSON Lines; returns the number of ops.
std::uint64_t emitSchedule(const RunRequest& request, std::ostream& out);

}  // namespace tessim
