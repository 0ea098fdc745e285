// Eight cores stream axpy slices through private L1s into one shared L2 and one DDR: the
// result must not depend on the engines' temporal-decoupling quantum (the L1s hold each miss
// until its time, miss_lookahead 0, so the shared levels see misses in time order), bytes are
// conserved from level to level, and every core's share of the traffic and queueing is reported.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Cache.h"
#include "models/memory/Ddr.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/ir/OpStream.h"

namespace tessim {
namespace {

const std::string kEightCores = std::string(TESSIM_SOURCE_DIR) + "/tests/memory/eight-cores.yaml";
constexpr unsigned kCores = 8;
constexpr std::uint64_t kElementsPerCore = 64 * 1024;  // f32: 256 KiB of x and of y per core
constexpr std::uint64_t kYBase = 1ULL << 28;
constexpr unsigned kVl = 8, kUnroll = 8;  // 32 B registers, loads of 8 vectors in flight
constexpr std::uint8_t kAlpha = 16;

Op vectorOp(OpKind kind, std::uint8_t dst) {
    Op op;
    op.kind = kind;
    op.vl = kVl;
    op.dst = dst;
    return op;
}

// y ← α·x + y on one core's slice, unrolled as StreamingVectorKernel does.
std::vector<Op> axpySlice(std::uint8_t space, unsigned core) {
    std::vector<Op> ops;
    Op alpha = vectorOp(OpKind::Broadcast, kAlpha);
    alpha.imm = 2.5;
    ops.push_back(alpha);
    const std::uint64_t base = core * kElementsPerCore * 4;
    for (std::uint64_t e = 0; e < kElementsPerCore; e += kVl * kUnroll) {
        for (unsigned u = 0; u < kUnroll; ++u) {
            std::uint64_t offset = base + (e + u * kVl) * 4;
            Op x = vectorOp(OpKind::VLoad, static_cast<std::uint8_t>(u));
            x.space = space;
            x.addr = offset;
            Op y = vectorOp(OpKind::VLoad, static_cast<std::uint8_t>(8 + u));
            y.space = space;
            y.addr = kYBase + offset;
            ops.push_back(x);
            ops.push_back(y);
        }
        for (unsigned u = 0; u < kUnroll; ++u) {
            Op fma = vectorOp(OpKind::Fma, static_cast<std::uint8_t>(8 + u));
            fma.src[0] = static_cast<std::uint8_t>(u);
            fma.src[1] = kAlpha;
            fma.src[2] = static_cast<std::uint8_t>(8 + u);
            ops.push_back(fma);
        }
        for (unsigned u = 0; u < kUnroll; ++u) {
            Op st = vectorOp(OpKind::VStore, kNoReg);
            st.src[0] = static_cast<std::uint8_t>(8 + u);
            st.space = space;
            st.addr = kYBase + base + (e + u * kVl) * 4;
            ops.push_back(st);
        }
    }
    return ops;
}

struct RunFigures {
    std::uint64_t endCycle = 0;
    std::uint64_t memoryStall[kCores] = {};
    std::uint64_t l1Fill = 0, l1WriteBack = 0, l2Read = 0, l2Written = 0;
    std::uint64_t l2Fill = 0, l2WriteBack = 0, ddrRead = 0, ddrWritten = 0;
    Memory::InitiatorTraffic l2ByCore[kCores], ddrByCore[kCores];
    std::uint64_t l1FillByCore[kCores] = {};
};

// `cores` of the eight run their slice; the others stay idle.
RunFigures runEightCores(const std::string& quantum, unsigned cores = kCores) {
    test::freshKernel();
    config::Node root = config::loadYamlFile(kEightCores);
    for (unsigned c = 0; c < kCores; ++c)
        config::applyOverride(root, "core" + std::to_string(c) + ".quantum", quantum,
                              config::Location{"<test>", 1, 1});
    ConfiguredTarget target(root);
    for (unsigned c = 0; c < cores; ++c) {
        std::string l1 = "l1_" + std::to_string(c);
        target.findEngine("core" + std::to_string(c))
            ->setStream(std::make_unique<VectorOpStream>(axpySlice(target.info().space(l1).id, c)));
    }
    sc_core::sc_start();
    RunFigures f;
    auto* l2 = dynamic_cast<Cache*>(target.findMemory("l2"));
    auto* ddr = dynamic_cast<Ddr*>(target.findMemory("ddr"));
    for (unsigned c = 0; c < kCores; ++c) {
        Engine* e = target.findEngine("core" + std::to_string(c));
        f.endCycle = std::max(f.endCycle, e->finishCycle());
        f.memoryStall[c] = e->stalls(e->finishCycle())[StallReason::Memory];
        auto* l1 = dynamic_cast<Cache*>(target.findMemory("l1_" + std::to_string(c)));
        f.l1Fill += l1->bytesFromNext();
        f.l1FillByCore[c] = l1->bytesFromNext();
        f.l1WriteBack += l1->bytesToNext();
        std::uint16_t id = 0;
        for (std::uint16_t i = 0; i < target.initiators().size(); ++i)
            if (target.initiators().name(i) == "core" + std::to_string(c))
                id = i;
        f.l2ByCore[c] = l2->initiatorTraffic(id);
        f.ddrByCore[c] = ddr->initiatorTraffic(id);
    }
    f.l2Read = l2->bytesRead();
    f.l2Written = l2->bytesWritten();
    f.l2Fill = l2->bytesFromNext();
    f.l2WriteBack = l2->bytesToNext();
    f.ddrRead = ddr->bytesRead();
    f.ddrWritten = ddr->bytesWritten();
    return f;
}

double relativeDelta(double a, double b) {
    return std::abs(a - b) / std::max(std::abs(b), 1.0);
}

TEST(SharedL2, EightCoreAxpyDoesNotDependOnTheQuantum) {
    RunFigures coarse = runEightCores("1 us");
    RunFigures fine = runEightCores("10 ns");
    EXPECT_LT(relativeDelta(coarse.endCycle, fine.endCycle), 0.01)
        << coarse.endCycle << " vs " << fine.endCycle;
    EXPECT_LT(relativeDelta(coarse.ddrRead, fine.ddrRead), 0.01);
    EXPECT_LT(relativeDelta(coarse.ddrWritten, fine.ddrWritten), 0.01);
    EXPECT_LT(relativeDelta(coarse.l2Read, fine.l2Read), 0.01);
    for (unsigned c = 0; c < kCores; ++c)
        EXPECT_LT(relativeDelta(coarse.memoryStall[c], fine.memoryStall[c]), 0.01)
            << "core" << c << ": " << coarse.memoryStall[c] << " vs " << fine.memoryStall[c];
}

TEST(SharedL2, BytesAreConservedFromLevelToLevelAndPerCore) {
    RunFigures f = runEightCores("1 us");
    // Every L1 misses each line of its slice of x and y once: 512 KiB per core.
    EXPECT_EQ(f.l1Fill, kCores * 2 * kElementsPerCore * 4);
    EXPECT_EQ(f.l2Read, f.l1Fill);
    EXPECT_EQ(f.l2Written, f.l1WriteBack);
    EXPECT_EQ(f.ddrRead, f.l2Fill);
    EXPECT_EQ(f.ddrWritten, f.l2WriteBack);
    // The working set is 8× the L2: it holds nothing twice, so the DDR reads every line once
    // (write-backs of whole lines that miss in the L2 allocate there without a fill).
    EXPECT_EQ(f.ddrRead, f.l1Fill);
    std::uint64_t ddrReadByCores = 0;
    for (unsigned c = 0; c < kCores; ++c) {
        EXPECT_EQ(f.l2ByCore[c].bytesRead, f.l1FillByCore[c]) << "core" << c;
        ddrReadByCores += f.ddrByCore[c].bytesRead;
    }
    EXPECT_EQ(ddrReadByCores, f.ddrRead);
}

TEST(SharedL2, ContentionShowsPerCore) {
    RunFigures f = runEightCores("1 us");
    for (unsigned c = 0; c < kCores; ++c) {
        EXPECT_GT(f.ddrByCore[c].waitTicks, 0u) << "core" << c;
        EXPECT_GT(f.memoryStall[c], f.endCycle / 2) << "core" << c << " is memory-bound";
    }
    // Alone, core 0 moves the same bytes with a fraction of the stalls and no DDR queueing
    // behind other cores.
    RunFigures alone = runEightCores("1 us", 1);
    EXPECT_LT(alone.memoryStall[0] * 3, f.memoryStall[0]);
    EXPECT_LT(alone.ddrByCore[0].waitTicks * 3, f.ddrByCore[0].waitTicks);
    EXPECT_EQ(alone.l1FillByCore[0], f.l1FillByCore[0]);
    // Eight cores share 10.66 GB/s: the run takes at least the DDR bytes at the peak rate.
    double seconds = static_cast<double>(f.endCycle) / 1.6e9;
    EXPECT_GT(seconds, static_cast<double>(f.ddrRead + f.ddrWritten) / 10.667e9);
}

}  // namespace
}  // namespace tessim
