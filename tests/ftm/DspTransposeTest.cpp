// A Transpose on the vector DSP (ftm2000's cores, the npu's vpu): one whose output rows are
// strided in the input runs tiled — blocks of whole output rows fetched by a DMA descriptor per run
// of rows consecutive in the input, gathered in the local memory by strided loads, written back
// run by run — and one whose rows are runs of the input gathers by DMA (axes of one element are
// dropped first: they move nothing); every permutation is bit-exact, and each moves its tensor
// once through the DDR.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

struct TransposeRun {
    nlohmann::json report;
    std::uint64_t descriptors = 0;  // DMA starts of every core
};

// One Transpose layer of input dims (ONNX order) and perm on `target`, functional.
TransposeRun runTranspose(const std::string& target, const std::string& dims, const std::string& perm,
                          const std::string& shape) {
    const std::string path = "/tmp/tessim-dsp-transpose-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\nlayers:\n  - {name: tr, op: Transpose, " << shape
                        << ", input_dims: " << dims << ", perm: " << perm << "}\n";
    const test::ProcessResult r =
        test::runTessim("run --format json --functional --target " + target + " --workload " + path);
    std::remove(path.c_str());
    EXPECT_EQ(r.exitCode, 0) << r.err;
    TransposeRun t;
    if (r.exitCode != 0)
        return t;
    t.report = nlohmann::json::parse(r.out);
    for (const auto& [engine, stats] : t.report["stats"][target].items())
        if (stats.contains("dma_starts"))
            t.descriptors += stats["dma_starts"]["value"].get<std::uint64_t>();
    return t;
}

TEST(DspTranspose, EveryPermutationIsBitExactOnBothChips) {
    for (const std::string target : {"ftm2000", "npu"}) {
        for (const std::string perm : {"[0, 2, 3, 1]", "[0, 3, 1, 2]", "[0, 2, 1, 3]", "[3, 2, 1, 0]",
                                       "[1, 0, 2, 3]", "[0, 1, 3, 2]"}) {
            SCOPED_TRACE(target + " " + perm);
            const TransposeRun t = runTranspose(target, "[1, 5, 9, 7]", perm, "h: 9, w: 7, channels: 5");
            ASSERT_FALSE(t.report.is_null());
            EXPECT_EQ(t.report["functional"]["mismatches"], 0) << t.report["functional"];
            EXPECT_EQ(t.report["functional"]["elements"], 315);
        }
        // Batches, rank 5 and rank 2 (memory order: ONNX's own but at rank 4).
        for (const auto& [dims, perm, shape] :
             {std::tuple<std::string, std::string, std::string>{"[6, 5, 7, 4]", "[2, 0, 3, 1]",
                                                                "h: 6, w: 35, channels: 4"},
              {"[2, 3, 4, 5, 4]", "[4, 2, 0, 3, 1]", "h: 6, w: 20, channels: 4"},
              {"[30, 17]", "[1, 0]", "h: 30, w: 17, channels: 1"}}) {
            SCOPED_TRACE(target + " " + dims + " " + perm);
            const TransposeRun t = runTranspose(target, dims, perm, shape);
            ASSERT_FALSE(t.report.is_null());
            EXPECT_EQ(t.report["functional"]["mismatches"], 0) << t.report["functional"];
        }
    }
}

// 64×56×56 (NHWC in memory): every permutation whose output rows are strided in the input runs
// tiled — a DMA descriptor per run of rows, not per element — and moves the tensor through the DDR
// once, as the identity does; on ftm2000 within 25 % of the identity's time (the AM's strided
// loads overlap the transfers). `[1, 0, 2, 3]` at batch 1 moves only an axis of one element past
// C: in memory it is HWC → CHW, `[0, 3, 1, 2]`'s transpose, and runs as it does.
TEST(DspTranspose, StridedRowsRunTiled) {
    const std::string dims = "[1, 64, 56, 56]", shape = "h: 56, w: 56, channels: 64";
    for (const std::string target : {"ftm2000", "npu"}) {
        const TransposeRun copy = runTranspose(target, dims, "[0, 1, 2, 3]", shape);
        ASSERT_FALSE(copy.report.is_null());
        std::map<std::string, TransposeRun> runs;
        for (const std::string perm :
             {"[0, 2, 3, 1]", "[0, 3, 1, 2]", "[0, 2, 1, 3]", "[3, 2, 1, 0]", "[1, 0, 2, 3]"}) {
            SCOPED_TRACE(target + " " + perm);
            const TransposeRun tiled = runTranspose(target, dims, perm, shape);
            ASSERT_FALSE(tiled.report.is_null());
            EXPECT_EQ(tiled.report["functional"]["mismatches"], 0);
            // The tensor read and written once, as the identity permutation moves it.
            EXPECT_EQ(tiled.report["layers"][0]["ddr_read_bytes"],
                      copy.report["layers"][0]["ddr_read_bytes"]);
            EXPECT_EQ(tiled.report["layers"][0]["ddr_write_bytes"],
                      copy.report["layers"][0]["ddr_write_bytes"]);
            const double cycles = tiled.report["cycles"].get<double>();
            std::printf("%s %s: tiled %.0f cycles (%llu DMA descriptors), identity %.0f\n", target.c_str(),
                        perm.c_str(), cycles, static_cast<unsigned long long>(tiled.descriptors),
                        copy.report["cycles"].get<double>());
            EXPECT_LT(tiled.descriptors * 10, 64u * 56 * 56);  // far fewer than one per element
            if (target == "ftm2000") {
                EXPECT_LT(cycles, 1.25 * copy.report["cycles"].get<double>());
            }
            EXPECT_GE(tiled.report["seconds"].get<double>(),
                      tiled.report["bounds"]["compute_s"].get<double>());
            runs[perm] = tiled;
        }
        EXPECT_EQ(runs["[1, 0, 2, 3]"].report["cycles"], runs["[0, 3, 1, 2]"].report["cycles"]) << target;
        EXPECT_EQ(runs["[1, 0, 2, 3]"].descriptors, runs["[0, 3, 1, 2]"].descriptors) << target;
    }
}

}  // namespace
}  // namespace tessim
