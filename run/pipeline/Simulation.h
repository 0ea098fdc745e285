// One simulation run, from names and overrides to the report: the library entry point behind
// `tessim run`, `tessim emit`, reproductions and tests. One run per process: the SystemC kernel
// cannot be elaborated twice.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/Node.h"
#include "sim/ir/OpStream.h"

namespace tessim {

class AccessObserver;
class ConfiguredTarget;
struct TargetInfo;

struct RunRequest {
    std::string target;             // name or path
    std::string workload;           // name or path (optional with a schedule file)
    std::string plan;               // name or path, optional
    std::vector<std::string> sets;  // "target.sram.size=2MiB", ...
    bool functional = false;
    std::string traceFile;        // Chrome trace-event JSON, optional
    std::string accessTraceFile;  // JSON Lines, one timed memory access per line, optional
    std::string scheduleFile;     // replay this JSONL schedule instead of generating one
    // A RISC-V program to run in place of a workload (k1): a static ELF, its arguments, and the
    // limits that stop one that never ends (0: none).
    std::string program;
    std::vector<std::string> programArguments;
    std::string programName;  // --program-name: its argv[0] (empty: the path)
    std::uint64_t maxCycles = 0;
    double timeoutSeconds = 0;
    bool programStdoutToStderr = false;     // validate: stdout carries the command's own JSON
    std::vector<std::string> programCores;  // --cores: the cores its threads run on (empty: all)
    // Checks (`tessim validate`): told of the elaborated target; told of every timed access, in
    // place of an access trace; and a wrapper around each engine's stream, which sees every op
    // before the engine does.
    std::function<void(ConfiguredTarget& target)> onElaborated;
    AccessObserver* observer = nullptr;
    std::function<std::unique_ptr<OpStream>(const std::string& engine, std::unique_ptr<OpStream> stream,
                                            const TargetInfo& target)>
        wrapStream;
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

// Whether the run's workload is a SCALE-Sim topology (.csv): its per-layer results come from a
// trace of the run.
bool runsScaleSimTopology(const RunRequest& request);

// The exit status of the program a report is of (`--program`); nullopt for any other run.
std::optional<int> programExitStatus(const nlohmann::ordered_json& report);

// Writes the generated schedule as JSON Lines; returns the number of ops.
std::uint64_t emitSchedule(const RunRequest& request, std::ostream& out);

}  // namespace tessim
