#include "run/sweep/PlotScript.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tessim::sweep {

std::string plotScriptPath() {
    if (const char* path = std::getenv("TESSIM_PLOT_SCRIPT"); path && *path)
        return path;
    return std::string(TESSIM_CONFIG_DIR) + "/../analysis/plots/tessim_plot.py";
}

int drawPlot(const std::string& kind, const std::string& data, const std::string& extension,
             const std::string& png, std::ostream& err) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("tessim-" + kind + "-" + std::to_string(::getpid()) + extension))
                                 .string();
    {
        std::ofstream f(path);
        f << data;
        if (!f) {
            err << "error: cannot write " << path << '\n';
            return 2;
        }
    }
    const int rc = runPlotScript({path, "--kind", kind, "--file", png}, err);
    std::remove(path.c_str());
    return rc;
}

std::vector<std::string> plotScriptArguments(const std::string& resultsCsv, const PlotRequest& plot,
                                             const std::string& outDir) {
    std::vector<std::string> args{resultsCsv, "--kind", plot.kind, "--x", plot.x};
    for (const auto& y : plot.y)
        args.insert(args.end(), {"--y", y});
    if (!plot.group.empty())
        args.insert(args.end(), {"--group", plot.group});
    if (!plot.metric.empty())
        args.insert(args.end(), {"--metric", plot.metric});
    args.insert(args.end(), {"--out", outDir});
    return args;
}

int runPlotScript(const std::vector<std::string>& args, std::ostream& err) {
    const char* python = std::getenv("TESSIM_PYTHON");
    std::string interpreter = python && *python ? python : "/usr/bin/python3";
    std::string script = plotScriptPath();
    if (::access(interpreter.c_str(), X_OK) != 0) {
        err << "error: plots need " << interpreter
            << " with matplotlib (Debian: apt-get install python3-matplotlib)\n";
        return 2;
    }
    if (::access(script.c_str(), R_OK) != 0) {
        err << "error: plot script '" << script << "' not found (set TESSIM_PLOT_SCRIPT)\n";
        return 2;
    }
    std::vector<std::string> argv{interpreter, script};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (auto& a : argv)
        cargs.push_back(a.data());
    cargs.push_back(nullptr);
    std::cout.flush();
    std::cerr.flush();
    // The script's stderr comes through a pipe: its own `error:` lines pass on as they are, but a
    // Python traceback (a broken or foreign TESSIM_PLOT_SCRIPT) becomes one line naming the script.
    int pipeFds[2];
    if (::pipe(pipeFds) != 0) {
        err << "error: cannot start " << interpreter << ": " << std::strerror(errno) << '\n';
        return 2;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
    posix_spawn_file_actions_addclose(&actions, pipeFds[1]);
    pid_t pid = 0;
    int rc = ::posix_spawn(&pid, interpreter.c_str(), &actions, nullptr, cargs.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    if (rc != 0) {
        ::close(pipeFds[0]);
        err << "error: cannot start " << interpreter << ": " << std::strerror(rc) << '\n';
        return 2;
    }
    std::string stderrText;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
        if (n > 0)
            stderrText.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    ::close(pipeFds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok && stderrText.find("Traceback (most recent call last)") != std::string::npos) {
        // Its last line says what was raised ("ValueError: ...").
        std::string last;
        std::size_t end = stderrText.find_last_not_of(" \n");
        if (end != std::string::npos) {
            const std::size_t start = stderrText.rfind('\n', end);
            last = stderrText.substr(start == std::string::npos ? 0 : start + 1,
                                     end - (start == std::string::npos ? 0 : start + 1) + 1);
        }
        err << "error: plot script '" << script << "' failed: " << last << '\n';
        return 2;
    }
    err << stderrText;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    err << "error: the plot script was killed by signal " << WTERMSIG(status) << '\n';
    return 1;
}

}  // namespace tessim::sweep
