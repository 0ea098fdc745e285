// `tessim reproduce <paper>|all [--out DIR]`: a paper's published claims beside simulated values
// (analysis/reproduce/Reproduction.h). Each simulation is a child `tessim run ... --format json`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "analysis/reproduce/Reproduction.h"
#include "analysis/reproduce/ReproductionKinds.h"
#include "apps/tessim/Commands.h"
#include "run/pipeline/ConfigLibrary.h"
#include "sim/config/ConfigError.h"

namespace tessim::cli {

void addReproduceCommand(CLI::App& app) {
    struct Options {
        std::string paper;
        std::string outDir;
    };
    auto o = std::make_shared<Options>();
    auto* sub =
        app.add_subcommand("reproduce", "published claims of a paper beside simulated values, with verdicts");
    sub->add_option("paper", o->paper, "paper id (tessim list papers) or 'all'")->required();
    sub->add_option("--out", o->outDir, "also write <out>/<paper>.json");
    sub->callback([o] {
        runGuarded([&] {
            std::vector<std::string> papers;
            if (o->paper == "all") {
                for (const auto& e : listLibrary(LibraryKind::Paper))
                    papers.push_back(e.path);
                if (papers.empty())
                    throw std::runtime_error("no papers in " + libraryDirectory(LibraryKind::Paper));
            } else {
                papers.push_back(resolveLibraryPath(LibraryKind::Paper, o->paper));
            }
            const std::string exe = selfExecutable();
            for (const auto& path : papers) {
                const ReproRunner runner = [&exe](const ReproRun& run) {
                    return runChildSimulation(exe, run);
                };
                ReproResult r = reproduce(path, runner);
                std::cout << reproMarkdown(r) << '\n' << std::flush;
                if (!o->outDir.empty()) {
                    std::filesystem::create_directories(o->outDir);
                    std::string file = (std::filesystem::path(o->outDir) / (r.paper + ".json")).string();
                    std::ofstream out(file);
                    out << reproJson(r).dump(2) << '\n';
                    if (!out)
                        throw std::runtime_error("cannot write '" + file + "'");
                }
            }
        });
    });
}

}  // namespace tessim::cli
