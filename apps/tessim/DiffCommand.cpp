// `tessim diff A B [--threshold PCT] [--watch KEY]... [--format md|json] [--all]`: what changed
// between two reports or two sweeps' results (analysis/compare/RunDiff.h). Exit 0, or 1 when a
// watched quantity regressed beyond the threshold (for a user's own CI), 2 on bad input.
#include <iostream>
#include <memory>

#include "analysis/compare/RunDiff.h"
#include "apps/tessim/Commands.h"

namespace tessim::cli {
namespace {

struct DiffCommandOptions {
    std::string a, b;
    DiffOptions diff;
    double threshold = -1.0;
    std::string format = "md";
    bool all = false;
};

}  // namespace

void addDiffCommand(CLI::App& app) {
    auto o = std::make_shared<DiffCommandOptions>();
    auto* sub =
        app.add_subcommand("diff", "compare two reports or two sweeps' results: time, stalls, traffic "
                                   "per level, energy per component, bounds; exit 1 on a regression");
    sub->add_option("a", o->a, "the reference: a report (JSON) or a sweep's results.jsonl or directory")
        ->required();
    sub->add_option("b", o->b, "the run compared with it, of the same kind")->required();
    sub->add_option("--threshold", o->threshold,
                    "percent by which a watched quantity of B may exceed A's before it is a regression "
                    "(exit 1); default: no verdict")
        ->check(CLI::Range(0.0, 1e6));
    sub->add_option("--watch", o->diff.watch,
                    "a quantity that can regress, lower being better (repeatable; default: seconds and "
                    "energy_j.total)");
    sub->add_option("--format", o->format, "md (default) or json")->check(CLI::IsMember({"md", "json"}));
    sub->add_flag("--all", o->all, "md: also list the quantities that did not change");
    sub->callback([o] {
        runGuarded([&] {
            if (o->threshold >= 0.0)
                o->diff.thresholdPercent = o->threshold;
            const DiffResult d = diffRuns(o->a, o->b, o->diff);
            if (o->format == "json")
                std::cout << diffJson(d).dump(2) << '\n' << std::flush;
            else
                std::cout << diffMarkdown(d, o->all) << std::flush;
            commandExitCode() = d.regressions > 0 ? 1 : 0;
        });
    });
}

}  // namespace tessim::cli
