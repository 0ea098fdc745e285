// A new kernel is a factory plus one registry row: a small `fill` kernel (a value broadcast into
// a vector register and stored over n f32 elements) registered here runs end to end through the
// run pipeline — workload YAML, plan keys, streams, compulsory bytes, functional check, report.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "run/pipeline/Simulation.h"
#include "sim/config/ConfigError.h"
#include "sim/ir/OpStream.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/KernelRegistry.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/KernelReaders.h"

namespace tessim {
namespace {

constexpr std::uint32_t kVl = 8;
constexpr std::uint8_t kValue = 1;  // the vector register that holds the value

// The workload base echoes what the factory read (kernel, n, value with its default, the plan's
// memory); the kernel adds only what it derived: the engine the plan defaulted to.
class FillKernel : public ConfiguredWorkload {
public:
    FillKernel(std::uint64_t n, double value, const MemorySpaceInfo& memory, std::string engine)
        : n_(n), value_(value), memory_(memory), engine_(std::move(engine)) {}

    void derivePlan(nlohmann::ordered_json& plan) const override { plan["engine"] = engine_; }
    std::vector<EngineStream> streams() override {
        std::vector<Op> ops;
        Op splat;
        splat.kind = OpKind::Broadcast;
        splat.dst = kValue;
        splat.imm = value_;
        splat.vl = kVl;
        ops.push_back(splat);
        for (std::uint64_t i = 0; i < n_; i += kVl) {
            Op store;
            store.kind = OpKind::VStore;
            store.space = memory_.id;
            store.src[0] = kValue;
            store.addr = 4 * i;
            store.vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(kVl, n_ - i));
            ops.push_back(store);
        }
        std::vector<EngineStream> s;
        s.push_back(EngineStream{engine_, std::make_unique<VectorOpStream>(std::move(ops))});
        return s;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        return {{memory_.level, 4 * n_}};
    }
    void initialise(FunctionalMemory& memory) override {
        const std::vector<float> poison(n_, -1.0f);
        memory.write(memory_.id, 0, poison.data(), 4 * n_);
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        std::vector<float> got(n_);
        memory.read(memory_.id, 0, got.data(), 4 * n_);
        for (std::uint64_t i = 0; i < n_; ++i) {
            ++c.elements;
            if (got[i] != static_cast<float>(value_) && c.mismatches++ == 0)
                c.firstMismatch = fmt::format("element {}: {}", i, got[i]);
        }
        return c;
    }

private:
    std::uint64_t n_;
    double value_;
    const MemorySpaceInfo& memory_;
    std::string engine_;
};

std::unique_ptr<Workload> makeFill(const std::string& kernel, const config::Node& workload,
                                   const config::Node& plan, const TargetInfo& target) {
    (void)kernel;
    config::Reader w = workloadReader(workload);
    const auto n = w.get<std::uint64_t>("n");
    const auto value = w.get<double>("value", 1.0);
    PlanReader pl(plan);
    const EngineInfo& engine = planEngine(pl.reader, target);
    const std::string memory = pl.reader.get<std::string>("memory", std::string("spm"));
    const MemorySpaceInfo* space = target.findSpace(memory);
    if (!space)
        pl.reader.fail("memory", "target '" + target.name + "' has no memory '" + memory + "'");
    if (4 * n > space->size)
        w.fail("n", fmt::format("{} f32 elements do not fit {} ({} B)", n, memory, space->size));
    w.finish();
    pl.reader.finish();
    auto made = std::make_unique<FillKernel>(n, value, *space, engine.name);
    made->echoFrom(w, pl.reader);
    return made;
}

std::string writeWorkload(const std::string& yaml) {
    const auto path = std::filesystem::temp_directory_path() / fmt::format("tessim-fill-{}.yaml", ::getpid());
    std::ofstream(path) << yaml;
    return path.string();
}

TEST(KernelExtension, ARegisteredKernelRunsThroughThePipeline) {
    registerKernel(
        {"fill", "", "a value stored over n f32 elements (a test's kernel)", makeFill, "", {}, {}, {}});
    RunRequest request;
    request.target = "minimal";
    request.workload = writeWorkload("kernel: fill\nn: 1000\nvalue: 2.5\n");
    request.functional = true;
    const auto report = runSimulation(request);
    std::remove(request.workload.c_str());
    EXPECT_EQ(report["workload"]["config"],
              (nlohmann::ordered_json{{"kernel", "fill"}, {"n", 1000}, {"value", 2.5}}));
    EXPECT_EQ(report["plan"]["config"], (nlohmann::ordered_json{{"memory", "spm"}, {"engine", "core"}}));
    EXPECT_EQ(report["functional"]["elements"], 1000);
    EXPECT_EQ(report["functional"]["mismatches"], 0);
    EXPECT_EQ(report["traffic_bytes"]["sram"]["write"], 4000);
    EXPECT_EQ(report["bounds"]["compulsory_bytes"]["sram"], 4000);
    // One broadcast and 125 stores of 32 B: at least one cycle each.
    EXPECT_GE(report["cycles"].get<std::uint64_t>(), 126u);
}

TEST(KernelExtension, ItsOwnKeysAreCheckedAndARowNameIsTakenOnce) {
    registerKernel(
        {"fill", "", "a value stored over n f32 elements (a test's kernel)", makeFill, "", {}, {}, {}});
    EXPECT_THROW(registerKernel({"fill", "", "again", makeFill, "", {}, {}, {}}), std::invalid_argument);
    EXPECT_THROW(registerKernel({"fill2", "", "no factory", nullptr, "", {}, {}, {}}), std::invalid_argument);
    RunRequest request;
    request.target = "minimal";
    request.workload = writeWorkload("kernel: fill\nn: 100000000\n");
    try {
        runSimulation(request);
        ADD_FAILURE() << "no error";
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find(":2:1: error: n: 100000000 f32 elements do not fit spm"),
                  std::string::npos)
            << e.what();
    }
    std::remove(request.workload.c_str());
}

}  // namespace
}  // namespace tessim
