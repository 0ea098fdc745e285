// `tessim compare --workload MODEL [--targets k1,ftm2000,npu] [--set [TARGET:]key=value]...
// [--jobs N] [--format md|json|csv] [--plot FILE.png]`: one model on several chips side by side
// (analysis/compare/ChipComparison.h). Exit 0 when at least one chip runs it, 2 otherwise.
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/compare/ChipComparison.h"
#include "apps/tessim/Commands.h"
#include "run/pipeline/ConfigLibrary.h"
#include "run/sweep/PlotScript.h"
#include "run/sweep/ProcessPool.h"

namespace tessim::cli {
namespace {

struct CompareOptions {
    CompareRequest request;
    std::string targets = "k1,ftm2000,npu";
    unsigned jobs = 0;
    std::string format = "md";
    std::string plot;
};

std::vector<std::string> commaList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

}  // namespace

void addCompareCommand(CLI::App& app) {
    auto o = std::make_shared<CompareOptions>();
    auto* sub = app.add_subcommand("compare",
                                   "one model on several chips side by side: per layer and in total, time, "
                                   "energy, DDR bytes, bounds, what limits it, the best chip");
    sub->add_option("--workload", o->request.workload, "workload name, YAML path or ONNX model")->required();
    sub->add_option("--targets", o->targets, "chips, comma-separated (default: k1,ftm2000,npu)");
    sub->add_option("--plan", o->request.plan, "one plan for every chip (default: each chip's own)");
    sub->add_option("--set", o->request.sets,
                    "override for every chip (target.|workload.|plan.<key>=<value>) or, prefixed "
                    "TARGET:, for that chip only (npu:target.sram.size=2MiB)");
    sub->add_option("--jobs", o->jobs, "chips simulated at once (default: as many as there are cores)");
    sub->add_option("--timeout", o->request.timeoutSeconds,
                    "seconds each chip's run may take (default: no limit)")
        ->check(positiveSeconds());
    sub->add_option("--plot", o->plot,
                    "also draw time per layer per chip and each chip's total time and energy into this PNG")
        ->check(nonEmptyPath("PNG file"));
    sub->add_option("--format", o->format, "md (default), json or csv")
        ->check(CLI::IsMember({"md", "json", "csv"}));
    sub->callback([o] {
        runGuarded([&] {
            o->request.targets = commaList(o->targets);
            // A chip that cannot run the model is a row of the table; a name that is no chip is a typo.
            for (const auto& target : o->request.targets)
                resolveLibraryPath(LibraryKind::Target, target);
            o->request.jobs = o->jobs ? o->jobs : static_cast<unsigned>(sweep::availableCores());
            const auto c = compareChips(o->request);
            // The plot first: a plot that cannot be drawn is exit 2 with nothing on stdout.
            // The script reads the CSV form.
            if (!o->plot.empty() &&
                sweep::drawPlot("compare", comparisonCsv(c), ".csv", o->plot, std::cerr) != 0) {
                commandExitCode() = 2;
                return;
            }
            if (o->format == "json")
                std::cout << c.dump(2) << '\n';
            else if (o->format == "csv")
                std::cout << comparisonCsv(c);
            else
                std::cout << comparisonMarkdown(c);
            std::cout << std::flush;
        });
    });
}

}  // namespace tessim::cli
