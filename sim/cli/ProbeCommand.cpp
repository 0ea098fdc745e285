// Placeholder until the probe command lands; it refuses clearly rather than pretending to work.
#include <iostream>

#include "sim/cli/Commands.h"

namespace tessim::cli {

void addProbeCommand(CLI::App& app) {
    auto* sub = app.add_subcommand("probe", "(not available in this build)");
    sub->allow_extras();
    sub->callback([] {
        std::cerr << "error: 'tessim probe' is not available in this build\n";
        commandExitCode() = 2;
    });
}

}  // namespace tessim::cli
