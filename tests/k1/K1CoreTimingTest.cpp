// One X60 core of the k1 target against closed forms from docs/sources/k1-x60.md: vfmacc
// chains cost their latency per op, independent vfmacc their reciprocal throughput, at every
// LMUL; scalar loop ops dual-issue beside vector ops; unit-stride loads that hit the L1 stream at
// the facts' rate; strided loads take one element per cycle and touch one line per element
// (hits and misses of a strided walk in closed form).
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>

#include "common/FreshTarget.h"
#include "models/memory/Cache.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"

namespace tessim {
namespace {

constexpr std::array<unsigned, 4> kLmuls{1, 2, 4, 8};
// vfmacc.vv e32 (facts: reciprocal 1/2/4/8; latency 5 at m1, grown with LMUL as in k1.yaml).
constexpr std::array<std::uint64_t, 4> kFmaLatency{5, 5, 6, 9};
constexpr std::array<std::uint64_t, 4> kFmaReciprocal{1, 2, 4, 8};
// vle32.v (facts: 2.45/4.35/8.6/16.5 cycles).
constexpr std::array<double, 4> kLoadReciprocal{2.45, 4.35, 8.6, 16.5};
constexpr std::uint32_t kVlenElements = 8;  // VLEN 256 / 32-bit elements

using test::target;

// A fresh k1 target in a new SystemC kernel.
ConfiguredTarget& freshK1() {
    return test::freshTarget("configs/targets/k1.yaml");
}

// Runs `ops` on core0 of a fresh k1 target and returns the cycle at which the core finished.
std::uint64_t runOnCore0(std::vector<Op> ops) {
    if (!target() || sc_core::sc_start_of_simulation_invoked())
        freshK1();
    return test::runStream("core0", std::move(ops)).finishCycle();
}

// vd ← vs0 · vs1 + vs2 at LMUL m: register groups start at multiples of 8.
Op fma(std::uint8_t dst, std::uint8_t acc, unsigned lmul) {
    Op op;
    op.kind = OpKind::Fma;
    op.dtype = DType::F32;
    op.vl = kVlenElements * lmul;
    op.dst = dst;
    op.src[0] = 16;
    op.src[1] = 24;
    op.src[2] = acc;
    return op;
}

Op load(std::uint8_t dst, std::uint64_t addr, unsigned lmul) {
    Op op;
    op.kind = OpKind::VLoad;
    op.dtype = DType::F32;
    op.vl = kVlenElements * lmul;
    op.dst = dst;
    op.space = 0;  // resolved below: the role "l1"
    op.addr = addr;
    return op;
}

TEST(K1Core, DependentFmaChainTakesTheLatencyPerOp) {
    for (std::size_t i = 0; i < kLmuls.size(); ++i) {
        for (std::uint64_t n : {1u, 10u, 100u}) {
            std::vector<Op> ops(n, fma(8, 8, kLmuls[i]));
            EXPECT_EQ(runOnCore0(ops), n * kFmaLatency[i]) << "m" << kLmuls[i] << " n " << n;
        }
    }
}

TEST(K1Core, IndependentFmasTakeTheReciprocalThroughputPerOp) {
    for (std::size_t i = 0; i < kLmuls.size(); ++i) {
        // Every FMA writes v8 and accumulates v0: no FMA reads another's result.
        const std::uint64_t n = 100;
        const std::uint64_t once = runOnCore0(std::vector<Op>(n, fma(8, 0, kLmuls[i])));
        const std::uint64_t twice = runOnCore0(std::vector<Op>(2 * n, fma(8, 0, kLmuls[i])));
        EXPECT_EQ(once, (n - 1) * kFmaReciprocal[i] + kFmaLatency[i]) << "m" << kLmuls[i];
        EXPECT_EQ(twice - once, n * kFmaReciprocal[i]) << "m" << kLmuls[i];
    }
}

TEST(K1Core, LoopScalarOpsDualIssueBesideTheFmas) {
    // Each m1 FMA (one per cycle) shares its issue cycle with a pointer increment.
    const std::uint64_t n = 100;
    std::vector<Op> ops;
    for (std::uint64_t k = 0; k < n; ++k) {
        ops.push_back(fma(8, 0, 1));
        Op add;
        add.kind = OpKind::SAdd;
        add.dtype = DType::I32;
        add.dst = static_cast<std::uint8_t>(kScalarRegBase + 1);
        add.src[0] = static_cast<std::uint8_t>(kScalarRegBase + 1);
        add.imm = 32;
        ops.push_back(add);
    }
    EXPECT_EQ(runOnCore0(ops), (n - 1) * kFmaReciprocal[0] + kFmaLatency[0]);
}

TEST(K1Core, UnitStrideLoadsThatHitTheL1StreamAtTheFactsRate) {
    for (std::size_t i = 0; i < kLmuls.size(); ++i) {
        const unsigned m = kLmuls[i];
        // The first load brings the lines into the L1; every later one hits. Loads of 20 ops
        // more take 20 × the facts' cycles per load (a whole number: 2.45 × 20 = 49).
        auto stream = [&](std::uint64_t n) {
            const std::uint8_t l1 = freshK1().info().space("l1").id;
            std::vector<Op> ops;
            for (std::uint64_t k = 0; k < n; ++k) {
                Op op = load(static_cast<std::uint8_t>(8 * (k % 3 + 1)), 0, m);
                op.space = l1;
                ops.push_back(op);
            }
            return runOnCore0(ops);
        };
        for (std::uint64_t n : {100u, 200u}) {
            const auto extra = static_cast<double>(stream(n + 20) - stream(n));
            EXPECT_DOUBLE_EQ(extra, 20 * kLoadReciprocal[i]) << "m" << m << " n " << n;
        }
        // 1,000 loads of 32·m bytes more move them at the facts' bytes per cycle.
        const double rate = 1000.0 * 32 * m / static_cast<double>(stream(1100) - stream(100));
        EXPECT_NEAR(rate, 32.0 * m / kLoadReciprocal[i], 1e-9) << "m" << m;
    }
}

TEST(K1Core, StridedWalkTouchesALinePerElementAndHitsWhenItFits) {
    // vlse32 at m8 (64 elements), one element every `stride` bytes, over `lines` lines, twice.
    // 256 lines fit the 512-line L1 (4 ways × 128 sets) contiguously and at stride 128, which
    // uses every other set (64 sets × 4 ways = 256 lines); 1,024 lines do not, and LRU evicts
    // each line before the second pass reaches it.
    struct Case {
        std::uint64_t stride, lines;
        bool fits;
    };
    for (const Case c :
         {Case{64, 256, true}, Case{128, 256, true}, Case{128, 512, false}, Case{64, 1024, false}}) {
        // Demand misses in closed form: the L1's prefetcher off (it would bring lines ahead).
        ConfiguredTarget& t =
            test::freshTarget("configs/targets/k1.yaml", {"cluster.l1.prefetcher.kind=none"});
        const std::uint8_t l1 = t.info().space("l1").id;
        std::vector<Op> ops;
        for (int pass = 0; pass < 2; ++pass) {
            for (std::uint64_t first = 0; first < c.lines; first += 64) {
                Op op = load(8, first * c.stride, 8);
                op.space = l1;
                op.stride = static_cast<std::int64_t>(c.stride);
                ops.push_back(op);
            }
        }
        const std::uint64_t loads = ops.size();
        runOnCore0(ops);
        const auto* cache = dynamic_cast<const Cache*>(t.findMemory("l1_0"));
        ASSERT_NE(cache, nullptr);
        EXPECT_EQ(cache->misses(), c.fits ? c.lines : 2 * c.lines) << c.stride << " " << c.lines;
        EXPECT_EQ(cache->hits(), c.fits ? c.lines : 0u) << c.stride << " " << c.lines;
        EXPECT_EQ(cache->hits() + cache->misses(), loads * 64) << c.stride << " " << c.lines;
    }
}

TEST(K1Core, StridedLoadsTakeOneElementPerCycle) {
    // vlse32: 8/16/32/64 cycles at m1…m8 (facts), independent loads of one hot line pattern.
    for (std::size_t i = 0; i < kLmuls.size(); ++i) {
        auto stream = [&](std::uint64_t n) {
            const std::uint8_t l1 = freshK1().info().space("l1").id;
            std::vector<Op> ops;
            for (std::uint64_t k = 0; k < n; ++k) {
                Op op = load(static_cast<std::uint8_t>(8 * (k % 3 + 1)), 0, kLmuls[i]);
                op.space = l1;
                op.stride = 128;
                ops.push_back(op);
            }
            return runOnCore0(ops);
        };
        EXPECT_EQ(stream(120) - stream(100), 20u * 8 * kLmuls[i]) << "m" << kLmuls[i];
    }
}

}  // namespace
}  // namespace tessim
