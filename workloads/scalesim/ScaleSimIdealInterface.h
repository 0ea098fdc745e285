// SCALE-Sim's `InterfaceBandwidth: CALC`: an ideal interface between DRAM and the three SRAM
// buffers. The array never waits; what the run reports is the traffic such an interface carries
// and when, as SCALE-Sim v2 estimates it (its BANDWIDTH_REPORT and DETAILED_ACCESS_REPORT):
//
// Read buffers (ifmap, filter): the buffer's words are tracked in 100 sets of size/100 words,
// half of them the active buffer, half the prefetch buffer. A word the array asks for that is not
// in a set of the current window of active sets is new: it joins the set being filled. When the
// sets after the window are full, the window moves on by the prefetch buffer's sets and the sets
// just passed are fetched from DRAM over the interval since the previous move (the first batch at
// 10 words per cycle before the layer starts, ending one cycle before the first demand minus the
// port's 1-cycle latency). DRAM reads = new words; the window = first to last fetch cycle.
//
// Write buffer (ofmap): outputs fill lines of `cols` words; once more than the active half is
// held, the lines written so far (those not yet drained) go to DRAM one line per cycle, up to
// the drain half's worth; at the end everything left drains from the last cycle on. A drained
// batch counts its lines × cols words less the unused words of its last line.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/scalesim/ScaleSimDemand.h"

namespace tessim {

// First and last cycle of an access stream and its word count (cycle 0: the layer's first fold).
struct ScaleSimWindow {
    std::int64_t start = 0, stop = 0;
    std::uint64_t count = 0;
};

// One read buffer of the ideal interface (see the file comment).
class ScaleSimReadEstimate {
public:
    ScaleSimReadEstimate(std::uint64_t bufferWords, std::uint64_t addressSpace);
    void read(std::uint64_t cycle, std::uint64_t address);
    ScaleSimWindow finish();

private:
    void moveWindow(std::uint64_t cycle);
    void fetch(std::uint64_t firstSet, std::uint64_t lastSet);

    static constexpr unsigned kSets = 100, kActiveSets = 50, kPrefetchSets = kSets - kActiveSets;
    static constexpr std::uint64_t kFirstFetchWordsPerCycle = 10, kPortLatency = 1;
    std::uint64_t setWords_;
    std::vector<std::uint32_t> setOf_;     // address → 1 + the last set it joined (0: none)
    std::vector<std::uint64_t> setCount_;  // words per completed set
    std::uint64_t current_ = 0, currentWords_ = 0;
    std::uint64_t windowStart_ = 0, windowEnd_ = kActiveSets - 1, nextFetch_ = 0;
    std::int64_t fetchStart_ = -2, fetchEnd_ = -1, firstDemand_ = 0;
    bool demandSeen_ = false, firstBatchDone_ = false, fetched_ = false;
    ScaleSimWindow out_;
};

// The write buffer of the ideal interface (see the file comment).
class ScaleSimWriteEstimate {
public:
    ScaleSimWriteEstimate(std::uint64_t bufferWords, unsigned lineWords);
    void write(std::uint64_t cycle);
    ScaleSimWindow finish(std::uint64_t lastCycle);

private:
    void closeLine();
    std::int64_t drain(std::int64_t start);

    std::uint64_t total_, drainWords_, lineWords_;
    std::int64_t free_;
    std::vector<std::uint64_t> lineFill_;  // words per closed line
    std::uint64_t open_ = 0;               // words in the open line
    std::size_t drained_ = 0;              // lines drained so far
    std::int64_t drainEnd_ = 0;
    bool drainedAny_ = false;
    ScaleSimWindow out_;
};

// The layer's SRAM and DRAM access windows with an ideal interface. `*BufferBytes`: the SRAM
// buffers' sizes (1 B words).
struct ScaleSimIdealAccess {
    ScaleSimWindow sramIfmap, sramFilter, sramOfmap;
    ScaleSimWindow dramIfmap, dramFilter, dramOfmap;
};
ScaleSimIdealAccess scaleSimIdealAccess(const ScaleSimLayer& layer, const ScaleSimMapping& mapping,
                                        unsigned rows, unsigned cols, const std::string& dataflow,
                                        std::uint64_t ifmapBufferBytes, std::uint64_t filterBufferBytes,
                                        std::uint64_t ofmapBufferBytes);

}  // namespace tessim
