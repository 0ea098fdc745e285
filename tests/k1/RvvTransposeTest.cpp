// A Transpose moves its elements as the permutation says: the output is written in memory order
// (NHWC for 4-D tensors), row by row along its innermost axis, each row gathered from the input —
// on the K1 by a strided load (vlse) whose stride is that axis's step in the input, on the vector
// DSP and the NPU tiled or by DMA, an element per DMA row (DspTransposeTest). Every output
// equals the input element the permutation names (--functional); a row across the input's
// channels costs more than a copy of the same tensor; a bad permutation is refused at its key.
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"
#include "workloads/conv/RvvVectorLayers.h"

namespace tessim {
namespace {

using test::runTessim;

// The layer's elements in memory order of its output from the logical indices: output index o
// (ONNX's order over dims[perm[k]]) reads input index i with i[perm[k]] = o[k]; both tensors lie in
// memory NHWC when of rank 4, else in ONNX's order.
std::vector<std::uint64_t> expectedSources(const std::vector<std::uint64_t>& dims,
                                           const std::vector<unsigned>& perm) {
    const std::size_t rank = dims.size();
    std::vector<unsigned> order(rank);
    for (unsigned a = 0; a < rank; ++a)
        order[a] = a;
    if (rank == 4)
        order = {0, 2, 3, 1};
    std::vector<std::uint64_t> outDims(rank);
    for (std::size_t k = 0; k < rank; ++k)
        outDims[k] = dims[perm[k]];
    auto offset = [&](const std::vector<std::uint64_t>& index, const std::vector<std::uint64_t>& extent) {
        std::uint64_t at = 0;
        for (unsigned a : order)
            at = at * extent[a] + index[a];
        return at;
    };
    std::uint64_t total = 1;
    for (std::uint64_t d : dims)
        total *= d;
    std::vector<std::uint64_t> sources(total);
    std::vector<std::uint64_t> o(rank, 0), in(rank, 0);
    for (std::uint64_t n = 0; n < total; ++n) {
        std::uint64_t rest = n;  // o in ONNX's row-major order
        for (std::size_t k = rank; k-- > 0;) {
            o[k] = rest % outDims[k];
            rest /= outDims[k];
        }
        for (std::size_t k = 0; k < rank; ++k)
            in[perm[k]] = o[k];
        sources[offset(o, outDims)] = offset(in, dims);
    }
    return sources;
}

TEST(RvvTranspose, EveryOutputElementComesFromTheElementThePermutationNames) {
    const std::vector<std::pair<std::vector<std::uint64_t>, std::vector<unsigned>>> cases = {
        {{5, 7}, {1, 0}},
        {{2, 3, 4}, {2, 0, 1}},
        {{2, 3, 4}, {0, 2, 1}},
        {{1, 6, 4, 5}, {0, 2, 3, 1}},  // NCHW → NHWC
        {{2, 6, 4, 5}, {0, 3, 1, 2}},
        {{1, 6, 4, 5}, {0, 1, 3, 2}},        // H and W swapped: channel runs stay contiguous
        {{2, 3, 2, 4, 3}, {0, 2, 1, 3, 4}},  // a channel shuffle's transpose
        {{1, 6, 4, 5}, {1, 0, 2, 3}},        // N ↔ C at batch 1: NHWC's HWC → CHW, no rows of one element
        {{3, 1, 4}, {1, 2, 0}},              // an axis of one element moves nothing
        {{1, 1, 4, 5}, {1, 0, 2, 3}},        // only axes of one element move: a copy
    };
    for (const auto& [dims, perm] : cases) {
        RvvVectorLayer l;
        l.op = VectorLayerOp::Copy;
        l.inputDims = dims;
        l.perm = perm;
        std::uint64_t total = 1;
        for (std::uint64_t d : dims)
            total *= d;
        l.s.h = static_cast<std::uint32_t>(total);
        l.s.w = l.s.channels = 1;
        simplifyTranspose(l);
        const std::vector<std::uint64_t> want = expectedSources(dims, perm);
        if (!l.transposes()) {  // the output is the input in order
            for (std::uint64_t i = 0; i < total; ++i)
                ASSERT_EQ(want[i], i) << "element " << i << " of case " << dims.size() << "-D";
            continue;
        }
        for (std::uint64_t i = 0; i < total; ++i)
            ASSERT_EQ(transposeSource(l, i), want[i])
                << "element " << i << " of case " << dims.size() << "-D";
        const TransposeRows rows = transposeRows(l);
        EXPECT_EQ(rows.rows * rows.length, total);
        for (std::uint64_t i = 1; i < rows.length; ++i)  // along a row, the input steps by `stride`
            EXPECT_EQ(transposeSource(l, i), transposeSource(l, 0) + i * rows.stride);
    }
}

std::string transposeWorkload(const std::string& tag, const std::string& layers) {
    const std::string path = "/tmp/tessim-rvv-transpose-" + tag + "-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\nlayers:\n" << layers;
    return path;
}

nlohmann::json runLayers(const std::string& target, const std::string& path, const std::string& sets) {
    const auto r =
        runTessim("run --target " + target + " --workload " + path + " --functional --format json " + sets);
    EXPECT_EQ(r.exitCode, 0) << target << " " << sets << ": " << r.err;
    return r.exitCode == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// 70 channels: rows of 70 along the channels (a 64-element strip and a short one), of 9 and 7 along
// H and W; rank 2, 3 and 5 too.
const char* kTransposes =
    "  - {name: conv, h: 9, w: 7, channels: 5, filters: 70, k: 3, pad: 1}\n"
    "  - {name: nhwc, op: Transpose, h: 7, w: 70, channels: 9, input_dims: [1, 70, 9, 7], perm: [0, 2, 3, "
    "1]}\n"
    "  - {name: swap, op: Transpose, h: 7, w: 9, channels: 70, input_dims: [1, 70, 9, 7], perm: [0, 1, 3, "
    "2]}\n"
    "  - {name: matrix, op: Transpose, h: 70, w: 1, channels: 63, input_dims: [63, 70], perm: [1, 0]}\n"
    "  - {name: three, op: Transpose, h: 70, w: 1, channels: 63, input_dims: [7, 9, 70], perm: [2, 0, 1]}\n"
    "  - {name: shuffle, op: Transpose, h: 63, w: 1, channels: 70, input_dims: [1, 2, 35, 9, 7], perm: [0, "
    "2, 1, 3, "
    "4]}\n";

TEST(RvvTranspose, EveryOutputEqualsTheReferenceOnTheDspAndTheNpu) {
    const std::string path = transposeWorkload("dsp", kTransposes);
    for (const char* target : {"ftm2000", "npu"}) {
        const auto j = runLayers(target, path, "");
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["functional"]["mismatches"], 0) << target << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 6 * 9 * 7 * 70) << target;
    }
    std::remove(path.c_str());
}

TEST(RvvTranspose, EveryOutputEqualsTheReferenceOnEightAndThreeThreadsInF32AndF16) {
    const std::string path = transposeWorkload("all", kTransposes);
    for (const std::string sets : {"", "--set plan.threads=3 --set plan.dtype=f16"}) {
        const auto j = runLayers("k1", path, sets);
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["functional"]["mismatches"], 0) << sets << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 6 * 9 * 7 * 70) << sets;
        for (const auto& l : j["layers"])
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
    }
    std::remove(path.c_str());
}

// NCHW to NHWC of a 64×56×56 tensor, as the K1 lays it out: each output row runs along the input's
// H, 56·64 elements apart, a line each; a copy streams lines. Measured on the K1: 702,435 cycles
// against 363,889 for the copy, 442,874 with H and W swapped (rows of 64 contiguous channels, each
// from elsewhere). The vector DSP and the NPU gather by DMA, a DMA row (a DDR burst) per element:
// ftm2000 1,269,212 cycles against 97,775, the npu 2,061,025 against 34,632.
TEST(RvvTranspose, AStridedTransposeCostsMoreThanACopyOfTheSameTensor) {
    const std::string path = transposeWorkload(
        "time", "  - {name: copy, op: Transpose, h: 56, w: 56, channels: 64}\n"
                "  - {name: nhwc, op: Transpose, h: 56, w: 64, channels: 56, input_dims: [1, 64, "
                "56, 56], perm: [0, 2, 3, 1]}\n"
                "  - {name: swap, op: Transpose, h: 56, w: 56, channels: 64, input_dims: [1, 64, "
                "56, 56], perm: [0, 1, 3, 2]}\n");
    const auto k1 = runLayers("k1", path, "");
    ASSERT_FALSE(k1.is_null());
    const double copy = k1["layers"][0]["cycles"].get<double>();
    EXPECT_GT(k1["layers"][1]["cycles"].get<double>(), 1.5 * copy);
    EXPECT_GT(k1["layers"][2]["cycles"].get<double>(), copy);
    for (const char* target : {"ftm2000", "npu"}) {
        const auto j = runLayers(target, path, "");
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["functional"]["mismatches"], 0) << target;
        EXPECT_EQ(j["functional"]["elements"], 3 * 64 * 56 * 56) << target;
        // Tiled (its rows are consecutive input elements): DMA of whole rows, strided loads in the
        // local memory, never cheaper than the copy (DspTransposeTest has the gathered ones).
        EXPECT_GE(j["layers"][1]["cycles"].get<double>(), j["layers"][0]["cycles"].get<double>()) << target;
        EXPECT_GE(j["layers"][2]["cycles"].get<double>(), j["layers"][0]["cycles"].get<double>()) << target;
    }
    std::remove(path.c_str());
}

TEST(RvvTranspose, ABadPermutationOrShapeIsRefusedAtItsKey) {
    const std::pair<const char*, const char*> cases[] = {
        {"input_dims: [1, 64, 8, 8], perm: [0, 2, 2, 1]", "layers[0].perm: expected a permutation of 0…3"},
        {"input_dims: [1, 64, 8, 9], perm: [0, 2, 3, 1]",
         "layers[0].input_dims: 4608 elements, but the layer's h × w × channels is 4096"},
        {"input_dims: [1, 64, 8, 8], perm: [0, 2, 1]", "layers[0].perm: 3 axes for a tensor of 4 dimensions"},
        {"input_dims: [1, 64, 8, 8]", "layers[0].perm: missing required key"},
    };
    for (const auto& [keys, error] : cases) {
        const std::string path = transposeWorkload(
            "bad", std::string("  - {name: t, op: Transpose, h: 8, w: 8, channels: 64, ") + keys + "}\n");
        for (const char* target : {"k1", "ftm2000"}) {
            const auto r = runTessim(std::string("run --target ") + target + " --workload " + path);
            EXPECT_EQ(r.exitCode, 2) << keys;
            EXPECT_TRUE(r.out.empty());
            EXPECT_NE(r.err.find(error), std::string::npos) << r.err;
        }
        std::remove(path.c_str());
    }
}

}  // namespace
}  // namespace tessim
