// DMA engine: 2-D transfers with halo move exactly the right bytes in the time the tightest of
// the DDR, bus and SRAM bounds allows; channels share bandwidth; multicast; conservation.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "memory/MemoryTestUtil.h"
#include "models/dma/StridedDma.h"
#include "models/memory/Ddr.h"
#include "models/memory/Interconnect.h"
#include "models/memory/Scratchpad.h"

namespace tessim {
namespace {

constexpr std::uint8_t kDdr = 0, kSram = 1, kSram2 = 2;

// InterconnectConfig::fromYaml takes the impl; adapt it to configFrom.
struct BusYaml {
    InterconnectConfig c;
    static BusYaml fromYaml(config::Reader& r, const std::string&) {
        return BusYaml{InterconnectConfig::fromYaml(r, "bus")};
    }
};

// DDR (K1 LPDDR4X) behind a bus, two scratchpads directly on the DMA.
struct DmaBench {
    std::unique_ptr<Ddr> ddr;
    std::unique_ptr<Interconnect> bus;
    std::unique_ptr<Scratchpad> sram, sram2;
    std::unique_ptr<StridedDma> dma;

    DmaBench(const std::string& prefix, const std::string& busWidth, const std::string& dmaExtra = "") {
        ddr = std::make_unique<Ddr>((prefix + "ddr").c_str(),
                                    test::configFrom<DdrConfig>("preset: lpddr4x-2666-x32\n"));
        bus = std::make_unique<Interconnect>(
            (prefix + "bus").c_str(),
            test::configFrom<BusYaml>("width: " + busWidth + "\nclock: 1 GHz\nlatency: 2\n").c);
        auto spm = test::configFrom<ScratchpadConfig>(
            "size: 4 MiB\nbanks: 16\nbank_width: 8 B\nclock: 1 GHz\nlatency: 2\n");
        sram = std::make_unique<Scratchpad>((prefix + "sram").c_str(), spm);
        sram2 = std::make_unique<Scratchpad>((prefix + "sram2").c_str(), spm);
        dma = std::make_unique<StridedDma>(
            (prefix + "dma").c_str(),
            test::configFrom<StridedDmaConfig>("channels: 2\nburst: 256 B\noutstanding: 16\nclock: 1 GHz\n" +
                                               dmaExtra));
        bus->attach(*ddr, kDdr);
        dma->memory.bind(bus->socket);
        dma->mapSpace(kDdr, 0);
        dma->memory.bind(sram->socket);
        dma->mapSpace(kSram, 1);
        dma->memory.bind(sram2->socket);
        dma->mapSpace(kSram2, 2);
    }
    // Data-path bounds, B/s: DDR sustained (peak less refresh), bus, SRAM.
    double tightestBandwidth() const {
        double ddrBw = ddr->config().peakBandwidth() * (1.0 - ddr->config().refreshOverhead());
        return std::min({ddrBw, bus->peakBandwidth(), sram->peakBandwidth()});
    }
};

DmaArgs tile(std::uint32_t firstRow, std::uint32_t rows, std::uint64_t dst, std::uint8_t channel = 0) {
    DmaArgs a{};
    a.srcSpace = kDdr;
    a.dstSpace = kSram;
    a.channel = channel;
    a.rowBytes = 1024;
    a.rows = rows;
    a.planes = 1;
    a.src = std::uint64_t{firstRow} * 4096 + 512;  // a 1024 B window of a 4096 B wide image
    a.srcRowStride = 4096;
    a.dst = dst;
    a.dstRowStride = 1024;
    return a;
}

std::uint8_t pattern(std::uint64_t addr) {
    return static_cast<std::uint8_t>(addr * 2654435761ULL >> 13);
}

TEST(Dma, TwoDimensionalTilesWithHaloMoveTheRightBytesAtTheBoundRate) {
    for (const char* busWidth : {"16 B", "8 B"}) {  // DDR-bound, then bus-bound
        test::freshKernel();
        DmaBench b("", busWidth);
        b.dma->setFunctional(true);
        test::elaborate();
        const std::uint32_t tiles = 4, tileRows = 256, halo = 8;
        std::vector<std::uint8_t> image(std::uint64_t{tiles} * tileRows * 4096 + halo * 4096);
        for (std::uint64_t i = 0; i < image.size(); ++i)
            image[i] = pattern(i);
        b.ddr->debugWrite(0, image.data(), image.size());
        // Tile k reads source rows [k·256, k·256 + 264): 8 rows overlap the next tile.
        std::uint64_t bytes = 0;
        for (std::uint32_t k = 0; k < tiles; ++k) {
            DmaArgs a = tile(k * tileRows, tileRows + halo, std::uint64_t{k} * (tileRows + halo) * 1024);
            b.dma->start(a, 7, 0);
            bytes += a.totalBytes();
        }
        Tick done = b.dma->completion(7, 0);
        for (std::uint32_t k = 0; k < tiles; ++k) {
            for (std::uint32_t r = 0; r < tileRows + halo; ++r) {
                std::vector<std::uint8_t> row(1024);
                b.sram->debugRead((std::uint64_t{k} * (tileRows + halo) + r) * 1024, row.data(), row.size());
                std::uint64_t src = (std::uint64_t{k} * tileRows + r) * 4096 + 512;
                for (std::uint32_t x = 0; x < 1024; ++x)
                    ASSERT_EQ(row[x], pattern(src + x)) << "tile " << k << " row " << r << " byte " << x;
            }
        }
        double bound = static_cast<double>(bytes) / b.tightestBandwidth();
        EXPECT_NEAR(ticksToSeconds(done) / bound, 1.0, 0.05) << "bus " << busWidth;
        ::testing::Test::RecordProperty(std::string("time_vs_bound_bus_") + busWidth,
                                        std::to_string(ticksToSeconds(done) / bound));
        EXPECT_GE(ticksToSeconds(done),
                  static_cast<double>(bytes) / std::min(b.bus->peakBandwidth(), b.ddr->peakBandwidth()));
        // Conservation: DMA reads = DDR reads = bus traffic; DMA writes = SRAM writes.
        EXPECT_EQ(b.dma->bytesRead(), bytes);
        EXPECT_EQ(b.ddr->bytesRead(), bytes);
        EXPECT_EQ(b.bus->bytesIn(), bytes);
        EXPECT_EQ(b.sram->bytesWritten(), bytes);
        EXPECT_EQ(b.dma->lastCompletion(), done);
    }
}

// Engines sharing a DMA: a channel serves descriptors in the order they are ready, not the
// order the engines' quanta queued them, and a tag is its engine's own.
TEST(Dma, AChannelServesDescriptorsWhenReadyAndEachEngineWaitsForItsOwnTag) {
    test::freshKernel();
    DmaBench b("", "16 B");
    test::elaborate();
    const Tick later = secondsToTicks(50e-6);
    // Engine 2 ran its quantum first and queued a transfer that starts at 50 µs.
    b.dma->start(tile(0, 64, 0), 7, later, OpOrigin{2, 0, later});
    b.dma->start(tile(1028, 64, 1 << 20), 7, 0, OpOrigin{1, 0, 0});
    const Tick first = b.dma->completion(7, 0, 1), second = b.dma->completion(7, 0, 2);
    // 64 KiB at the DDR's rate takes a few µs: engine 1's transfer is done long before 50 µs.
    EXPECT_LT(first, later / 2);
    EXPECT_GT(second, later);
}

TEST(Dma, TwoChannelsShareTheBandwidth) {
    test::freshKernel();
    DmaBench one("one_", "16 B"), two("two_", "16 B");
    test::elaborate();
    one.dma->start(tile(0, 512, 0, 0), 1, 0);
    Tick alone = one.dma->completion(1, 0);
    two.dma->start(tile(0, 512, 0, 0), 1, 0);
    // Source rows 4 image rows (4 banks) apart, so the two streams do not fight over row buffers.
    two.dma->start(tile(1028, 512, 1 << 20, 1), 2, 0);
    Tick c1 = two.dma->completion(1, 0), c2 = two.dma->completion(2, 0);
    // Together they take twice as long, and neither finishes early: the bursts interleave.
    EXPECT_NEAR(static_cast<double>(std::max(c1, c2)) / static_cast<double>(2 * alone), 1.0, 0.05);
    EXPECT_GT(static_cast<double>(std::min(c1, c2)), 0.9 * static_cast<double>(std::max(c1, c2)));
    ::testing::Test::RecordProperty("two_channels_vs_twice_one",
                                    std::to_string(static_cast<double>(std::max(c1, c2)) / (2.0 * alone)));
    ::testing::Test::RecordProperty("first_vs_last_channel",
                                    std::to_string(static_cast<double>(std::min(c1, c2)) / std::max(c1, c2)));
    EXPECT_EQ(two.dma->channelCompletion(0), c1);
    EXPECT_EQ(two.dma->channelCompletion(1), c2);
}

TEST(Dma, MulticastReadsOnceAndWritesEveryDestination) {
    test::freshKernel();
    DmaBench b("", "16 B");
    b.dma->setFunctional(true);
    test::elaborate();
    std::vector<std::uint8_t> src(64 * 1024);
    for (std::size_t i = 0; i < src.size(); ++i)
        src[i] = pattern(i);
    b.ddr->debugWrite(0, src.data(), src.size());
    DmaArgs a{};
    a.srcSpace = kDdr;
    a.dstSpace = kSram;
    a.rowBytes = 64 * 1024;
    a.rows = a.planes = 1;
    // A multicast group: the same offset in two memories.
    const std::vector<std::vector<std::uint8_t>> groups{{}, {kSram, static_cast<std::uint8_t>(kSram + 1)}};
    b.dma->setMulticastGroups(&groups);
    a.group = 1;
    b.dma->start(a, 3, 0);
    // Also into two windows of one memory.
    DmaArgs w = a;
    w.group = 0;
    w.multicastCount = 1;
    w.multicastStride = 1 << 20;
    b.dma->start(w, 3, 0);
    b.dma->completion(3, 0);
    std::vector<std::uint8_t> got(src.size());
    for (auto [mem, addr] :
         {std::pair{b.sram.get(), 0ULL}, {b.sram2.get(), 0ULL}, {b.sram.get(), 1ULL << 20}}) {
        mem->debugRead(addr, got.data(), got.size());
        EXPECT_EQ(got, src);
    }
    EXPECT_EQ(b.ddr->bytesRead(), 2 * src.size());
    EXPECT_EQ(b.dma->bytesWritten(), 4 * src.size());
    EXPECT_EQ(b.sram->bytesWritten() + b.sram2->bytesWritten(), 4 * src.size());
}

TEST(Dma, ThreeDimensionalTransferAndLastCompletionDrainsTheQueues) {
    test::freshKernel();
    DmaBench b("", "16 B", "setup: 100\nqueue_depth: 2\n");
    b.dma->setFunctional(true);
    test::elaborate();
    std::vector<std::uint8_t> src(1 << 16);
    for (std::size_t i = 0; i < src.size(); ++i)
        src[i] = pattern(i);
    b.ddr->debugWrite(0, src.data(), src.size());
    DmaArgs a{};
    a.srcSpace = kDdr;
    a.dstSpace = kSram;
    a.rowBytes = 40;
    a.rows = 3;
    a.planes = 4;
    a.src = 100;
    a.srcRowStride = 256;
    a.srcPlaneStride = 4096;
    a.dstRowStride = 40;
    a.dstPlaneStride = 120;
    for (int i = 0; i < 5; ++i)
        b.dma->start(a, 9, 0);  // more than the queue holds
    Tick last = b.dma->lastCompletion();
    EXPECT_GT(last, Tick{5 * 100 * 1000});  // five setups in sequence at least
    std::vector<std::uint8_t> got(480);
    b.sram->debugRead(0, got.data(), got.size());
    for (std::uint32_t p = 0; p < 4; ++p)
        for (std::uint32_t r = 0; r < 3; ++r)
            for (std::uint32_t x = 0; x < 40; ++x)
                ASSERT_EQ(got[p * 120 + r * 40 + x], src[100 + p * 4096 + r * 256 + x]);
    EXPECT_EQ(b.dma->bytesRead(), 5u * 480);
    EXPECT_EQ(b.dma->completion(9, 0), last);
    EXPECT_EQ(b.dma->completion(12345, 777), 777u);  // unknown tag: immediately
}

TEST(Dma, OutOfRangeTransferIsAScheduleError) {
    test::freshKernel();
    DmaBench b("", "16 B");
    test::elaborate();
    DmaArgs a = tile(0, 4, 4 * 1024 * 1024 - 1024);  // the last rows fall off the SRAM
    b.dma->start(a, 1, 0);
    try {
        b.dma->completion(1, 0);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("offset 0x400000"), std::string::npos) << e.what();
    }
}

// The drain process issues queued bursts as simulated time passes, even when nobody waits.
struct Starter : sc_core::sc_module {
    SC_HAS_PROCESS(Starter);
    StridedDma& dma;
    Tick observed = 0;
    Starter(sc_core::sc_module_name n, StridedDma& d) : sc_core::sc_module(n), dma(d) { SC_THREAD(run); }
    void run() {
        dma.start(tile(0, 64, 0), 4, 0);
        sc_core::wait(sc_core::sc_time(50, sc_core::SC_US));
        observed = dma.bytesRead();
    }
};

TEST(Dma, DrainProcessIssuesBurstsWithoutAWait) {
    test::freshKernel();
    DmaBench b("", "16 B");
    Starter s("starter", *b.dma);
    sc_core::sc_start();
    EXPECT_EQ(s.observed, 64u * 1024);
}

}  // namespace
}  // namespace tessim
