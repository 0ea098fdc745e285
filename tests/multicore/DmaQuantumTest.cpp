// ftm2000's four cores and the npu's array and vector processor share one DMA engine: with
// `time_ordered: true` (configs/targets/ftm2000.yaml, npu.yaml) its bursts go when simulated time
// reaches them, a channel's queue holds descriptors in the order they are ready, and each engine's
// tags are its own, so a run's time, DMA and DDR traffic and each layer's time do not depend on
// the temporal-decoupling quantum. Before (eager issuing, queues in the order the engines' quanta
// ran, tags shared by the engines) a depthwise layer side by side on ftm2000's cores took 22,424 /
// 21,184 / 24,068 cycles at 1 µs / 100 ns / 10 ns, and small.onnx's MatMul 2,509 / 2,217 / 2,215.
#include <cmath>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/DocsBuild.h"
#include "common/ProcessRunner.h"
#include "common/RelativeChange.h"

namespace tessim {
namespace {

using nlohmann::json;

json runAt(const std::string& args, const std::string& quantum) {
    const test::ProcessResult r = test::runCommand(test::docsTessim() + " run " + args +
                                                   " --format json --set target.quantum=" + quantum);
    EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.err;
    return r.exitCode == 0 ? json::parse(r.out) : json::object();
}

// Cycles within 0.1 % and every layer's within 0.5 % of the 1 µs run's, traffic equal, at 100 ns
// and 10 ns. What is left (a few cycles: the test network's pool 1,150 / 1,149 / 1,145 cycles on
// the npu) is same-time port arbitration on the scratchpads, where an engine's access and a DMA
// burst of the same cycle meet in either order.
void expectQuantumIndependent(const std::string& args) {
    SCOPED_TRACE(args);
    const json base = runAt(args, "1us");
    ASSERT_FALSE(base.empty());
    for (const char* quantum : {"100ns", "10ns"}) {
        const json other = runAt(args, quantum);
        ASSERT_FALSE(other.empty());
        EXPECT_LE(test::relativeChange(base["cycles"].get<double>(), other["cycles"].get<double>()), 0.001)
            << quantum << ": " << base["cycles"] << " vs " << other["cycles"];
        EXPECT_EQ(base["traffic_bytes"], other["traffic_bytes"]) << quantum;
        if (!base.contains("layers"))
            continue;
        ASSERT_EQ(base["layers"].size(), other["layers"].size());
        for (std::size_t i = 0; i < base["layers"].size(); ++i)
            EXPECT_LE(test::relativeChange(base["layers"][i]["cycles"].get<double>(),
                                           other["layers"][i]["cycles"].get<double>()),
                      0.005)
                << quantum << " layer " << base["layers"][i]["name"] << ": " << base["layers"][i]["cycles"]
                << " vs " << other["layers"][i]["cycles"];
    }
}

std::string writeNetwork() {
    const std::string path = "/tmp/tessim-dma-quantum-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\ndtype: i8\nlayers:\n"
           "  - {name: conv, h: 16, w: 16, channels: 16, filters: 16, k: 3, pad: 1}\n"
           "  - {name: relu, op: Relu, h: 16, w: 16, channels: 16}\n"
           "  - {name: dw, h: 16, w: 16, channels: 16, filters: 16, k: 3, pad: 1, groups: 16}\n"
           "  - {name: add, op: Add, h: 16, w: 16, channels: 16}\n"
           "  - {name: pool, op: MaxPool, h: 16, w: 16, channels: 16, k: 3, stride: 2, pad: 1}\n";
    return path;
}

TEST(DmaQuantum, FtmCoresSideBySideShareTheDmaInTimeOrder) {
    expectQuantumIndependent(
        "--target ftm2000 --workload conv-ftm --plan shuffle --set workload.channels=32 "
        "--set workload.filters=32 --set workload.groups=32 --set workload.h=28 --set workload.w=28");
    expectQuantumIndependent(
        "--target ftm2000 --workload resnet18-layer1 --set workload.h=14 --set workload.w=14");
}

TEST(DmaQuantum, LayerListsOnFtmAndTheNpu) {
    const std::string net = writeNetwork();
    expectQuantumIndependent("--target ftm2000 --workload " + net);
    expectQuantumIndependent("--target npu --workload " + net);
    ::unlink(net.c_str());
}

}  // namespace
}  // namespace tessim
