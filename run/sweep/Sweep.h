// `tessim sweep`: reads the sweep file, runs the points still missing from DIR (locally or over
// MPI), streams rows to DIR/results.{csv,jsonl}, then writes DIR/pareto.csv, prints a summary
// and draws the plots the file asks for.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tessim::sweep {

struct SweepOptions {
    std::string specPath;
    size_t jobs = 0;     // 0: every core this process may use
    std::string outDir;  // empty: out/sweeps/<sweep name>
    bool resume = false;
    std::optional<double> timeoutSeconds;  // overrides the file's `timeout`
    bool mpi = false;
    bool plot = false;
    /// argv prefix that runs one point; empty: this executable's `run` (/proc/self/exe run).
    /// Tests put a stand-in here; the CLI never does.
    std::vector<std::string> command;
    /// Progress bar on a terminal, plain lines otherwise; std::nullopt: isatty(2).
    std::optional<bool> terminal;
    double progressInterval = 5.0;  // seconds between plain progress lines
    /// Called with the first point's `run` arguments (after `run`) before any point runs: throws
    /// config::ConfigError for input that every point would reject (a misspelt key). Not called
    /// with a stand-in command.
    std::function<void(const std::vector<std::string>& runArgs)> checkFirstPoint;
    /// Given the base run's arguments (no swept values), a digest of the target, workload and plan
    /// they resolve to: part of the results' identity, so --resume refuses rows made from files
    /// that have changed since. Not called with a stand-in command.
    std::function<std::string(const std::vector<std::string>& runArgs)> inputsDigest;
};

/// Exit status: 0 every point ok, 1 some point failed or timed out (or a plot failed),
/// 130 interrupted. A bad sweep file throws config::ConfigError; other unusable input
/// (results of another sweep in DIR, --mpi without MPI) throws std::runtime_error.
int runSweep(const SweepOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tessim::sweep
