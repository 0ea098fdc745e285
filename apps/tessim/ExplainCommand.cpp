// `tessim explain TARGET [--set target.key=value]... [--format md|json]`: the target as the
// simulator builds it, its peaks and bandwidths, every parameter with its source, and warnings
// (run/pipeline/TargetExplanation.h).
#include <iostream>
#include <memory>

#include "apps/tessim/Commands.h"
#include "run/pipeline/TargetExplanation.h"

namespace tessim::cli {
namespace {

struct ExplainOptions {
    std::string target;
    std::vector<std::string> sets;
    std::string format = "md";
};

}  // namespace

void addExplainCommand(CLI::App& app) {
    auto o = std::make_shared<ExplainOptions>();
    auto* sub = app.add_subcommand("explain", "a target as built: engines, memories, peaks and bandwidths, "
                                              "every parameter with its source, warnings");
    sub->add_option("target", o->target, "target name or YAML path")->required();
    sub->add_option("--set", o->sets, "override a config value: target.<dotted.key>=<value>")
        ->take_all()
        ->allow_extra_args(false);
    sub->add_option("--format", o->format, "md (default) or json")->check(CLI::IsMember({"md", "json"}));
    sub->callback([o] {
        runGuarded([&] {
            const nlohmann::ordered_json x = explainTarget(o->target, o->sets);
            if (o->format == "json")
                std::cout << x.dump(2) << '\n' << std::flush;
            else
                std::cout << explanationToMarkdown(x) << std::flush;
        });
    });
}

}  // namespace tessim::cli
