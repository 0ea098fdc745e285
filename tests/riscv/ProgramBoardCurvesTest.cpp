// The RVV memcpy and memset loops a program writes (tests/riscv/programs/memory_rvv.c,
// `vsetvli e8,m8; vle8.v; vse8.v`), run on the K1 model and timed by their own rdcycle, against
// the board's `rvv_m8` curves (analysis/calibration/k1_memory_curves.py --program): the same
// loop the board ran, so the calibration of configs/targets/k1.yaml is checked on a program as
// well as on the generated kernels (tests/k1/K1BoardCurvesTest.cpp). Held: the L1 plateau and
// the DDR sizes within 15 %. In CI it runs the release build's tessim (common/DocsBuild.h).
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/DocsBuild.h"
#include "riscv/RiscvPrograms.h"

namespace tessim::test {
namespace {

TEST(ProgramBoardCurves, TheProgramsMemcpyAndMemsetPlateausAreWithinFifteenPercentOfTheBoard) {
    const std::string program = buildProgram("memory_rvv.c", "-march=rv64gcv -O2 -static");
    for (const char* kernel : {"memcpy", "memset"}) {
        const ProcessResult r =
            runCommand("python3 " + std::string(TESSIM_SOURCE_DIR) +
                       "/analysis/calibration/k1_memory_curves.py --json --jobs 2 --points 8 "
                       "--columns rvv_m8 --program " +
                       program + " --kernel " + kernel + " --tessim " + docsTessim());
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const auto curve = nlohmann::json::parse(r.out)["columns"]["rvv_m8"];
        unsigned held = 0;
        for (const auto& p : curve["points"]) {
            const auto bytes = p["bytes"].get<std::uint64_t>();
            std::printf("%s program %9llu B: board %.3f, model %.3f B/cycle (%+.1f %%)\n", kernel,
                        static_cast<unsigned long long>(bytes), p["board"].get<double>(),
                        p["model"].get<double>(), 100 * p["error"].get<double>());
            if ((bytes >= 2000 && bytes <= 15000) || bytes >= 2'000'000) {
                ++held;
                EXPECT_LE(std::fabs(p["error"].get<double>()), 0.15) << kernel << " " << bytes << " B";
            }
        }
        EXPECT_GE(held, 3u) << kernel;
    }
}

// The byte loops (the board's `scalar` column: lbu/sb and sb per byte) run and copy exactly; their
// rates are printed, not held: the model's 0.14 and 0.33 B/cycle against the board's 0.33 and
// 0.50 are a known gap (docs/targets/k1.md, calibration).
TEST(ProgramBoardCurves, TheByteLoopsRunAndPrintTheirRates) {
    const std::string program = buildProgram("memory_rvv.c", "-march=rv64gcv -O2 -static");
    for (const char* kind : {"memcpy_bytes", "memset_bytes"}) {
        const ProcessResult r =
            runCommand(docsTessim() + " run --target k1 --program " + program + " -- " + kind + " 4096 3");
        ASSERT_EQ(r.exitCode, 0) << kind << ": " << r.err;
        const auto at = r.out.find("warm_bytes_per_cycle ");
        ASSERT_NE(at, std::string::npos) << r.out;
        const double rate = std::stod(r.out.substr(at + 21));
        std::printf("%s 4096 B: model %.3f B/cycle\n", kind, rate);
        EXPECT_GT(rate, 0.05) << kind;
    }
}

}  // namespace
}  // namespace tessim::test
