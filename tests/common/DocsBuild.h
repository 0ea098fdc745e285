// The `tessim` a test of published figures runs: the build the docs' commands run
// (TESSIM_README_BUILD: CI's release build, whose figures equal the sanitized build's and which
// runs many times faster), else the test's own.
#pragma once

#include <cstdlib>
#include <string>

namespace tessim::test {

inline std::string docsTessim() {
    const char* build = std::getenv("TESSIM_README_BUILD");
    return build && *build ? std::string(build) + "/tessim" : std::string(TESSIM_BINARY);
}

}  // namespace tessim::test
