#include <iostream>
#include <new>

#include "apps/tessim/Commands.h"
#include "sim/config/ConfigError.h"
#include "sim/core/MemoryLimit.h"

namespace tessim::cli {

int& commandExitCode() {
    static int code = 0;
    return code;
}

void runGuarded(const std::function<void()>& body) {
    try {
        body();
    } catch (const config::ConfigError& e) {
        std::cerr << e.what() << '\n';
        commandExitCode() = 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: " << outOfMemoryMessage() << '\n';
        commandExitCode() = 2;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        commandExitCode() = 2;
    }
}

}  // namespace tessim::cli
