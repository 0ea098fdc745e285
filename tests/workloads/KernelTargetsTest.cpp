// Which kernel row a target runs, chosen from the machine (TargetInfo), and the refusal, before
// simulation, of a workload or plan that a target cannot run: located at the workload's `kernel`
// or the plan's `strategy`, with what the target lacks.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/FreshTarget.h"
#include "common/ProcessRunner.h"
#include "run/pipeline/ConfigLibrary.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/ir/OpTable.h"
#include "workloads/KernelRegistry.h"

namespace tessim {
namespace {

TargetInfo libraryTarget(const std::string& name) {
    return test::freshTarget("configs/targets/" + name + ".yaml").info();
}

std::string selectionError(const config::Node& workload, const config::Node& plan, const TargetInfo& target) {
    try {
        selectKernel(workload, plan, &target);
    } catch (const config::ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(KernelTargets, APlanWithoutAStrategyTakesTheRowTheMachineRuns) {
    const config::Node conv = config::loadYamlString("kernel: conv2d\n", "workload.yaml");
    EXPECT_EQ(selectKernel(conv, config::Node(), nullptr)->rowName(), "conv2d/tiled");
    const TargetInfo npu = libraryTarget("npu");
    EXPECT_EQ(selectKernel(conv, config::Node(), &npu)->rowName(), "conv2d/tiled");
    const TargetInfo ftm = libraryTarget("ftm2000");
    EXPECT_EQ(selectKernel(conv, config::Node(), &ftm)->rowName(), "conv2d/shuffle");
    // A network (a list of layers) on a row of one layer runs layer by layer (LayerSequence).
    const config::Node network = config::loadYamlString("kernel: conv2d\nlayers: []\n", "net.yaml");
    EXPECT_EQ(selectKernel(network, config::Node(), &ftm)->rowName(), "conv2d/shuffle");
}

TEST(KernelTargets, ARowTheTargetCannotRunIsRefusedWithWhatItLacks) {
    const TargetInfo k1 = libraryTarget("k1");
    const TargetInfo minimal = libraryTarget("minimal");
    const TargetInfo npu = libraryTarget("npu");
    const config::Node conv = config::loadYamlString("kernel: conv2d\n", "workload.yaml");
    // The K1 runs conv2d/rvv; the minimal vector core has no vsetvl and no DMA: no row.
    EXPECT_EQ(selectKernel(conv, config::Node(), &k1)->rowName(), "conv2d/rvv");
    std::string e = selectionError(conv, config::Node(), minimal);
    EXPECT_NE(e.find("workload.yaml:1:1: error: kernel: conv2d cannot run on target 'minimal'"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("conv2d/shuffle: engine 'core' of target 'minimal' has no DMA engine"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("conv2d/rvv: engine 'core' of target 'minimal' has no unit for ops 'vsetvl'"),
              std::string::npos)
        << e;
    e = selectionError(conv, config::loadYamlString("strategy: shuffle\n", "plan.yaml"), k1);
    EXPECT_NE(
        e.find("plan.yaml:1:1: error: strategy: conv2d/shuffle cannot run on target 'k1': engine 'core0' of "
               "target 'k1' has no DMA engine"),
        std::string::npos)
        << e;
    // Named by the plan: refused at its strategy.
    e = selectionError(conv, config::loadYamlString("strategy: shuffle\n", "plan.yaml"), npu);
    EXPECT_NE(
        e.find("plan.yaml:1:1: error: strategy: conv2d/shuffle cannot run on target 'npu': engine 'npu' of "
               "target 'npu' has no unit for ops 'fma', 'mul'"),
        std::string::npos)
        << e;
    e = selectionError(config::loadYamlString("kernel: dot\n", "dot.yaml"), config::Node(),
                       libraryTarget("ftm2000"));
    EXPECT_NE(
        e.find("dot.yaml:1:1: error: kernel: dot cannot run on target 'ftm2000': engine 'core0' of target "
               "'ftm2000' has no unit for op 'reduce'"),
        std::string::npos)
        << e;
}

TEST(KernelTargets, EveryRowNeedsOpsTheTableKnowsAndSomeLibraryTargetHasAll) {
    std::vector<TargetInfo> targets;
    for (const auto& t : listLibrary(LibraryKind::Target))
        targets.push_back(test::freshTarget("configs/targets/" + t.name + ".yaml").info());
    for (const auto& row : kernelRegistry()) {
        for (const auto& op : row.needs.ops)
            EXPECT_NE(findOpKind(op), nullptr) << row.rowName() << ": " << op;
        bool somewhere = false;
        for (const auto& t : targets)
            somewhere = somewhere || unmetNeeds(row.needs, t).empty();
        EXPECT_TRUE(somewhere) << row.rowName() << " runs on no library target";
    }
}

TEST(KernelTargets, CrossTargetRunsAreRefusedBeforeSimulationOrRun) {
    struct Case {
        std::string args;
        std::string error;  // "" when the run must succeed
    };
    const Case cases[] = {
        {"--target minimal --workload resnet18-layer1",
         "resnet18-layer1.yaml:3:1: error: kernel: conv2d cannot run on target 'minimal': "},
        {"--target k1 --workload resnet18-layer1 --set workload.h=14 --set workload.w=14", ""},
        {"--target npu --workload fc", "fc.yaml:3:1: error: kernel: fc cannot run on target 'npu': "},
        {"--target ftm2000 --workload tt-lenet300",
         "tt-lenet300.yaml:3:1: error: kernel: fc cannot run on target 'ftm2000': engine 'core0' of target "
         "'ftm2000' has no unit for ops 'vsetvl', 'reduce'"},
        {"--target k1 --workload conv-ftm --plan shuffle",
         "shuffle.yaml:3:1: error: strategy: conv2d/shuffle cannot run on target 'k1'"},
        // A library workload on its own target needs no plan; a single-issue kernel runs on the VLIW cores.
        {"--target ftm2000 --workload conv-ftm", ""},
        {"--target ftm2000 --workload axpy --set workload.n=65536", ""},
        // An INT8 layer runs in f32 on the DSP, its filters in blocks that fit the SM.
        {"--target ftm2000 --workload resnet18-layer1 --set workload.h=14 --set workload.w=14", ""},
    };
    for (const Case& c : cases) {
        const auto r = test::runTessim("run " + c.args + " --format json");
        if (c.error.empty()) {
            EXPECT_EQ(r.exitCode, 0) << c.args << ": " << r.err;
            continue;
        }
        EXPECT_EQ(r.exitCode, 2) << c.args;
        EXPECT_TRUE(r.out.empty()) << c.args;
        EXPECT_NE(r.err.find(c.error), std::string::npos) << c.args << ": " << r.err;
    }
}

TEST(KernelTargets, ListWorkloadsSaysWhereEachRuns) {
    const auto r = test::runTessim("list workloads");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::istringstream lines(r.out);
    int seen = 0;
    for (std::string line; std::getline(lines, line); ++seen) {
        const std::string name = line.substr(0, line.find(' '));
        EXPECT_EQ(line.back(), ']') << line;
        if (name == "conv-ftm") {  // an f64 map: the DSPs, and the K1's RVV at SEW 64 (not the INT8 npu)
            EXPECT_NE(line.find("[runs on ftm2000, ftm2000-l1d-cache, k1]"), std::string::npos) << line;
        }
        if (name == "resnet18") {
            EXPECT_NE(line.find("[runs on ftm2000, ftm2000-l1d-cache, k1, npu]"), std::string::npos) << line;
        }
        if (name == "memcpy") {
            EXPECT_NE(line.find("[runs on k1]"), std::string::npos) << line;
        }
    }
    EXPECT_GE(seen, 20);
}

}  // namespace
}  // namespace tessim
