// `tessim validate`: runs a schedule (generated, or replayed with --schedule) under checks and
// prints {"valid", "errors"} on stdout, one readable line per error on stderr. Exit 0 when the
// schedule is valid, 1 when it is not, 2 on usage or configuration errors.
#include <iostream>
#include <memory>

#include "apps/tessim/Commands.h"
#include "run/pipeline/ScheduleValidation.h"

namespace tessim::cli {
namespace {

struct ValidateOptions {
    RunRequest request;
    bool noHazards = false;
};

void validate(const ValidateOptions& o) {
    const nlohmann::ordered_json out = validateSchedule(o.request, o.noHazards, std::cerr);
    std::cout << out.dump(2) << '\n' << std::flush;
    commandExitCode() = out["valid"].get<bool>() ? 0 : 1;
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
    sub->add_option("--program", o->request.program,
                    "validate a static RISC-V ELF program's run (k1): its output goes to stderr, "
                    "arguments after --");
    sub->add_option("program-arguments", o->request.programArguments, "the program's arguments (after --)");
    sub->add_option("--max-cycles", o->request.maxCycles,
                    "stop a program that has not ended after this many main-clock cycles (exit 2)");
    sub->add_option("--timeout", o->request.timeoutSeconds,
                    "stop a program that has not ended after this many seconds of host time (exit 2)")
        ->check(positiveSeconds());
    sub->add_option("--cores", o->request.programCores,
                    "the cores a program's threads run on, in order (thread n on the first free "
                    "one); default: every core")
        ->delimiter(',');
    o->request.programStdoutToStderr = true;
    sub->add_flag("--functional", o->request.functional,
                  "also execute on real values; a difference from the reference is an error");
    sub->add_flag("--no-hazards", o->noHazards, "skip the dynamic hazard checks");
    sub->callback([o] { runGuarded([&] { validate(*o); }); });
}

}  // namespace tessim::cli
