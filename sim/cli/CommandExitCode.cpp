#include "sim/cli/Commands.h"

namespace tessim::cli {

int& commandExitCode() {
    static int code = 0;
    return code;
}

}  // namespace tessim::cli
