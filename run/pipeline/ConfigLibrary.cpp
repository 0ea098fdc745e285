#include "run/pipeline/ConfigLibrary.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "sim/config/ConfigError.h"
#include "sim/config/EditDistance.h"
#include "sim/config/Loader.h"
#include "workloads/KernelRegistry.h"

namespace fs = std::filesystem;

namespace tessim {
namespace {

const char* kindName(LibraryKind kind) {
    switch (kind) {
    case LibraryKind::Target: return "target";
    case LibraryKind::Workload: return "workload";
    case LibraryKind::Plan: return "plan";
    case LibraryKind::Paper: return "paper";
    case LibraryKind::Sweep: return "sweep";
    }
    return "?";
}

[[noreturn]] void commandLineError(const std::string& message) {
    throw config::ConfigError({"<command line>", 0, 0}, "", message);
}

// `nameOrPath` when it names an existing file or looks like a path (has '/' or an extension);
// nothing when it is a library name.
std::optional<std::string> asPath(LibraryKind kind, const std::string& nameOrPath) {
    if (nameOrPath.empty())
        commandLineError(std::string("empty ") + kindName(kind) + " name");
    fs::path p(nameOrPath);
    bool looksLikePath = nameOrPath.find('/') != std::string::npos || p.has_extension();
    if (!fs::is_regular_file(p) && !looksLikePath)
        return std::nullopt;
    if (!fs::is_regular_file(p)) {
        // Say what it is instead: a directory or a device is not a configuration file.
        std::error_code ec;
        const fs::file_status st = fs::status(p, ec);
        const std::string what = fs::is_directory(st) ? "is a directory"
                                 : fs::exists(st) && !fs::is_regular_file(st)
                                     ? "is not a regular file (a device, pipe or socket)"
                                     : "does not exist";
        commandLineError(std::string(kindName(kind)) + " file '" + nameOrPath + "' " + what +
                         "; give a YAML file or a name from `tessim list " + kindName(kind) + "s`");
    }
    return p.string();
}

// The YAML files of one folder, sorted by name, each named `prefix` + its stem.
void listYamlFiles(const fs::path& dir, const std::string& prefix, std::vector<LibraryEntry>& out) {
    std::vector<LibraryEntry> found;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".yaml")
            continue;
        LibraryEntry e{prefix + entry.path().stem().string(), entry.path().string(), ""};
        try {
            config::Node n = config::loadYamlFile(e.path);
            if (const auto* d = n.find("description"); d && d->isScalar())
                e.description = d->scalar();
        } catch (const config::ConfigError& err) {
            e.description = std::string("(invalid: ") + err.what() + ")";
        }
        found.push_back(e);
    }
    std::sort(found.begin(), found.end(),
              [](const LibraryEntry& a, const LibraryEntry& b) { return a.name < b.name; });
    out.insert(out.end(), found.begin(), found.end());
}

std::string joined(const std::vector<std::string>& items) {
    std::string s;
    for (const auto& i : items)
        s += (s.empty() ? "" : ", ") + i;
    return s.empty() ? "none" : s;
}

// The plans of one plan directory, by bare name.
std::vector<std::string> plansIn(const std::string& directory) {
    std::vector<std::string> names;
    for (const auto& e : listLibrary(LibraryKind::Plan))
        if (e.name.rfind(directory + "/", 0) == 0)
            names.push_back(e.name.substr(directory.size() + 1));
    return names;
}

// "conv2d, onnx" or "fc/tt": the kernels (their rows, where a kernel has several directories)
// whose plans live in `directory`.
std::string kernelsUsing(const std::string& directory) {
    std::vector<std::string> names;
    for (const auto& k : kernelRegistry()) {
        if (k.planDirectory != directory)
            continue;
        bool oneDirectory = true;
        for (const auto& other : kernelRegistry())
            oneDirectory = oneDirectory && (other.name != k.name || other.planDirectory == directory);
        const std::string name = oneDirectory ? k.name : k.rowName();
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names.empty() ? directory : joined(names);
}

// The plan directories of the rows that can serve `workload`, each once.
std::vector<std::string> planDirectoriesFor(const config::Node& workload) {
    std::vector<std::string> dirs;
    for (const KernelEntry* k : kernelRowsFor(workload))
        if (!k->planDirectory.empty() && std::find(dirs.begin(), dirs.end(), k->planDirectory) == dirs.end())
            dirs.push_back(k->planDirectory);
    return dirs;
}

}  // namespace

std::string libraryDirectory(LibraryKind kind) {
    const char* env = std::getenv("TESSIM_CONFIG_DIR");
    fs::path configs = env && *env ? fs::path(env) : fs::path(TESSIM_CONFIG_DIR);
    switch (kind) {
    case LibraryKind::Target: return (configs / "targets").string();
    case LibraryKind::Plan: return (configs / "plans").string();
    case LibraryKind::Paper: return (configs / "papers").string();
    case LibraryKind::Sweep: return (configs / "sweeps").string();
    case LibraryKind::Workload: {
        const char* w = std::getenv("TESSIM_WORKLOAD_DIR");
        return w && *w ? std::string(w) : (configs.parent_path() / "workloads" / "library").string();
    }
    }
    return configs.string();
}

std::string programDirectory() {
    const char* env = std::getenv("TESSIM_CONFIG_DIR");
    const fs::path configs = env && *env ? fs::path(env) : fs::path(TESSIM_CONFIG_DIR);
    return (configs.parent_path() / "workloads" / "programs").string();
}

std::string resolveLibraryPath(LibraryKind kind, const std::string& nameOrPath) {
    if (auto path = asPath(kind, nameOrPath))
        return *path;
    fs::path candidate = fs::path(libraryDirectory(kind)) / (nameOrPath + ".yaml");
    if (fs::is_regular_file(candidate))
        return candidate.string();
    std::vector<std::string> known;
    for (const auto& e : listLibrary(kind))
        known.push_back(e.name);
    // A name that is also a folder (or a device) in the working directory: say what it is rather
    // than only that no library entry has the name (a regular file was taken as a path above).
    std::error_code ec;
    const auto status = fs::status(nameOrPath, ec);
    const std::string here = fs::is_directory(status) ? "a directory, not a configuration file"
                             : fs::exists(status)     ? "not a regular file (a device, pipe or socket)"
                                                      : "";
    commandLineError(std::string("no ") + kindName(kind) + " named '" + nameOrPath + "'" +
                     config::didYouMean(nameOrPath, known) + " (known: " + joined(known) + ")" +
                     (here.empty() ? "" : "; '" + nameOrPath + "' here is " + here));
}

std::string resolvePlanPath(const std::string& nameOrPath, const config::Node& workload) {
    const fs::path plans = libraryDirectory(LibraryKind::Plan);
    // "<directory>/<plan>": a plan of the library named with its directory.
    const auto slash = nameOrPath.find('/');
    if (slash != std::string::npos && !fs::path(nameOrPath).has_extension() && !fs::exists(nameOrPath)) {
        const std::string dir = nameOrPath.substr(0, slash);
        if (fs::is_regular_file(plans / (nameOrPath + ".yaml")))
            return (plans / (nameOrPath + ".yaml")).string();
        if (fs::is_directory(plans / dir))
            commandLineError("no plan named '" + nameOrPath.substr(slash + 1) + "' in " +
                             (plans / dir).string() + "/" +
                             config::didYouMean(nameOrPath.substr(slash + 1), plansIn(dir)) +
                             " (its plans: " + joined(plansIn(dir)) + ")");
    }
    if (auto path = asPath(LibraryKind::Plan, nameOrPath))
        return *path;
    // The plan directories that hold a plan of this name.
    std::vector<std::string> homes;
    for (const auto& e : listLibrary(LibraryKind::Plan)) {
        const auto slash = e.name.rfind('/');
        if (slash != std::string::npos && e.name.substr(slash + 1) == nameOrPath)
            homes.push_back(e.name.substr(0, slash));
    }
    const std::vector<const KernelEntry*> rows = kernelRowsFor(workload);
    if (!rows.empty()) {
        const std::vector<std::string> dirs = planDirectoriesFor(workload);
        for (const auto& dir : dirs)
            if (std::find(homes.begin(), homes.end(), dir) != homes.end())
                return (plans / dir / (nameOrPath + ".yaml")).string();
        std::string message = "kernel '" + rows.front()->name + "' has no plan named '" + nameOrPath + "' (";
        if (dirs.empty())
            message += "it takes no plans";
        for (std::size_t i = 0; i < dirs.size(); ++i)
            message += (i ? "; " : "") + std::string("its plans, in ") + (plans / dirs[i]).string() +
                       "/: " + joined(plansIn(dirs[i]));
        for (const auto& home : homes)
            message += "; '" + nameOrPath + "' is a plan of " + kernelsUsing(home) + " (" + home + "/" +
                       nameOrPath + ")";
        commandLineError(message + ")");
    }
    // No kernel to go by (no workload, or a kernel the registry lacks, which makeWorkload reports).
    if (homes.size() == 1)
        return (plans / homes[0] / (nameOrPath + ".yaml")).string();
    std::vector<std::string> qualified;
    for (const auto& home : homes)
        qualified.push_back(home + "/" + nameOrPath);
    if (!homes.empty())
        commandLineError("plan '" + nameOrPath + "' exists for several kernels (" + joined(qualified) +
                         "): give --workload or name one as <directory>/<plan>");
    std::vector<std::string> known;
    for (const auto& e : listLibrary(LibraryKind::Plan))
        known.push_back(e.name);
    commandLineError("no plan named '" + nameOrPath + "'" + config::didYouMean(nameOrPath, known) +
                     " (known: " + joined(known) + ")");
}

std::string libraryPlanForStrategy(const std::string& strategy, const config::Node& workload) {
    if (strategy.find_first_of("/.") != std::string::npos)
        return "";
    for (const auto& dir : planDirectoriesFor(workload)) {
        const fs::path path = fs::path(libraryDirectory(LibraryKind::Plan)) / dir / (strategy + ".yaml");
        if (!fs::is_regular_file(path))
            continue;
        const config::Node plan = config::loadYamlFile(path.string());
        const config::Node* own = plan.isMap() ? plan.find("strategy") : nullptr;
        if (own && own->isScalar() && own->scalar() == strategy)
            return path.string();
    }
    return "";
}

std::vector<LibraryEntry> listLibrary(LibraryKind kind) {
    std::vector<LibraryEntry> out;
    fs::path dir = libraryDirectory(kind);
    if (!fs::is_directory(dir))
        return out;
    if (kind != LibraryKind::Plan) {
        listYamlFiles(dir, "", out);
        return out;
    }
    std::vector<fs::path> directories;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_directory())
            directories.push_back(entry.path());
    std::sort(directories.begin(), directories.end());
    for (const auto& d : directories)
        listYamlFiles(d, d.filename().string() + "/", out);
    return out;
}

std::vector<KernelListing> listKernels() {
    std::vector<KernelListing> kernels;
    for (const auto& k : kernelRegistry()) {
        // What picks the row among its kernel's rows.
        std::string selectedBy;
        if (!k.workloadKeys.empty()) {
            std::vector<std::string> keys;
            for (const auto& key : k.workloadKeys)
                keys.push_back(key + ":");
            selectedBy = "[workload with " + joined(keys) + "] ";
        } else if (!k.strategies.empty()) {
            selectedBy = "[plan strategy " + joined(k.strategies) + "] ";
        }
        kernels.push_back({k.rowName(), k.planDirectory, selectedBy + k.description});
    }
    return kernels;
}

}  // namespace tessim
