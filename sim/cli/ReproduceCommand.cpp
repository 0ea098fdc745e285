// Placeholder until the reproduce command lands; it refuses clearly rather than pretending to work.
#include <iostream>

#include "sim/cli/Commands.h"

namespace tessim::cli {

void addReproduceCommand(CLI::App& app) {
    auto* sub = app.add_subcommand("reproduce", "(not available in this build)");
    sub->allow_extras();
    sub->callback([] {
        std::cerr << "error: 'tessim reproduce' is not available in this build\n";
        commandExitCode() = 2;
    });
}

}  // namespace tessim::cli
