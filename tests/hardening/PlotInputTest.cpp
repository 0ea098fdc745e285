// `tessim plot` on bad input: one `error:` line and exit 2, never a Python traceback or an empty
// picture (the script runs with Debian's python3-matplotlib; skipped where it is missing).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "hardening/CliRun.h"

namespace {

using tessim::test::runTessim;

TEST(PlotInput, BadResultsAndOutputsAreClearErrors) {
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "no matplotlib for /usr/bin/python3";
    const std::string dir = "/tmp/tessim-plot-input-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/words.csv") << "id,workload.n,seconds,status,message\na,1,fast,ok,\nb,2,slow,ok,\n";
    std::ofstream(dir + "/binary.csv", std::ios::binary) << std::string("\xff\xfe\x00\x01garbage", 11);
    std::ofstream(dir + "/good.csv") << "id,workload.n,seconds,status,message\na,1,1e-3,ok,\nb,2,2e-3,ok,\n";
    std::ofstream(dir + "/file") << "not a directory\n";
    std::ofstream(dir + "/short.csv") << "id,workload.n,seconds,status,message\na,1,1e-3,ok,\nb,2,2e-3\n";
    std::ofstream(dir + "/long.csv") << "id,workload.n,seconds,status,message\na,1,1e-3,ok,,extra,more\n";
    const struct {
        std::string args, message;
    } cases[] = {
        {dir + "/words.csv --kind lines --x workload.n --y seconds", "column 'seconds' has no numeric value"},
        {dir + "/words.csv --kind heatmap --x workload.n --y workload.n --metric seconds",
         "column 'seconds' has no numeric value"},
        {dir + "/binary.csv --kind lines --x workload.n --y seconds",
         "is not a results.csv: byte 0 is not UTF-8"},
        {dir + "/good.csv --kind lines --x workload.n --y energy", "column 'energy' is not in"},
        {dir + "/short.csv --kind pareto --x workload.n --y seconds",
         "short.csv:3: a row of 3 fields where the header has 5"},
        {dir + "/long.csv --kind pareto --x workload.n --y seconds",
         "long.csv:2: a row of 7 fields where the header has 5"},
        {dir + "/good.csv --kind pareto --x workload.n --y seconds --out " + dir + "/file/plots",
         "cannot write plots into " + dir + "/file/plots"},
    };
    for (const auto& c : cases) {
        const bool outGiven = c.args.find("--out") != std::string::npos;
        const auto r = runTessim("plot " + c.args + (outGiven ? "" : " --out " + dir + "/out"));
        EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
        EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(dir + "/out")) << c.args;
    }
    std::filesystem::remove_all(dir);
}

// A TESSIM_PLOT_SCRIPT that raises (a broken or foreign script) gives one error line naming the
// script and what it raised, not Python's traceback.
TEST(PlotInput, ABrokenPlotScriptIsOneErrorLineNamingIt) {
    const std::string dir = "/tmp/tessim-plot-script-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/good.csv") << "id,workload.n,seconds,status,message\na,1,1e-3,ok,\nb,2,2e-3,ok,\n";
    std::ofstream(dir + "/broken.py")
        << "def plot():\n    raise ValueError('no such kind of plot')\nplot()\n";
    const std::string cmd = "TESSIM_PLOT_SCRIPT=" + dir + "/broken.py " + std::string(TESSIM_BINARY) +
                            " plot " + dir + "/good.csv --kind lines --x workload.n --y seconds --out " +
                            dir + "/out3 2>" + dir + "/err.txt";
    const int status = std::system(cmd.c_str());
    const std::string err = tessim::test::readFile(dir + "/err.txt");
    EXPECT_EQ(WEXITSTATUS(status), 2) << err;
    EXPECT_EQ(err, "error: plot script '" + dir + "/broken.py' failed: ValueError: no such kind of plot\n");
    std::filesystem::remove_all(dir);
}

}  // namespace
