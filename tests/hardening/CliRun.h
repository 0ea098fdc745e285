// Runs the tessim executable as a user would and captures its exit status and output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace tessim::test {

// The whole file, byte for byte ("" when it cannot be read).
inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

struct CliResult {
    int status = -1;
    std::string out;     // stdout
    std::string err;     // stderr
    std::string output;  // stdout, then stderr
};

// `args` is appended to the executable's path as a shell command line; `binary` is another
// build's tessim (empty: this build's).
inline CliResult runTessim(const std::string& args, const std::string& binary = "") {
    static int counter = 0;
    const std::string errPath =
        "/tmp/tessim-hardening-err-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    CliResult r;
    const std::string cmd =
        (binary.empty() ? std::string(TESSIM_BINARY) : binary) + " " + args + " 2>" + errPath;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        r.out.append(buf, n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    std::stringstream err;
    err << std::ifstream(errPath).rdbuf();
    r.err = err.str();
    std::remove(errPath.c_str());
    r.output = r.out + r.err;
    return r;
}

}  // namespace tessim::test
