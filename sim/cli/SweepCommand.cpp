// `tessim sweep SWEEP.yaml [--jobs N] [--out DIR] [--resume] [--timeout S] [--mpi] [--plot]`.
#include <iostream>
#include <memory>

#include "sim/cli/Commands.h"
#include "sim/sweep/Sweep.h"

namespace tessim::cli {

void addSweepCommand(CLI::App& app) {
    auto* sub =
        app.add_subcommand("sweep", "Run a parameter sweep: one process per point, results streamed to DIR, "
                                    "resumable, optionally over MPI");
    auto options = std::make_shared<sweep::SweepOptions>();
    auto timeout = std::make_shared<double>(0.0);
    sub->add_option("sweep", options->specPath, "sweep file (YAML)")->required();
    sub->add_option("--jobs,-j", options->jobs,
                    "points run at once (per MPI worker); "
                    "default: all cores")
        ->check(CLI::PositiveNumber);
    sub->add_option("--out,-o", options->outDir, "results directory (default: out/sweeps/<sweep name>)");
    sub->add_flag("--resume", options->resume, "continue the sweep in DIR: run only the points it lacks");
    sub->add_option("--timeout", *timeout,
                    "seconds a point may run before it is killed and recorded as timeout "
                    "(default: the file's timeout, else none)")
        ->check(CLI::PositiveNumber);
    sub->add_flag("--mpi", options->mpi,
                  "distribute points over MPI ranks (mpirun / srun): rank 0 coordinates and "
                  "writes the files, the other ranks run points");
    sub->add_flag("--plot", options->plot, "draw the plots the sweep file lists into DIR/plots");
    sub->callback([options, timeout] {
        if (*timeout > 0.0)
            options->timeoutSeconds = *timeout;
        commandExitCode() = sweep::runSweep(*options, std::cout, std::cerr);
    });
}

}  // namespace tessim::cli
