// The K1 model's single-core memcpy and memset curves against the board's
// (analysis/calibration/k1_memory_curves.py: the generated e8 loops at LMUL 1, 2, 4 and 8, warm
// passes, against docs/sources/k1-board/memcpy.csv and memset.csv, the `rvv_m<L>` columns).
// Issue 25 asks for 15 % at every size; the model meets it on the L1 plateau (2–13 KB) and from
// the DDR (5 MB and up) for every column. Between the plateaus — the
// L1→L2 step at 25–42 KB and the L2→DDR step at 0.4–1.7 MB, where the board's curve falls
// gradually — it is not yet within 15 % (docs/targets/k1.md). The test prints every point and
// holds the plateaus, and the number of sampled sizes within 15 % as a ratchet. In CI it runs the
// release build's tessim (common/DocsBuild.h).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/DocsBuild.h"
#include "common/ProcessRunner.h"

namespace tessim::test {
namespace {

nlohmann::json curves(const std::string& kernel) {
    const ProcessResult r = runCommand("python3 " + std::string(TESSIM_SOURCE_DIR) +
                                       "/analysis/calibration/k1_memory_curves.py --json --jobs 2 --points 8 "
                                       "--columns rvv_m1,rvv_m2,rvv_m4,rvv_m8 --kernel " +
                                       kernel + " --tessim " + docsTessim());
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? nlohmann::json::parse(r.out)["columns"] : nlohmann::json::object();
}

TEST(K1BoardCurves, MemcpyAndMemsetPlateausAreWithinFifteenPercentOfTheBoard) {
    for (const char* kernel : {"memcpy", "memset"}) {
        const nlohmann::json columns = curves(kernel);
        ASSERT_EQ(columns.size(), 4u) << kernel;
        // A ratchet on the whole curve: the sizes within 15 % of the 8 × 4 sampled, as measured
        // on 2026-12-07 (memcpy 7/6/5/7, memset 8/7/7/8 at rvv_m1…m8; memcpy 6/6/5/6 before the
        // script placed the copy's buffers 64 MiB apart and the L1 had 12 MSHRs, not 16; memset
        // 8/7/5/7 before the L1's store_bytes_per_cycle, 8/7/7/7 before each pass splatted its
        // byte); a change that loses one must say why (docs/targets/k1.md).
        unsigned withinAll = 0;
        for (auto& [column, curve] : columns.items())
            withinAll += curve["within"].get<unsigned>();
        EXPECT_GE(withinAll, std::string(kernel) == "memcpy" ? 25u : 30u) << kernel;
        for (auto& [column, curve] : columns.items()) {
            unsigned held = 0;
            for (const auto& p : curve["points"]) {
                const auto bytes = p["bytes"].get<std::uint64_t>();
                const double error = p["error"].get<double>();
                std::printf("%s %s %10llu B: board %.3f, model %.3f B/cycle (%+.1f %%)\n", kernel,
                            column.c_str(), static_cast<unsigned long long>(bytes), p["board"].get<double>(),
                            p["model"].get<double>(), 100 * error);
                const bool l1 = bytes >= 2000 && bytes <= 13000;
                const bool ddr = bytes >= 5'000'000;
                if (ddr || l1) {
                    ++held;
                    EXPECT_LE(std::fabs(error), 0.15) << kernel << " " << column << " " << bytes << " B";
                }
            }
            std::printf("%s %s: %d of %zu sizes within 15 %%\n", kernel, column.c_str(),
                        curve["within"].get<int>(), curve["points"].size());
            EXPECT_GE(held, 2u) << kernel << " " << column;
        }
    }
}

// A size the board measured far below both of its neighbours (memcpy rvv_m8 at 106,143 B: 2.85
// B/cycle between 4.13 and 3.88) is marked as the board's dip, in the JSON and in the table; its
// neighbours are not, and the point still counts as outside.
TEST(K1BoardCurves, TheBoardsIsolatedDipsAreMarked) {
    const std::string script = "python3 " + std::string(TESSIM_SOURCE_DIR) +
                               "/analysis/calibration/k1_memory_curves.py --jobs 2 --min 95000 --max 115000 "
                               "--columns rvv_m8 --kernel memcpy --tessim " +
                               docsTessim();
    const ProcessResult json = runCommand(script + " --json");
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const nlohmann::json curve = nlohmann::json::parse(json.out)["columns"]["rvv_m8"];
    ASSERT_EQ(curve["points"].size(), 3u);
    for (const auto& p : curve["points"]) {
        const auto bytes = p["bytes"].get<std::uint64_t>();
        if (bytes == 106143) {
            EXPECT_EQ(p["board_outlier"], "dip");
            EXPECT_GT(p["board_jump"].get<double>(), 1.15 / 0.85);
            EXPECT_GT(std::fabs(p["error"].get<double>()), 0.15);
        } else {
            EXPECT_TRUE(p["board_outlier"].is_null()) << bytes;
        }
    }
    EXPECT_EQ(curve["outside_at_board_outliers"].get<unsigned>(), 1u);
    EXPECT_EQ(curve["within"].get<unsigned>(), 2u);
    const ProcessResult text = runCommand(script);
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("106143          2.852"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("board dip: its neighbours in the table above it by 1.36x"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("1 of those outside at board outliers"), std::string::npos) << text.out;
}

// Past the L2, DIP keeps a part of a stream larger than the cache that grows pass by pass (one
// fill in 32 placed to stay): after passes making 32 MiB a 0.74 MB memset finds more of itself in
// the L2 than after one pass (docs/targets/k1.md; the board does not say how many passes it times).
TEST(K1BoardCurves, WarmPassesBeforeTheTimedOnesRaiseTheRateBeyondTheL2) {
    double rate[2] = {0, 0};
    for (int warm : {0, 1}) {
        const ProcessResult r =
            runCommand("python3 " + std::string(TESSIM_SOURCE_DIR) +
                       "/analysis/calibration/k1_memory_curves.py --json --jobs 1 --points 1 "
                       "--min 741790 --max 741790 --columns rvv_m8 --kernel memset "
                       "--warm-mib " +
                       std::string(warm ? "32" : "0") + " --tessim " + docsTessim());
        ASSERT_EQ(r.exitCode, 0) << r.err;
        rate[warm] = nlohmann::json::parse(r.out)["columns"]["rvv_m8"]["points"][0]["model"].get<double>();
    }
    std::printf("memset 741790 B rvv_m8: %.3f B/cycle after one pass, %.3f after 32 MiB\n", rate[0], rate[1]);
    EXPECT_GT(rate[1], 1.2 * rate[0]);
}

// --plot draws the curves (a PNG through analysis/plots/tessim_plot.py), or refuses a path it could
// not write before any run: exit 2, nothing on stdout.
TEST(K1BoardCurves, PlotDrawsTheCurvesOrRefusesItsPathUpFront) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("tessim_k1_plot_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string script = "python3 " + std::string(TESSIM_SOURCE_DIR) +
                               "/analysis/calibration/k1_memory_curves.py --jobs 2 --points 2 --max 20000 "
                               "--columns rvv_m1,rvv_m8 --kernel memset --tessim " +
                               docsTessim() + " --plot ";
    const std::string png = (dir / "curves.png").string();
    const ProcessResult drawn = runCommand(script + png);
    ASSERT_EQ(drawn.exitCode, 0) << drawn.err;
    EXPECT_NE(drawn.out.find("memset rvv_m8: "), std::string::npos) << drawn.out;
    std::ifstream in(png, std::ios::binary);
    std::string magic(8, '\0');
    in.read(magic.data(), 8);
    EXPECT_EQ(magic, "\x89PNG\r\n\x1a\n");
    for (const std::string bad : {std::string("''"), (dir / "no-such-folder" / "x.png").string()}) {
        const ProcessResult refused = runCommand(script + bad);
        EXPECT_EQ(refused.exitCode, 2) << bad;
        EXPECT_EQ(refused.out, "") << bad;
        EXPECT_NE(refused.err.find("--plot"), std::string::npos) << refused.err;
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace tessim::test
