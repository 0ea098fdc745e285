// The dense fully connected kernel on the k1 target through the command line: functional runs equal
// the reference for odd sizes whatever the threads and blocking, a block over the register budget
// is a configuration error, time is at least every bound, threads speed up a cache-resident fc more
// than a DDR-bound memcpy, and runs are deterministic.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

Json run(const std::string& args) {
    auto r = runTessim("run --target k1 " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

std::string fc(std::uint64_t in, std::uint64_t out, std::uint64_t batch, unsigned repeat = 1) {
    return "--workload fc --set workload.in=" + std::to_string(in) +
           " --set workload.out=" + std::to_string(out) + " --set workload.batch=" + std::to_string(batch) +
           " --set workload.repeat=" + std::to_string(repeat);
}

std::string plan(unsigned threads, unsigned rb, unsigned ro, unsigned lmul) {
    return " --set plan.threads=" + std::to_string(threads) + " --set plan.rb=" + std::to_string(rb) +
           " --set plan.ro=" + std::to_string(ro) + " --set plan.lmul=" + std::to_string(lmul);
}

double flopPerCycle(const Json& r) {
    return r["stats"]["workload"]["flop_per_cycle"]["value"].get<double>();
}

TEST(Fc, FunctionalRunEqualsTheReferenceForOddSizes) {
    // in = 37 is one full LMUL-1 register (8 lanes) four times plus a tail of 5, and shorter than
    // an LMUL-8 register (64 lanes); batch 3 and out 13 leave partial blocks.
    const char* plans[] = {" --set plan.rb=2 --set plan.ro=4 --set plan.lmul=2",
                           " --set plan.rb=3 --set plan.ro=5 --set plan.lmul=1",
                           " --set plan.rb=1 --set plan.ro=1 --set plan.lmul=8",
                           " --set plan.vectorise=out --set plan.rb=2 --set plan.ro=2 --set plan.lmul=1"};
    for (unsigned threads : {1u, 4u}) {
        for (const char* blocking : plans) {
            Json r = run(fc(37, 13, 3) + " --set plan.threads=" + std::to_string(threads) + blocking +
                         " --functional");
            ASSERT_TRUE(r.contains("functional")) << threads << blocking;
            EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 3u * 13u) << threads << blocking;
            EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
                << threads << blocking << ": " << r["functional"].value("first_mismatch", "");
        }
    }
}

TEST(Fc, ReportsFlops) {
    Json r = run(fc(37, 13, 3, 2));
    const std::uint64_t flops = 2u * 37u * 13u * 3u * 2u;
    EXPECT_EQ(r["stats"]["workload"]["flops"]["value"].get<std::uint64_t>(), flops);
    EXPECT_DOUBLE_EQ(flopPerCycle(r), static_cast<double>(flops) / r["cycles"].get<double>());
    // x and W read once, y written once, 4 B each.
    EXPECT_EQ(r["bounds"]["compulsory_bytes"]["l1"].get<std::uint64_t>(),
              (3u * 37u + 13u * 37u + 3u * 13u) * 4u);
}

TEST(Fc, BlockOverTheRegisterBudgetIsAConfigError) {
    // 4 × 4 accumulators + 4 x rows + 4 W rows = 24 groups of 2 registers = 48 > 32.
    auto r = runTessim("run --target k1 " + fc(37, 13, 3) + plan(1, 4, 4, 2));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("rb 4 × ro 4 at lmul 2 needs 16 accumulators + 4 x rows + 4 W rows = 24 register "
                         "groups = 48 vector registers; engine 'core0' has 32"),
              std::string::npos)
        << r.err;
}

TEST(Fc, VectorisingOverOutPaysForStridedWLoads) {
    // W is [out][in]: over `out` every W load is strided (one element per cycle, facts), over `in`
    // unit-stride (16 B per cycle). Warm caches: cold, the strided loads' many lines in flight
    // hide more of the DDR latency than the unit-stride ones.
    const std::string args = fc(256, 64, 4, 10) + plan(1, 2, 2, 1);
    const double overIn = run(args)["cycles"].get<double>();
    Json overOut = run(args + " --set plan.vectorise=out");
    EXPECT_EQ(overOut["plan"]["config"]["vectorise"].get<std::string>(), "out");
    EXPECT_GT(overOut["cycles"].get<double>(), overIn);
}

TEST(Fc, BlockOverTheRegisterBudgetOverOutIsAConfigError) {
    // 4 × 8 accumulators + 8 W columns = 40 groups > 32 registers at LMUL 1.
    auto r = runTessim("run --target k1 " + fc(37, 13, 3) + plan(1, 4, 8, 1) + " --set plan.vectorise=out");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("needs 32 accumulators + 8 W columns = 40 register groups = 40 vector registers; "
                         "engine 'core0' has 32"),
              std::string::npos)
        << r.err;
}

TEST(Fc, TimeIsAtLeastEveryBound) {
    const std::string cases[] = {fc(256, 64, 4, 4) + plan(1, 2, 4, 2), fc(256, 64, 4, 4) + plan(4, 2, 4, 2),
                                 fc(1024, 96, 1) + plan(4, 1, 7, 2), fc(64, 32, 8, 8) + plan(1, 4, 2, 1),
                                 fc(64, 96, 3) + plan(4, 2, 2, 2) + " --set plan.vectorise=out"};
    for (const auto& c : cases) {
        Json r = run(c);
        const double seconds = r["seconds"].get<double>();
        EXPECT_GT(r["bounds"]["compute_s"].get<double>(), 0.0) << c;
        EXPECT_GE(seconds, r["bounds"]["compute_s"].get<double>()) << c;
        for (const auto& [level, s] : r["bounds"]["bandwidth_s"].items())
            EXPECT_GE(seconds, s.get<double>()) << c << " " << level;
        // The engines' peak: 8 f32 lanes × 2 FLOP per cycle per core at LMUL 1 (vfmacc 1 cycle, facts).
        const double threads = r["plan"]["config"]["threads"].get<double>();
        EXPECT_LE(flopPerCycle(r), 16.0 * threads) << c;
    }
}

TEST(Fc, FourThreadsSpeedACacheResidentFcUpMoreThanADdrBoundMemcpy) {
    // W of 64 KiB (L2-resident, 16 KiB per thread fits each L1), warm after the first pass; memcpy
    // of 16 MiB streams from DDR, which the four cores share.
    const std::string small = fc(256, 64, 4, 10);
    const double fc1 = run(small + plan(1, 2, 4, 2))["cycles"].get<double>();
    const double fc4 = run(small + plan(4, 2, 4, 2))["cycles"].get<double>();
    const std::string copy = "--workload memcpy --set workload.bytes=16MiB --set plan.threads=";
    const double copy1 = run(copy + "1")["cycles"].get<double>();
    const double copy4 = run(copy + "4")["cycles"].get<double>();
    EXPECT_GT(fc1 / fc4, copy1 / copy4);
    EXPECT_GT(fc1 / fc4, 3.0);
    EXPECT_LT(copy1 / copy4, 2.0);
}

TEST(Fc, RunsAreDeterministic) {
    const std::string args = "run --target k1 " + fc(100, 29, 3, 2) + plan(4, 3, 2, 2) + " --functional";
    auto a = runTessim(args);
    auto b = runTessim(args);
    ASSERT_EQ(a.exitCode, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
}

TEST(Fc, LibraryWorkloadAndPlansRun) {
    for (const char* p : {"single-thread", "cluster", "wide"}) {
        Json r = run("--workload fc --plan " + std::string(p));
        EXPECT_EQ(r["workload"]["config"]["in"].get<unsigned>(), 1024u) << p;
        EXPECT_GT(r["cycles"].get<double>(), 0.0) << p;
    }
}

// INT8 (workload.dtype i8): widening integer MACs over `out` with W packed [in][out]; outputs
// requantised to i8 (or the i32 accumulators) equal the reference bit for bit at odd sizes,
// blockings, LMUL and threads; x, W and y take a quarter of f32's bytes (y requantised); the
// run never beats its bounds; vectorising over `in` is refused with the reason.
TEST(Fc, Int8RunsEqualTheReferenceAndMoveAQuarterOfTheBytes) {
    for (const std::string& extra :
         {plan(1, 4, 1, 1), plan(3, 2, 2, 1), plan(2, 1, 1, 2),
          plan(1, 2, 1, 1) + " --set workload.output_dtype=i32",
          plan(4, 3, 1, 1) +
              " --set workload.requant_multiplier=1518500250 --set workload.requant_shift=38"}) {
        const Json r = run(fc(37, 70, 3) + extra + " --set workload.dtype=i8 --functional --format json");
        ASSERT_TRUE(r.contains("functional")) << extra;
        EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 210u) << extra;
        EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
            << extra << ": " << r["functional"].value("first_mismatch", "");
        EXPECT_GE(r["seconds"].get<double>(), r["bounds"]["compute_s"].get<double>()) << extra;
    }
    const Json i8 = run(fc(256, 64, 4) + plan(1, 4, 1, 1) + " --set workload.dtype=i8 --format json");
    EXPECT_EQ(i8["bounds"]["compulsory_bytes"]["l1"].get<std::uint64_t>(), 4u * 256 + 64u * 256 + 4u * 64);
    EXPECT_EQ(i8["plan"]["config"]["output_dtype"], "i8");
    const auto refused =
        runTessim("run --target k1 --workload fc --set workload.dtype=i8 --set plan.vectorise=in");
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_NE(refused.err.find("INT8 is vectorised over `out`"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace tessim
