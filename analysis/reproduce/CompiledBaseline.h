// A paper's compiler baselines (IREE, Pluto, …), which cannot run here, stood in for by a library
// program in C (workloads/programs/) compiled with a real compiler and run on the simulated chip
// with `run --program`. A paper file's `compiled_baselines:` names the program, the layers it
// runs and, per baseline, the compiler command (a Debian package's compiler, run when the
// reproduction starts); the notes show the command, so the stand-in is never mistaken for the
// original.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

namespace config {
class Reader;
}

struct CompiledBaseline {
    std::string id, what;
    std::vector<std::string> command;  // the compiler and its flags, without -o and the source
};

struct CompiledBaselines {
    std::string program;  // the name: workloads/programs/<program>.c
    std::string source;   // its path
    std::vector<std::string> layers;
    std::vector<CompiledBaseline> baselines;

    const CompiledBaseline* find(const std::string& id) const;
    // The executable's name (the program's argv[0] too): <program>-<id>.
    std::string executable(const CompiledBaseline& b) const { return program + "-" + b.id; }
    // The compile command as the notes show it (the source relative to the repository).
    std::string commandLine(const CompiledBaseline& b) const;
};

// Reads `compiled_baselines` of `r` (ConfigError at the key: a program that is not in
// workloads/programs/, an empty command, a layer `isLayer` does not know, a repeated id).
CompiledBaselines readCompiledBaselines(const config::Reader& r,
                                        const std::function<bool(const std::string&)>& isLayer);

// A folder of its own under the temporary directory, removed with the object.
class ScratchFolder {
public:
    explicit ScratchFolder(const std::string& prefix);
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Compiles the program with the baseline's command into <folder>/<executable>; returns its path.
// std::runtime_error with the compiler's own message when it fails or cannot start.
std::string compileBaseline(const CompiledBaselines& all, const CompiledBaseline& b,
                            const std::string& folder);

// The layer's time from a program run (runChildSimulation's report): the "<counter> N" line the
// program prints on stderr, in cycles of the main thread's core, at the report's clock
// (seconds / cycles). std::runtime_error when the line is missing.
double programCounterSeconds(const nlohmann::json& report, const std::string& counter,
                             const std::string& run);

}  // namespace tessim
