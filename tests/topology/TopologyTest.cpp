// Replication (`count:`), clusters, references resolved per instance, memory roles and multicast
// groups: names, wiring and errors.
#include <gtest/gtest.h>

#include "models/memory/Cache.h"
#include "models/targets/ConfiguredTarget.h"
#include "models/targets/Topology.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"
#include "sim/ir/OpJsonl.h"

#include <cstdio>
#include <fstream>

namespace tessim {
namespace {

const char* const kEngineUnits = R"(
    units:
      lsu:
        class: memory
        dtypes: [f32]
        bytes_per_cycle: 16
        energy: {vload_f32: 0.05 pJ, vstore_f32: 0.05 pJ}
        ops: {vload: {latency: 1}, vstore: {latency: 1}}
)";

// Two clusters of four cores: a private L1 and AM per core, an L2 per cluster, one DDR, one
// chip-level DMA engine reaching every AM.
std::string clusteredTarget(const std::string& extra = "") {
    return std::string(R"(
name: clustered
clock: 1 GHz
ddr: {impl: simple, level: ddr, size: 1 GiB, latency: 80 ns, bandwidth: 10 GB/s, energy: {read_energy_per_byte: 1 pJ}}
dma:
  impl: dma
  channels: 2
  clock: 1 GHz
  memories: [ddr, am]
cluster:
  impl: cluster
  count: 2
  l2: {impl: cache, size: 64 KiB, ways: 4, clock: 1 GHz, hit_latency: 10, next: ddr}
  l1: {impl: cache, count: 4, size: 4 KiB, ways: 2, clock: 1 GHz, hit_latency: 2, next: l2}
  am: {impl: simple, count: 4, level: am, size: 64 KiB, latency: 2 ns, bandwidth: 32 GB/s, energy: {read_energy_per_byte: 1 pJ}}
  core:
    impl: engine
    count: 4
    dma: dma
    memories: [l1, am])") +
           kEngineUnits + extra;
}

std::unique_ptr<ConfiguredTarget> build(const std::string& yaml) {
    initSystemC();
    return std::make_unique<ConfiguredTarget>(config::loadYamlString(yaml, "target.yaml"));
}

std::string errorOf(const std::string& yaml) {
    try {
        build(yaml);
    } catch (const config::ConfigError& e) {
        return e.what();
    }
    return "no error";
}

const std::string& scalarAt(const config::Node& flat, const std::string& component, const std::string& key) {
    return flat.find(component)->find(key)->scalar();
}

TEST(Topology, InstancesAreNumberedChipWide) {
    auto topology = expandTopology(config::loadYamlString(clusteredTarget(), "target.yaml"));
    std::vector<std::string> names;
    for (const auto& c : topology.components)
        names.push_back(c.name);
    // Declaration order per cluster instance; indices count over the chip.
    EXPECT_EQ(names, (std::vector<std::string>{"ddr",   "dma",  "l2_0", "l1_0",  "l1_1",  "l1_2",  "l1_3",
                                               "am0",   "am1",  "am2",  "am3",   "core0", "core1", "core2",
                                               "core3", "l2_1", "l1_4", "l1_5",  "l1_6",  "l1_7",  "am4",
                                               "am5",   "am6",  "am7",  "core4", "core5", "core6", "core7"}));
    ASSERT_EQ(topology.clusters.size(), 2u);
    EXPECT_EQ(topology.clusters[1].name, "cluster1");
    const ComponentInstance* core5 = topology.find("core5");
    ASSERT_NE(core5, nullptr);
    EXPECT_EQ(core5->cluster, 1);
    EXPECT_EQ(core5->index, 5u);
    EXPECT_EQ(core5->key, "core");
}

TEST(Topology, ReferencesResolvePerInstance) {
    auto topology = expandTopology(config::loadYamlString(clusteredTarget(), "target.yaml"));
    const config::Node& flat = topology.flat;
    // Same count in the same cluster: my own; one per cluster: my cluster's; chip level: the one.
    EXPECT_EQ(flat.find("core5")->find("memories")->items()[0].scalar(), "l1_5");
    EXPECT_EQ(flat.find("core5")->find("memories")->items()[1].scalar(), "am5");
    EXPECT_EQ(scalarAt(flat, "l1_5", "next"), "l2_1");
    EXPECT_EQ(scalarAt(flat, "l1_2", "next"), "l2_0");
    EXPECT_EQ(scalarAt(flat, "l2_1", "next"), "ddr");
    EXPECT_EQ(scalarAt(flat, "core6", "dma"), "dma");
    // A chip-level list reaching a replicated memory reaches all of its instances.
    const auto& dmaMemories = flat.find("dma")->find("memories")->items();
    ASSERT_EQ(dmaMemories.size(), 9u);
    EXPECT_EQ(dmaMemories[8].scalar(), "am7");
    // Instances keep the dotted path of their declaration, so errors name what the user wrote.
    EXPECT_EQ(flat.find("l1_6")->find("size")->path(), "cluster.l1.size");
    EXPECT_EQ(topology.find("core5")->roles.at("l1"), "l1_5");
}

TEST(Topology, TargetInfoDescribesClustersCoresAndRoles) {
    auto target = build(clusteredTarget());
    const TargetInfo& info = target->info();
    ASSERT_EQ(info.clusters.size(), 2u);
    EXPECT_EQ(info.clusters[1].engines, (std::vector<std::string>{"core4", "core5", "core6", "core7"}));
    EXPECT_EQ(info.cores().size(), 8u);
    const MemorySpaceInfo& l1 = info.space("l1");
    EXPECT_TRUE(l1.role);
    ASSERT_EQ(l1.instances.size(), 8u);
    EXPECT_EQ(info.spaces[l1.instances[3]].name, "l1_3");
    // Replicated memories are one traffic level named after their key.
    EXPECT_EQ(info.space("l1_3").level, "l1");
    EXPECT_EQ(info.space("l2_1").cluster, 1);
    const EngineInfo* core3 = info.findEngine("core3");
    ASSERT_NE(core3, nullptr);
    EXPECT_EQ(core3->roles.at("l1"), info.space("l1_3").id);
    EXPECT_EQ(core3->roles.at("am"), info.space("am3").id);
    EXPECT_EQ(core3->cluster, 0);
    EXPECT_EQ(core3->key, "core");
    EXPECT_EQ(core3->memories, (std::vector<std::uint8_t>{info.space("l1").id, info.space("am").id}));
}

// One op stream addressed to the role "l1" runs on any core and reaches that core's own L1.
TEST(Topology, RoleSpaceReachesTheRunningCoresInstance) {
    auto target = build(clusteredTarget());
    const TargetInfo& info = target->info();
    std::vector<Op> ops;
    for (unsigned i = 0; i < 4; ++i) {
        Op load;
        load.kind = OpKind::VLoad;
        load.dtype = DType::F32;
        load.space = info.space("l1").id;
        load.dst = static_cast<std::uint8_t>(i);
        load.vl = 8;
        load.addr = 4096 * i;
        ops.push_back(load);
    }
    target->findEngine("core6")->setStream(std::make_unique<VectorOpStream>(ops));
    sc_core::sc_start();
    auto* mine = dynamic_cast<Cache*>(target->findMemory("l1_6"));
    auto* other = dynamic_cast<Cache*>(target->findMemory("l1_2"));
    ASSERT_NE(mine, nullptr);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(mine->misses(), 4u);
    EXPECT_EQ(other->misses(), 0u);
    auto* l2 = dynamic_cast<Cache*>(target->findMemory("l2_1"));
    EXPECT_EQ(l2->misses(), 4u);
    // A role holds no memory of its own.
    EXPECT_EQ(target->findMemory("l1"), nullptr);
}

TEST(Topology, FunctionalBytesOfARoleNeedAnInstanceUnlessItIsACache) {
    auto target = build(clusteredTarget());
    target->setFunctional(true);
    const TargetInfo& info = target->info();
    float value = 1.5f, back = 0.0f;
    // Every L1 reaches the same bytes below it.
    target->functionalMemory().write(info.space("l1").id, 64, &value, sizeof value);
    target->functionalMemory().read(info.space("l1_5").id, 64, &back, sizeof back);
    EXPECT_EQ(back, 1.5f);
    try {
        target->functionalMemory().write(info.space("am").id, 0, &value, sizeof value);
        FAIL() << "a per-core scratchpad role has no bytes of its own";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "'am' names 8 memories, one per core; address one instance (am0 … am7)"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Topology, MulticastGroupsListTheirMembers) {
    auto target = build(clusteredTarget("\ngroups:\n  all_am: [am]\n  pair: [am0, am5]\n"));
    const TargetInfo& info = target->info();
    ASSERT_EQ(info.groups.size(), 2u);
    const MulticastGroupInfo* all = info.findGroup("all_am");
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(all->id, 1);
    ASSERT_EQ(all->members.size(), 8u);
    EXPECT_EQ(all->members[7], info.space("am7").id);
    EXPECT_EQ(info.findGroup("pair")->members,
              (std::vector<std::uint8_t>{info.space("am0").id, info.space("am5").id}));
}

DmaArgs ddrToGroup(const TargetInfo& info, std::uint32_t bytes) {
    DmaArgs d{};
    d.srcSpace = info.space("ddr").id;
    const MulticastGroupInfo* all = info.findGroup("all_am");
    d.group = all ? all->id : 0;
    d.rowBytes = bytes;
    d.rows = d.planes = 1;
    d.dst = 256;
    return d;
}

// One DDR read feeds every member of the group, at the same offset.
TEST(Topology, MulticastGroupWritesEveryMember) {
    auto target = build(clusteredTarget("\ngroups:\n  all_am: [am]\n"));
    target->setFunctional(true);
    const TargetInfo& info = target->info();
    std::vector<std::uint8_t> src(1024);
    for (std::size_t i = 0; i < src.size(); ++i)
        src[i] = static_cast<std::uint8_t>(i * 7 + 1);
    target->functionalMemory().write(info.space("ddr").id, 0, src.data(), src.size());
    std::vector<Op> ops{dmaStartOp(5, ddrToGroup(info, 1024)), dmaWaitOp(5)};
    target->findEngine("core2")->setStream(std::make_unique<VectorOpStream>(ops));
    sc_core::sc_start();
    for (const char* am : {"am0", "am3", "am7"}) {
        std::vector<std::uint8_t> got(src.size());
        target->functionalMemory().read(info.space(am).id, 256, got.data(), got.size());
        EXPECT_EQ(got, src) << am;
        EXPECT_EQ(target->findMemory(am)->bytesWritten(), 1024u) << am;
    }
    EXPECT_EQ(target->findMemory("ddr")->bytesRead(), 1024u);
}

TEST(Topology, MulticastGroupsSurviveTheScheduleTextForm) {
    auto target = build(clusteredTarget("\ngroups:\n  all_am: [am]\n"));
    const TargetInfo& info = target->info();
    std::vector<EngineStream> streams;
    streams.push_back(EngineStream{
        "core1", std::make_unique<VectorOpStream>(std::vector<Op>{dmaStartOp(5, ddrToGroup(info, 64))})});
    const std::string path = ::testing::TempDir() + "/group.jsonl";
    {
        std::ofstream out(path);
        writeSchedule(out, streams, info);
    }
    std::ifstream in(path);
    std::string header, line;
    std::getline(in, header);
    std::getline(in, line);
    EXPECT_NE(line.find("\"group\":\"all_am\""), std::string::npos) << line;
    auto back = readSchedule(path, info);
    ASSERT_EQ(back.size(), 1u);
    const Op* op = nullptr;
    ASSERT_EQ(back[0].stream->nextChunk(op), 1u);
    EXPECT_EQ(op->dma.group, info.findGroup("all_am")->id);
    std::remove(path.c_str());
}

TEST(Topology, MulticastToOtherMemoriesWithoutAGroupIsAnError) {
    auto target = build(clusteredTarget());
    const TargetInfo& info = target->info();
    DmaArgs d = ddrToGroup(info, 64);
    d.group = 0;
    d.dstSpace = info.space("am0").id;
    d.multicastCount = 3;
    target->findEngine("core0")->setStream(
        std::make_unique<VectorOpStream>(std::vector<Op>{dmaStartOp(1, d), dmaWaitOp(1)}));
    try {
        sc_core::sc_start();
        rethrowProcessFailure();
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("other memories are reached through a multicast group"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Topology, SingleInstanceTargetsKeepTheirNames) {
    initSystemC();
    ConfiguredTarget target(
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/minimal.yaml"));
    EXPECT_EQ(target.info().spaces.size(), 2u);
    EXPECT_EQ(target.info().space("spm").id, 0);
    EXPECT_EQ(target.info().space("ddr").id, 1);
    EXPECT_TRUE(target.info().clusters.empty());
    EXPECT_EQ(target.info().engines.at(0).name, "core");
}

TEST(Topology, EightCoreMinimalSharesOneL2AndOneDdr) {
    initSystemC();
    ConfiguredTarget target(
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/minimal-8core.yaml"));
    const TargetInfo& info = target.info();
    EXPECT_EQ(info.cores().size(), 8u);
    EXPECT_EQ(info.engines[7].name, "core7");
    EXPECT_EQ(info.space("l1").instances.size(), 8u);
    EXPECT_FALSE(info.space("l2").role);
    EXPECT_FALSE(info.space("ddr").role);
    for (const auto& e : info.engines)
        EXPECT_EQ(info.spaces[e.roles.at("l1")].name, "l1_" + std::to_string(e.index));
}

TEST(TopologyErrors, CountMustBeAWholeNumber) {
    std::string yaml = clusteredTarget();
    yaml.replace(yaml.find("count: 4\n    dma"), 8, "count: 0");
    EXPECT_EQ(errorOf(yaml),
              "target.yaml:18:12: error: cluster.core.count: expected a whole number of instances "
              "from 1 to 4096, got '0'");
}

TEST(TopologyErrors, AmbiguousReferenceNamesTheInstances) {
    std::string yaml = clusteredTarget();
    // Three L2s per cluster for four L1s: no instance is "mine".
    yaml.replace(yaml.find("l2: {impl: cache,"), 17, "l2: {impl: cache, count: 3,");
    EXPECT_EQ(errorOf(yaml),
              "target.yaml:14:89: error: cluster.l1.next: 'l2' has 6 instances and 'l1' has 8: "
              "name one instance (l2_0 … l2_5)");
}

TEST(TopologyErrors, InstanceNamesMustNotClash) {
    std::string yaml = clusteredTarget("\ncore1: {impl: simple, size: 1 KiB, latency: 1 ns, bandwidth: 1 "
                                       "GB/s, energy: {read_energy_per_byte: 1 pJ}}\n");
    EXPECT_NE(errorOf(yaml).find("instance name 'core1' clashes with another component"), std::string::npos);
}

TEST(TopologyErrors, ClustersDoNotNest) {
    std::string yaml = clusteredTarget();
    yaml.replace(yaml.find("  l2: {impl"), 0, "  inner: {impl: cluster, x: {impl: simple}}\n");
    EXPECT_EQ(errorOf(yaml), "target.yaml:13:17: error: cluster.inner.impl: clusters do not nest");
}

TEST(TopologyErrors, GroupMembersMustBeMemories) {
    std::string yaml = clusteredTarget("\ngroups:\n  bad: [am0, core1]\n");
    EXPECT_NE(errorOf(yaml).find("groups.bad: group 'bad': no memory named 'core1'"), std::string::npos)
        << errorOf(yaml);
}

TEST(TopologyErrors, QuantumIsATargetKeyWithBounds) {
    std::string yaml = clusteredTarget("\nquantum: 0 ns\n");
    EXPECT_NE(errorOf(yaml).find("quantum"), std::string::npos) << errorOf(yaml);
}

}  // namespace
}  // namespace tessim
