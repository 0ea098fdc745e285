// Memories wired by a target YAML (bus `via`, cache `next` chains, DMA) and `tessim probe`.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
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

TEST(MemoryTarget, ProbeCommandPrintsJson) {
    auto [rc, out] = runTessim("probe ddr --target " + kTarget + " --stream-kib 1024");
    ASSERT_EQ(rc, 0) << out;
    auto j = nlohmann::json::parse(out);
    for (const char* key :
         {"peak_GBps", "seq_read_GBps", "seq_write_GBps", "random_read_GBps", "row_hit_ns", "row_miss_ns"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_NEAR(j["peak_GBps"].get<double>(), 10.66, 0.01);
    EXPECT_DOUBLE_EQ(j["row_hit_ns"].get<double>(), (24 + 2 * 8) * 0.75);             // tCL + 2 bursts
    EXPECT_DOUBLE_EQ(j["row_miss_ns"].get<double>(), (24 + 24 + 24 + 2 * 8) * 0.75);  // + tRP + tRCD
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
