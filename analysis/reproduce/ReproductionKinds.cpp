#include "analysis/reproduce/ReproductionKinds.h"

#include "analysis/reproduce/PublishedFigures.h"
#include "analysis/reproduce/TtReproduction.h"
#include "analysis/reproduce/TtTrReproduction.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"

namespace tessim {

const std::vector<ReproductionKind>& reproductionKinds() {
    static const std::vector<ReproductionKind> kinds{
        {"claims", "each claim one simulated run, its metric against the published value", reproducePaper},
        {"tt-layers", "seed 000's tensor-train FC claims on the K1, computed from simulated runs",
         [](const std::string& path, const ReproRunner& runner) { return reproduceTtPaper(path, runner); }},
        {"tt-tr", "seed 002's TT / TR arithmetic and cost claims, from simulated contraction orders",
         [](const std::string& path, const ReproRunner& runner) { return reproduceTtTrPaper(path, runner); }},
    };
    return kinds;
}

ReproResult reproduce(const std::string& paperPath, const ReproRunner& runner) {
    const config::Node root = config::loadYamlFile(paperPath);
    std::vector<std::string> names;
    for (const auto& k : reproductionKinds())
        names.push_back(k.name);
    // Only this key is read here: the kind's own reader checks the rest of the file.
    config::Reader r(root);
    const std::string kind = r.oneOf("reproduction", names, names.front());
    for (const auto& k : reproductionKinds())
        if (k.name == kind) {
            ReproResult res = k.reproduce(paperPath, runner);
            applyAssumptions(res);
            checkPublishedFigures(res);
            return res;
        }
    ReproResult res = reproducePaper(paperPath, runner);
    applyAssumptions(res);
    checkPublishedFigures(res);
    return res;
}

}  // namespace tessim
