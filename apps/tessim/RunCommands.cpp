// `tessim run` and `tessim emit`: one simulation, report or schedule to stdout (and --out).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <unistd.h>

#include "apps/tessim/Commands.h"
#include "run/pipeline/Simulation.h"
#include "run/report/Report.h"
#include "run/report/ScaleSimReport.h"
#include "run/sweep/PlotScript.h"
#include "sim/config/ConfigError.h"

namespace tessim::cli {
namespace {

struct RunOptions {
    RunRequest request;
    std::string format = "json";
    std::string outDir;
    std::string reportFile;  // --report (program runs: the report's place, stdout being the program's)
    std::string plot;        // --plot: the roofline per level, as a PNG
};

void addRunOptions(CLI::App* sub, RunOptions& o, bool withFormat) {
    sub->add_option("--target", o.request.target, "target name or YAML path")->required();
    sub->add_option("--workload", o.request.workload, "workload name or YAML path");
    if (withFormat) {
        sub->add_option(
            "--program", o.request.program,
            "run a static RISC-V ELF program (k1); its output passes through, arguments after --");
        sub->add_option("program-arguments", o.request.programArguments,
                        "the program's arguments (after --)");
        sub->add_option("--program-name", o.request.programName,
                        "the program's argv[0] (as qemu-riscv64 -0 sets it); default: the path given");
        sub->add_option("--report", o.reportFile, "write the report to this file (a program run's report)");
        sub->add_option("--max-cycles", o.request.maxCycles,
                        "stop a program that has not ended after this many main-clock cycles (exit 2)");
        sub->add_option("--timeout", o.request.timeoutSeconds,
                        "stop a run (a program: one that has not ended) after this many seconds of host "
                        "time (exit 2, no report)")
            ->check(positiveSeconds());
        sub->add_option("--cores", o.request.programCores,
                        "the cores a program's threads run on, in order (thread n on the first free "
                        "one); default: every core")
            ->delimiter(',');
    }
    sub->add_option("--plan", o.request.plan, "plan name or YAML path");
    sub->add_option("--set", o.request.sets,
                    "override a config value: target.|workload.|plan.<dotted.key>=<value>")
        ->take_all()
        ->allow_extra_args(false);
    if (withFormat) {
        sub->add_option("--format", o.format, "report format")
            ->check(CLI::IsMember({"json", "md", "csv", "scalesim"}));
        sub->add_option("--trace", o.request.traceFile, "write a Chrome trace-event JSON (Perfetto UI)");
        sub->add_option("--access-trace", o.request.accessTraceFile,
                        "write every timed memory access as JSON Lines");
        sub->add_flag("--functional", o.request.functional,
                      "also execute on real values and check against a reference");
        sub->add_option("--schedule", o.request.scheduleFile,
                        "replay a JSON Lines schedule instead of generating one");
        sub->add_option("--plot", o.plot,
                        "also draw the report's roofline (the compute roof, one bandwidth roof per level, "
                        "the run at each level) into this PNG")
            ->check(nonEmptyPath("PNG file"));
    }
    sub->add_option("--out", o.outDir, "also write the output into this directory")
        ->check(nonEmptyPath("directory"));
}

void writeFile(const std::string& dir, const std::string& name, const std::string& text) {
    std::filesystem::create_directories(dir);
    std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream out(path);
    out << text;
    if (!out)
        throw std::runtime_error("cannot write '" + path + "'");
}

// The report's roofline through the plot script (which reads the report's JSON). False: the
// script failed and said why on stderr.
bool drawRoofline(const nlohmann::ordered_json& report, const std::string& png) {
    if (!report.contains("roofline") || report["roofline"]["levels"].empty())
        throw std::runtime_error("--plot: the run has no roofline to draw (it did no work in FLOP or MAC, or "
                                 "the workload names no bytes it must move): leave --plot out");
    return sweep::drawPlot("roofline", report.dump(), ".json", png, std::cerr) == 0;
}

}  // namespace

void addRunCommands(CLI::App& app) {
    auto run = std::make_shared<RunOptions>();
    auto* runCmd = app.add_subcommand("run", "simulate a workload on a target and print the report");
    addRunOptions(runCmd, *run, true);
    runCmd->callback([run] {
        runGuarded([&] {
            // SCALE-Sim topologies: the run writes a trace from which the per-layer results come.
            const bool scalesim = runsScaleSimTopology(run->request);
            if (run->format == "scalesim" && !scalesim)
                throw std::runtime_error(
                    "--format scalesim needs a SCALE-Sim topology (--workload path/topology.csv)");
            RunRequest request = run->request;
            std::string tempTrace;
            if (scalesim && request.traceFile.empty()) {
                tempTrace = (std::filesystem::temp_directory_path() /
                             ("tessim-scalesim-" + std::to_string(::getpid()) + ".trace.json"))
                                .string();
                request.traceFile = tempTrace;
            }
            nlohmann::ordered_json report = runSimulation(request);
            if (scalesim) {
                report["layers"] = scaleSimLayers(report, request.traceFile);
                if (!tempTrace.empty())
                    std::filesystem::remove(tempTrace);
            }
            // The plot first: a plot that cannot be drawn is exit 2 with nothing on stdout or in files.
            if (!run->plot.empty() && !drawRoofline(report, run->plot)) {
                commandExitCode() = 2;
                return;
            }
            std::string text;
            std::string file;
            const std::optional<int> programStatus = programExitStatus(report);
            if (run->format == "scalesim") {
                text = scaleSimComputeCsv(report["layers"]);
                file = "";
                if (!run->outDir.empty())
                    writeScaleSimReports(run->outDir, report["layers"]);
            } else if (run->format == "json") {
                text = report.dump(2) + "\n";
                file = "report.json";
            } else if (run->format == "md") {
                text = reportToMarkdown(report);
                file = "report.md";
            } else {
                text = reportToCsv(report);
                file = "report.csv";
            }
            if (!run->outDir.empty() && !file.empty())
                writeFile(run->outDir, file, text);
            if (!run->reportFile.empty()) {
                const std::filesystem::path path(run->reportFile);
                writeFile(path.has_parent_path() ? path.parent_path().string() : ".",
                          path.filename().string(), text);
            }
            // A program's stdout is its own, as under qemu-user: the report goes to --report / --out.
            if (programStatus) {
                commandExitCode() = *programStatus;
                return;
            }
            if (run->reportFile.empty())
                std::cout << text << std::flush;
            if (report.contains("functional") &&
                report["functional"]["mismatches"].get<std::uint64_t>() > 0) {
                std::cerr << "functional check failed: "
                          << report["functional"]["first_mismatch"].get<std::string>() << '\n';
                commandExitCode() = 1;
            }
        });
    });

    auto emit = std::make_shared<RunOptions>();
    auto* emitCmd = app.add_subcommand("emit", "print the generated schedule as JSON Lines");
    addRunOptions(emitCmd, *emit, false);
    emitCmd->callback([emit] {
        runGuarded([&] {
            if (emit->outDir.empty()) {
                emitSchedule(emit->request, std::cout);
                std::cout.flush();
            } else {
                // Written under a temporary name and renamed once complete; a failure leaves
                // neither a partial schedule nor a directory this command made.
                namespace fs = std::filesystem;
                const bool made = !fs::exists(emit->outDir);
                fs::create_directories(emit->outDir);
                const std::string path = (fs::path(emit->outDir) / "schedule.jsonl").string();
                const std::string partial = path + ".partial";
                try {
                    std::ofstream out(partial);
                    emitSchedule(emit->request, out);
                    out.flush();
                    if (!out)
                        throw std::runtime_error("cannot write '" + path + "'");
                    out.close();
                    fs::rename(partial, path);
                } catch (...) {
                    std::error_code ec;
                    fs::remove(partial, ec);
                    if (made)
                        fs::remove(emit->outDir, ec);
                    throw;
                }
            }
        });
    });
}

}  // namespace tessim::cli
