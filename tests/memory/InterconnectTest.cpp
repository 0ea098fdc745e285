// Interconnect: a bus limits what several initiators get together; a crossbar only per target;
// routing by memory space; bytes in = bytes out.
#include <gtest/gtest.h>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Interconnect.h"
#include "models/memory/MemoryProbe.h"
#include "models/memory/SimpleMemory.h"

namespace tessim {
namespace {

SimpleMemoryConfig fastMemory() {
    SimpleMemoryConfig c;
    c.level = "sram";
    c.size = 1 << 24;
    c.latency = 10'000;
    c.bandwidth = 1e12;  // never the limit
    return c;
}

InterconnectConfig busConfig(bool crossbar, bool split = false) {
    InterconnectConfig c;
    c.crossbar = crossbar;
    c.splitChannels = split;
    c.width = 16;
    c.clock = ClockDomain::fromHz(1e9);
    c.latencyCycles = 2;
    return c;
}

struct Two {
    SimpleMemory a, b;
    Interconnect bus;
    MemoryProbe p0, p1;
    explicit Two(bool crossbar, bool split = false)
        : a("a", fastMemory()), b("b", fastMemory()), bus("bus", busConfig(crossbar, split)),
          p0(
              "p0", [] {}, ProbeOptions{16, 256, 0}),
          p1(
              "p1", [] {}, ProbeOptions{16, 256, 0}) {
        bus.attach(a, 0);
        bus.attach(b, 1);
        p0.socket.bind(bus.socket);
        p1.socket.bind(bus.socket);
    }
    // Initiator 0 streams to space 0, initiator 1 to `space1`; returns when both are done.
    // With `writes`, initiator 1 writes where initiator 0 reads.
    Tick run(std::uint8_t space1, std::uint64_t count, bool writes = false) {
        AccessExtension s0, s1;
        s0.space = 0;
        s1.space = space1;
        Tick end = 0;
        for (std::uint64_t i = 0; i < count; ++i) {
            end = std::max(end, p0.request(false, i * 256, 256, 0, &s0));
            end = std::max(end, p1.request(writes, i * 256, 256, 0, &s1));
        }
        return end;
    }
};

TEST(Interconnect, BusSharesItsBandwidthBetweenInitiators) {
    test::freshKernel();
    Two t(false);
    test::elaborate();
    const std::uint64_t n = 4096;
    Tick end = t.run(1, n);
    // 2 × 4096 × 256 B over 16 B/cycle at 1 GHz = 131072 cycles (+ latency of the last).
    double expected = 2.0 * n * 256 / 16 * 1000;
    EXPECT_NEAR(static_cast<double>(end) / expected, 1.0, 0.01);
    EXPECT_EQ(t.bus.bytesIn(), 2 * n * 256);
    EXPECT_EQ(t.a.bytesRead() + t.b.bytesRead(), t.bus.bytesIn());
}

TEST(Interconnect, CrossbarContendsOnlyPerTarget) {
    test::freshKernel();
    Two t(true);
    test::elaborate();
    const std::uint64_t n = 4096;
    Tick apart = t.run(1, n);
    t.bus.resetTiming();
    t.a.resetTiming();
    t.b.resetTiming();
    Tick same = t.run(0, n);
    double oneStream = static_cast<double>(n) * 256 / 16 * 1000;
    EXPECT_NEAR(static_cast<double>(apart) / oneStream, 1.0, 0.01);
    EXPECT_NEAR(static_cast<double>(same) / (2 * oneStream), 1.0, 0.01);
}

TEST(Interconnect, SplitChannelsCarryAReadAndAWriteStreamSideBySide) {
    const std::uint64_t n = 4096;
    const double oneStream = static_cast<double>(n) * 256 / 16 * 1000;
    for (bool split : {false, true}) {
        test::freshKernel();
        Two t(false, split);
        test::elaborate();
        // A read stream and a write stream: one data path takes both in turn, split channels
        // carry them at once; two read streams share the read channel either way.
        const Tick mixed = t.run(0, n, true);
        t.bus.resetTiming();
        t.a.resetTiming();
        const Tick reads = t.run(0, n, false);
        EXPECT_NEAR(static_cast<double>(mixed) / ((split ? 1 : 2) * oneStream), 1.0, 0.01) << split;
        EXPECT_NEAR(static_cast<double>(reads) / (2 * oneStream), 1.0, 0.01) << split;
        EXPECT_EQ(t.bus.peakBandwidth(), (split ? 2 : 1) * 16e9) << split;
    }
}

TEST(Interconnect, UnknownSpaceIsAnError) {
    test::freshKernel();
    Two t(false);
    test::elaborate();
    AccessExtension s;
    s.space = 9;
    EXPECT_THROW(t.p0.request(false, 0, 64, 0, &s), std::runtime_error);
}

}  // namespace
}  // namespace tessim
