// The shuffle convolution on the ftm2000 target through the CLI: functional equality with a
// direct convolution, utilisation and bounds, the modulo scheduler's II, the DDR bytes of
// double-buffered blocks, the multicast input and multi-core scaling.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/DocsBuild.h"
#include "common/ProcessRunner.h"
#include "common/UsefulBytes.h"

namespace {

// h×w map, k×k kernel, on `cores` cores; extra --set options appended.
nlohmann::json conv(unsigned h, unsigned w, unsigned k, unsigned filters, unsigned cores,
                    const std::string& extra = "", const std::string& plan = "shuffle") {
    tessim::test::ProcessResult r = tessim::test::runTessim(
        "run --target ftm2000 --workload conv-ftm --plan " + plan + " --functional --format json" +
        " --set workload.h=" + std::to_string(h) + " --set workload.w=" + std::to_string(w) +
        " --set workload.k=" + std::to_string(k) + " --set workload.filters=" + std::to_string(filters) +
        " --set plan.cores=" + std::to_string(cores) + " " + extra);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

double stat(const nlohmann::json& r, const std::string& name) {
    return r["stats"]["workload"][name]["value"].get<double>();
}

void checkInvariants(const nlohmann::json& r) {
    EXPECT_TRUE(r["functional"]["checked"].get<bool>());
    EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << r["functional"].dump();
    const double seconds = r["seconds"].get<double>();
    EXPECT_GE(seconds, r["bounds"]["compute_s"].get<double>());
    for (auto& [level, s] : r["bounds"]["bandwidth_s"].items())
        EXPECT_GE(seconds, s.get<double>()) << level;
    EXPECT_GT(stat(r, "fmac_utilisation"), 0.0);
    EXPECT_LE(stat(r, "fmac_utilisation"), 1.0);
    EXPECT_LE(stat(r, "loop_fmac_utilisation"), 1.0);
    EXPECT_GE(stat(r, "ii_achieved"), stat(r, "ii_resource_bound"));
    EXPECT_GE(stat(r, "ii_achieved"), stat(r, "ii_recurrence_bound"));
}

// Requested DDR bytes (traffic_bytes counts whole bursts).
std::uint64_t ddrRead(const nlohmann::json& r) {
    return tessim::test::usefulBytes(r, "ddr", "read");
}

}  // namespace

TEST(ShuffleConv, SeedMapEqualsTheDirectConvolutionAndStaysResident) {
    // 222×222 f64 with a 5×5 kernel: the map and its 218×218 outputs fit the 768 KiB AM.
    nlohmann::json r = conv(222, 222, 5, 1, 1);
    checkInvariants(r);
    EXPECT_EQ(r["plan"]["config"]["buffering"], "single");
    EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 218u * 218u);
    // Resident: every input row is read from DDR once, the 25 weights once.
    EXPECT_EQ(ddrRead(r), 222u * 222u * 8u + 25u * 8u);
    EXPECT_EQ(tessim::test::usefulBytes(r, "ddr", "write"), 218u * 218u * 8u);
}

TEST(ShuffleConv, IiEqualsTheResourceBoundWhenNoRecurrenceLimitsIt) {
    for (unsigned k : {3u, 5u, 7u, 11u}) {
        nlohmann::json r = conv(64, 100, k, 1, 1);
        checkInvariants(r);
        if (stat(r, "ii_recurrence_bound") <= stat(r, "ii_resource_bound")) {
            EXPECT_EQ(stat(r, "ii_achieved"), stat(r, "ii_resource_bound")) << "k " << k;
        }
    }
}

TEST(ShuffleConv, StridedAndMultiPassKernelsEqualTheReference) {
    checkInvariants(conv(61, 70, 3, 2, 1, "--set workload.stride=2"));
    checkInvariants(conv(40, 37, 11, 1, 1));  // 11 kernel rows in passes of 4, 4 and 3
    checkInvariants(conv(16, 16, 1, 3, 2));
    checkInvariants(conv(30, 45, 4, 3, 1, "--set workload.dtype=f32"));
}

// Seed 003 configures the shuffle by the stride: at S > 1 (S ≤ 3) the S lane phases of a row are
// dealt by the shuffle unit from S contiguous loads (`phases: shuffle`, the default) instead of
// gathered by S strided loads, which take the load/store units a cycle per element.
TEST(ShuffleConv, TheStrideConfiguredShuffleEqualsTheReferenceAndBeatsStridedLoads) {
    struct Case {
        unsigned k, s;
        std::string extra;
    };
    for (const Case& c : {Case{3, 2, ""}, Case{5, 2, "--set workload.pad=2"}, Case{3, 3, ""},
                          Case{7, 3, "--set workload.channels=2"}, Case{1, 2, ""}, Case{2, 2, ""}}) {
        SCOPED_TRACE("k " + std::to_string(c.k) + " stride " + std::to_string(c.s) + " " + c.extra);
        const std::string common = "--set workload.stride=" + std::to_string(c.s) + " " + c.extra;
        nlohmann::json dealt = conv(61, 70, c.k, 2, 1, common);
        nlohmann::json strided = conv(61, 70, c.k, 2, 1, common + " --set plan.phases=strided_load");
        checkInvariants(dealt);
        checkInvariants(strided);
        EXPECT_EQ(dealt["plan"]["config"]["phases"], "shuffle");
        EXPECT_EQ(strided["plan"]["config"]["phases"], "strided_load");
        EXPECT_LT(dealt["cycles"].get<std::uint64_t>(), strided["cycles"].get<std::uint64_t>());
    }
    // The seed's map at stride 2: no longer held up by gathers, the loop runs at its II.
    nlohmann::json r = conv(222, 222, 3, 1, 1, "--set workload.stride=2");
    checkInvariants(r);
    EXPECT_EQ(stat(r, "ii_achieved"), stat(r, "ii_resource_bound"));
    // Stride 4 would deal from four registers: refused by name, the strided loads still run.
    tessim::test::ProcessResult refused =
        tessim::test::runTessim("run --target ftm2000 --workload conv-ftm --plan shuffle --set "
                                "workload.stride=4 --set plan.phases=shuffle");
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.out.empty());
    EXPECT_NE(refused.err.find("phases"), std::string::npos) << refused.err;
    checkInvariants(conv(61, 70, 5, 1, 1, "--set workload.stride=4"));
}

// Seed 003's loop order: an iteration takes one output row through its kernel rows, each input
// row loaded once per kernel row that reads it (K/S times), one accumulator per output vector.
TEST(ShuffleConv, TheSeedsOutputRowOrderEqualsTheReference) {
    struct Case {
        unsigned h, w, k;
        std::string extra;
    };
    for (const Case& c : {Case{64, 100, 5, ""}, Case{61, 70, 3, "--set workload.stride=2"},
                          Case{61, 70, 11, ""},  // kernel rows in passes
                          Case{40, 37, 3, "--set workload.channels=3"},
                          Case{61, 70, 7, "--set workload.stride=3 --set workload.pad=3"}}) {
        SCOPED_TRACE("k " + std::to_string(c.k) + " " + c.extra);
        nlohmann::json input = conv(c.h, c.w, c.k, 2, 1, c.extra);
        nlohmann::json output = conv(c.h, c.w, c.k, 2, 1, c.extra + " --set plan.row_order=output");
        checkInvariants(input);
        checkInvariants(output);
        EXPECT_EQ(input["plan"]["config"]["row_order"], "input");
        EXPECT_EQ(output["plan"]["config"]["row_order"], "output");
        // The same MACs; more vector loads, as each input row is read again per kernel row.
        const auto& in = input["stats"]["ftm2000"]["core0"]["vfmac"];
        const auto& out = output["stats"]["ftm2000"]["core0"]["vfmac"];
        EXPECT_EQ(in.dump(), out.dump());
        EXPECT_GT(output["stats"]["ftm2000"]["core0"]["vlsu"]["vload_f64_ops"]["value"].get<double>(),
                  input["stats"]["ftm2000"]["core0"]["vlsu"]["vload_f64_ops"]["value"].get<double>());
    }
}

// Windows that differ between rows and columns (an ONNX 1×7 layer, strides [2, 1], pads [2, 1]):
// the lane phases and slides follow the column stride and the kernel's width, the row slots and
// halos the row stride and its height. Each equals the reference in both row orders, resident and
// double-buffered, on one core and four, with dealt and strided phases, and reports the layer's
// FLOPs (2 · outputs · channels · kh · kw).
TEST(ShuffleConv, WindowsPerAxisEqualTheReference) {
    const std::vector<std::string> windows = {
        "--set workload.kh=3 --set workload.kw=1 --set workload.pad_h=1 --set workload.pad_w=0",
        "--set workload.kh=1 --set workload.kw=7 --set workload.pad_h=0 --set workload.pad_w=3",
        "--set workload.k=3 --set workload.stride_h=2 --set workload.stride_w=1 --set workload.pad=1",
        "--set workload.kh=5 --set workload.kw=3 --set workload.stride_h=2 --set workload.stride_w=3 "
        "--set workload.pad_h=2 --set workload.pad_w=1",
        "--set workload.kh=2 --set workload.kw=5 --set workload.stride_h=1 --set workload.stride_w=2 "
        "--set workload.pad_w=2 --set workload.channels=2"};
    const std::vector<std::string> plans = {"", "--set plan.row_order=output", "--set plan.buffering=double",
                                            "--set plan.phases=strided_load", "--set plan.cores=4"};
    for (const std::string& window : windows)
        for (const std::string& plan : plans) {
            SCOPED_TRACE(window + " " + plan);
            const nlohmann::json r = conv(60, 53, 3, 4, 1, window + " " + plan);
            checkInvariants(r);
            EXPECT_EQ(r["plan"]["config"]["strategy"], "shuffle");
            const auto& l = r["workload"]["config"];
            const unsigned kh = l.value("kh", l.value("k", 0u)), kw = l.value("kw", l.value("k", 0u));
            const unsigned sh = l.value("stride_h", l.value("stride", 1u)),
                           sw = l.value("stride_w", l.value("stride", 1u));
            const unsigned ph = l.value("pad_h", l.value("pad", 0u)),
                           pw = l.value("pad_w", l.value("pad", 0u));
            const std::uint64_t outputs =
                std::uint64_t{(60 + 2 * ph - kh) / sh + 1} * ((53 + 2 * pw - kw) / sw + 1) * 4;
            EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), outputs);
            EXPECT_EQ(stat(r, "flops"), 2.0 * outputs * kh * kw * l.value("channels", 1u));
        }
}

TEST(ShuffleConv, InputChannelsAccumulateInPassesAndEqualTheReference) {
    // Channel passes reload the partial sums; resident and double-buffered, one and three cores.
    checkInvariants(conv(40, 37, 3, 2, 1, "--set workload.channels=3"));
    checkInvariants(conv(61, 70, 4, 3, 3, "--set workload.channels=2 --set workload.stride=2"));
    nlohmann::json r = conv(128, 128, 5, 4, 4, "--set workload.channels=8");
    checkInvariants(r);
    EXPECT_EQ(r["plan"]["config"]["buffering"], "double");
    const std::uint64_t blocks = r["plan"]["config"]["blocks"].get<std::uint64_t>();
    // Every channel's rows with their halo, once for all cores; the weights once.
    EXPECT_EQ(ddrRead(r), 8u * (128u + 4u * (blocks - 1)) * 128u * 8u + 4u * 8u * 25u * 8u);
    for (unsigned cores : {1u, 3u})
        checkInvariants(conv(40, 37, 3, 2, cores, "--set workload.channels=3", "im2col"));
}

TEST(ShuffleConv, DoubleBufferedInputReadsEachBlockWithItsHalo) {
    // 512×512 f64 does not fit the AM: blocks overlapping by K − 1 rows, exactly.
    const unsigned h = 512, w = 512, k = 5;
    nlohmann::json r = conv(h, w, k, 1, 1);
    checkInvariants(r);
    EXPECT_EQ(r["plan"]["config"]["buffering"], "double");
    const std::uint64_t blocks = r["plan"]["config"]["blocks"].get<std::uint64_t>();
    ASSERT_GE(blocks, 2u);
    const std::uint64_t rowBytes = w * 8u;
    EXPECT_EQ(stat(r, "input_ddr_bytes"), static_cast<double>((h + (k - 1) * (blocks - 1)) * rowBytes));
    EXPECT_EQ(ddrRead(r), (h + (k - 1) * (blocks - 1)) * rowBytes + k * k * 8u);
}

TEST(ShuffleConv, ForcedDoubleBufferingOnASmallMapStillEqualsTheReference) {
    nlohmann::json r = conv(50, 40, 3, 2, 2, "--set plan.buffering=double --set plan.block_rows=7");
    checkInvariants(r);
    const std::uint64_t blocks = r["plan"]["config"]["blocks"].get<std::uint64_t>();
    EXPECT_EQ(blocks, 7u);  // 48 output rows in blocks of 7
    EXPECT_EQ(stat(r, "input_ddr_bytes"), static_cast<double>((50 + 2 * (blocks - 1)) * 40 * 8));
}

TEST(ShuffleConv, MulticastInputIsReadFromDdrOnce) {
    // Four cores, four filters: the input reaches every core's AM from one DDR read.
    nlohmann::json r = conv(222, 222, 5, 4, 4);
    checkInvariants(r);
    EXPECT_EQ(ddrRead(r), 222u * 222u * 8u + 4u * 25u * 8u);
    nlohmann::json d = conv(512, 512, 3, 4, 4);
    checkInvariants(d);
    const std::uint64_t blocks = d["plan"]["config"]["blocks"].get<std::uint64_t>();
    EXPECT_EQ(ddrRead(d), (512u + 2u * (blocks - 1)) * 512u * 8u + 4u * 9u * 8u);
}

TEST(ShuffleConv, FourCoresWithFourKernelsTakeAboutAsLongAsOneWithOne) {
    nlohmann::json one = conv(96, 96, 9, 1, 1);
    nlohmann::json four = conv(96, 96, 9, 4, 4);
    checkInvariants(one);
    checkInvariants(four);
    // Not DDR-bound: four outputs' DDR time stays below one core's run.
    EXPECT_LT(four["bounds"]["bandwidth_s"]["ddr"].get<double>(), one["seconds"].get<double>());
    EXPECT_LE(four["seconds"].get<double>(), 1.3 * one["seconds"].get<double>());
}

TEST(ShuffleConv, BadInputIsAConfigError) {
    tessim::test::ProcessResult r = tessim::test::runTessim(
        "run --target ftm2000 --workload conv-ftm --plan shuffle --set workload.pad=33");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("pad"), std::string::npos) << r.err;
    r = tessim::test::runTessim("run --target npu --workload conv-ftm --plan shuffle");
    EXPECT_EQ(r.exitCode, 2);
    // Refused before the kernel is built: the NPU has none of the units the shuffle loop needs.
    EXPECT_NE(r.err.find("shuffle.yaml:3:1: error: strategy: conv2d/shuffle cannot run on target 'npu': "
                         "engine 'npu' of target 'npu' has no unit for ops 'fma', 'mul', 'vload'"),
              std::string::npos)
        << r.err;
    r = tessim::test::runTessim(
        "run --target ftm2000 --workload conv-ftm --plan shuffle --set workload.h=512 --set "
        "workload.w=512 --set plan.buffering=single");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("AM"), std::string::npos) << r.err;
}

TEST(Im2colConv, SeedExampleExpandsByFourNinths) {
    // A 3×3 map under a 2×2 kernel expands to 4×4: +77.8 % (seed 003), K²·Ho·Wo / (H·W) − 1 = 7/9.
    nlohmann::json r = conv(3, 3, 2, 1, 1, "", "im2col");
    checkInvariants(r);
    EXPECT_EQ(stat(r, "expanded_bytes"), 16.0 * 8);
    EXPECT_DOUBLE_EQ(stat(r, "expansion"), 7.0 / 9.0);
}

TEST(Im2colConv, GemmEqualsTheReferenceAndCountsTheExpansionTraffic) {
    for (const auto& [h, k, filters, cores] :
         std::vector<std::array<unsigned, 4>>{{40, 3, 1, 1}, {40, 11, 2, 2}, {222, 5, 1, 1}}) {
        const std::uint64_t ho = h - k + 1, expanded = std::uint64_t{k} * k * ho * ho * 8,
                            weights = std::uint64_t{filters} * k * k * 8;
        // From DDR: the expanded matrix is read there (once, multicast to every core).
        nlohmann::json r = conv(h, h, k, filters, cores, "--set plan.expand_from=ddr", "im2col");
        checkInvariants(r);
        EXPECT_EQ(ddrRead(r), expanded + weights);
        EXPECT_EQ(stat(r, "ii_achieved"), stat(r, "ii_resource_bound"));
        // From the AM: DDR reads the map once; the AM serves the expansion's reads besides the GEMM's.
        nlohmann::json a = conv(h, h, k, filters, cores, "--set plan.expand_from=am", "im2col");
        checkInvariants(a);
        EXPECT_EQ(ddrRead(a), std::uint64_t{h} * h * 8 + weights);
        EXPECT_GE(a["traffic_bytes"]["am"]["read"].get<std::uint64_t>(), expanded);
    }
}

TEST(Im2colConv, ShuffleBeatsIm2colOnTheSeedMap) {
    nlohmann::json shuffle = conv(222, 222, 5, 1, 1);
    nlohmann::json im2col = conv(222, 222, 5, 1, 1, "", "im2col");
    EXPECT_GT(stat(shuffle, "fmac_utilisation"), stat(im2col, "fmac_utilisation"));
    EXPECT_LT(shuffle["seconds"].get<double>(), im2col["seconds"].get<double>());
}

TEST(ShuffleConv, LargestMapsHeldInTheAm) {
    // Resident: 222² inputs + 220² outputs, f64, fit 768 KiB (781,472 B plus slack); 223 does not
    // (788,560 B > 786,432 B). Double-buffered: two blocks of one output row (3 input rows).
    nlohmann::json r = conv(222, 222, 3, 1, 1);
    EXPECT_EQ(stat(r, "largest_resident_map"), 222.0);
    EXPECT_GT(stat(r, "largest_double_buffered_map"), 9000.0);
    EXPECT_LT(stat(r, "largest_double_buffered_map"), 768.0 * 1024 / (2 * 4 * 8));
}

TEST(Ftm2000ConvReproduction, SeedClaimsAndVerdicts) {
    // The published figures from the release build (tests/common/DocsBuild.h), as docs/results.md.
    tessim::test::ProcessResult r =
        tessim::test::runCommand(tessim::test::docsTessim() + " reproduce ftm2000-conv");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* row :
         {"| largest-resident-map (largest_map, resident-3x3) | 222.0 N | 222.0 N | +0 N (+0.0 %) | 1.00× |",
          "| im2col-expansion-3x3 (expansion, im2col-3x3-2x2) | 77.80 % | 77.78 % | -0.0222 pp | 1× |",
          "| multicore-4x4-9x9 (multicore_time, four-cores-9x9) | 1.00 × | 1.22 × |", "speedup-over-c6678"})
        EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
}

TEST(ShuffleConv, ExplicitBroadcastsBoundTheLoopByTheBroadcastUnit) {
    // Explicit broadcasts take 20 kernel elements per pass (4 rows of 5, then 1): one broadcast unit
    // and 20 broadcasts per iteration give II ≥ 20, achieved.
    nlohmann::json r = conv(222, 222, 5, 1, 1, "--set plan.broadcast=explicit");
    checkInvariants(r);
    EXPECT_EQ(r["plan"]["config"]["passes"].get<unsigned>(), 2u);
    EXPECT_EQ(stat(r, "ii_resource_bound"), 20.0);
    EXPECT_EQ(stat(r, "ii_achieved"), 20.0);
    nlohmann::json operand = conv(222, 222, 5, 1, 1);
    EXPECT_LT(operand["seconds"].get<double>(), r["seconds"].get<double>());
    checkInvariants(conv(40, 37, 11, 2, 2, "--set plan.broadcast=explicit"));  // 11 passes of one row
}

TEST(ShuffleConv, EmittedScheduleReplaysToTheSameCycles) {
    // The bundles (slot marks, shuffles, scalar operands, multicast DMA, barriers) survive the
    // schedule text form; at stride 2, the deals' stride and third source too.
    for (const std::string extra : {"", " --set workload.stride=2 --set workload.k=5"}) {
        SCOPED_TRACE(extra);
        const std::string args =
            "--target ftm2000 --workload conv-ftm --plan shuffle --set workload.h=40 --set "
            "workload.w=40 --set workload.filters=2 --set plan.cores=2" +
            extra;
        const std::string file = testing::TempDir() + "ftm-shuffle.jsonl";
        tessim::test::ProcessResult e = tessim::test::runTessim("emit " + args + " > " + file);
        ASSERT_EQ(e.exitCode, 0) << e.err;
        tessim::test::ProcessResult a = tessim::test::runTessim("run " + args + " --format json");
        tessim::test::ProcessResult b =
            tessim::test::runTessim("run " + args + " --schedule " + file + " --format json --functional");
        ASSERT_EQ(a.exitCode, 0) << a.err;
        ASSERT_EQ(b.exitCode, 0) << b.err;
        EXPECT_EQ(nlohmann::json::parse(a.out)["cycles"], nlohmann::json::parse(b.out)["cycles"]);
    }
}
