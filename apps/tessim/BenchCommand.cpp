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
        "k1-l1-hit-store|k1-l1-hit-load-m8|k1-l1-hit-store-m8|k1-memcpy-64mib|k1-program-loop|"
        "k1-program-threads");
    sub->add_option("--ops", o->ops, "ops per case")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
    sub->callback([o] {
        if (!o->only.empty()) {
            BenchFigure f = runBenchCase(o->only, o->ops);
            std::cout << fmt::format("{} {} {:.6f} {:.0f}\n", f.name, f.ops, f.wallSeconds,
                                     f.simulatedCycles);
            return;
        }
        std::cout << fmt::format("{:<18} {:>12} {:>10} {:>16} {:>14}\n", "case", "ops", "wall s",
                                 "ops per second", "sim cycles");
        // The program cases' instruction rates beside the engine's FMA op rate of the same run.
        double fmaRate = 0, programRate = 0, threadsRate = 0;
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
            const double rate = wall > 0 ? static_cast<double>(ops) / wall : 0.0;
            std::cout << fmt::format("{:<18} {:>12} {:>10.3f} {:>16.3e} {:>14.0f}\n", name, ops, wall, rate,
                                     cycles);
            if (name == "fma-independent")
                fmaRate = rate;
            if (name == "k1-program-loop")
                programRate = rate;
            if (name == "k1-program-threads")
                threadsRate = rate;
        }
        if (fmaRate > 0) {
            std::cout << fmt::format(
                "k1-program-loop: {:.3e} instructions per second = {:.2f} x fma-independent's "
                "{:.3e} ops per second\n",
                programRate, programRate / fmaRate, fmaRate);
            std::cout << fmt::format(
                "k1-program-threads: {:.3e} instructions per second (4 threads together) = {:.2f} x "
                "fma-independent's {:.3e} ops per second\n",
                threadsRate, threadsRate / fmaRate, fmaRate);
        }
    });
}

}  // namespace tessim::cli
