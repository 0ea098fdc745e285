// Runs the tessim executable as a child process and captures stdout, stderr and the exit code.
#pragma once

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace tessim::test {

struct ProcessResult {
    int exitCode = -1;
    std::string out;
    std::string err;
};

inline std::string readWholeFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs a shell command line (quote what needs quoting): its stdout, stderr and exit code.
inline ProcessResult runCommand(const std::string& command) {
    static int counter = 0;
    std::string errPath =
        "/tmp/tessim_test_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    std::string cmd = command + " 2>" + errPath;
    ProcessResult r;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe)
        return r;
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
        r.out.append(buf.data(), n);
    int status = pclose(pipe);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = readWholeFile(errPath);
    std::remove(errPath.c_str());
    return r;
}

// `args` is appended to the binary path as a shell command line (quote what needs quoting).
inline ProcessResult runTessim(const std::string& args) {
    return runCommand(std::string(TESSIM_BINARY) + " " + args);
}

}  // namespace tessim::test
