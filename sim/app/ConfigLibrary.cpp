#include "sim/app/ConfigLibrary.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"

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

std::string resolveLibraryPath(LibraryKind kind, const std::string& nameOrPath) {
    if (nameOrPath.empty())
        throw config::ConfigError({"<command line>", 0, 0}, "",
                                  std::string("empty ") + kindName(kind) + " name");
    fs::path p(nameOrPath);
    bool looksLikePath = nameOrPath.find('/') != std::string::npos || p.has_extension();
    if (fs::is_regular_file(p) || looksLikePath) {
        if (!fs::is_regular_file(p))
            throw config::ConfigError({"<command line>", 0, 0}, "",
                                      std::string(kindName(kind)) + " file '" + nameOrPath +
                                          "' does not exist");
        return p.string();
    }
    fs::path candidate = fs::path(libraryDirectory(kind)) / (nameOrPath + ".yaml");
    if (fs::is_regular_file(candidate))
        return candidate.string();
    std::string known;
    for (const auto& e : listLibrary(kind))
        known += (known.empty() ? "" : ", ") + e.name;
    throw config::ConfigError({"<command line>", 0, 0}, "",
                              std::string("no ") + kindName(kind) + " named '" + nameOrPath +
                                  "' (known: " + (known.empty() ? "none" : known) + ")");
}

std::vector<LibraryEntry> listLibrary(LibraryKind kind) {
    std::vector<LibraryEntry> out;
    fs::path dir = libraryDirectory(kind);
    if (!fs::is_directory(dir))
        return out;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".yaml")
            continue;
        LibraryEntry e{entry.path().stem().string(), entry.path().string(), ""};
        try {
            config::Node n = config::loadYamlFile(e.path);
            if (const auto* d = n.find("description"); d && d->isScalar())
                e.description = d->scalar();
        } catch (const config::ConfigError& err) {
            e.description = std::string("(invalid: ") + err.what() + ")";
        }
        out.push_back(e);
    }
    std::sort(out.begin(), out.end(),
              [](const LibraryEntry& a, const LibraryEntry& b) { return a.name < b.name; });
    return out;
}

}  // namespace tessim
