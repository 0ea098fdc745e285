// The MAC array serves its operands from the scratchpad without transactions; the access observer
// still sees every tile's operand reads and result writes (--access-trace), sized by the tile.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

TEST(MacOperandTrace, OneTileReadsItsInputAndWeightsAndWritesItsResults) {
    const std::string trace = ::testing::TempDir() + "/mac-operands.jsonl";
    // 8 channels, 8 filters, 16×16 output, 3×3 kernel, pad 1, in one tile.
    auto r = test::runTessim("run --target npu --workload conv1080p --set workload.h=16 --set workload.w=16 "
                             "--set workload.channels=8 --set workload.filters=8 --set plan.tile_h=full "
                             "--set plan.tile_w=full --access-trace " +
                             trace);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::ifstream in(trace);
    std::string line;
    std::vector<std::uint64_t> reads, writes;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line);
        if (!j.contains("source"))
            continue;
        const std::string source = j["source"];
        if (source == "mac_operand_read")
            reads.push_back(j["bytes"]);
        else if (source == "mac_result_write")
            writes.push_back(j["bytes"]);
        if (source.rfind("mac_", 0) == 0) {
            EXPECT_EQ(j["memory"], "sram");
            EXPECT_EQ(j["initiator"], "npu");
            EXPECT_LT(j["arrival"].get<double>(), j["completion"].get<double>());
        }
    }
    std::remove(trace.c_str());
    // Padded input 8 × 18 × 18, weights 8 × 8 × 3 × 3; INT32 accumulators and INT8 outputs.
    EXPECT_EQ(reads, (std::vector<std::uint64_t>{8 * 18 * 18, 8 * 8 * 9}));
    EXPECT_EQ(writes, (std::vector<std::uint64_t>{8 * 16 * 16 * 4, 8 * 16 * 16}));
}

}  // namespace
}  // namespace tessim
