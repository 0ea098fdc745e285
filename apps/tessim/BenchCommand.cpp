// `tessim bench`: simulator speed figures. Each case runs in a child process (one SystemC
// elaboration per process) and the parent prints the table.
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "apps/tessim/Commands.h"
#include "run/pipeline/Benchmark.h"
#include "run/sweep/ProcessPool.h"
#include "sim/core/SelfExecutable.h"

namespace tessim::cli {

void addBenchCommand(CLI::App& app) {
    struct Options {
        std::string only;
        std::uint64_t ops = 20'000'000;
    };
    auto o = std::make_shared<Options>();
    auto* sub =
        app.add_subcommand("bench", "print simulator speed figures (simulated ops per wall-clock second)");
    sub->add_option(
        "--case", o->only,
        "run one case in this process: fma-independent|fma-dependent|spm-load-store|k1-l1-hit-load|"
        "k1-l1-hit-store|k1-l1-hit-load-m8|k1-l1-hit-store-m8|k1-memcpy-64mib");
    sub->add_option("--ops", o->ops, "ops per case");
    sub->callback([o] {
        if (!o->only.empty()) {
            BenchFigure f = runBenchCase(o->only, o->ops);
            std::cout << fmt::format("{} {} {:.6f} {:.0f}\n", f.name, f.ops, f.wallSeconds,
                                     f.simulatedCycles);
            return;
        }
        std::cout << fmt::format("{:<18} {:>12} {:>10} {:>16} {:>14}\n", "case", "ops", "wall s",
                                 "ops per second", "sim cycles");
        for (const auto& name : benchCases()) {
            const sweep::ProcessResult r = sweep::runProcess(
                {selfExecutable(), "bench", "--case", name, "--ops", std::to_string(o->ops)});
            if (r.exitCode != 0)
                throw std::runtime_error("benchmark case " + name + " failed: " + r.startError + r.err);
            const std::string& line = r.out;
            std::istringstream in(line);
            std::string n;
            std::uint64_t ops = 0;
            double wall = 0, cycles = 0;
            if (!(in >> n >> ops >> wall >> cycles))
                throw std::runtime_error("benchmark case " + name + " failed");
            std::cout << fmt::format("{:<18} {:>12} {:>10.3f} {:>16.3e} {:>14.0f}\n", name, ops, wall,
                                     wall > 0 ? ops / wall : 0.0, cycles);
        }
    });
}

}  // namespace tessim::cli
