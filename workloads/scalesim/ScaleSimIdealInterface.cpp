#include "workloads/scalesim/ScaleSimIdealInterface.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tessim {

ScaleSimReadEstimate::ScaleSimReadEstimate(std::uint64_t bufferWords, std::uint64_t addressSpace)
    : setWords_(bufferWords / kSets), setOf_(addressSpace, 0) {}

void ScaleSimReadEstimate::read(std::uint64_t cycle, std::uint64_t address) {
    if (!demandSeen_) {
        demandSeen_ = true;
        firstDemand_ = static_cast<std::int64_t>(cycle);
    }
    const std::uint64_t joined = setOf_[address];
    if (joined != 0 && joined - 1 >= windowStart_)
        return;  // held: in a set of the current window (or the set being filled)
    setOf_[address] = static_cast<std::uint32_t>(current_ + 1);
    if (++currentWords_ != setWords_)
        return;
    setCount_.push_back(currentWords_);
    currentWords_ = 0;
    if (current_ + 2 > std::numeric_limits<std::uint32_t>::max())
        throw std::runtime_error("SCALE-Sim ideal interface: a layer fills more than 2^32 buffer sets");
    if (++current_ == windowEnd_ + 1)
        moveWindow(cycle);
}

void ScaleSimReadEstimate::moveWindow(std::uint64_t cycle) {
    if (!firstBatchDone_) {
        // The first window is fetched before the layer starts, at the interface's starting rate.
        fetchEnd_ = firstDemand_ - 1 - static_cast<std::int64_t>(kPortLatency);
        const std::uint64_t words = kPrefetchSets * setWords_;
        fetchStart_ =
            fetchEnd_ -
            static_cast<std::int64_t>((words + kFirstFetchWordsPerCycle - 1) / kFirstFetchWordsPerCycle) + 1;
        fetch(0, kActiveSets - 1);
        nextFetch_ = windowEnd_ + 1;
        firstBatchDone_ = true;
    } else {
        fetch(nextFetch_, nextFetch_ + kPrefetchSets - 1);
        nextFetch_ += kPrefetchSets;
    }
    windowStart_ += kPrefetchSets;
    windowEnd_ += kPrefetchSets;
    // The next batch is fetched over the cycles from here to the next move.
    fetchStart_ = fetchEnd_ + 1;
    fetchEnd_ = static_cast<std::int64_t>(cycle);
}

void ScaleSimReadEstimate::fetch(std::uint64_t firstSet, std::uint64_t lastSet) {
    for (std::uint64_t s = firstSet; s <= lastSet && s < setCount_.size(); ++s)
        out_.count += setCount_[s];
    if (fetchEnd_ < fetchStart_)
        return;
    // One fetch per cycle of [fetchStart, fetchEnd], answered one port latency later.
    if (!fetched_)
        out_.start = fetchStart_ + static_cast<std::int64_t>(kPortLatency);
    fetched_ = true;
    out_.stop = fetchEnd_ + static_cast<std::int64_t>(kPortLatency);
}

ScaleSimWindow ScaleSimReadEstimate::finish() {
    std::int64_t lastSet = static_cast<std::int64_t>(current_) - 1;
    if (currentWords_ > 0) {
        setCount_.push_back(currentWords_);
        lastSet = static_cast<std::int64_t>(current_);
    }
    if (lastSet < 0)
        return out_;
    if (!firstBatchDone_) {
        // Everything fits the active buffer: one batch before the layer.
        fetchEnd_ = -1 - static_cast<std::int64_t>(kPortLatency);
        const std::uint64_t words = (static_cast<std::uint64_t>(lastSet) + 1) * setWords_;
        fetchStart_ =
            fetchEnd_ -
            static_cast<std::int64_t>((words + kFirstFetchWordsPerCycle - 1) / kFirstFetchWordsPerCycle) + 1;
        fetch(0, static_cast<std::uint64_t>(lastSet));
    } else {
        // The sets since the last move (possibly none: the interval still passes).
        fetch(nextFetch_, static_cast<std::uint64_t>(lastSet));
    }
    return out_;
}

ScaleSimWriteEstimate::ScaleSimWriteEstimate(std::uint64_t bufferWords, unsigned lineWords)
    : total_(bufferWords), drainWords_(bufferWords - (bufferWords + 1) / 2),  // the active half rounds up
      lineWords_(std::max(1u, lineWords)), free_(static_cast<std::int64_t>(bufferWords)) {}

void ScaleSimWriteEstimate::closeLine() {
    lineFill_.push_back(open_);
    open_ = 0;
}

void ScaleSimWriteEstimate::write(std::uint64_t cycle) {
    --free_;
    if (++open_ == lineWords_)
        closeLine();
    // While a drain is under way nothing more starts. The buffer cannot fill meanwhile: the array
    // writes at most `cols` words per cycle and a drain moves a line of `cols` words per cycle.
    if (static_cast<std::int64_t>(cycle) < drainEnd_)
        return;
    if (free_ < static_cast<std::int64_t>(total_ - drainWords_)) {
        if (open_ > 0)
            closeLine();
        drainEnd_ = drain(static_cast<std::int64_t>(cycle));
    }
}

std::int64_t ScaleSimWriteEstimate::drain(std::int64_t start) {
    const std::size_t batch = static_cast<std::size_t>((drainWords_ + lineWords_ - 1) / lineWords_);
    const std::size_t end = std::min(drained_ + batch, lineFill_.size());
    if (end == drained_)
        return start - 1;
    const std::uint64_t lines = end - drained_;
    // The batch counts whole lines but for the unused words of its last line.
    const std::uint64_t words = lines * lineWords_ - (lineWords_ - lineFill_[end - 1]);
    out_.count += words;
    if (!drainedAny_)
        out_.start = start;
    drainedAny_ = true;
    out_.stop = start + static_cast<std::int64_t>(lines) - 1;
    free_ += static_cast<std::int64_t>(words);
    drained_ = end;
    return out_.stop;
}

ScaleSimWindow ScaleSimWriteEstimate::finish(std::uint64_t lastCycle) {
    if (open_ > 0)
        closeLine();
    std::int64_t cycle = static_cast<std::int64_t>(lastCycle);
    while (drained_ < lineFill_.size())
        cycle = drain(cycle) + 1;
    return out_;
}

namespace {

// First and last cycle of a stream (plus a fixed answer latency) and its accesses.
struct Span {
    std::uint64_t latency = 0;
    bool seen = false;
    ScaleSimWindow w;
    void add(std::uint64_t cycle) {
        const std::int64_t c = static_cast<std::int64_t>(cycle + latency);
        if (!seen)
            w.start = c;
        seen = true;
        w.stop = c;
        ++w.count;
    }
};

}  // namespace

ScaleSimIdealAccess scaleSimIdealAccess(const ScaleSimLayer& l, const ScaleSimMapping& m, unsigned rows,
                                        unsigned cols, const std::string& dataflow,
                                        std::uint64_t ifmapBufferBytes, std::uint64_t filterBufferBytes,
                                        std::uint64_t ofmapBufferBytes) {
    ScaleSimIdealAccess a;
    auto readStream = [&](ScaleSimOperand op, std::uint64_t bufferBytes, ScaleSimWindow& sram,
                          ScaleSimWindow& dram) {
        ScaleSimReadEstimate buffer(bufferBytes, scaleSimAddressSpace(l, op));
        Span span;
        span.latency = 1;  // an SRAM read answers one cycle after the demand
        forEachScaleSimAccess(l, m, rows, cols, dataflow, op, [&](std::uint64_t cycle, std::uint64_t addr) {
            span.add(cycle);
            buffer.read(cycle, addr);
        });
        sram = span.w;
        dram = buffer.finish();
    };
    readStream(ScaleSimOperand::Ifmap, ifmapBufferBytes, a.sramIfmap, a.dramIfmap);
    readStream(ScaleSimOperand::Filter, filterBufferBytes, a.sramFilter, a.dramFilter);
    ScaleSimWriteEstimate out(ofmapBufferBytes, cols);
    Span span;
    forEachScaleSimAccess(l, m, rows, cols, dataflow, ScaleSimOperand::Ofmap,
                          [&](std::uint64_t cycle, std::uint64_t) {
                              span.add(cycle);
                              out.write(cycle);
                          });
    a.sramOfmap = span.w;
    a.dramOfmap = out.finish(m.folds() * m.cyclesPerFold - 1);
    return a;
}

}  // namespace tessim
