// Requests that reach a shared level at one simulated time go in turns (`same_time_turns`, on in
// k1 and minimal-8core): every core's first request of the time before any second, ranked by a
// hash of the time and the core. Without turns the kernel's process order serves core0 first,
// and eight cores streaming axpy wait for memory in the order of their index.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/DocsBuild.h"
#include "common/ProcessRunner.h"

namespace tessim {
namespace {

std::vector<double> memoryWaitsByCore(const std::string& sets) {
    const test::ProcessResult r = test::runCommand(
        test::docsTessim() + " run --target minimal-8core --workload axpy --set plan.cores=8 --format json " +
        sets);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::vector<double> waits;
    if (r.exitCode != 0)
        return waits;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (int c = 0; c < 8; ++c)
        waits.push_back(j["engines"]["core" + std::to_string(c)]["cycles"]["memory"].get<double>());
    return waits;
}

TEST(SameTimeFairness, NoCoreIsServedFirstByItsIndex) {
    const std::vector<double> turns = memoryWaitsByCore("");
    const std::vector<double> kernelOrder = memoryWaitsByCore("--set target.l1.same_time_turns=false");
    ASSERT_EQ(turns.size(), 8u);
    ASSERT_EQ(kernelOrder.size(), 8u);
    // In the kernel's order the waits rise with the index (core0 least, core7 most) ...
    EXPECT_TRUE(std::is_sorted(kernelOrder.begin(), kernelOrder.end()));
    // ... in turns they do not, and the highest index is not the one that waits most.
    EXPECT_FALSE(std::is_sorted(turns.begin(), turns.end()));
    EXPECT_NE(std::max_element(turns.begin(), turns.end()) - turns.begin(), 7);
}

}  // namespace
}  // namespace tessim
