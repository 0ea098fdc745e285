// fc in f16 (SEW 16) on the k1 target: y computed by a functional run equals, bit for bit, a plain
// C++ reference in _Float16 that rounds every operation in the schedule's order, for odd sizes
// and several blockings; through the command line, functional runs agree with the kernel's own
// check, the data takes 2 B per element, and the compute bound is twice the f32 one (16 lanes of
// f16 per register at the same vfmacc cost).
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <systemc>

#include "common/FreshTarget.h"
#include "common/ProcessRunner.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"
#include "workloads/common/TestData.h"
#include "workloads/fc/FullyConnectedKernel.h"

namespace tessim {
namespace {

using Json = nlohmann::json;

using test::target;

// A fresh k1 target in a new SystemC kernel.
ConfiguredTarget& freshK1() {
    return test::freshTarget("configs/targets/k1.yaml");
}

struct Shape {
    std::uint64_t in, out, batch;
};

// y of a functional f16 run on k1 with the given plan (YAML flow map), read back from memory.
std::vector<std::uint16_t> simulate(const Shape& s, const std::string& plan, unsigned& vlmax) {
    ConfiguredTarget& t = freshK1();
    const config::Node workload = config::loadYamlString(
        "{kernel: fc, dtype: f16, in: " + std::to_string(s.in) + ", out: " + std::to_string(s.out) +
            ", batch: " + std::to_string(s.batch) + "}",
        "<workload>");
    const config::Node planNode = config::loadYamlString(plan, "<plan>");
    std::unique_ptr<Workload> fc = makeFullyConnectedKernel("fc", workload, planNode, t.info());
    const auto resolved = fc->resolvedPlan();
    vlmax = resolved["vector_length"].get<unsigned>();
    t.setFunctional(true);
    for (auto& es : fc->streams())
        t.findEngine(es.engine)->setStream(std::move(es.stream));
    fc->initialise(t.functionalMemory());
    sc_core::sc_start();
    rethrowProcessFailure();
    std::vector<std::uint16_t> y(s.batch * s.out);
    const std::uint8_t space = t.info().space(resolved["memory"].get<std::string>()).id;
    t.functionalMemory().read(space, resolved["y"].get<std::uint64_t>(), y.data(), y.size() * 2);
    return y;
}

#ifdef __FLT16_MAX__
using Half = _Float16;

// Every operation in float, rounded to _Float16 at once (exact for +, ×: float has 2·11 + 2 bits).
Half mul(Half a, Half b) {
    return static_cast<Half>(static_cast<float>(a) * static_cast<float>(b));
}
Half add(Half a, Half b) {
    return static_cast<Half>(static_cast<float>(a) + static_cast<float>(b));
}

Half x(const Shape& s, std::uint64_t b, std::uint64_t i) {
    return static_cast<Half>(testValue(DType::F16, b * s.in + i, 0));
}
Half w(const Shape& s, std::uint64_t o, std::uint64_t i) {
    return static_cast<Half>(testValue(DType::F16, o * s.in + i, 1));
}

// Vectorised over `in`: lane l of the accumulator takes inputs l, l + vlmax, … (a product, then
// multiply-adds that round the product and the sum), the lanes summed in order from zero.
Half referenceOverIn(const Shape& s, unsigned vlmax, std::uint64_t b, std::uint64_t o) {
    std::vector<Half> lanes(vlmax, static_cast<Half>(0.0f));
    for (std::uint64_t i = 0; i < s.in; ++i) {
        Half& lane = lanes[i % vlmax];
        lane = i < vlmax ? mul(x(s, b, i), w(s, o, i)) : add(mul(x(s, b, i), w(s, o, i)), lane);
    }
    Half sum = static_cast<Half>(0.0f);
    for (std::uint64_t l = 0; l < std::min<std::uint64_t>(vlmax, s.in); ++l)
        sum = add(sum, lanes[l]);
    return sum;
}

// Widening (accumulate: f32): f32 lanes from zero, each step x · w + lane with one rounding (the
// f16 product is exact in float), the lanes summed in float, the sum rounded to f16 by the store.
Half referenceWidening(const Shape& s, unsigned vlmax, std::uint64_t b, std::uint64_t o) {
    std::vector<float> lanes(vlmax, 0.0f);
    for (std::uint64_t i = 0; i < s.in; ++i)
        lanes[i % vlmax] = static_cast<float>(x(s, b, i)) * static_cast<float>(w(s, o, i)) + lanes[i % vlmax];
    float sum = 0.0f;
    for (std::uint64_t l = 0; l < std::min<std::uint64_t>(vlmax, s.in); ++l)
        sum = sum + lanes[l];
    return static_cast<Half>(sum);
}

// Vectorised over `out`: one lane per output, inputs in order.
Half referenceOverOut(const Shape& s, std::uint64_t b, std::uint64_t o) {
    Half sum = mul(x(s, b, 0), w(s, o, 0));
    for (std::uint64_t i = 1; i < s.in; ++i)
        sum = add(mul(x(s, b, i), w(s, o, i)), sum);
    return sum;
}

std::uint16_t bitsOf(Half h) {
    std::uint16_t bits;
    std::memcpy(&bits, &h, 2);
    return bits;
}

enum class Order { OverIn, OverOut, Widening };

void expectReference(const Shape& s, const std::string& plan, Order order) {
    unsigned vlmax = 0;
    const std::vector<std::uint16_t> y = simulate(s, plan, vlmax);
    for (std::uint64_t b = 0; b < s.batch; ++b) {
        for (std::uint64_t o = 0; o < s.out; ++o) {
            const Half want = order == Order::OverOut    ? referenceOverOut(s, b, o)
                              : order == Order::Widening ? referenceWidening(s, vlmax, b, o)
                                                         : referenceOverIn(s, vlmax, b, o);
            ASSERT_EQ(y[b * s.out + o], bitsOf(want))
                << plan << " y[" << b << "][" << o << "] = " << static_cast<float>(want);
        }
    }
}

// in = 37: two full f16 LMUL-1 registers (16 lanes) and a tail of 5; shorter than an LMUL-4 group.
TEST(FcHalfPrecision, FunctionalRunEqualsTheFloat16ReferenceOverIn) {
    expectReference({37, 13, 3}, "{threads: 1, rb: 2, ro: 4, lmul: 2}", Order::OverIn);
}

TEST(FcHalfPrecision, FunctionalRunEqualsTheFloat16ReferenceAtLmul1With4Threads) {
    expectReference({37, 13, 3}, "{threads: 4, rb: 3, ro: 5, lmul: 1}", Order::OverIn);
}

TEST(FcHalfPrecision, FunctionalRunEqualsTheFloat16ReferenceAtLmul8) {
    expectReference({131, 5, 1}, "{threads: 1, rb: 1, ro: 1, lmul: 8}", Order::OverIn);
}

TEST(FcHalfPrecision, FunctionalRunEqualsTheFloat16ReferenceOverOut) {
    expectReference({37, 21, 3}, "{threads: 1, vectorise: out, rb: 2, ro: 2, lmul: 1}", Order::OverOut);
}

TEST(FcHalfPrecision, WideningRunEqualsTheFloatAccumulatingReference) {
    expectReference({37, 13, 3}, "{threads: 1, rb: 2, ro: 2, lmul: 2, accumulate: f32}", Order::Widening);
    expectReference({131, 7, 2}, "{threads: 4, rb: 1, ro: 2, lmul: 4, accumulate: f32}", Order::Widening);
}
#endif

Json runHalfPrecision(const std::string& args) {
    auto r = test::runTessim("run --target k1 --workload fc " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

TEST(FcHalfPrecision, CommandLineFunctionalRunsMatch) {
    for (const char* plan : {"--set plan.threads=1", "--set plan.threads=4 --set plan.lmul=4 --set plan.ro=2",
                             "--set plan.vectorise=out --set plan.rb=2 --set plan.ro=2 --set plan.lmul=1"}) {
        Json r = runHalfPrecision("--set workload.in=37 --set workload.out=13 --set workload.batch=3 "
                                  "--set workload.dtype=f16 --functional " +
                                  std::string(plan));
        ASSERT_TRUE(r.contains("functional")) << plan;
        EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 39u) << plan;
        EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
            << plan << ": " << r["functional"].value("first_mismatch", "");
    }
}

TEST(FcHalfPrecision, WideningNeedsF16DataAndRoomForTheWideAccumulators) {
    auto r = test::runTessim("run --target k1 --workload fc --set plan.accumulate=f32");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("for dtype f16 only"), std::string::npos) << r.err;
    r = test::runTessim("run --target k1 --workload fc --set workload.dtype=f16 --set plan.accumulate=f32");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("needs 8 f32 accumulators × 2 + 2 x rows + 4 W rows = 22 register groups = 44 "
                         "vector registers"),
              std::string::npos)
        << r.err;
}

TEST(FcHalfPrecision, HalvesTheBytesAndTheComputeBound) {
    const std::string shape =
        "--set workload.in=256 --set workload.out=64 --set workload.batch=4 --set plan.threads=1 ";
    Json f32 = runHalfPrecision(shape);
    Json f16 = runHalfPrecision(shape + "--set workload.dtype=f16");
    // x, W read once and y written once, 2 B per element.
    EXPECT_EQ(f16["bounds"]["compulsory_bytes"]["l1"].get<std::uint64_t>(),
              (4u * 256 + 64u * 256 + 4u * 64) * 2);
    // 16 f16 lanes per register at the f32 cost per register: 32 FLOP per cycle against 16.
    // The bound divides the engine's work (a vfmul is one FLOP per element, a vfmacc two) by it.
    auto work = [](const Json& r) { return r["engines"]["core0"]["work"].get<double>(); };
    EXPECT_DOUBLE_EQ(f32["bounds"]["compute_s"].get<double>(), work(f32) / (16 * 1.6e9));
    EXPECT_DOUBLE_EQ(f16["bounds"]["compute_s"].get<double>(), work(f16) / (32 * 1.6e9));
    EXPECT_EQ(f16["plan"]["config"]["vector_length"].get<unsigned>(), 32u);  // 16 per register × LMUL 2
    EXPECT_GE(f16["seconds"].get<double>(), f16["bounds"]["compute_s"].get<double>());
    EXPECT_LT(f16["cycles"].get<double>(), f32["cycles"].get<double>());
}

}  // namespace
}  // namespace tessim
