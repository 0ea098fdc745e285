// `tessim validate`: runs a schedule (generated, or replayed with --schedule) under checks and
// prints {"valid", "errors"} on stdout, one readable line per error on stderr. Exit 0 when the
// schedule is valid, 1 when it is not, 2 on usage or configuration errors.
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "apps/tessim/Commands.h"
#include "models/targets/ConfiguredTarget.h"
#include "run/pipeline/Simulation.h"
#include "sim/config/ConfigError.h"
#include "sim/ir/ScheduleFileStream.h"
#include "sim/validate/CheckedOpStream.h"
#include "sim/validate/HazardDetector.h"

namespace tessim::cli {
namespace {

struct ValidateOptions {
    RunRequest request;
    bool noHazards = false;
};

// The engine and op named on line `line` of a JSON Lines schedule ("" when unreadable).
std::pair<std::string, std::string> scheduleLineOp(const std::string& path, int line) {
    std::ifstream in(path, std::ios::binary);
    std::string text;
    for (int i = 0; i < line && std::getline(in, text); ++i) {
    }
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
        return {};
    auto field = [&](const char* key) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    return {field("engine"), field("op")};
}

// A refusal that is a finding about the schedule: what a plan asks beyond the target (capacity,
// register-budget), or, by the field the schedule reader refused, a DMA descriptor that moves
// nothing, multicasts nowhere or names a channel the DMA lacks (dma-descriptor), a register beyond
// the engine's file (register-budget). Empty: bad input, not a finding.
ValidationError findingOf(const config::ConfigError& e, const std::string& scheduleFile) {
    ValidationError finding;
    finding.message = e.what();
    if (e.shortfall() == config::Shortfall::Capacity) {
        finding.kind = "capacity";
        return finding;
    }
    if (e.shortfall() == config::Shortfall::Registers) {
        finding.kind = "register-budget";
        return finding;
    }
    if (scheduleFile.empty() || e.location().file != scheduleFile)
        return finding;
    static const std::set<std::string> descriptorFields{"row_bytes",        "rows",    "planes",
                                                        "multicast_stride", "channel", "group"};
    static const std::set<std::string> registerFields{"vd",  "vs0", "vs1", "vs2",  "sd",
                                                      "ss0", "ss1", "ss2", "saddr"};
    const auto [engine, op] = scheduleLineOp(scheduleFile, e.location().line);
    if (descriptorFields.count(e.key()) || (e.key() == "op" && (op == "dma_start" || op == "dma_wait")))
        finding.kind = "dma-descriptor";
    else if (registerFields.count(e.key()))
        finding.kind = "register-budget";
    finding.engine = engine;
    return finding;
}

// Findings about ops of a replayed schedule name the ops' lines (one pass over the file).
void nameScheduleLines(ValidationLog& log, const std::string& scheduleFile) {
    std::vector<ScheduleFileStream::OpRef> ops;
    for (const auto& e : log.errors()) {
        if (e.opIndex && !e.opEngine.empty())
            ops.push_back({e.opEngine, *e.opIndex});
        if (e.otherOpIndex && !e.otherOpEngine.empty())
            ops.push_back({e.otherOpEngine, *e.otherOpIndex});
    }
    if (ops.empty())
        return;
    const std::vector<int> lines = ScheduleFileStream::linesOf(scheduleFile, ops);
    std::size_t next = 0;
    for (auto& e : log.errors()) {
        if (e.opIndex && !e.opEngine.empty() && lines[next++] > 0)
            e.line = lines[next - 1];
        if (e.otherOpIndex && !e.otherOpEngine.empty() && lines[next++] > 0)
            e.otherLine = lines[next - 1];
    }
}

void validate(const ValidateOptions& o) {
    ValidationLog log;
    HazardDetector hazards;
    RunRequest request = o.request;
    request.onElaborated = [&](ConfiguredTarget& target) {
        std::map<std::string, std::string> backing;
        for (const auto& s : target.info().spaces)
            if (!s.role)
                backing[s.name] = target.backingMemoryName(s.id);
        hazards.attach(target.initiators(), target.info(), backing);
    };
    if (!o.noHazards)
        request.observer = &hazards;
    request.wrapStream = [&](const std::string& engine, std::unique_ptr<OpStream> stream,
                             const TargetInfo& target) -> std::unique_ptr<OpStream> {
        for (const auto& e : target.engines)
            if (e.name == engine)
                return std::make_unique<CheckedOpStream>(std::move(stream), e, target, log);
        return stream;
    };
    nlohmann::ordered_json report;
    bool ran = false;
    try {
        report = runSimulation(request);
        ran = true;
    } catch (const config::ConfigError& e) {
        ValidationError finding = findingOf(e, request.scheduleFile);
        if (finding.kind.empty())
            throw;
        log.add(std::move(finding), "refused");
    }
    if (ran && !o.noHazards)
        hazards.analyse(log);
    if (ran && report.contains("functional") && report["functional"].value("mismatches", 0) > 0) {
        ValidationError err;
        err.kind = "functional-mismatch";
        const auto& f = report["functional"];
        err.message = fmt::format("{} of {} output elements differ from the reference; first: {}",
                                  f["mismatches"].get<std::uint64_t>(), f.value("elements", 0),
                                  f.value("first_mismatch", std::string("?")));
        if (f.contains("first_mismatch_at") && !o.noHazards) {
            const auto& at = f["first_mismatch_at"];
            const std::string memory = at["memory"].get<std::string>();
            const auto address = at["address"].get<std::uint64_t>();
            const std::string writer = hazards.lastWriter(memory, address);
            err.message += writer.empty()
                               ? fmt::format(" ({} byte {:#x}: nothing wrote it)", memory, address)
                               : fmt::format(" ({} byte {:#x}, last written by {})", memory, address, writer);
        }
        log.add(err, "functional");
    }
    if (!request.scheduleFile.empty())
        nameScheduleLines(log, request.scheduleFile);
    nlohmann::ordered_json out;
    out["valid"] = log.empty();
    out["errors"] = log.toJson();
    if (ran) {
        out["checked"] = {{"hazard_windows", hazards.windows()},
                          {"functional", report.contains("functional")},
                          {"seconds", report["seconds"]}};
    }
    for (const auto& e : log.errors())
        std::cerr << (e.line ? fmt::format("{}:{}: ", request.scheduleFile, *e.line) : std::string())
                  << e.kind << ": " << e.message
                  << (e.repeats ? fmt::format(" (and {} more like it)", e.repeats) : std::string()) << '\n';
    if (ran && request.functional && !report.contains("functional"))
        std::cerr << "note: this kernel has no functional reference (it computes nothing to compare): "
                     "--functional compared no outputs\n";
    if (log.empty())
        std::cerr << "valid: no errors found\n";
    std::cout << out.dump(2) << '\n' << std::flush;
    commandExitCode() = log.empty() ? 0 : 1;
}

}  // namespace

void addValidateCommand(CLI::App& app) {
    auto o = std::make_shared<ValidateOptions>();
    auto* sub = app.add_subcommand(
        "validate", "check a schedule: capacity, bounds, registers, DMA descriptors, hazards, function");
    sub->add_option("--target", o->request.target, "target name or YAML path")->required();
    sub->add_option("--workload", o->request.workload, "workload name or YAML path");
    sub->add_option("--plan", o->request.plan, "plan name or YAML path");
    sub->add_option("--set", o->request.sets,
                    "override a config value: target.|workload.|plan.<dotted.key>=<value>")
        ->take_all()
        ->allow_extra_args(false);
    sub->add_option("--schedule", o->request.scheduleFile, "validate this JSON Lines schedule");
    sub->add_flag("--functional", o->request.functional,
                  "also execute on real values; a difference from the reference is an error");
    sub->add_flag("--no-hazards", o->noHazards, "skip the dynamic hazard checks");
    sub->callback([o] { runGuarded([&] { validate(*o); }); });
}

}  // namespace tessim::cli
