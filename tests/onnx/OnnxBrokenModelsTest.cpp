// Broken and hostile models from the fuzzing corpus (tests/fuzz/corpus/onnx/, written by
// tests/fuzz/make_onnx_corpus.py) run as a user would: each stops with exit 2 and a message that
// says what is wrong — external data outside the model's folder, byte ranges past a file, tensors
// unlike their dims, non-positive strides — and the models that once crashed or hung ONNX 1.12's
// shape inference (a weights rank unlike the input's, huge dims with SAME padding) end cleanly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "common/ProcessRunner.h"
#include "tests/fuzz/OnnxFuzzWeights.h"
#include "workloads/onnx/OnnxGraph.h"

namespace tessim {
namespace {

// The corpus model copied into a scratch folder beside the harness's `weights.bin`.
class BrokenModel : public ::testing::Test {
protected:
    void SetUp() override {
        if (!onnxReaderAvailable())
            GTEST_SKIP() << "tessim was built without ONNX (libonnx-dev, libprotobuf-dev)";
        dir_ = "/tmp/tessim-onnx-broken-" + std::to_string(::getpid());
        std::filesystem::create_directories(dir_);
        const std::string weights = fuzz::onnxFuzzWeights();
        std::ofstream(dir_ + "/weights.bin", std::ios::binary)
            .write(weights.data(), static_cast<std::streamsize>(weights.size()));
    }
    void TearDown() override {
        if (!dir_.empty())
            std::filesystem::remove_all(dir_);
    }
    test::ProcessResult run(const std::string& corpusFile) {
        const std::string model = dir_ + "/model.onnx";
        std::filesystem::copy_file(std::string(TESSIM_SOURCE_DIR) + "/tests/fuzz/corpus/onnx/" + corpusFile,
                                   model, std::filesystem::copy_options::overwrite_existing);
        return test::runTessim("run --target npu --workload " + model);
    }
    void expectRefused(const std::string& corpusFile, const std::string& message) {
        const auto r = run(corpusFile);
        EXPECT_EQ(r.exitCode, 2) << corpusFile << ": " << r.err;
        EXPECT_NE(r.err.find(dir_ + "/model.onnx"), std::string::npos) << corpusFile << ": " << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << corpusFile << ": " << r.err;
    }
    std::string dir_;
};

TEST_F(BrokenModel, ExternalDataInsideTheFolderIsRead) {
    const auto r = run("external-shape.onnx");
    EXPECT_EQ(r.exitCode, 0) << r.err;
}

TEST_F(BrokenModel, ExternalDataOutsideTheModelsFolderIsRefused) {
    expectRefused("bad-external-absolute.onnx", "relative path without '..' (it is '/dev/zero')");
    expectRefused("bad-external-parent.onnx", "relative path without '..' (it is '../weights.bin')");
    expectRefused("bad-external-folder.onnx", "which is not a readable file");
    expectRefused("bad-external-missing.onnx", "which is not a readable file");
}

TEST_F(BrokenModel, ExternalByteRangesMustLieInTheFileAndMatchTheDims) {
    expectRefused("bad-external-huge-length.onnx", "length '1152921504606846976', not a byte count");
    expectRefused("bad-external-negative-offset.onnx", "offset '-8', not a byte count");
    expectRefused("bad-external-text-offset.onnx", "offset 'eight', not a byte count");
    expectRefused("bad-external-past-end.onnx",
                  "lies beyond the end of '" + dir_ + "/weights.bin' (128 bytes)");
}

TEST_F(BrokenModel, TensorsMustHoldTheBytesTheirDimsDeclare) {
    expectRefused("bad-initializer-size.onnx",
                  "tensor 'w' declares 72 elements (288 bytes) but holds 7 bytes");
}

TEST_F(BrokenModel, NonPositiveStridesAndGroupsAreRefused) {
    expectRefused("bad-stride-zero-same.onnx", "node 'conv' (Conv): strides must be positive, got 0");
    expectRefused("bad-stride-negative-same.onnx", "strides must be positive, got -3");
    expectRefused("bad-group-zero.onnx", "group must be positive, got 0");
}

// These crashed (a read past the weights' dims) or hung (a residual counted down one stride at a
// time from 2⁶²) inside ONNX 1.12's shape inference.
TEST_F(BrokenModel, ShapeInferenceCrashesAndHangsEndInAClearError) {
    expectRefused("bad-conv-rank-mismatch.onnx", "a 2-D Conv with known shapes is needed");
    expectRefused("bad-conv-huge-same.onnx", "above 65536");
    expectRefused("bad-pool-huge-same.onnx", "has no Conv, Gemm or MatMul node");
}

}  // namespace
}  // namespace tessim
