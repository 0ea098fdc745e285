// Helpers shared by the sweep tests: scratch directories, sweep files, the fake point command.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tessim::sweep::testing {

inline std::string sourceDir() {
    return TESSIM_SOURCE_DIR;
}

/// `tessim run` stand-in (tests/sweep/fake_run.sh).
inline std::vector<std::string> fakeRunCommand() {
    return {"/bin/sh", sourceDir() + "/tests/sweep/fake_run.sh"};
}

/// A fresh, empty directory under $TMPDIR.
inline std::string scratchDir(const std::string& name) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessim-" + name + "-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    char* dir = ::mkdtemp(buffer.data());
    return dir ? std::string(dir) : std::string();
}

/// A scratch directory removed with everything in it when the test ends (kept when
/// TESSIM_KEEP_TEST_DIRS is set, to look at).
struct ScratchDir {
    explicit ScratchDir(const std::string& name) : path(scratchDir(name)) {}
    ~ScratchDir() {
        if (!path.empty() && !std::getenv("TESSIM_KEEP_TEST_DIRS")) {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    std::string path;
};

inline void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

inline std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

/// Lines of a file, sorted (rows are compared order-insensitively).
inline std::vector<std::string> sortedLines(const std::string& path) {
    std::vector<std::string> lines;
    std::istringstream in(readText(path));
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
}

inline size_t countLines(const std::string& path) {
    std::string text = readText(path);
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

struct CommandResult {
    int status = -1;
    std::string out;
    std::string err;
};

/// Runs a shell command line, capturing stdout and stderr.
inline CommandResult runShell(const std::string& command, const std::string& scratch) {
    std::string outPath = scratch + "/.cmd.out";
    std::string errPath = scratch + "/.cmd.err";
    int raw = std::system((command + " >" + outPath + " 2>" + errPath).c_str());
    CommandResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = readText(outPath);
    r.err = readText(errPath);
    return r;
}

/// Whether a program is on PATH.
inline bool onPath(const std::string& program) {
    return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace tessim::sweep::testing
