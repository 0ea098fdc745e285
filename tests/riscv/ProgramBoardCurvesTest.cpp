// The RVV memcpy and memset loops a program writes (tests/riscv/programs/memory_rvv.c,
// `vsetvli e8,m<L>; vle8.v; vse8.v`), run on the K1 model and timed by their own rdcycle, against
// the board's `rvv_m<L>` curves (analysis/calibration/k1_memory_curves.py --program): the same
// loop the board ran, so the calibration of configs/targets/k1.yaml is checked on a program as
// well as on the generated kernels (tests/k1/K1BoardCurvesTest.cpp). Held: the L1 plateau and
// the DDR sizes within 15 %, memset's from the L2 on as well. In CI it runs the release build's tessim
// (common/DocsBuild.h).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/DocsBuild.h"
#include "riscv/RiscvPrograms.h"

namespace tessim::test {
namespace {

// One column of the board's curve for `kernel`, the program's loop run at `options`' sizes; each
// point printed (board, model, error) and returned.
nlohmann::json programCurve(const std::string& program, const char* kernel, const std::string& column,
                            const std::string& options) {
    const ProcessResult r =
        runCommand("python3 " + std::string(TESSIM_SOURCE_DIR) +
                   "/analysis/calibration/k1_memory_curves.py --json --jobs 2 " + options + " --columns " +
                   column + " --program " + program + " --kernel " + kernel + " --tessim " + docsTessim());
    EXPECT_EQ(r.exitCode, 0) << r.err;
    if (r.exitCode != 0)
        return nlohmann::json::array();
    const auto points = nlohmann::json::parse(r.out)["columns"][column]["points"];
    for (const auto& p : points)
        std::printf("%s %s %9llu B: board %.3f, model %.3f B/cycle (%+.1f %%)\n", kernel, column.c_str(),
                    static_cast<unsigned long long>(p["bytes"].get<std::uint64_t>()),
                    p["board"].get<double>(), p["model"].get<double>(), 100 * p["error"].get<double>());
    return points;
}

TEST(ProgramBoardCurves, TheProgramsMemcpyAndMemsetPlateausAreWithinFifteenPercentOfTheBoard) {
    const std::string program = buildProgram("memory_rvv.c", "-march=rv64gcv -O2 -static");
    for (const char* kernel : {"memcpy", "memset"}) {
        unsigned held = 0;
        for (const auto& p : programCurve(program, kernel, "rvv_m8", "--points 8")) {
            const auto bytes = p["bytes"].get<std::uint64_t>();
            // memset also from the L2 through the step past it (0.18 and 0.66 MB; the program
            // filled a source it does not use before 2026-12-07: 0.66 MB then -41 %).
            const bool setFromL2On = !std::strcmp(kernel, "memset") && bytes >= 100'000;
            if ((bytes >= 2000 && bytes <= 15000) || bytes >= 2'000'000 || setFromL2On) {
                ++held;
                EXPECT_LE(std::fabs(p["error"].get<double>()), 0.15) << kernel << " " << bytes << " B";
            }
        }
        EXPECT_GE(held, 3u) << kernel;
    }
}

// The same loop at LMUL 1, 2 and 4 (memory_rvv.c's memcpy_m<L>/memset_m<L>, the board's
// `rvv_m1`, `rvv_m2`, `rvv_m4`) on the L1 plateau: what sets it is the core (vsetvli every
// iteration, the group's load and store costs, the L1's store rate), checked on a program's own
// instructions as K1BoardCurves checks it on the generated kernels.
TEST(ProgramBoardCurves, TheLoopsAtEveryLmulAreWithinFifteenPercentOnTheL1Plateau) {
    const std::string program = buildProgram("memory_rvv.c", "-march=rv64gcv -O2 -static");
    for (const char* kernel : {"memcpy", "memset"}) {
        for (const char* column : {"rvv_m1", "rvv_m2", "rvv_m4"}) {
            const auto points = programCurve(program, kernel, column, "--points 3 --min 3000 --max 15000");
            ASSERT_EQ(points.size(), 3u) << kernel << " " << column;
            for (const auto& p : points)
                EXPECT_LE(std::fabs(p["error"].get<double>()), 0.15)
                    << kernel << " " << column << " " << p["bytes"].get<std::uint64_t>() << " B";
        }
    }
}

// The byte loops (the board's `scalar` column: `lbu; sb; addi; addi; bne` and `sb; addi; bne`)
// from the L1 to the DDR: every size within 15 %. The scalar pipeline's calibration
// (configs/targets/k1.yaml: no bubble after a predicted taken branch, store data read 2 cycles
// after issue, stores merged per 16 B) gives 0.33 and 0.50 B/cycle; before it, 0.14 and 0.33.
TEST(ProgramBoardCurves, TheByteLoopsAreWithinFifteenPercentOfTheBoardsScalarColumn) {
    const std::string program = buildProgram("memory_rvv.c", "-march=rv64gcv -O2 -static");
    for (const char* kernel : {"memcpy", "memset"}) {
        const auto points = programCurve(program, kernel, "scalar", "--points 6 --max 4194304");
        ASSERT_GE(points.size(), 6u) << kernel;
        for (const auto& p : points) {
            const auto bytes = p["bytes"].get<std::uint64_t>();
            EXPECT_LE(std::fabs(p["error"].get<double>()), 0.15) << kernel << " " << bytes << " B";
        }
    }
}

}  // namespace
}  // namespace tessim::test
