#include "analysis/reproduce/CompiledBaseline.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "run/pipeline/ConfigLibrary.h"
#include "run/sweep/ProcessPool.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Reader.h"

namespace tessim {

namespace fs = std::filesystem;

const CompiledBaseline* CompiledBaselines::find(const std::string& id) const {
    for (const auto& b : baselines)
        if (b.id == id)
            return &b;
    return nullptr;
}

std::string CompiledBaselines::commandLine(const CompiledBaseline& b) const {
    std::string line;
    for (const auto& word : b.command)
        line += word + " ";
    return line + "-o " + executable(b) + " workloads/programs/" + program + ".c";
}

CompiledBaselines readCompiledBaselines(const config::Reader& r,
                                        const std::function<bool(const std::string&)>& isLayer) {
    using namespace config;
    CompiledBaselines all;
    Reader c = r.child("compiled_baselines");
    all.program = c.get<std::string>("program");
    all.source = (fs::path(programDirectory()) / (all.program + ".c")).string();
    if (all.program.find('/') != std::string::npos || !fs::is_regular_file(all.source))
        c.fail("program",
               "no program '" + all.program + "' in " + programDirectory() + " (a C file, named without .c)");
    for (const auto& item : c.node("layers").items()) {
        if (!item.isScalar() || !isLayer(item.scalar()))
            throw ConfigError(item.location(), c.path() + ".layers",
                              "no layer '" + (item.isScalar() ? item.scalar() : std::string()) +
                                  "' in 'layers'");
        all.layers.push_back(item.scalar());
    }
    if (all.layers.empty())
        c.fail("layers", "expected at least one layer id");
    std::set<std::string> ids;
    for (Reader b : c.children("compilers")) {
        CompiledBaseline baseline;
        baseline.id = b.get<std::string>("id");
        if (baseline.id.empty() || baseline.id.find_first_of("/ ") != std::string::npos)
            b.fail("id", "expected a name without spaces or '/'");
        if (!ids.insert(baseline.id).second)
            b.fail("id", "'" + baseline.id + "' is named twice");
        baseline.what = b.get<std::string>("what");
        baseline.command = b.get<std::vector<std::string>>("command");
        if (baseline.command.empty())
            b.fail("command", "expected the compiler and its flags, e.g. [clang-14, -O3]");
        b.finish();
        all.baselines.push_back(std::move(baseline));
    }
    if (all.baselines.empty())
        c.fail("compilers", "expected at least one compiler");
    c.finish();
    return all;
}

ScratchFolder::ScratchFolder(const std::string& prefix) {
    std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
        throw std::runtime_error("cannot create a scratch folder '" + pattern + "'");
    path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
    std::error_code e;
    fs::remove_all(path_, e);
}

std::string compileBaseline(const CompiledBaselines& all, const CompiledBaseline& b,
                            const std::string& folder) {
    const std::string out = (fs::path(folder) / all.executable(b)).string();
    std::vector<std::string> argv = b.command;
    argv.insert(argv.end(), {"-o", out, all.source});
    const sweep::ProcessResult r = sweep::runProcess(argv);
    if (!r.startError.empty() || r.exitCode != 0)
        throw std::runtime_error(fmt::format(
            "compiled baseline '{}': `{}` failed ({}); the RISC-V compilers are Debian packages that "
            "bash .ci/setup installs\n{}",
            b.id, all.commandLine(b),
            r.startError.empty() ? fmt::format("exit {}", r.exitCode) : r.startError, r.err));
    return out;
}

double programCounterSeconds(const nlohmann::json& report, const std::string& counter,
                             const std::string& run) {
    std::istringstream err(report.value("program_stderr", std::string()));
    for (std::string line; std::getline(err, line);) {
        std::istringstream fields(line);
        std::string key;
        double cycles = 0;
        if (fields >> key >> cycles && key == counter) {
            const double total = report.at("cycles").get<double>();
            if (total <= 0)
                break;
            return cycles * report.at("seconds").get<double>() / total;
        }
    }
    throw std::runtime_error(
        fmt::format("run '{}': the program printed no '{} N' line on stderr", run, counter));
}

}  // namespace tessim
