// Sub-commands of the `tessim` executable. Each lives in its own file and registers itself on
// the CLI11 app; its callback stores the process exit code (0 ok, 1 invalid/failed, 2 usage or
// config error) in commandExitCode().
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace tessim::cli {

int& commandExitCode();

// Runs a command body; bad input (ConfigError) and failures print one message on stderr and set
// exit code 2. Bodies write to stdout only once their result is complete, so an error never
// leaves output that looks finished.
void runGuarded(const std::function<void()>& body);

// --timeout's check: a positive, finite number of seconds (NaN and infinity would mean no limit).
CLI::Validator positiveSeconds();
// A file or directory option's check: an empty path is refused (it would silently mean "none").
CLI::Validator nonEmptyPath(const std::string& what);

void addRunCommands(CLI::App& app);       // run, emit
void addValidateCommand(CLI::App& app);   // schedule checks
void addListCommand(CLI::App& app);       // list targets|workloads|plans|papers
void addBenchCommand(CLI::App& app);      // simulator speed figures
void addProbeCommand(CLI::App& app);      // memory micro-patterns
void addSweepCommand(CLI::App& app);      // parallel, resumable sweeps
void addPlotCommand(CLI::App& app);       // PNG/SVG from sweep results
void addReproduceCommand(CLI::App& app);  // published claims vs simulation
void addDseCommand(CLI::App& app);        // tensor-train design-space exploration
void addTnCommand(CLI::App& app);         // tensor-train / tensor-ring layers and models
void addDiffCommand(CLI::App& app);       // deltas between two reports or sweeps
void addExplainCommand(CLI::App& app);    // a target as built, its peaks and sources
void addCompareCommand(CLI::App& app);    // one model on several chips side by side

}  // namespace tessim::cli
