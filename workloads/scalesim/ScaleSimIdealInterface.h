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
    // `addressSpace`: addresses `read` takes (0 when only the run-length calls below are used).
    ScaleSimReadEstimate(std::uint64_t bufferWords, std::uint64_t addressSpace);
    void read(std::uint64_t cycle, std::uint64_t address);
    ScaleSimWindow finish();

    // Run-length use, for callers that know which words the current window holds: a word asked
    // for at `cycle` (held or new); the window's identity (a word is held when it last joined
    // while the window had this identity); new words before the window moves; `words` new words,
    // at most wordsToMove(), the last of them asked for at `lastCycle`.
    void demand(std::uint64_t cycle);
    std::uint64_t window() const { return windowStart_; }
    std::uint64_t wordsToMove() const;
    void addNew(std::uint64_t words, std::uint64_t lastCycle);

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
    void write(std::uint64_t cycle) { write(cycle, 1); }
    // `words` outputs in one cycle, as as many write(cycle) calls.
    void write(std::uint64_t cycle, std::uint64_t words);
    ScaleSimWindow finish(std::uint64_t lastCycle);

private:
    void fill(std::uint64_t words);
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

// The first and last cycle in which the array asks its SRAM buffers for an operand (reads
// answered one cycle later, as SCALE-Sim counts them), folds back to back, cycle 0 the first
// fold's first: the ideal interface's SRAM windows, from the first and last folds that ask for
// any word of the operand (a fold of windows all past the ifmap's edge asks for none).
struct ScaleSimSramWindow {
    std::int64_t start = 0, stop = 0;
    std::uint64_t stopFold = 0;  // the fold (in run order) of the last demand
};
struct ScaleSimSramWindows {
    ScaleSimSramWindow ifmap, filter, ofmap;
};
ScaleSimSramWindows scaleSimSramWindows(const ScaleSimLayer& layer, const ScaleSimMapping& mapping,
                                        unsigned rows, unsigned cols, const std::string& dataflow);

}  // namespace tessim
