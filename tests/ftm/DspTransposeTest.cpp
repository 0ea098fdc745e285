// A Transpose on the vector DSP (ftm2000's cores, the npu's vpu): where consecutive output rows
// are consecutive input elements it runs tiled — whole output rows fetched by a few DMA
// descriptors, gathered in the AM by strided loads — and otherwise gathers by DMA; every
// permutation is bit-exact, and each moves its tensor once through the DDR.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

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
    for (const std::string target : {"ftm2000", "npu"})
        for (const std::string perm :
             {"[0, 2, 3, 1]", "[0, 3, 1, 2]", "[0, 2, 1, 3]", "[3, 2, 1, 0]", "[1, 0, 2, 3]"}) {
            SCOPED_TRACE(target + " " + perm);
            const TransposeRun t = runTranspose(target, "[1, 5, 9, 7]", perm, "h: 9, w: 7, channels: 5");
            ASSERT_FALSE(t.report.is_null());
            EXPECT_EQ(t.report["functional"]["mismatches"], 0) << t.report["functional"];
            EXPECT_EQ(t.report["functional"]["elements"], 315);
        }
}

// 64×56×56: [0, 2, 3, 1] in the NHWC memory order is [H][W·C] → [W·C][H], each output row (H
// values) a column of the input, consecutive rows consecutive input elements: tiled.
TEST(DspTranspose, RowsOfConsecutiveInputElementsRunTiled) {
    const std::string dims = "[1, 64, 56, 56]", shape = "h: 56, w: 56, channels: 64";
    for (const std::string target : {"ftm2000", "npu"}) {
        SCOPED_TRACE(target);
        const TransposeRun tiled = runTranspose(target, dims, "[0, 2, 3, 1]", shape);
        const TransposeRun gathered = runTranspose(target, dims, "[3, 2, 1, 0]", shape);
        const TransposeRun copy = runTranspose(target, dims, "[0, 1, 2, 3]", shape);
        ASSERT_FALSE(tiled.report.is_null());
        ASSERT_FALSE(gathered.report.is_null());
        ASSERT_FALSE(copy.report.is_null());
        EXPECT_EQ(tiled.report["functional"]["mismatches"], 0);
        // The tensor read and written once, as the identity permutation moves it.
        EXPECT_EQ(tiled.report["layers"][0]["ddr_read_bytes"], copy.report["layers"][0]["ddr_read_bytes"]);
        EXPECT_EQ(tiled.report["layers"][0]["ddr_write_bytes"], copy.report["layers"][0]["ddr_write_bytes"]);
        EXPECT_EQ(copy.report["layers"][0]["ddr_read_bytes"].get<std::uint64_t>() % (64 * 56 * 56), 0u);
        // A handful of descriptors a block, against one per output row for the copy.
        EXPECT_LT(tiled.descriptors * 10, copy.descriptors);
        const double cycles = tiled.report["cycles"].get<double>();
        std::printf("%s: tiled %.0f cycles, gathered %.0f, identity %.0f\n", target.c_str(), cycles,
                    gathered.report["cycles"].get<double>(), copy.report["cycles"].get<double>());
        EXPECT_LT(cycles * 5, gathered.report["cycles"].get<double>());
        EXPECT_GE(tiled.report["seconds"].get<double>(), tiled.report["bounds"]["compute_s"].get<double>());
    }
}

}  // namespace
}  // namespace tessim
