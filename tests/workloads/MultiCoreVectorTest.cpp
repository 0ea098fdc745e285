// axpy and dot split across cores (plan.cores / plan.engines) on a two-core fixture with private
// scratchpads: the split halves the time, computes the right answer, keeps the compulsory bytes
// and doubles the compute peak; asking for too many cores is a clear error.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

const std::string kTarget = std::string(TESSIM_SOURCE_DIR) + "/tests/workloads/two-cores.yaml";

Json run(const std::string& args) {
    auto r = runTessim("run --target " + kTarget + " " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

// One core on spm0, or two cores on their own scratchpads (dot's partial sums in `shared`).
std::string onCores(unsigned cores, const std::string& kernel) {
    if (cores == 1)
        return "--workload " + kernel + " --set plan.memory=spm0";
    return "--workload " + kernel + " --set plan.cores=2 --set 'plan.memory=[spm0, spm1]'" +
           (kernel == "dot" ? " --set plan.partials=shared" : "");
}

void expectFunctionalPass(const Json& r) {
    ASSERT_TRUE(r.contains("functional")) << r.dump();
    EXPECT_TRUE(r["functional"]["checked"].get<bool>());
    EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << r["functional"].dump();
}

TEST(MultiCoreVector, TwoCoresOnPrivateMemoriesHalveTheTime) {
    for (const char* kernel : {"axpy", "dot"}) {
        Json one = run(onCores(1, kernel) + " --set workload.n=16384");
        Json two = run(onCores(2, kernel) + " --set workload.n=16384");
        const double c1 = one["cycles"].get<double>(), c2 = two["cycles"].get<double>();
        // Each core streams half the vectors through its own load/store unit and scratchpad;
        // the dot's combine (a barrier, two loads, a reduction) adds a few dozen cycles.
        EXPECT_NEAR(c2 / c1, 0.5, 0.01) << kernel << ": " << c1 << " → " << c2;
        EXPECT_EQ(one["bounds"]["compulsory_bytes"], two["bounds"]["compulsory_bytes"]) << kernel;
        EXPECT_EQ(two["plan"]["config"]["engines"], (Json{"core0", "core1"}));
        for (const char* core : {"core0", "core1"})
            EXPECT_TRUE(two["engines"][core]["main_compute"].get<bool>()) << core;
    }
}

TEST(MultiCoreVector, TheComputeBoundUsesEveryCoresPeak) {
    Json one = run(onCores(1, "axpy") + " --set workload.n=16384");
    Json two = run(onCores(2, "axpy") + " --set workload.n=16384");
    EXPECT_DOUBLE_EQ(two["bounds"]["compute_s"].get<double>() * 2, one["bounds"]["compute_s"].get<double>());
}

TEST(MultiCoreVector, FunctionalRunsCheckTheSplitResult) {
    // Uneven lengths: the last slice ends in a partial vector.
    for (const char* kernel : {"axpy", "dot"})
        for (const char* dtype : {"f32", "f64", "i32"})
            for (const char* n : {"1001", "8"})
                expectFunctionalPass(run(onCores(2, kernel) + " --functional --set workload.dtype=" + dtype +
                                         " --set workload.n=" + n));
}

TEST(MultiCoreVector, PartialSumsWiderThanARegisterAreAddedRegisterByRegister) {
    // 8 B registers hold one f64: two partial sums take two loads, two reductions and an add.
    const std::string narrow =
        " --set 'target.core0.register_size=8 B' --set 'target.core1.register_size=8 B'";
    Json r = run(onCores(2, "dot") + narrow + " --functional --set workload.dtype=f64 --set workload.n=999");
    expectFunctionalPass(r);
    EXPECT_EQ(r["plan"]["config"]["vector_length"].get<unsigned>(), 1u);
}

TEST(MultiCoreVector, EnginesMayBeNamedInAnyOrderAndShareAMemory) {
    Json r = run("--workload dot --functional --set workload.n=777 --set 'plan.engines=[core1, core0]' "
                 "--set plan.memory=shared");
    expectFunctionalPass(r);
    EXPECT_EQ(r["plan"]["config"]["engines"], (Json{"core1", "core0"}));
    EXPECT_EQ(r["plan"]["config"]["memory"], "shared");
}

TEST(MultiCoreVector, OneCoreKeepsTheSingleEnginePlan) {
    Json r = run("--workload axpy --set workload.n=1000 --set plan.memory=spm0");
    const auto& p = r["plan"]["config"];
    EXPECT_EQ(p["engine"], "core0");
    EXPECT_EQ(p["cores"], 1);  // the default, echoed as read
    EXPECT_FALSE(p.contains("engines"));
    EXPECT_EQ(r["engines"]["core1"]["stall"]["idle"].get<double>(), 1.0);
}

TEST(MultiCoreVector, CoresOneIsTheDefaultScheduleOnEveryFigure) {
    for (const char* kernel : {"axpy", "dot"}) {
        const std::string base =
            std::string("run --target minimal --workload ") + kernel + " --set workload.n=5000";
        auto plain = runTessim(base), one = runTessim(base + " --set plan.cores=1");
        ASSERT_EQ(plain.exitCode, 0) << plain.err;
        ASSERT_EQ(one.exitCode, 0) << one.err;
        Json a = Json::parse(plain.out), b = Json::parse(one.out);
        EXPECT_EQ(a["plan"]["config"], b["plan"]["config"]) << kernel;
        a.erase("plan");  // the name: "default" without a plan tree
        b.erase("plan");
        EXPECT_EQ(a, b) << kernel;
    }
}

TEST(MultiCoreVector, BadCoreRequestsAreConfigErrors) {
    auto tooMany = runTessim("run --target " + kTarget + " --workload axpy --set plan.cores=3");
    EXPECT_EQ(tooMany.exitCode, 2);
    EXPECT_NE(tooMany.err.find(
                  "cores: the plan asks for 3 cores but target 'two-cores' has 2 main compute engines"),
              std::string::npos)
        << tooMany.err;
    auto minimal = runTessim("run --target minimal --workload dot --set plan.cores=2");
    EXPECT_EQ(minimal.exitCode, 2);
    EXPECT_NE(minimal.err.find("asks for 2 cores but target 'minimal' has 1 main compute engine"),
              std::string::npos)
        << minimal.err;
    auto memories = runTessim("run --target " + kTarget +
                              " --workload axpy --set plan.cores=2 --set 'plan.memory=[spm0]'");
    EXPECT_EQ(memories.exitCode, 2);
    EXPECT_NE(memories.err.find("'memory' names 1 memories for 2 cores"), std::string::npos) << memories.err;
    auto both = runTessim("run --target " + kTarget +
                          " --workload axpy --set plan.engine=core0 --set 'plan.engines=[core0, core1]'");
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_NE(both.err.find("either 'engine' or 'engines'"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace tessim

namespace tessim {
namespace {

const std::string kGroupedEngine =
    std::string(TESSIM_SOURCE_DIR) +
    "/tests/engine/issue-models.yaml --set plan.engine=rvv --set plan.memory=spm";

// On an engine with LMUL register groups every operand sits in an aligned group of lmul registers.
TEST(GroupedRegisters, VectorKernelsUseAlignedGroups) {
    for (const char* kernel : {"axpy", "dot"}) {
        auto r = runTessim(std::string("run --target ") + kGroupedEngine + " --workload " + kernel +
                           " --set plan.lmul=4 --set plan.unroll=2 --set workload.n=1001 --functional");
        ASSERT_EQ(r.exitCode, 0) << kernel << ": " << r.err;
        EXPECT_EQ(Json::parse(r.out)["functional"]["mismatches"].get<std::uint64_t>(), 0u) << kernel;
    }
}

TEST(GroupedRegisters, TooManyGroupsForTheRegisterFileIsAConfigError) {
    auto r = runTessim(std::string("run --target ") + kGroupedEngine +
                       " --workload axpy --set plan.lmul=8 --set plan.unroll=2");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(
        r.err.find("unroll 2 at lmul 8 needs 56 vector registers in aligned groups; engine 'rvv' has 32"),
        std::string::npos)
        << r.err;
}

}  // namespace
}  // namespace tessim
