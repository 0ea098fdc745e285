// The thin `tessim` executable: parses the command line and hands over to the library.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>

#include <systemc>

#include "apps/tessim/Commands.h"
#include "sim/config/ConfigError.h"
#include "sim/core/MemoryLimit.h"

namespace {
// SystemC prints its banner when the kernel starts unless this is set; set it before anything
// SystemC runs, so a user's terminal shows only tessim's own output.
const bool kBannerOff = [] { return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0; }();
}  // namespace

int sc_main(int argc, char* argv[]) {
    (void)kBannerOff;
    CLI::App app{"tessim — cycle-approximate simulator and performance model of edge chips"};
    app.set_version_flag("--version", std::string("tessim ") + TESSIM_VERSION);
    app.require_subcommand(1);
    // Options of the executable (--max-memory) may follow the sub-command: `tessim run … --max-memory 4GiB`.
    app.fallthrough(true);
    std::string maxMemory;
    app.add_option("--max-memory", maxMemory,
                   "cap on the simulator's own memory, e.g. 8GiB, or none (default: 3/4 of physical memory)");
    // Before any sub-command runs.
    app.parse_complete_callback([&maxMemory] {
        tessim::applyMemoryLimit(maxMemory.empty() ? tessim::defaultMemoryLimit()
                                                   : tessim::parseMemoryLimit(maxMemory));
    });
    tessim::cli::addRunCommands(app);
    tessim::cli::addValidateCommand(app);
    tessim::cli::addListCommand(app);
    tessim::cli::addBenchCommand(app);
    tessim::cli::addProbeCommand(app);
    tessim::cli::addSweepCommand(app);
    tessim::cli::addPlotCommand(app);
    tessim::cli::addReproduceCommand(app);
    tessim::cli::addDseCommand(app);
    tessim::cli::addTnCommand(app);
    tessim::cli::addDiffCommand(app);
    tessim::cli::addExplainCommand(app);
    tessim::cli::addCompareCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    } catch (const tessim::config::ConfigError& e) {
        std::cerr << e.what() << '\n';
        return 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: " << tessim::outOfMemoryMessage() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return 2;
    }
    // What a command printed is its result: a report lost to a full disk or a closed pipe is a
    // failure, not a success with nothing to show.
    std::cout.flush();
    if (!std::cout) {
        std::cerr << "error: cannot write to standard output (" << std::strerror(errno)
                  << "): the output is incomplete\n";
        return 2;
    }
    return tessim::cli::commandExitCode();
}
