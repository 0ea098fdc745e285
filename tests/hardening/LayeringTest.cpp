// The layers include only downwards (docs/architecture.md): sim/ is the ground floor; models/ and
// workloads/ stand on it side by side (a schedule generator knows the machine description, never
// a model's code, nor the engine); run/ wires them; analysis/ stands on run/; apps/ on all. A
// violation is named with its file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Violation {
    std::string where, include;
};

// Every `#include "<top>/..."` in the sources under `layer` whose top folder (or, for sim/engine,
// the folder itself) is not allowed.
std::vector<Violation> violations(const std::string& layer, const std::set<std::string>& allowed,
                                  const std::set<std::string>& forbiddenPrefixes = {}) {
    std::vector<Violation> out;
    const fs::path root = fs::path(TESSIM_SOURCE_DIR) / layer;
    const std::regex include(R"re(^\s*#\s*include\s*"(([a-z_]+)/[^"]*)")re");
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        const std::string ext = entry.path().extension().string();
        if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp"))
            continue;
        std::ifstream in(entry.path());
        std::string line;
        for (unsigned n = 1; std::getline(in, line); ++n) {
            std::smatch m;
            if (!std::regex_search(line, m, include))
                continue;
            const std::string path = m[1], top = m[2];
            bool bad = allowed.count(top) == 0;
            for (const auto& prefix : forbiddenPrefixes)
                bad = bad || path.rfind(prefix, 0) == 0;
            if (bad)
                out.push_back(
                    {fs::relative(entry.path(), TESSIM_SOURCE_DIR).string() + ":" + std::to_string(n), path});
        }
    }
    return out;
}

void expectNone(const std::vector<Violation>& found, const std::string& layer) {
    for (const auto& v : found)
        ADD_FAILURE() << v.where << ": " << layer << " includes " << v.include;
}

TEST(Layering, EachLayerIncludesOnlyTheLayersBelowIt) {
    expectNone(violations("sim", {"sim"}), "sim/");
    expectNone(violations("models", {"sim", "models"}), "models/");
    expectNone(violations("workloads", {"sim", "workloads"}, {"sim/engine/"}), "workloads/");
    expectNone(violations("run", {"sim", "models", "workloads", "run"}), "run/");
    expectNone(violations("analysis", {"sim", "workloads", "run", "analysis"}), "analysis/");
    // The command line reaches models and kernels only through run/ (docs/architecture.md).
    expectNone(violations("apps", {"sim", "run", "analysis", "apps"}), "apps/");
}

TEST(Layering, TheCheckSeesAViolation) {
    // models/ does include sim/engine (units are engine parts): forbidding it must be noticed.
    EXPECT_FALSE(violations("models", {"sim", "models"}, {"sim/engine/"}).empty());
    EXPECT_FALSE(violations("workloads", {"workloads"}).empty());
}

}  // namespace
