#include "workloads/scalesim/ScaleSimIdealInterface.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <stdexcept>

namespace tessim {

ScaleSimReadEstimate::ScaleSimReadEstimate(std::uint64_t bufferWords, std::uint64_t addressSpace)
    : setWords_(bufferWords / kSets), setOf_(addressSpace, 0) {}

void ScaleSimReadEstimate::demand(std::uint64_t cycle) {
    if (!demandSeen_) {
        demandSeen_ = true;
        firstDemand_ = static_cast<std::int64_t>(cycle);
    }
}

std::uint64_t ScaleSimReadEstimate::wordsToMove() const {
    if (setWords_ == 0)  // sets never fill: the window never moves
        return std::numeric_limits<std::uint64_t>::max();
    return (windowEnd_ + 1 - current_) * setWords_ - currentWords_;
}

void ScaleSimReadEstimate::addNew(std::uint64_t words, std::uint64_t lastCycle) {
    if (setWords_ == 0) {
        currentWords_ += words;
        return;
    }
    while (words > 0) {
        const std::uint64_t take = std::min(words, setWords_ - currentWords_);
        currentWords_ += take;
        words -= take;
        if (currentWords_ != setWords_)
            continue;
        setCount_.push_back(currentWords_);
        currentWords_ = 0;
        if (current_ + 2 > std::numeric_limits<std::uint32_t>::max())
            throw std::runtime_error("SCALE-Sim ideal interface: a layer fills more than 2^32 buffer sets");
        if (++current_ == windowEnd_ + 1)
            moveWindow(lastCycle);  // only after the last word: words ≤ wordsToMove()
    }
}

void ScaleSimReadEstimate::read(std::uint64_t cycle, std::uint64_t address) {
    demand(cycle);
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

void ScaleSimWriteEstimate::fill(std::uint64_t words) {
    free_ -= static_cast<std::int64_t>(words);
    while (words > 0) {
        const std::uint64_t take = std::min(words, lineWords_ - open_);
        open_ += take;
        words -= take;
        if (open_ == lineWords_)
            closeLine();
    }
}

void ScaleSimWriteEstimate::write(std::uint64_t cycle, std::uint64_t words) {
    // After each word: while a drain is under way nothing more starts (the buffer cannot fill
    // meanwhile: the array writes at most `cols` words per cycle and a drain moves a line of
    // `cols` words per cycle); otherwise a drain starts once more than the active half is held.
    const std::int64_t now = static_cast<std::int64_t>(cycle);
    const std::int64_t threshold = static_cast<std::int64_t>(total_ - drainWords_);
    while (words > 0) {
        std::uint64_t k = words;  // words before the next check that can start a drain
        if (now >= drainEnd_ && free_ >= threshold)
            k = std::min(words, static_cast<std::uint64_t>(free_ - threshold) + 1);
        else if (now >= drainEnd_)
            k = 1;
        fill(k);
        words -= k;
        if (now >= drainEnd_ && free_ < threshold) {
            if (open_ > 0)
                closeLine();
            drainEnd_ = drain(now);
        }
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
    void add(std::uint64_t cycle, std::uint64_t words = 1) {
        const std::int64_t c = static_cast<std::int64_t>(cycle + latency);
        if (!seen)
            w.start = c;
        seen = true;
        w.stop = c;
        w.count += words;
    }
};

// Words of a fold operand's walk asked for before step `d` (its cycles after the prefix).
std::uint64_t wordsBefore(const ScaleSimFoldOperand& f, std::uint64_t d) {
    if (!f.skewed)
        return std::min(d, f.rows) * f.used;
    // Pairs (row r, column j) with r + j < d: column j contributes min(d − j, rows) for j < d.
    const std::uint64_t m = std::min(f.used, d);
    const std::uint64_t full = d >= f.rows ? std::min(m, d - f.rows + 1) : 0;  // columns with all rows
    return full * f.rows + (m - full) * d - (full + m - 1) * (m - full) / 2;
}

// Steps a fold operand's walk takes (cycles from its first word to its last, plus one).
std::uint64_t walkSteps(const ScaleSimFoldOperand& f) {
    return f.skewed ? f.rows + f.used - 1 : f.rows;
}

// Step of the word at position `p` of the walk (cycle order, edge-column order within a cycle).
std::uint64_t stepOf(const ScaleSimFoldOperand& f, std::uint64_t p) {
    if (!f.skewed)
        return p / f.used;
    std::uint64_t lo = 0, hi = walkSteps(f) - 1;
    while (lo < hi) {
        const std::uint64_t mid = (lo + hi + 1) / 2;
        if (wordsBefore(f, mid) <= p)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// True when every word of `operand` is a distinct address within a fold and every ifmap word is
// in range: then two folds' words are the same addresses in the same walk order (same row and
// column ranges) or disjoint, and a read buffer can be followed block by block.
bool blockwise(const ScaleSimLayer& l, ScaleSimOperand operand) {
    if (operand != ScaleSimOperand::Ifmap)
        return true;  // filter (filter, element) ↦ address is one-to-one
    // Windows neither overlap nor reach past the edge, in each dimension.
    auto fits = [](std::uint64_t in, std::uint64_t filter, std::uint64_t stride, std::uint64_t out) {
        return (out == 1 || stride >= filter) && (out - 1) * stride + filter <= in;
    };
    return fits(l.ifmapH, l.filterH, l.strideH, l.ofmapH()) &&
           fits(l.ifmapW, l.filterW, l.strideW, l.ofmapW());
}

// A read buffer followed block by block: per distinct fold block, the walk positions from which
// on its words last joined while the window had a given identity (kNever: never read).
void readBlockwise(const ScaleSimLayer& l, const ScaleSimMapping& m, unsigned rows, unsigned cols,
                   const std::string& dataflow, ScaleSimOperand op, ScaleSimReadEstimate& buffer,
                   Span& sram) {
    constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
    struct Run {
        std::uint64_t begin, window;
    };
    std::map<std::array<std::uint64_t, 4>, std::vector<Run>> blocks;
    std::vector<Run> next;
    std::uint64_t foldStart = 0;
    for (std::uint64_t fc = 0; fc < m.colFolds; ++fc)
        for (std::uint64_t fr = 0; fr < m.rowFolds; ++fr, foldStart += m.cyclesPerFold) {
            const ScaleSimFoldOperand f = scaleSimFoldOperand(m, rows, cols, dataflow, op, fc, fr);
            if (f.rows == 0 || f.used == 0)
                continue;
            const std::uint64_t words = f.rows * f.used, first = foldStart + f.prefix;
            sram.add(first);
            sram.add(first + walkSteps(f) - 1, words - 1);
            buffer.demand(first);
            std::vector<Run>& runs = blocks[{f.rowBase, f.colBase, f.rows, f.used}];
            if (runs.empty())
                runs.push_back(Run{0, kNever});
            next.clear();
            auto mark = [&](std::uint64_t begin, std::uint64_t window) {
                if (next.empty() || next.back().window != window)
                    next.push_back(Run{begin, window});
            };
            for (std::size_t i = 0; i < runs.size(); ++i) {
                const std::uint64_t end = i + 1 < runs.size() ? runs[i + 1].begin : words;
                std::uint64_t p = runs[i].begin;
                if (runs[i].window == buffer.window()) {  // held
                    mark(p, runs[i].window);
                    continue;
                }
                while (p < end) {  // new words, in batches up to each move of the window
                    const std::uint64_t take = std::min(end - p, buffer.wordsToMove());
                    mark(p, buffer.window());
                    const bool moves = take == buffer.wordsToMove();
                    buffer.addNew(take, moves ? first + stepOf(f, p + take - 1) : 0);
                    p += take;
                }
            }
            runs.swap(next);
        }
}

}  // namespace

ScaleSimIdealAccess scaleSimIdealAccess(const ScaleSimLayer& l, const ScaleSimMapping& m, unsigned rows,
                                        unsigned cols, const std::string& dataflow,
                                        std::uint64_t ifmapBufferBytes, std::uint64_t filterBufferBytes,
                                        std::uint64_t ofmapBufferBytes) {
    ScaleSimIdealAccess a;
    auto readStream = [&](ScaleSimOperand op, std::uint64_t bufferBytes, ScaleSimWindow& sram,
                          ScaleSimWindow& dram) {
        Span span;
        span.latency = 1;  // an SRAM read answers one cycle after the demand
        if (blockwise(l, op)) {
            ScaleSimReadEstimate buffer(bufferBytes, 0);
            readBlockwise(l, m, rows, cols, dataflow, op, buffer, span);
            sram = span.w;
            dram = buffer.finish();
            return;
        }
        ScaleSimReadEstimate buffer(bufferBytes, scaleSimAddressSpace(l, op));
        forEachScaleSimAccess(l, m, rows, cols, dataflow, op, [&](std::uint64_t cycle, std::uint64_t addr) {
            span.add(cycle);
            buffer.read(cycle, addr);
        });
        sram = span.w;
        dram = buffer.finish();
    };
    readStream(ScaleSimOperand::Ifmap, ifmapBufferBytes, a.sramIfmap, a.dramIfmap);
    readStream(ScaleSimOperand::Filter, filterBufferBytes, a.sramFilter, a.dramFilter);
    // Outputs: only how many leave the array in each cycle matters to the write buffer.
    ScaleSimWriteEstimate out(ofmapBufferBytes, cols);
    Span span;
    std::uint64_t foldStart = 0;
    for (std::uint64_t fc = 0; fc < m.colFolds; ++fc)
        for (std::uint64_t fr = 0; fr < m.rowFolds; ++fr, foldStart += m.cyclesPerFold) {
            const ScaleSimFoldOperand f =
                scaleSimFoldOperand(m, rows, cols, dataflow, ScaleSimOperand::Ofmap, fc, fr);
            if (f.rows == 0 || f.used == 0)
                continue;
            for (std::uint64_t d = 0; d < walkSteps(f); ++d) {
                const std::uint64_t words = wordsBefore(f, d + 1) - wordsBefore(f, d);
                span.add(foldStart + f.prefix + d, words);
                out.write(foldStart + f.prefix + d, words);
            }
        }
    a.sramOfmap = span.w;
    a.dramOfmap = out.finish(m.folds() * m.cyclesPerFold - 1);
    return a;
}

ScaleSimSramWindows scaleSimSramWindows(const ScaleSimLayer& l, const ScaleSimMapping& m, unsigned rows,
                                        unsigned cols, const std::string& dataflow) {
    auto window = [&](ScaleSimOperand op) {
        const std::int64_t latency = op == ScaleSimOperand::Ofmap ? 0 : 1;
        ScaleSimSramWindow w;
        auto visitFold = [&](std::uint64_t k, auto&& visit) {
            bool any = false;
            forEachScaleSimFoldAccess(l, m, rows, cols, dataflow, op, k / m.rowFolds, k % m.rowFolds,
                                      k * m.cyclesPerFold, [&](std::uint64_t cycle, std::uint64_t) {
                                          visit(static_cast<std::int64_t>(cycle) + latency);
                                          any = true;
                                      });
            return any;
        };
        bool seen = false;
        for (std::uint64_t k = 0; k < m.folds() && !seen; ++k)
            seen = visitFold(k, [&](std::int64_t c) {
                if (!seen)
                    w.start = c;
                seen = true;
            });
        for (std::uint64_t k = m.folds(); k-- > 0;)
            if (visitFold(k, [&](std::int64_t c) { w.stop = c; })) {
                w.stopFold = k;
                break;
            }
        return w;
    };
    return ScaleSimSramWindows{window(ScaleSimOperand::Ifmap), window(ScaleSimOperand::Filter),
                               window(ScaleSimOperand::Ofmap)};
}

}  // namespace tessim
