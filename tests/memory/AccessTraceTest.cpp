// Every timed access reaches the observer with its initiator, and the JSON Lines writer records it.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "memory/MemoryTestUtil.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/core/AccessTraceWriter.h"
#include "sim/ir/OpStream.h"

namespace tessim {
namespace {

struct Recorder : AccessObserver {
    std::vector<std::pair<std::string, TimedAccess>> seen;
    void onAccess(const char* memory, const TimedAccess& a) override { seen.emplace_back(memory, a); }
};

Op load(std::uint8_t space, std::uint64_t addr) {
    Op op;
    op.kind = OpKind::VLoad;
    op.vl = 8;
    op.dst = 1;
    op.space = space;
    op.addr = addr;
    return op;
}

TEST(AccessObserver, SeesEngineLoadsAndTheFillsTheyCause) {
    test::freshKernel();
    ConfiguredTarget target(
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/tests/memory/eight-cores.yaml"));
    Recorder recorder;
    target.setAccessObserver(&recorder);
    std::uint8_t l1 = target.info().space("l1_3").id;
    // A miss in L1 and L2 (a fill from each level), then a hit in the same line.
    target.findEngine("core3")->setStream(
        std::make_unique<VectorOpStream>(std::vector<Op>{load(l1, 4096), load(l1, 4096 + 32)}));
    sc_core::sc_start();
    ASSERT_EQ(recorder.seen.size(), 4u);
    const std::string core3 = "core3";
    for (const auto& [memory, a] : recorder.seen) {
        EXPECT_EQ(target.initiators().name(a.initiator), core3) << memory;
        EXPECT_FALSE(a.write);
        EXPECT_GE(a.completion, a.arrival);
    }
    // Issue order of the first load: L1 calls the L2, which calls the DDR (innermost reports first).
    EXPECT_EQ(recorder.seen[0].first, "ddr");
    EXPECT_EQ(recorder.seen[0].second.source, AccessSource::CacheFill);
    EXPECT_EQ(recorder.seen[0].second.bytes, 64u);
    EXPECT_EQ(recorder.seen[0].second.addr, 4096u);
    EXPECT_EQ(recorder.seen[1].first, "l2");
    EXPECT_EQ(recorder.seen[1].second.source, AccessSource::CacheFill);
    EXPECT_EQ(recorder.seen[2].first, "l1_3");
    EXPECT_EQ(recorder.seen[2].second.source, AccessSource::Engine);
    EXPECT_EQ(recorder.seen[2].second.bytes, 32u);
    EXPECT_EQ(recorder.seen[3].second.addr, 4096u + 32);
    // An engine's access names the op that made it, by its index in the engine's stream.
    EXPECT_EQ(recorder.seen[0].second.op, kNoOpIndex);  // a fill: the cache's own transaction
    EXPECT_EQ(recorder.seen[2].second.op, 0u);
    EXPECT_EQ(recorder.seen[3].second.op, 1u);
}

TEST(AccessObserver, TraceWriterWritesOneJsonObjectPerAccess) {
    test::freshKernel();
    ConfiguredTarget target(
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/tests/memory/eight-cores.yaml"));
    std::string path = testing::TempDir() + "access_trace.jsonl";
    {
        AccessTraceWriter writer(path, target.initiators());
        target.setAccessObserver(&writer);
        std::uint8_t l1 = target.info().space("l1_0").id;
        target.findEngine("core0")->setStream(
            std::make_unique<VectorOpStream>(std::vector<Op>{load(l1, 0), load(l1, 128)}));
        sc_core::sc_start();
        EXPECT_EQ(writer.accesses(), 6u);
    }
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(nlohmann::json::parse(line)["schema"], "tessim.access-trace/1");
    std::vector<nlohmann::json> rows;
    while (std::getline(in, line))
        rows.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(rows[0]["memory"], "ddr");
    EXPECT_EQ(rows[0]["source"], "cache_fill");
    EXPECT_EQ(rows[2]["memory"], "l1_0");
    EXPECT_EQ(rows[2]["initiator"], "core0");
    EXPECT_EQ(rows[2]["source"], "engine_load");
    EXPECT_EQ(rows[2]["bytes"], 32);
    EXPECT_GE(rows[2]["completion"].get<std::uint64_t>(), rows[2]["arrival"].get<std::uint64_t>());
}

}  // namespace
}  // namespace tessim
