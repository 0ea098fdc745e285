// The path of the running executable, for commands that re-run it in child processes (inside a
// shell started by popen, /proc/self/exe would name the shell).
#pragma once

#include <string>

namespace tessim {

std::string selfExecutable();

}  // namespace tessim
