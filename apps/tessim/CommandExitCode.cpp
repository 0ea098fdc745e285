#include <cmath>
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

CLI::Validator nonEmptyPath(const std::string& what) {
    return CLI::Validator(
        [what](std::string& path) {
            return path.empty() ? "a " + what + ", not an empty path" : std::string();
        },
        "PATH");
}

CLI::Validator positiveSeconds() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0.0;
            if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v <= 0.0)
                return "expected a positive, finite number of seconds, not '" + text + "'";
            return {};
        },
        "SECONDS");
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
