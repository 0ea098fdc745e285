// Zero padding on the ftm2000 plans: `pad` rows and columns of zeros around the map (the conv
// workload's key: Ho = (H + 2·pad − K) / S + 1). The padding is written into the AM by vector
// stores of a broadcast zero, never read from DDR: outputs equal the direct convolution, and the
// DDR input bytes are those of the map.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"
#include "common/UsefulBytes.h"

namespace {

struct Case {
    unsigned h, w, k, stride, pad;
};

nlohmann::json conv(const std::string& plan, const Case& c, const std::string& extra = "") {
    tessim::test::ProcessResult r = tessim::test::runTessim(
        "run --target ftm2000 --workload conv-ftm --plan " + plan +
        " --functional --format json --set workload.h=" + std::to_string(c.h) +
        " --set workload.w=" + std::to_string(c.w) + " --set workload.k=" + std::to_string(c.k) +
        " --set workload.stride=" + std::to_string(c.stride) +
        " --set workload.pad=" + std::to_string(c.pad) + " " + extra);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

std::uint64_t outputs(const Case& c) {
    const std::uint64_t ho = (c.h + 2 * c.pad - c.k) / c.stride + 1;
    const std::uint64_t wo = (c.w + 2 * c.pad - c.k) / c.stride + 1;
    return ho * wo;
}

void expectDirectConvolution(const nlohmann::json& r, const Case& c, unsigned filters = 1) {
    EXPECT_TRUE(r["functional"]["checked"].get<bool>());
    EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << r["functional"].dump();
    EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), filters * outputs(c));
    EXPECT_EQ(r["workload"]["config"]["pad"].get<unsigned>(), c.pad);
    const double seconds = r["seconds"].get<double>();
    EXPECT_GE(seconds, r["bounds"]["compute_s"].get<double>());
    for (auto& [level, s] : r["bounds"]["bandwidth_s"].items())
        EXPECT_GE(seconds, s.get<double>()) << level;
    EXPECT_LE(r["stats"]["workload"]["fmac_utilisation"]["value"].get<double>(), 1.0);
}

std::uint64_t inputDdrBytes(const nlohmann::json& r) {
    return r["stats"]["workload"]["input_ddr_bytes"]["value"].get<std::uint64_t>();
}

// Pad 1 and 2 with 3×3 and 5×5, pad > K (1×1, pad 2), strides 1 and 2, on a 30×37 map.
const Case kCases[] = {{30, 37, 3, 1, 1}, {30, 37, 5, 1, 2}, {30, 37, 3, 2, 1},
                       {30, 37, 5, 2, 2}, {30, 37, 1, 1, 2}, {30, 37, 1, 2, 2}};

}  // namespace

TEST(Padding, ShuffleEqualsTheDirectConvolutionWithoutFetchingZeros) {
    for (const Case& c : kCases) {
        SCOPED_TRACE("k " + std::to_string(c.k) + " stride " + std::to_string(c.stride) + " pad " +
                     std::to_string(c.pad));
        const nlohmann::json r = conv("shuffle", c);
        expectDirectConvolution(r, c);
        // Resident map: each map row once, whatever the padding; the requested DDR reads are the
        // map and the coefficients.
        EXPECT_EQ(inputDdrBytes(r), std::uint64_t{c.h} * c.w * 8);
        EXPECT_EQ(tessim::test::usefulBytes(r, "ddr", "read"), std::uint64_t{c.h} * c.w * 8 + c.k * c.k * 8);
    }
}

TEST(Padding, Im2colEqualsTheDirectConvolutionWithoutFetchingZeros) {
    for (const Case& c : kCases) {
        SCOPED_TRACE("k " + std::to_string(c.k) + " stride " + std::to_string(c.stride) + " pad " +
                     std::to_string(c.pad));
        const nlohmann::json r = conv("im2col", c);
        expectDirectConvolution(r, c);
        EXPECT_EQ(r["plan"]["config"]["expand_from"], "am");
        EXPECT_EQ(inputDdrBytes(r), std::uint64_t{c.h} * c.w * 8);
        EXPECT_EQ(tessim::test::usefulBytes(r, "ddr", "read"), std::uint64_t{c.h} * c.w * 8 + c.k * c.k * 8);
    }
}

TEST(Padding, DoubleBufferedBlocksZeroTheirPaddingRows) {
    // Blocks of 5 output rows reuse two buffers: the last block's padding rows held map rows of an
    // earlier block. DDR input: the map rows with the K − S halo rows of each block boundary
    // (none of them padding here), as without padding.
    const Case c{40, 37, 3, 1, 2};
    const nlohmann::json r = conv("shuffle", c, "--set plan.buffering=double --set plan.block_rows=5");
    expectDirectConvolution(r, c);
    const std::uint64_t blocks = r["plan"]["config"]["blocks"].get<std::uint64_t>();
    EXPECT_EQ(blocks, 9u);  // 42 output rows
    // Block b reads padded rows [5b, 5b + 7); the first and the last are cut by the 2 padding rows.
    EXPECT_EQ(inputDdrBytes(r), (40u + 2 * (blocks - 1)) * 37 * 8);
    const Case s2{40, 37, 3, 2, 1};
    expectDirectConvolution(
        conv("shuffle", s2, "--set plan.buffering=double --set plan.block_rows=5 --set workload.channels=2"),
        s2);
}

TEST(Padding, Im2colBlocksAndDdrExpansionEqualTheReference) {
    const Case c{30, 37, 3, 2, 2};
    expectDirectConvolution(conv("im2col", c, "--set plan.block_rows=3 --set plan.expand_from=ddr"), c);
    const Case k1{30, 37, 1, 1, 2};
    const nlohmann::json r = conv("im2col", k1, "--set plan.block_rows=2 --set plan.expand_from=ddr");
    expectDirectConvolution(r, k1);
    // Gathered from DDR: only the map's elements (a 1×1 kernel reads each once).
    EXPECT_EQ(inputDdrBytes(r), 30u * 37 * 8);
    const Case multi{30, 37, 3, 1, 1};
    expectDirectConvolution(conv("im2col", multi,
                                 "--set workload.filters=4 --set plan.cores=4 --set plan.block_rows=5 "
                                 "--set workload.channels=2"),
                            multi, 4);
}

TEST(Padding, MultiCoreShuffleWithPadding) {
    const Case c{40, 37, 3, 1, 1};
    expectDirectConvolution(conv("shuffle", c, "--set workload.filters=4 --set plan.cores=4"), c, 4);
}

TEST(Padding, PaddingAboveTheRangeIsAConfigError) {
    tessim::test::ProcessResult r = tessim::test::runTessim(
        "run --target ftm2000 --workload conv-ftm --plan im2col --set workload.pad=33");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("pad"), std::string::npos) << r.err;
}
