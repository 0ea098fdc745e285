// The tensor-train fc layer on the k1 target through the command line: every plan computes the dense
// layer rebuilt from the same cores, the core loads of the generated stream equal the closed form
// mt·⌊bt/Rb⌋·rt·nt·rt_1/vl (+ the remainder block), a register block over budget is a configuration
// error, and time is at least every bound.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

Json run(const std::string& args) {
    auto r = runTessim("run --target k1 " + args);
    EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

// in = 3·4·5 = 60, out = 7·2·3 = 42, inner ranks 8 and 12: one rank a whole vector, one not.
const std::string kSmall = "--workload fc --set workload.in=60 --set workload.out=42 --set workload.batch=3 "
                           "--set 'workload.tt={in: [3, 4, 5], out: [7, 2, 3], ranks: [8, 12]}'";

TEST(TtKernel, EveryPlanComputesTheDenseLayerOfItsCores) {
    const char* blocks[] = {" --set plan.rm=4 --set plan.rb=3 --set plan.rr=1 --set plan.rk=1",
                            " --set plan.rm=1 --set plan.rb=1 --set plan.rr=2 --set plan.rk=3",
                            " --set plan.rm=2 --set plan.rb=5 --set plan.rr=1 --set plan.rk=2"};
    unsigned variant = 0;
    for (const char* vectorise : {"auto", "r", "k", "m", "b"}) {
        for (const char* packing : {"true", "false"}) {
            for (const char* block : blocks) {
                // Threads, loop order and tiling vary with the combination.
                const unsigned threads = variant % 3 == 0 ? 1 : (variant % 3 == 1 ? 3 : 4);
                const char* order = variant % 2 ? "bmrk" : "mbrk";
                const char* tiling = variant % 4 < 2 ? " --set plan.tiling=l2 --set plan.l2_size=16KiB" : "";
                ++variant;
                const std::string args = kSmall + " --set plan.vectorise=" + vectorise +
                                         " --set plan.packing=" + packing + block +
                                         " --set plan.threads=" + std::to_string(threads) +
                                         " --set plan.order=" + order + tiling + " --functional";
                Json r = run(args);
                ASSERT_TRUE(r.contains("functional")) << args;
                EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 42u * 3u) << args;
                EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
                    << args << ": " << r["functional"].value("first_mismatch", "");
            }
        }
    }
}

// plan.reduction: ordered sums the k lanes with vfredosum (in element order), which the X60 runs
// slower than vfredusum (configs/targets/k1.yaml: reduce_ordered 11 against 6.5 cycles at m1); the
// results stay exact. The same key on fc's GEMM.
TEST(TtKernel, AnOrderedReductionIsExactAndSlowerThanAnUnorderedOne) {
    const std::string k = kSmall + " --set plan.vectorise=k --set plan.rk=2";
    const Json unordered = run(k + " --functional");
    const Json ordered = run(k + " --set plan.reduction=ordered --functional");
    ASSERT_TRUE(unordered.contains("functional") && ordered.contains("functional"));
    EXPECT_EQ(ordered["functional"]["mismatches"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(ordered["plan"]["config"]["reduction"], "ordered");
    EXPECT_GT(ordered["cycles"].get<double>(), unordered["cycles"].get<double>());
    const Json fcUnordered =
        run("--workload fc --set workload.in=64 --set workload.out=16 --set workload.batch=2");
    const Json fcOrdered =
        run("--workload fc --set workload.in=64 --set workload.out=16 --set workload.batch=2 --set "
            "plan.reduction=ordered --functional");
    ASSERT_TRUE(fcOrdered.contains("functional"));
    EXPECT_EQ(fcOrdered["functional"]["mismatches"].get<std::uint64_t>(), 0u);
    EXPECT_GT(fcOrdered["cycles"].get<double>(), fcUnordered["cycles"].get<double>());
}

TEST(TtKernel, ScalarCodeComputesTheSameLayer) {
    for (const char* block :
         {" --set plan.rm=1 --set plan.rb=1", " --set plan.rm=4 --set plan.rb=3 --set plan.rk=2"}) {
        for (const char* packing : {"true", "false"}) {
            const std::string args = kSmall + " --set plan.vector_length=1 --set plan.packing=" + packing +
                                     block + " --set plan.threads=2 --functional";
            Json r = run(args);
            ASSERT_TRUE(r.contains("functional")) << args;
            EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
                << args << ": " << r["functional"].value("first_mismatch", "");
            EXPECT_EQ(r["plan"]["config"]["vector_length"].get<unsigned>(), 1u);
            // As scalar code no vector load is left: every operand is an flw.
            auto emitted = runTessim("emit --target k1 " + args.substr(0, args.find(" --functional")));
            ASSERT_EQ(emitted.exitCode, 0) << emitted.err;
            EXPECT_EQ(emitted.out.find("\"op\":\"vload\""), std::string::npos);
            EXPECT_NE(emitted.out.find("\"op\":\"sload\""), std::string::npos);
        }
    }
}

// Vector loads and stores of each einsum (between the layer marks) in the emitted schedule.
struct Counts {
    std::uint64_t loads = 0, stores = 0;
};
std::vector<Counts> countPerEinsum(const std::string& args) {
    auto r = runTessim("emit --target k1 " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::vector<Counts> counts(1);
    std::istringstream in(r.out);
    std::string line;
    std::getline(in, line);  // header
    // A substring test per line, not a JSON parse: 130,000 lines a stream, and this file compiles at
    // -O0 in the sanitizer build, where parsing them took most of the test's time.
    auto has = [&line](const char* text) { return line.find(text) != std::string::npos; };
    while (std::getline(in, line)) {
        if (has("\"op\":\"vload\""))
            ++counts.back().loads;
        else if (has("\"op\":\"vstore\""))
            ++counts.back().stores;
        else if (has("\"op\":\"nop\"") && has("\"mark\":"))
            counts.emplace_back();
    }
    counts.pop_back();
    return counts;
}

TEST(TtKernel, CoreLoadsEqualTheClosedForm) {
    // in = out = [4, 4, 4], ranks 16: einsums (core 2, 1, 0) with bt = 32 rows each, rt = 16, 16, 1,
    // nt·rt_1 = 4, 64, 64. Vectorised along r, inputs are splat from scalar loads, so every vector
    // load is a core load.
    const std::uint64_t vlmax = 8;  // 256-bit registers, f32
    struct E {
        std::uint64_t m, b, r, k;
    };
    const E einsums[] = {{4, 32, 16, 4}, {4, 32, 16, 64}, {4, 32, 1, 64}};
    for (unsigned rb : {1u, 3u, 5u}) {
        const std::string args =
            "--workload fc --set workload.in=64 --set workload.out=64 --set workload.batch=2 "
            "--set 'workload.tt={in: [4, 4, 4], out: [4, 4, 4], ranks: [16, 16]}' "
            "--set plan.vectorise=r --set plan.rm=1 --set plan.rr=1 --set plan.rk=1 "
            "--set plan.rb=" +
            std::to_string(rb);
        const auto counts = countPerEinsum(args);
        ASSERT_EQ(counts.size(), 3u) << rb;
        for (unsigned t = 0; t < 3; ++t) {
            const E& e = einsums[t];
            const std::uint64_t vl = std::min(vlmax, e.r);
            // L/S(G_t) = mt·⌊bt/Rb⌋·rt·nt·rt_1/vl, plus one narrower block when Rb does not divide bt.
            std::uint64_t want = e.m * (e.b / rb) * e.r * e.k / vl;
            if (e.b % rb)
                want += e.m * e.r * e.k / vl;
            EXPECT_EQ(counts[t].loads, want) << "rb " << rb << " einsum " << t;
            EXPECT_EQ(counts[t].stores, e.m * e.b * e.r / vl) << "rb " << rb << " einsum " << t;
        }
    }
}

TEST(TtKernel, L2TilesFollowTheAssociativityFormula) {
    // A 16 KiB, 16-way L2 budget: ways of 1 KiB. Each einsum's tile Bt is the largest multiple of Rb
    // with T·⌈Bt·r·4/way⌉ + T·⌈r·n·r1·4/way⌉ + ⌈Bt·n·r1·4/way⌉ ≤ 16 (or all of b when that fits).
    for (unsigned threads : {1u, 2u}) {
        Json r = run(kSmall +
                     " --set workload.batch=16 --set plan.tiling=l2 --set plan.l2_size=16KiB "
                     "--set plan.l2_assoc=16 --set plan.rb=3 --set plan.threads=" +
                     std::to_string(threads));
        const std::uint64_t way = 1024;
        auto ways = [&](std::uint64_t bytes) { return (bytes + way - 1) / way; };
        for (const auto& e : r["plan"]["config"]["einsums"]) {
            const auto b = e["b"].get<std::uint64_t>(), rk = e["r"].get<std::uint64_t>(),
                       k = e["n"].get<std::uint64_t>() * e["r1"].get<std::uint64_t>();
            const unsigned t = e["threads"].get<unsigned>();
            auto fits = [&](std::uint64_t bt) {
                return t * ways(bt * rk * 4) + t * ways(rk * k * 4) + ways(bt * k * 4) <= 16;
            };
            std::uint64_t want = b;
            if (!fits(b)) {
                want = 0;
                for (std::uint64_t bt = 1; bt < b; ++bt)
                    if (fits(bt))
                        want = bt;
                want = std::max<std::uint64_t>(3, want / 3 * 3);
            }
            EXPECT_EQ(e["tile_b"].get<std::uint64_t>(), want)
                << "threads " << threads << " core " << e["core"];
        }
    }
}

// workload.weight_dtype=f16 (seed 000's fp16 weights, fp32 compute): the cores in memory at 2 B an
// element, each core vector a vle16 into a staging register and a vfwcvt.f.f.v into the operand
// (a scalar core element flh and fcvt.s.h). The test cores are small integers, exact in f16, so the
// layer is the f32 one bit for bit, with every plan; the DDR's compulsory bytes shrink by exactly
// 2 B per core element (1116 here: 1·3·7·8 + 8·4·2·12 + 12·5·3·1); the block needs two registers more
// (staging: each core vector is loaded one ahead of its use).
TEST(TtKernel, F16WeightsComputeTheSameLayerFromHalfTheCoreBytes) {
    for (const char* plan : {"--set plan.vectorise=r", "--set plan.vectorise=k --set plan.rk=2",
                             "--set plan.vectorise=m --set plan.threads=3", "--set plan.vectorise=b",
                             "--set plan.vector_length=1"}) {
        SCOPED_TRACE(plan);
        const Json f32 = run(kSmall + " " + plan + " --functional");
        const Json f16 = run(kSmall + " " + plan + " --set workload.weight_dtype=f16 --functional");
        ASSERT_TRUE(f16.contains("functional") && f32.contains("functional"));
        EXPECT_EQ(f16["functional"]["mismatches"].get<std::uint64_t>(), 0u)
            << f16["functional"].value("first_mismatch", "");
        EXPECT_EQ(f16["workload"]["config"]["weight_dtype"], "f16");
        EXPECT_EQ(f32["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>() -
                      f16["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>(),
                  1116u * 2);
        // Widening conversions: vfwcvt on the vector unit, or fcvt.s.h on the scalar FP pipe.
        auto conversions = [](const Json& r) {
            const Json& c = r["energy_j"]["by_component"];
            return (c.contains("core0.vfpu") ? c["core0.vfpu"]["events"].value("convert_f32", 0.0) : 0.0) +
                   (c.contains("core0.fpu") ? c["core0.fpu"]["events"].value("fcvt_f32", 0.0) : 0.0);
        };
        EXPECT_GT(conversions(f16), 0.0);
        EXPECT_EQ(conversions(f32), 0.0);
        if (std::string(plan).find("vector_length") == std::string::npos) {
            EXPECT_EQ(f16["plan"]["config"]["block_registers"].get<unsigned>(),
                      f32["plan"]["config"]["block_registers"].get<unsigned>() + 2);
        }
    }
    const auto r =
        runTessim("run --target k1 " + kSmall + " --set workload.weight_dtype=f16 --set plan.rm=4 " +
                  "--set plan.rb=3 --set plan.rr=1 --set plan.rk=1 --set plan.registers=16");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("+ 2 (f16 cores' staging) = 18 vector registers; the budget is 16"),
              std::string::npos)
        << r.err;
}

TEST(TtKernel, RegisterBlockOverBudgetIsAConfigError) {
    // 4·4·1 + min(4, 4) + 1 = 21 registers against a budget of 16.
    auto r =
        runTessim("run --target k1 " + kSmall +
                  " --set plan.rm=4 --set plan.rb=4 --set plan.rr=1 --set plan.rk=1 --set plan.registers=16");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("error: rm: register block"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("= 21 vector registers; the budget is 16"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
    // The seed's optimum for 16 registers fits exactly: 4·3·1 + min(3, 4) + 1 = 16.
    Json ok = run(kSmall +
                  " --set plan.rm=4 --set plan.rb=3 --set plan.rr=1 --set plan.rk=1 --set plan.registers=16");
    EXPECT_EQ(ok["plan"]["config"]["block_registers"].get<unsigned>(), 16u);
}

TEST(TtKernel, ShapeErrorsNameTheKey) {
    auto r = runTessim("run --target k1 --workload fc --set workload.in=61 --set workload.out=42 "
                       "--set 'workload.tt={in: [3, 4, 5], out: [7, 2, 3], ranks: [8, 12]}'");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("error: in: in = 61 but the product of tt.in [3,4,5] is 60"), std::string::npos)
        << r.err;
    r = runTessim("run --target k1 --workload fc --set workload.in=60 --set workload.out=42 "
                  "--set 'workload.tt={in: [3, 4, 5], out: [7, 2, 3], ranks: [8]}'");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("ranks"), std::string::npos) << r.err;
}

TEST(TtKernel, TimeIsAtLeastTheComputeAndDdrBounds) {
    for (unsigned threads : {1u, 4u}) {
        Json r = run("--workload fc --set workload.in=768 --set workload.out=3072 --set workload.batch=1 "
                     "--set 'workload.tt={in: [4, 4, 6, 8], out: [8, 8, 6, 8], ranks: [16, 16, 16]}' "
                     "--set plan.threads=" +
                     std::to_string(threads));
        const double seconds = r["seconds"].get<double>();
        // FLOPs of the chain / peak of the threads (16 FLOP per cycle per core at 1.6 GHz).
        const double flops = r["workload"]["config"]["flops"].get<double>();
        EXPECT_GE(seconds, flops / (threads * 16 * 1.6e9));
        EXPECT_GE(seconds, r["bounds"]["compute_s"].get<double>());
        // x and the cores come from DDR at least once.
        const std::uint64_t params = r["workload"]["config"]["parameters"].get<std::uint64_t>();
        EXPECT_EQ(r["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>(), (768 + params) * 4);
        EXPECT_GE(seconds, r["bounds"]["bandwidth_s"]["ddr"].get<double>());
        EXPECT_GE(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), (768 + params) * 4);
        EXPECT_EQ(r["layers"].size(), 4u);
    }
}

}  // namespace
}  // namespace tessim
