// Memories wired by a target YAML (bus `via`, cache `next` chains, DMA) and `tessim probe`.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Cache.h"
#include "models/memory/Ddr.h"
#include "models/memory/MemoryProbe.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

const std::string kTarget = std::string(TESSIM_SOURCE_DIR) + "/tests/memory/memory-target.yaml";

TEST(MemoryTarget, CachesChainToDdrThroughTheBus) {
    test::freshKernel();
    ConfiguredTarget target(config::loadYamlFile(kTarget));
    const TargetInfo& info = target.info();
    auto* l1 = dynamic_cast<Cache*>(target.findMemory("l1"));
    auto* l2 = dynamic_cast<Cache*>(target.findMemory("l2"));
    auto* ddr = dynamic_cast<Ddr*>(target.findMemory("ddr"));
    ASSERT_TRUE(l1 && l2 && ddr);
    // A cache's address range is that of the last level of its chain.
    EXPECT_EQ(info.space("l1").size, 4ULL << 30);
    EXPECT_EQ(l2->capacity(), ddr->capacity());
    MemoryProbe probe("probe", [] {});
    probe.socket.bind(l1->socket);
    test::elaborate();
    // Functional bytes written through L1 land in the DDR's backing store.
    const char text[] = "through two caches and a bus";
    target.functionalMemory().write(info.space("l1").id, 12345, text, sizeof text);
    char back[sizeof text] = {};
    ddr->debugRead(12345, back, sizeof back);
    EXPECT_STREQ(back, text);
    // A miss in both levels: L1 fill ← L2 fill ← bus ← DDR; traffic is conserved level to level.
    for (std::uint64_t a = 0; a < 256 * 1024; a += 64)
        probe.request(false, a, 8, a);
    EXPECT_EQ(l1->misses(), 4096u);
    EXPECT_EQ(l2->bytesRead(), l1->bytesFromNext());
    EXPECT_EQ(ddr->bytesRead(), l2->bytesFromNext());
    EXPECT_EQ(ddr->bytesRead(), 256u * 1024);
}

TEST(MemoryTarget, PrivateL1sShareTheL2) {
    test::freshKernel();
    ConfiguredTarget target(config::loadYamlFile(kTarget));
    auto* l1 = dynamic_cast<Cache*>(target.findMemory("l1"));
    auto* l1b = dynamic_cast<Cache*>(target.findMemory("l1b"));
    auto* l2 = dynamic_cast<Cache*>(target.findMemory("l2"));
    MemoryProbe p0("p0", [] {}), p1("p1", [] {});
    p0.socket.bind(l1->socket);
    p1.socket.bind(l1b->socket);
    test::elaborate();
    // Both cores read the same 16 KiB: each L1 misses every line, the L2 only the first time.
    for (std::uint64_t a = 0; a < 16 * 1024; a += 64)
        p0.request(false, a, 8, a);
    for (std::uint64_t a = 0; a < 16 * 1024; a += 64)
        p1.request(false, a, 8, 1'000'000 + a);
    EXPECT_EQ(l1->misses(), 256u);
    EXPECT_EQ(l1b->misses(), 256u);
    EXPECT_EQ(l2->misses(), 256u);
    EXPECT_EQ(l2->hits(), 256u);
    EXPECT_EQ(l2->bytesRead(), l1->bytesFromNext() + l1b->bytesFromNext());
}

TEST(MemoryTarget, WiringErrorsNameTheKey) {
    test::freshKernel();
    auto expectError = [](const std::string& key, const std::string& value, const std::string& needle) {
        config::Node root = config::loadYamlFile(kTarget);
        config::applyOverride(root, key, value, config::Location{"<test>", 1, 1});
        try {
            ConfiguredTarget t(root);
            ADD_FAILURE() << "no error for " << key << "=" << value;
        } catch (const config::ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectError("ddr.via", "nobus", "no interconnect named 'nobus'");
    expectError("l1.next", "nothing", "no other memory named 'nothing'");
    expectError("tcm.next", "ddr", "only caches");
    expectError("l2.next", "l1", "cycle");
    expectError("noc.arbitration", "lottery", "arbitration");
}

std::pair<int, std::string> runTessim(const std::string& args) {
    std::string cmd = std::string(TESSIM_BINARY) + " " + args + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    std::string out;
    std::array<char, 4096> buf{};
    while (std::size_t n = fread(buf.data(), 1, buf.size(), pipe.get()))
        out.append(buf.data(), n);
    int status = pclose(pipe.release());
    return {WEXITSTATUS(status), out};
}

TEST(MemoryTarget, EngineWaitsForItsDmaInAFullRun) {
    std::string path = testing::TempDir() + "memory_dma_schedule.jsonl";
    {
        std::ofstream f(path);
        f << R"({"schema":"tessim.schedule/1","target":"memory-test"})" << '\n'
          << R"({"engine":"core","op":"dma_start","tag":1,"channel":0,"src_mem":"ddr","src":4096,)"
          << R"("dst_mem":"tcm","dst":0,"row_bytes":1024,"rows":64,"planes":1,"src_row_stride":2048,)"
          << R"("src_plane_stride":0,"dst_row_stride":1024,"dst_plane_stride":0})" << '\n'
          << R"({"engine":"core","op":"dma_wait","tag":1})" << '\n'
          << R"({"engine":"core","op":"vload","dtype":"f32","vd":1,"vl":8,"mem":"tcm","addr":0})" << '\n'
          << R"({"engine":"core","op":"vload","dtype":"f32","vd":2,"vl":8,"mem":"l1","addr":0})" << '\n';
    }
    auto [rc, out] = runTessim("run --target " + kTarget + " --schedule " + path);
    ASSERT_EQ(rc, 0) << out;
    auto r = nlohmann::json::parse(out);
    // 64 KiB by DMA plus one 64 B line for the L1 miss; the SRAM received the 64 KiB.
    EXPECT_EQ(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), 65536u + 64u);
    EXPECT_EQ(r["traffic_bytes"]["sram"]["write"].get<std::uint64_t>(), 65536u);
    double seconds = r["seconds"].get<double>();
    EXPECT_GT(seconds, 65536 / 10.667e9);     // no faster than the DDR peak
    EXPECT_LT(seconds, 1.2 * 65536 / 9.9e9);  // and close to the sustained rate
    EXPECT_GT(r["energy_j"]["by_component"]["ddr"]["dynamic"].get<double>(), 0.0);
    // Per initiator: the DMA channel moved the 64 KiB, the core's miss filled one line per level.
    const auto& who = r["initiators"];
    EXPECT_EQ(who["dma0_ch0"]["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), 65536u);
    EXPECT_EQ(who["dma0_ch0"]["traffic_bytes"]["sram"]["write"].get<std::uint64_t>(), 65536u);
    EXPECT_EQ(who["core"]["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), 64u);
    EXPECT_EQ(who["core"]["traffic_bytes"]["l2"]["read"].get<std::uint64_t>(), 64u);
    EXPECT_EQ(who["core"]["traffic_bytes"]["l1"]["read"].get<std::uint64_t>(), 32u);
    EXPECT_EQ(r["stats"]["memory-test"]["ddr"]["by_initiator"]["dma0_ch0"]["bytes_read"]["unit"], "B");
    EXPECT_TRUE(who["core"]["wait_s"].contains("ddr"));
}

TEST(MemoryTarget, ProbeCommandPrintsJson) {
    auto [rc, out] = runTessim("probe ddr --target " + kTarget + " --stream-kib 1024");
    ASSERT_EQ(rc, 0) << out;
    auto j = nlohmann::json::parse(out);
    for (const char* key :
         {"peak_GBps", "seq_read_GBps", "seq_write_GBps", "random_read_GBps", "row_hit_ns", "row_miss_ns"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_NEAR(j["peak_GBps"].get<double>(), 10.66, 0.01);
    // 3 more cycles of the 4-cycle read command + tCL + tDQSCK (3.5 ns = 5 cycles) + 2 bursts
    EXPECT_DOUBLE_EQ(j["row_hit_ns"].get<double>(), (3 + 24 + 5 + 2 * 8) * 0.75);
    EXPECT_DOUBLE_EQ(j["row_miss_ns"].get<double>(), (24 + 24 + 3 + 24 + 5 + 2 * 8) * 0.75);  // + tRP + tRCD
    EXPECT_LE(j["seq_read_GBps"].get<double>(), j["peak_GBps"].get<double>());
    for (const char* kind : {"cache", "sram"}) {
        auto [rc2, out2] =
            runTessim(std::string("probe ") + kind + " --target " + kTarget + " --stream-kib 256");
        EXPECT_EQ(rc2, 0) << out2;
        EXPECT_TRUE(nlohmann::json::accept(out2)) << out2;
    }
    auto [rc3, out3] = runTessim("probe ddr --target " + kTarget + " --set target.ddr.tCL=fast");
    EXPECT_EQ(rc3, 2);
    EXPECT_NE(out3.find("ddr.tCL"), std::string::npos) << out3;
    auto [rc4, out4] = runTessim("probe cache --target " + kTarget + " --memory tcm");
    EXPECT_EQ(rc4, 2);
}

}  // namespace
}  // namespace tessim
