// Runs the tessim executable as a user would and captures its exit status and output.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace tessim::test {

struct CliResult {
    int status = -1;
    std::string output;
};

// `args` is appended to the executable's path; stderr is captured with stdout.
inline CliResult runTessim(const std::string& args) {
    CliResult r;
    const std::string cmd = std::string(TESSIM_BINARY) + " " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        r.output.append(buf, n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

}  // namespace tessim::test
