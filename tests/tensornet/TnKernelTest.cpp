// TT and TR layers simulated through the command line: on k1 the einsum chain (a ring as ring-rank
// chains summed) computes the dense layer rebuilt from the same cores for every plan and every
// contraction order (f32: exact on the kernel's small-integer data, checked to 1e-6 relative); on
// npu the GEMM sequence does the planned multiply-accumulates; `tessim tn` reports and refuses bad
// input with exit 2.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/tensornet/ContractionPlan.h"
#include "analysis/tensornet/TnLayer.h"
#include "analysis/tensornet/TnWorkloads.h"
#include "common/ProcessRunner.h"

namespace tessim::tn {
namespace {

using test::runTessim;
using Json = nlohmann::json;

std::string args(const ReproRun& run) {
    std::string s = "run --target " + run.target + " --workload " + run.workload;
    for (const auto& set : run.sets)
        s += " --set '" + set + "'";
    return s;
}

Json run(const std::string& a) {
    auto r = runTessim(a);
    EXPECT_EQ(r.exitCode, 0) << a << "\n" << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

void expectExact(const Json& r, std::uint64_t elements, const std::string& what) {
    ASSERT_TRUE(r.contains("functional")) << what;
    EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), elements) << what;
    EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
        << what << ": " << r["functional"].value("first_mismatch", "");
}

// in 3·4·5 = 60, out 7·2·3 = 42, ring ranks [3, 8, 12]: 1812 parameters.
const std::string kRing =
    "run --target k1 --workload fc --set workload.in=60 --set workload.out=42 --set "
    "workload.batch=3 --set 'workload.tr={in: [3, 4, 5], out: [7, 2, 3], ranks: [3, 8, 12]}'";

TEST(TnKernel, RingOnK1ComputesTheDenseLayerOfItsCoresForEveryPlan) {
    unsigned variant = 0;
    for (const char* vectorise : {"auto", "r", "k", "m", "b"})
        for (const char* packing : {"true", "false"}) {
            const unsigned threads = 1 + variant % 3;
            const char* tiling = variant % 4 < 2 ? " --set plan.tiling=l2 --set plan.l2_size=16KiB" : "";
            ++variant;
            const std::string a = kRing + " --set plan.vectorise=" + vectorise +
                                  " --set plan.packing=" + packing +
                                  " --set plan.threads=" + std::to_string(threads) + tiling + " --functional";
            const Json r = run(a);
            expectExact(r, 42u * 3u, a);
            EXPECT_EQ(r["workload"]["config"]["parameters"].get<std::uint64_t>(), 1812u);
            // 3 chains of ranks [1, 8, 12, 1], each 2·m·b·r·n·r1 per core, last first:
            // core 2 (m 3, b 3·3·4, r 12, n 5), core 1 (m 2, b 3·3·3, r 8, n 4, r1 12), core 0 (m 7, b 3·2·3,
            // n 3, r1 8).
            EXPECT_EQ(r["workload"]["config"]["flops"].get<std::uint64_t>(),
                      3u * 2u * (3u * 36u * 12u * 5u + 2u * 27u * 8u * 4u * 12u + 7u * 18u * 3u * 8u));
        }
    // As scalar code too.
    expectExact(run(kRing + " --set plan.vector_length=1 --set plan.threads=2 --functional"), 126u, "scalar");
    // A ring too large to rebuild densely (256·256·9·8 > 2^22) is checked against the chains in double.
    expectExact(
        run("run --target k1 --workload fc --set workload.in=256 --set workload.out=256 --set "
            "'workload.tr={in: [16, 16], out: [16, 16], ranks: [8, 9]}' --set plan.threads=2 --functional"),
        4u * 256u, "large ring");  // fc.yaml: batch 4
}

TEST(TnKernel, RingRanksAreChecked) {
    auto r = runTessim("run --target k1 --workload fc --set workload.in=60 --set workload.out=42 --set "
                       "'workload.tr={in: [3, 4, 5], out: [7, 2, 3], ranks: [3, 8, 12, 4]}'");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("tr.ranks"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("r_d = r_0"), std::string::npos) << r.err;
}

TEST(TnKernel, EveryContractionOrderOfAConvRunsExactlyOnK1) {
    // [6, 4, 3, 3] on an 4×4 input, pad 1: 16 rows.
    for (Format f : {Format::TT, Format::TR}) {
        TnLayer l = convLayer("c", f, 6, 4, 3, 3, {}, {}, Spatial::Split,
                              f == Format::TT ? std::vector<std::uint64_t>{2, 3, 2}
                                              : std::vector<std::uint64_t>{2, 3, 2, 3},
                              convOutputPixels(4, 4, 3, 3, 1, 1));
        for (const auto& p : contractionCandidates(l, 4)) {
            const std::string a = args(layerRun("c", "k1", l, p)) + " --functional";
            const Json r = run(a);
            expectExact(r, 6u * 16u, a);
            EXPECT_EQ(r["workload"]["config"]["flops"].get<std::uint64_t>(), p.flops) << a;
            EXPECT_EQ(r["workload"]["config"]["parameters"].get<std::uint64_t>(), l.parameters()) << a;
        }
    }
}

TEST(TnKernel, NpuGemmSequenceDoesThePlannedMultiplyAccumulates) {
    for (Format f : {Format::TT, Format::TR}) {
        const TnLayer l = convLayer("c", f, 16, 8, 3, 3, {4, 4}, {}, Spatial::Split,
                                    f == Format::TT ? std::vector<std::uint64_t>{2, 4, 3, 3}
                                                    : std::vector<std::uint64_t>{2, 2, 4, 3, 3},
                                    convOutputPixels(8, 8, 3, 3, 1, 1));
        for (const auto& p : contractionCandidates(l, 1)) {
            const std::string a = args(layerRun("c", "npu", l, p)) + " --format json --functional";
            const Json r = run(a);
            // Each GEMM of the sequence is bit-exact on the INT8 array (tolerance 0).
            ASSERT_TRUE(r.contains("functional")) << a;
            EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << a;
            ASSERT_TRUE(r.contains("stats")) << a;
            EXPECT_EQ(2 * r["stats"]["npu"]["npu"]["mac"]["macs"]["value"].get<std::uint64_t>(), p.flops)
                << a;
            EXPECT_EQ(r["layers"].size(), l.d()) << a;
            EXPECT_GE(r["seconds"].get<double>(), r["bounds"]["compute_s"].get<double>()) << a;
        }
    }
}

TEST(TnKernel, PlanCommandReportsAndSimulates) {
    auto r =
        runTessim("tn plan --conv 16,8,3,3 --format tr --ranks 2,2,3,3 --input 8,8 --pad 1 --simulate npu");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(
        r.out.find("| parameters | " + std::to_string(2 * 16 * 2 + 2 * 8 * 3 + 3 * 3 * 3 + 3 * 3 * 2) + " |"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("(chosen)"), std::string::npos);
    EXPECT_NE(r.out.find("Simulated on npu"), std::string::npos);
}

TEST(TnKernel, PlanCommandRefusesBadInput) {
    for (const char* bad : {"tn plan --conv 64,32,3,3 --ranks 2,16,4,4",  // 4 ranks for a 4-core train
                            "tn plan --conv 64,32,3 --ranks 2,2",         // not O,I,Kh,Kw
                            "tn plan --conv 64,32,3,3 --out-modes 8,4 --ranks 2,2,2,2",  // 8·4 ≠ 64
                            "tn plan --fc 12,10 --conv 1,1,1,1 --ranks 2"}) {
        auto r = runTessim(bad);
        EXPECT_EQ(r.exitCode, 2) << bad << "\n" << r.out;
        EXPECT_FALSE(r.err.empty()) << bad;
        EXPECT_TRUE(r.out.empty()) << bad;
    }
}

}  // namespace
}  // namespace tessim::tn
