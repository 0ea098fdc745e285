// `tessim dse --target T --workload W [--set workload.in=…] …`: the tensor-train design-space
// exploration of an fc layer (analysis/dse/TtDse.h): pruning steps, survivors simulated as a sweep,
// the best shapes ranked against the dense layer. Prints Markdown, writes DIR/dse.{json,md}.
#include <iostream>
#include <memory>

#include "analysis/dse/TtDse.h"
#include "apps/tessim/Commands.h"

namespace tessim::cli {

void addDseCommand(CLI::App& app) {
    auto o = std::make_shared<DseOptions>();
    auto* sub = app.add_subcommand("dse", "tensor-train design-space exploration of an fc layer: prune, "
                                          "simulate the survivors in parallel, rank against the dense layer");
    sub->add_option("--target", o->target, "target name or YAML (default k1)");
    sub->add_option("--workload", o->workload, "fc workload: name or YAML (default fc)");
    sub->add_option("--plan", o->plan, "TT plan for every survivor (e.g. tt/blocked)");
    sub->add_option("--set", o->sets, "key=value override (workload.in=768, workload.out=3072, target.…)");
    sub->add_option("--min-cores", o->space.minCores, "fewest TT cores d (default 2)")
        ->check(CLI::Range(2, 8));
    sub->add_option("--max-cores", o->space.maxCores, "most TT cores d (default 5)")->check(CLI::Range(2, 8));
    sub->add_option("--ranks", o->space.ranks, "inner ranks to choose from (default 4 8 12 16)")
        ->delimiter(',')
        ->check(CLI::Range(1, 4096));
    sub->add_option("--vl", o->space.vectorLength, "vector length in f32 elements (default 8: VLEN 256)")
        ->check(CLI::Range(1, 1024));
    sub->add_option("--threads", o->maxThreads, "most threads per einsum (default 4)")
        ->check(CLI::Range(1, 64));
    sub->add_option("--thread-flops", o->threadThresholds,
                    "FLOPs at which an einsum takes a 2nd, 3rd, … thread (default 2e6,4e6,8e6)")
        ->delimiter(',');
    sub->add_option("--simulate", o->simulate, "survivors simulated, fewest FLOPs first (default 256)")
        ->check(CLI::Range(0, 100000));
    sub->add_option("--top", o->top, "best solutions reported (default 10)")->check(CLI::Range(1, 100000));
    sub->add_option("--jobs,-j", o->jobs, "simulations at once (default: all cores)")
        ->check(CLI::PositiveNumber);
    sub->add_option("--out,-o", o->outDir, "results directory (default out/dse/<target>-<in>x<out>)");
    sub->add_flag("--resume", o->resume, "reuse the finished simulations in DIR");
    sub->add_flag("!--no-breakdown", o->breakdown,
                  "skip the rerun of the best solution with each optimisation added in turn");
    sub->add_flag("--plot", o->plot, "draw time against TT weights (Pareto front) into DIR/runs/plots");
    sub->callback([o] {
        runGuarded([&] {
            if (o->space.maxCores < o->space.minCores)
                throw std::runtime_error("--max-cores is below --min-cores");
            const DseResult r = runTtDse(*o, std::cerr);
            std::cout << r.markdown << std::flush;
        });
    });
}

}  // namespace tessim::cli
