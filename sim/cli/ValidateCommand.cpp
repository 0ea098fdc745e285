// `tessim validate`: runs a schedule (generated, or replayed with --schedule) under checks and
// prints {"valid", "errors"} on stdout, one readable line per error on stderr. Exit 0 when the
// schedule is valid, 1 when it is not, 2 on usage or configuration errors.
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <regex>

#include <fmt/format.h>

#include "models/targets/ConfiguredTarget.h"
#include "sim/app/Simulation.h"
#include "sim/cli/Commands.h"
#include "sim/config/ConfigError.h"
#include "sim/validate/CheckedOpStream.h"
#include "sim/validate/HazardDetector.h"

namespace tessim::cli {
namespace {

struct ValidateOptions {
    RunRequest request;
    bool noHazards = false;
};

// A refusal by a kernel or an engine that names a validation kind: capacity (the plan's buffers
// do not fit), bounds (bytes outside a memory), register-budget. Empty: not one of those.
std::string kindOfFailure(const std::string& message) {
    static const std::regex capacity("fits? the SRAM|does not fit|do not fit|but the [A-Za-z0-9_ ]+ holds");
    static const std::regex bounds("outside the memory|past the end|out of range");
    static const std::regex registers("register");
    if (std::regex_search(message, capacity))
        return "capacity";
    if (std::regex_search(message, bounds))
        return "bounds";
    if (std::regex_search(message, registers))
        return "register-budget";
    return "";
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
        std::string kind = kindOfFailure(e.what());
        // The schedule reader refuses descriptors that move nothing or multicast nowhere.
        const std::string what = e.what();
        static const std::regex dmaField("DMA|multicast");
        if (!request.scheduleFile.empty() && what.rfind(request.scheduleFile + ":", 0) == 0 &&
            std::regex_search(what, dmaField))
            kind = "dma-descriptor";
        // ... and registers beyond the engine's register file.
        static const std::regex registerField("register [0-9]+ out of range");
        if (!request.scheduleFile.empty() && what.rfind(request.scheduleFile + ":", 0) == 0 &&
            std::regex_search(what, registerField))
            kind = "register-budget";
        if (kind != "capacity" && kind != "dma-descriptor" && kind != "register-budget")
            throw;
        ValidationError err;
        err.kind = kind;
        err.message = e.what();
        static const std::regex engineName("engine ([A-Za-z0-9_]+) (has|starts)");
        if (std::smatch m; std::regex_search(what, m, engineName))
            err.engine = m[1];
        log.add(err, "refused");
    } catch (const std::runtime_error& e) {
        const std::string kind = kindOfFailure(e.what());
        if (kind.empty())
            throw;
        ValidationError err;
        err.kind = kind;
        err.message = e.what();
        log.add(err, "refused");
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
        log.add(err, "functional");
    }
    nlohmann::ordered_json out;
    out["valid"] = log.empty();
    out["errors"] = log.toJson();
    if (ran) {
        out["checked"] = {{"hazard_windows", hazards.windows()},
                          {"functional", report.contains("functional")},
                          {"seconds", report["seconds"]}};
    }
    for (const auto& e : log.errors())
        std::cerr << e.kind << ": " << e.message
                  << (e.repeats ? fmt::format(" (and {} more like it)", e.repeats) : std::string()) << '\n';
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
