// `tessim plot RESULTS.csv --kind heatmap|pareto|lines --x .. --y .. [--group ..] [--metric ..]
// --out DIR`: PNG and SVG through analysis/plots/tessim_plot.py.
#include <iostream>
#include <memory>

#include "apps/tessim/Commands.h"
#include "run/sweep/PlotScript.h"

namespace tessim::cli {

void addPlotCommand(CLI::App& app) {
    auto* sub = app.add_subcommand("plot", "Draw PNG and SVG plots from a sweep's results.csv");
    struct Args {
        std::string csv;
        sweep::PlotRequest plot;
        std::string out = ".";
    };
    auto args = std::make_shared<Args>();
    sub->add_option("results", args->csv, "results.csv of a sweep")->required()->check(CLI::ExistingFile);
    sub->add_option("--kind", args->plot.kind,
                    "heatmap (metric over x × y), pareto (y against x), lines (y against x, one "
                    "line per group)")
        ->required()
        ->check(CLI::IsMember({"heatmap", "pareto", "lines"}));
    sub->add_option("--x", args->plot.x, "column on the x axis")->required();
    sub->add_option("--y", args->plot.y, "column(s) on the y axis; lines takes several")
        ->required()
        ->delimiter(',');
    sub->add_option("--group", args->plot.group, "column whose values make separate lines");
    sub->add_option("--metric", args->plot.metric, "heatmap: the column that gives the colour");
    sub->add_option("--out", args->out, "output directory (default: .)");
    sub->callback([args] {
        if (args->plot.kind == "heatmap" && args->plot.metric.empty()) {
            std::cerr << "error: --kind heatmap needs --metric\n";
            commandExitCode() = 2;
            return;
        }
        commandExitCode() =
            sweep::runPlotScript(sweep::plotScriptArguments(args->csv, args->plot, args->out), std::cerr);
    });
}

}  // namespace tessim::cli
