// The X60 vector ISA beyond 32-bit FMAs, on core0 of the k1 target, against closed forms from
// docs/sources/k1-x60.md: widening FMAs (vfwmacc, f16 × f16 + f32) cost their latency per op
// in a chain and their reciprocal throughput per op when independent; segment loads cost nf × the
// per-field cost and touch exactly the L1 lines they span; vslideup and vslidedown cost apart;
// segment loads, stores and widening FMAs compute what plain C++ computes.
#include <array>
#include <cstring>
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
#include "sim/ir/ElementArithmetic.h"

namespace tessim {
namespace {

// vfwmacc.vf (facts: reciprocal 2/4/8 at m1/m2/m4, latency 5 at mf2–m2 and 8 at m4).
constexpr std::array<unsigned, 3> kWideLmuls{1, 2, 4};
constexpr std::array<std::uint64_t, 3> kWideLatency{5, 5, 8};
constexpr std::array<std::uint64_t, 3> kWideReciprocal{2, 4, 8};
constexpr std::uint32_t kF16PerRegister = 16;  // VLEN 256 / SEW 16

using test::target;

// A fresh k1 target in a new SystemC kernel.
ConfiguredTarget& freshIsaK1() {
    return test::freshTarget("configs/targets/k1.yaml");
}

std::uint64_t runIsaOnCore0(std::vector<Op> ops, bool functional = false) {
    if (!target() || sc_core::sc_start_of_simulation_invoked())
        freshIsaK1();
    return test::runStream("core0", std::move(ops), functional).finishCycle();
}

// vd (f32, 2·LMUL registers) ← vs0 · vs1 + vs2 (f16, LMUL registers each).
Op widenFma(std::uint8_t dst, std::uint8_t acc, unsigned lmul) {
    Op op;
    op.kind = OpKind::WidenFma;
    op.dtype = DType::F16;
    op.vl = kF16PerRegister * lmul;
    op.dst = dst;
    op.src[0] = 16;
    op.src[1] = 24;
    op.src[2] = acc;
    return op;
}

Op segmentOp(OpKind kind, std::uint8_t reg, std::uint64_t addr, std::uint32_t vl, unsigned fields,
             DType dtype = DType::F32) {
    Op op;
    op.kind = kind;
    op.dtype = dtype;
    op.vl = vl;
    op.count = fields;
    (kind == OpKind::SegLoad ? op.dst : op.src[0]) = reg;
    op.space = target()->info().space("l1").id;
    op.addr = addr;
    return op;
}

TEST(K1VectorIsa, DependentWideningFmaChainTakesTheLatencyPerOp) {
    for (std::size_t i = 0; i < kWideLmuls.size(); ++i) {
        for (std::uint64_t n : {1u, 10u, 100u}) {
            std::vector<Op> ops(n, widenFma(0, 0, kWideLmuls[i]));
            EXPECT_EQ(runIsaOnCore0(ops), n * kWideLatency[i]) << "m" << kWideLmuls[i] << " n " << n;
        }
    }
}

TEST(K1VectorIsa, IndependentWideningFmasTakeTheReciprocalThroughputPerOp) {
    for (std::size_t i = 0; i < kWideLmuls.size(); ++i) {
        // Every op writes v8… and accumulates v0…: none reads another's result.
        const std::uint64_t n = 100;
        const std::uint64_t once = runIsaOnCore0(std::vector<Op>(n, widenFma(8, 0, kWideLmuls[i])));
        const std::uint64_t twice = runIsaOnCore0(std::vector<Op>(2 * n, widenFma(8, 0, kWideLmuls[i])));
        EXPECT_EQ(once, (n - 1) * kWideReciprocal[i] + kWideLatency[i]) << "m" << kWideLmuls[i];
        EXPECT_EQ(twice - once, n * kWideReciprocal[i]) << "m" << kWideLmuls[i];
    }
}

TEST(K1VectorIsa, ElementWidthSetsTheElementsOfARegisterGroup) {
    // vfmacc costs 1/2/4/8 cycles at m1…m8 whatever SEW (facts: e32 and e64m1; the e16 and e64
    // rows beyond m1 are assumptions): 16 f16, 8 f32 or 4 f64 elements per register.
    const std::array<std::pair<DType, std::uint32_t>, 3> widths{
        {{DType::F16, 16}, {DType::F32, 8}, {DType::F64, 4}}};
    for (const auto& [dtype, perRegister] : widths) {
        for (unsigned m : {1u, 2u, 4u, 8u}) {
            auto stream = [&](std::uint64_t n, std::uint32_t vl) {
                Op op;
                op.kind = OpKind::Fma;
                op.dtype = dtype;
                op.vl = vl;
                op.dst = 8;
                op.src[0] = 16;
                op.src[1] = 24;
                op.src[2] = 0;
                return runIsaOnCore0(std::vector<Op>(n, op));
            };
            EXPECT_EQ(stream(120, perRegister * m) - stream(100, perRegister * m), 20u * m)
                << dtypeName(dtype) << " m" << m;
            if (m < 8) {  // one element more spans one register more (the unit's linear rule)
                EXPECT_EQ(stream(120, perRegister * m + 1) - stream(100, perRegister * m + 1), 20u * (m + 1))
                    << dtypeName(dtype) << " m" << m;
            }
        }
    }
    // The compute peak follows: 2 FLOP × elements per register per cycle.
    const Engine& core = *freshIsaK1().findEngine("core0");
    EXPECT_EQ(core.peakWorkPerCycle(DType::F16), 32.0);
    EXPECT_EQ(core.peakWorkPerCycle(DType::F32), 16.0);
    EXPECT_EQ(core.peakWorkPerCycle(DType::F64), 8.0);
}

TEST(K1VectorIsa, WideningAtLmul8IsRefused) {
    // The widened destination would span 16 registers.
    EXPECT_THROW(runIsaOnCore0({widenFma(0, 0, 8)}), std::runtime_error);
}

TEST(K1VectorIsa, SegmentLoadsCostTheirFieldsTimesThePerFieldCost) {
    // vlseg2e32 at m1/m2/m4: 12.5/24.5/48.6 cycles (facts); 20 more loads of one hot region.
    const std::array<double, 3> measured{12.5, 24.5, 48.6};
    for (unsigned m : {1u, 2u, 4u}) {
        auto stream = [&](std::uint64_t n) {
            freshIsaK1();
            std::vector<Op> ops;
            for (std::uint64_t k = 0; k < n; ++k)
                ops.push_back(segmentOp(OpKind::SegLoad, 8, 0, 8 * m, 2));
            return runIsaOnCore0(ops);
        };
        const std::size_t i = m == 1 ? 0 : m == 2 ? 1 : 2;
        EXPECT_DOUBLE_EQ(static_cast<double>(stream(120) - stream(100)), 20 * measured[i]) << "m" << m;
    }
    // nf fields cost nf × the per-field cost (an assumption beyond nf = 2): 4 fields at m1 = 25.
    auto four = [&](std::uint64_t n) {
        freshIsaK1();
        return runIsaOnCore0(std::vector<Op>(n, segmentOp(OpKind::SegLoad, 8, 0, 8, 4)));
    };
    EXPECT_EQ(four(120) - four(100), 20u * 25u);
}

TEST(K1VectorIsa, SegmentLoadsTouchTheLinesTheySpan) {
    // K segment loads of nf f32 fields × vl segments, back to back from address `first`: each
    // looks up every 64 B line its vl·nf·4 bytes span; the region fits the L1, so the misses are
    // its distinct lines and every other look-up hits.
    struct Case {
        std::uint32_t vl;
        unsigned fields;
        std::uint64_t first, loads;
    };
    for (const Case c : {Case{8, 3, 0, 40}, Case{8, 2, 0, 64}, Case{16, 3, 20, 30}, Case{5, 7, 4, 50}}) {
        // Demand misses in closed form: the L1's prefetcher off (it would bring lines ahead).
        ConfiguredTarget& t =
            test::freshTarget("configs/targets/k1.yaml", {"cluster.l1.prefetcher.kind=none"});
        const std::uint64_t bytes = std::uint64_t{c.vl} * c.fields * 4;
        std::vector<Op> ops;
        std::uint64_t lookups = 0;
        for (std::uint64_t k = 0; k < c.loads; ++k) {
            const std::uint64_t addr = c.first + k * bytes;
            ops.push_back(segmentOp(OpKind::SegLoad, 0, addr, c.vl, c.fields));
            lookups += (addr + bytes - 1) / 64 - addr / 64 + 1;
        }
        const std::uint64_t distinct = (c.first + c.loads * bytes - 1) / 64 - c.first / 64 + 1;
        runIsaOnCore0(ops);
        const auto* cache = dynamic_cast<const Cache*>(t.findMemory("l1_0"));
        ASSERT_NE(cache, nullptr);
        EXPECT_EQ(cache->misses(), distinct) << c.vl << "×" << c.fields;
        EXPECT_EQ(cache->hits(), lookups - distinct) << c.vl << "×" << c.fields;
    }
}

TEST(K1VectorIsa, SegmentFieldsTimesLmulAboveEightAreRefused) {
    freshIsaK1();
    // 3 fields × m4 = 12 registers; 9 fields; no field.
    EXPECT_THROW(runIsaOnCore0({segmentOp(OpKind::SegLoad, 0, 0, 32, 3)}), std::runtime_error);
    freshIsaK1();
    EXPECT_THROW(runIsaOnCore0({segmentOp(OpKind::SegLoad, 0, 0, 8, 9)}), std::runtime_error);
    freshIsaK1();
    EXPECT_THROW(runIsaOnCore0({segmentOp(OpKind::SegStore, 0, 0, 8, 0)}), std::runtime_error);
}

TEST(K1VectorIsa, SlideUpAndSlideDownCostApart) {
    // vslideup.vx 2/4/8/16, vslidedown.vx 3/5/9/17 cycles at m1…m8 (facts).
    const std::array<std::uint64_t, 4> up{2, 4, 8, 16}, down{3, 5, 9, 17};
    for (std::size_t i = 0; i < 4; ++i) {
        const unsigned m = 1u << i;
        auto stream = [&](std::uint64_t n, double shift) {
            Op slide;
            slide.kind = OpKind::Slide;
            slide.vl = 8 * m;
            slide.dst = 8;
            slide.src[0] = 16;
            slide.imm = shift;
            return runIsaOnCore0(std::vector<Op>(n, slide));
        };
        EXPECT_EQ(stream(120, -1) - stream(100, -1), 20 * up[i]) << "m" << m;
        EXPECT_EQ(stream(120, 1) - stream(100, 1), 20 * down[i]) << "m" << m;
    }
}

TEST(K1VectorIsa, SegmentsAndWideningFmasComputeWhatPlainCxxComputes) {
    // 32 segments of 3 f16 fields (m2: the fields land in v8, v10, v12), y ← f0 · f1 + f2 · f2
    // accumulated in f32 by two vfwmacc, stored as f32; the fields stored back by vsseg3.
    ConfiguredTarget& t = freshIsaK1();
    const std::uint8_t l1 = t.info().space("l1").id;
    constexpr std::uint32_t kVl = 32;
    constexpr unsigned kFields = 3;
    constexpr std::uint64_t kIn = 0, kOut = 4096, kBack = 8192;
    std::vector<std::uint16_t> in(kVl * kFields);
    for (std::size_t k = 0; k < in.size(); ++k)  // values with 11 significant bits: products round in f32
        in[k] = halfBits((k % 2 ? -1.0 : 1.0) * (1.0 + static_cast<double>((k * 389) % 1024) / 1024.0) *
                         std::ldexp(1.0, static_cast<int>(k % 7) - 3));
    FunctionalMemory& memory = t.functionalMemory();
    memory.write(t.info().space("l1_0").id, kIn, in.data(), in.size() * 2);

    Op wide1 = widenFma(16, 16, 2);  // v16..v19 ← v8 · v10 + v16 (v16 starts at zero)
    wide1.src[0] = 8;
    wide1.src[1] = 10;
    Op wide2 = widenFma(16, 16, 2);  // v16..v19 ← v12 · v12 + v16
    wide2.src[0] = 12;
    wide2.src[1] = 12;
    Op store;
    store.kind = OpKind::VStore;
    store.dtype = DType::F32;
    store.vl = kVl;
    store.src[0] = 16;
    store.space = l1;
    store.addr = kOut;
    runIsaOnCore0({segmentOp(OpKind::SegLoad, 8, kIn, kVl, kFields, DType::F16), wide1, wide2, store,
                   segmentOp(OpKind::SegStore, 8, kBack, kVl, kFields, DType::F16)},
                  true);

    std::vector<float> out(kVl);
    memory.read(t.info().space("l1_0").id, kOut, out.data(), out.size() * 4);
    std::vector<std::uint16_t> back(in.size());
    memory.read(t.info().space("l1_0").id, kBack, back.data(), back.size() * 2);
    for (std::uint32_t i = 0; i < kVl; ++i) {
        auto field = [&](unsigned f) { return static_cast<float>(halfValue(in[i * kFields + f])); };
        // f16 × f16 is exact in f32; each vfwmacc rounds its sum once.
        float y = field(0) * field(1) + 0.0f;
        y = field(2) * field(2) + y;
        EXPECT_EQ(out[i], y) << i;
    }
    EXPECT_EQ(back, in);
}

}  // namespace
}  // namespace tessim
