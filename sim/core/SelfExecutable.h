// The path of the running executable, for commands that re-run it in child processes (a child
// started through a shell would see the shell as /proc/self/exe).
#pragma once

#include <string>

namespace tessim {

std::string selfExecutable();

}  // namespace tessim
