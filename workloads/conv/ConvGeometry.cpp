#include "workloads/conv/ConvGeometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/IntegerMath.h"
#include "workloads/common/MemoryLayout.h"

namespace tessim {
namespace {

std::uint64_t align64(std::uint64_t v) {
    return alignUp(v, 64);
}

// Σ over tiles of the valid input extent (rows or columns fetched from DDR).
std::uint64_t sumValid(std::uint32_t tile, std::uint32_t outSize, std::uint32_t inSize, std::uint32_t k,
                       std::uint32_t stride, std::uint32_t pad) {
    std::uint64_t sum = 0;
    for (std::uint32_t o = 0; o < outSize; o += tile)
        sum += tileSpan(o, tile, outSize, inSize, k, stride, pad).valid;
    return sum;
}

// Column sums of a tile width: Σ valid input columns; Σ bus bytes of the tiles' input rows and of
// their output rows (whole bursts from a burst-aligned row start: exact when the image rows are a
// whole number of bursts, as DDR buffers start burst-aligned; 0 = not exact, estimate instead).
struct Columns {
    std::uint64_t valid = 0, inBus = 0, outBus = 0;
};
Columns sumColumns(const ConvShape& s, std::uint32_t tile, double burst) {
    Columns c;
    const std::uint64_t b = static_cast<std::uint64_t>(burst), wo = s.outW();
    const bool exactIn = b > 0 && s.w % b == 0, exactOut = b > 0 && (wo * s.outBytes) % b == 0;
    auto bus = [&](std::uint64_t offset, std::uint64_t bytes) {
        return bytes == 0 ? 0 : (offset + bytes + b - 1) / b * b - offset / b * b;
    };
    for (std::uint32_t o = 0; o < wo; o += tile) {
        const TileSpan t = tileSpan(o, tile, s.outW(), s.w, s.kw, s.strideW, s.padW);
        c.valid += t.valid;
        if (exactIn)
            c.inBus += bus(static_cast<std::uint64_t>(t.i0 + t.padBefore), t.valid);
        if (exactOut)
            c.outBus += bus(std::uint64_t{o} * s.outBytes, std::uint64_t{t.n} * s.outBytes);
    }
    return c;
}

// Distinct values of ceil(n / d) for d = 1..n (the tile sizes that give different tile counts).
std::vector<std::uint32_t> candidates(std::uint32_t n) {
    std::vector<std::uint32_t> v;
    for (std::uint32_t d = 1; d <= n; ++d) {
        std::uint32_t t = ceilDiv(n, d);
        if (v.empty() || v.back() != t)
            v.push_back(t);
    }
    return v;
}

std::vector<std::uint32_t> choices(std::uint32_t requested, std::uint32_t n) {
    if (requested == kFull)
        return {n};
    if (requested != 0)
        return {std::min(requested, n)};
    return candidates(n);
}

}  // namespace

TileSpan tileSpan(std::uint32_t o0, std::uint32_t tile, std::uint32_t outSize, std::uint32_t inSize,
                  std::uint32_t k, std::uint32_t stride, std::uint32_t pad) {
    TileSpan t;
    t.o0 = o0;
    t.n = std::min(tile, outSize - o0);
    t.i0 = std::int64_t{o0} * stride - pad;
    t.in = (t.n - 1) * stride + k;
    std::int64_t end = t.i0 + t.in;
    std::int64_t first = std::max<std::int64_t>(t.i0, 0), last = std::min<std::int64_t>(end, inSize);
    if (last <= first) {  // the window lies in the padding (pad > k): all zeros
        t.padBefore = t.in;
        return t;
    }
    t.padBefore = static_cast<std::uint32_t>(first - t.i0);
    t.valid = static_cast<std::uint32_t>(last - first);
    t.padAfter = t.in - t.padBefore - t.valid;
    return t;
}

SramLayout sramLayout(const ConvShape& s, const ConvTiling& t, ConvStrategy strategy, bool inArray) {
    SramLayout l;
    l.slots = strategy == ConvStrategy::DoubleBuffer ? 2 : 1;
    std::uint64_t inH = std::uint64_t{t.th - 1} * s.strideH + s.kh,
                  inW = std::uint64_t{t.tw - 1} * s.strideW + s.kw;
    l.inBytes = align64(std::uint64_t{t.tc} * inH * inW);
    l.weightBytes = align64(std::uint64_t{t.tf} * t.tc * s.taps());
    l.outBytes = align64(std::uint64_t{t.tf} * t.th * t.tw * s.outBytes);
    l.accBytes = s.requantize() && !inArray ? align64(std::uint64_t{t.tf} * t.th * t.tw * 4) : 0;
    l.zeroBytes = s.padded() ? align64(inW) : 0;
    std::uint64_t a = 0;
    for (unsigned i = 0; i < l.slots; ++i) {
        l.slotIn[i] = a;
        a += l.inBytes;
        l.slotW[i] = a;
        a += l.weightBytes;
        l.slotOut[i] = a;
        a += l.outBytes;
    }
    l.acc = a;
    a += l.accBytes;
    l.zero = a;
    a += l.zeroBytes;
    l.total = a;
    return l;
}

const char* loopOrderName(LoopOrder o) {
    return o == LoopOrder::FiltersOuter ? "filters-outer" : "spatial-outer";
}

namespace {

// How many times each operand is fetched: the input once per filter group unless its chunk stays
// the same across the filter groups (whole channels, and spatial tiles outer or a single spatial
// tile); the weights once per spatial tile unless their chunk stays the same across spatial
// tiles (whole channels, and filter groups outer or a single filter group).
struct Refetch {
    std::uint64_t input = 1, weights = 1;
};
Refetch refetch(const ConvShape& s, const ConvTiling& t) {
    const std::uint64_t nS = std::uint64_t{ceilDiv(s.outH(), t.th)} * ceilDiv(s.outW(), t.tw);
    const std::uint64_t nC = ceilDiv(s.channels, t.tc), nF = ceilDiv(s.filters, t.tf);
    Refetch r;
    const bool spatialOuter = t.order == LoopOrder::SpatialOuter;
    r.input = nC == 1 && (spatialOuter || nS == 1) ? 1 : nF;
    r.weights = nC == 1 && (!spatialOuter || nF == 1) ? 1 : nS;
    return r;
}

// A dimension of n split into tiles of t: (size, count) of the full tiles and of the remainder.
struct Part {
    std::uint64_t size, count;
};
struct Parts {
    Part p[2];
    unsigned n = 0;
    const Part* begin() const { return p; }
    const Part* end() const { return p + n; }
};
Parts parts(std::uint32_t n, std::uint32_t t) {
    Parts v;
    if (n / t > 0)
        v.p[v.n++] = {t, n / t};
    if (n % t > 0)
        v.p[v.n++] = {n % t, 1};
    return v;
}

}  // namespace

namespace {

// Weight stationary: folds do not depend on the pixels, so a tile of e pixels streams A + e·B
// bytes; A and B summed over the channel and filter chunks (times their counts).
struct WsTraffic {
    std::uint64_t perTile = 0, perPixel = 0;
};
WsTraffic wsTraffic(const ConvShape& s, std::uint32_t tc, std::uint32_t tf, unsigned rows, unsigned cols) {
    const std::uint64_t kk = s.taps();
    WsTraffic w;
    for (const Part& c : parts(s.channels, tc))
        for (const Part& f : parts(s.filters, tf)) {
            const SystolicMapping z = mapTile(rows, cols, Dataflow::WeightStationary, 0, f.size, c.size * kk);
            const std::uint64_t rowFolds = (z.sr + rows - 1) / rows, colFolds = (z.sc + cols - 1) / cols;
            w.perTile += c.count * f.count * c.size * kk * f.size;
            w.perPixel += c.count * f.count * (c.size * kk * colFolds + f.size * rowFolds * 4);
        }
    return w;
}

// Partial sums read back by every channel chunk but the first; INT8 outputs written by the last.
std::uint64_t partialSumAndOutputBytes(const ConvShape& s, std::uint32_t tc) {
    return s.outputs() * (4 * (ceilDiv(s.channels, tc) - 1) + (s.requantize() ? 1 : 0));
}

std::uint64_t spatialTiles(const ConvShape& s, const ConvTiling& t) {
    return std::uint64_t{ceilDiv(s.outH(), t.th)} * ceilDiv(s.outW(), t.tw);
}

}  // namespace

std::uint64_t arraySramBytes(const ConvShape& s, const ConvTiling& t, unsigned rows, unsigned cols,
                             Dataflow dataflow, bool inArray) {
    if (s.groups > 1)
        return s.groups * arraySramBytes(s.group(), t, rows, cols, dataflow, inArray);
    const std::uint64_t pixels = std::uint64_t{s.outH()} * s.outW();
    std::uint64_t bytes = inArray ? s.outputs() * s.outBytes : partialSumAndOutputBytes(s, t.tc);
    if (dataflow == Dataflow::WeightStationary && !inArray) {
        const WsTraffic w = wsTraffic(s, t.tc, t.tf, rows, cols);
        return bytes + spatialTiles(s, t) * w.perTile + pixels * w.perPixel;
    }
    for (const Part& c : parts(s.channels, t.tc))
        for (const Part& f : parts(s.filters, t.tf))
            for (const Part& h : parts(s.outH(), t.th))
                for (const Part& w : parts(s.outW(), t.tw)) {
                    MacTileArgs a{};
                    a.channels = static_cast<std::uint16_t>(c.size);
                    a.filters = static_cast<std::uint16_t>(f.size);
                    a.kh = static_cast<std::uint8_t>(s.kh);
                    a.kw = static_cast<std::uint8_t>(s.kw);
                    a.outH = static_cast<std::uint32_t>(h.size);
                    a.outW = static_cast<std::uint32_t>(w.size);
                    a.inArray = inArray ? 1 : 0;
                    const OperandTraffic o = operandTraffic(rows, cols, dataflow, a);
                    bytes += (o.reads() + o.writes()) * h.count * w.count * c.count * f.count;
                }
    return bytes;
}

std::uint64_t inputFetchBytes(const ConvShape& s, const ConvTiling& t) {
    if (s.groups > 1)
        return s.groups * inputFetchBytes(s.group(), t);
    return refetch(s, t).input * s.channels * sumValid(t.th, s.outH(), s.h, s.kh, s.strideH, s.padH) *
           sumValid(t.tw, s.outW(), s.w, s.kw, s.strideW, s.padW);
}

std::uint64_t weightFetchBytes(const ConvShape& s, const ConvTiling& t) {
    if (s.groups > 1)
        return s.groups * weightFetchBytes(s.group(), t);
    return refetch(s, t).weights * s.filters * s.channels * s.taps();
}

namespace {

// estimatePlan with Σ valid input rows and columns over the tiles given (the planner computes them
// once per tile size). A grouped layer: s is one group (ConvShape::group) and sramBytes its array
// bytes; `groups` of them run one after the other as one pipeline (the steps of the next group
// overlap the last of the one before, so fill and drain are counted once).
PlanEstimate estimateWith(const ConvShape& s, const ConvTiling& t, ConvStrategy strategy,
                          const PlannerMachine& m, std::uint64_t rowsValid, const Columns& cols,
                          std::uint64_t sramBytes, std::uint32_t groups) {
    const double G = groups;
    const std::uint64_t colsValid = cols.valid;
    const std::uint32_t ho = s.outH(), wo = s.outW();
    const std::uint64_t kk = s.taps();
    const double nH = ceilDiv(ho, t.th), nW = ceilDiv(wo, t.tw), nC = ceilDiv(s.channels, t.tc),
                 nF = ceilDiv(s.filters, t.tf);
    const double nS = nH * nW, steps = nS * nC * nF * G;
    PlanEstimate e;
    // Array cycles: the unit's own formula for every tile shape (at most two sizes per dimension).
    // Weight stationary: folds do not depend on the pixels T and a fold takes (its cycles at T = 0)
    // + T, so the sum over the spatial tiles is folds × (nS·cycles(T = 0) + out_h·out_w).
    if (m.dataflow == Dataflow::WeightStationary) {
        for (const Part& c : parts(s.channels, t.tc))
            for (const Part& f : parts(s.filters, t.tf)) {
                const SystolicMapping z = mapTile(m.rows, m.cols, m.dataflow, 0, f.size, c.size * kk);
                e.computeCycles +=
                    z.folds * c.count * f.count *
                    (static_cast<std::uint64_t>(nH * nW) * z.cyclesPerFold + std::uint64_t{ho} * wo);
            }
    } else {
        for (const Part& h : parts(ho, t.th))
            for (const Part& w : parts(wo, t.tw))
                for (const Part& c : parts(s.channels, t.tc))
                    for (const Part& f : parts(s.filters, t.tf))
                        e.computeCycles +=
                            mapTile(m.rows, m.cols, m.dataflow, h.size * w.size, f.size, c.size * kk)
                                .cycles() *
                            h.count * w.count * c.count * f.count;
    }
    // Requantisation: ceil(outputs / cols) array cycles per output tile (SystolicArray).
    if (s.requantize())
        for (const Part& h : parts(ho, t.th))
            for (const Part& w : parts(wo, t.tw))
                for (const Part& f : parts(s.filters, t.tf))
                    e.computeCycles +=
                        (h.size * w.size * f.size + m.cols - 1) / m.cols * h.count * w.count * f.count;
    e.computeCycles *= groups;
    const double ob = s.outBytes;
    const double inB = double(refetch(s, t).input * s.channels * rowsValid * colsValid) * G,
                 wB = double(weightFetchBytes(s, t)) * G, outB = double(s.filters) * ho * wo * ob * G;
    // DDR time of DMA streams: their bytes on the bus at the sustained bandwidth, or their DDR
    // requests (a DMA burst does not cross a `dmaBurst` boundary, so a row of b bytes is
    // (b + dmaBurst − 1) / dmaBurst requests on average), whichever is longer. Rows that abut in
    // DDR (gaps of a few bytes, as a 1×1 stride-2 window) stream as one row; others move
    // b − 1 + burst bytes each on average (whole bursts at an arbitrary alignment).
    const double bw = m.ddrBytesPerSecond * 0.8;  // assumption: sustained ≈ 80 % of peak
    const double stepLatency = 0.5e-6;            // assumption: DMA set-up + DDR latency + waits per step
    struct Dma {
        double bytes = 0, requests = 0;
        Dma operator+(const Dma& o) const { return {bytes + o.bytes, requests + o.requests}; }
        Dma operator/(double n) const { return {bytes / n, requests / n}; }
    };
    auto stream = [&](double bytes, double rowBytes, double rowStride, double exactBus) {
        if (rowStride - rowBytes <= 8)
            return Dma{exactBus > 0 ? exactBus : bytes, bytes / m.dmaBurst};
        const double rows = bytes / rowBytes;
        return Dma{exactBus > 0     ? exactBus
                   : m.ddrBurst > 0 ? rows * (rowBytes - 1 + m.ddrBurst)
                                    : bytes,
                   rows * (rowBytes + m.dmaBurst - 1) / m.dmaBurst};
    };
    auto time = [&](const Dma& d) { return std::max(d.bytes / bw, d.requests * m.ddrRequestSeconds); };
    const double inRow = std::min<double>(s.w, double(t.tw - 1) * s.strideW + s.kw);
    // Rows of burst-aligned images: their bus bytes exactly (Columns); else on average.
    const double inBus = double(refetch(s, t).input * s.channels * rowsValid * cols.inBus) * G,
                 outBus = double(s.filters) * ho * double(cols.outBus) * G;
    const Dma inD = stream(inB, inRow, s.w, inBus),
              wD = stream(wB, double(t.tc) * kk, double(s.channels) * kk, 0),
              outD = stream(outB, t.tw * ob, wo * ob, outBus);
    e.ddrBytes = static_cast<std::uint64_t>(inD.bytes + wD.bytes + outD.bytes);
    // The array's operand streams and the DMA's bytes share the SRAM's ports.
    e.sramBytes = sramBytes * groups;
    const double sramSeconds =
        m.sramBytesPerSecond > 0 ? double(e.sramBytes + std::uint64_t(inB + wB + outB)) / m.sramBytesPerSecond
                                 : 0.0;
    const double comp = std::max(double(e.computeCycles) / m.clockHz, sramSeconds);
    if (strategy != ConvStrategy::DoubleBuffer) {
        e.seconds = time(inD + wD + outD) + comp + steps * stepLatency;
        return e;
    }
    // Double-buffered: the DMA of step k+1 (and the write-back of the tile before) overlaps the
    // compute of step k. The resident operand (whole channels only) changes once per outer
    // iteration, and is fetched during one step's compute; the streamed one every step.
    double outer = 1;
    Dma resident, streamed = inD + wD;
    if (nC == 1 && t.order == LoopOrder::FiltersOuter) {
        outer = nF * G;
        resident = wD;
        streamed = inD;
    } else if (nC == 1) {
        outer = nS * G;
        resident = inD;
        streamed = wD;
    }
    // The write-back of a tile is issued at the first step of the next tile and competes with
    // that step's loads (with channels split, the tile's later steps load alone).
    const double c = comp / steps, tiles = nS * nF * G;
    const Dma perStep = streamed / steps, perSwitch = resident / outer, perTile = outD / tiles;
    auto stepTime = [&](const Dma& d) { return std::max(c, time(d) + stepLatency); };
    e.seconds = time(perStep + perSwitch) + stepLatency + c + time(perTile) + stepLatency;
    if (nC == 1)  // every step stores the tile before; outer − 1 of them also switch the resident operand
        e.seconds += (steps - outer) * stepTime(perStep + perTile) +
                     (outer - 1) * stepTime(perStep + perTile + perSwitch);
    else  // no resident operand; tiles − 1 steps store
        e.seconds += (tiles - 1) * stepTime(perStep + perTile) + (steps - tiles) * stepTime(perStep);
    return e;
}

}  // namespace

PlanEstimate estimatePlan(const ConvShape& s, const ConvTiling& t, ConvStrategy strategy,
                          const PlannerMachine& m) {
    // Groups one after the other, each its own small convolution.
    const ConvShape g = s.group();
    return estimateWith(g, t, strategy, m, sumValid(t.th, g.outH(), g.h, g.kh, g.strideH, g.padH),
                        sumColumns(g, t.tw, m.ddrBurst),
                        arraySramBytes(g, t, m.rows, m.cols, m.dataflow, m.arrayAccumulatorBytes > 0),
                        s.groups);
}

bool planTiling(const ConvShape& layer, ConvStrategy strategy, const TileRequest& req,
                const PlannerMachine& m, ConvTiling& out, std::string& message) {
    // Every group is tiled alike: one group's tilings, estimated as all the groups in a row.
    const ConvShape s = layer.group();
    const std::uint32_t groups = layer.groups;
    const std::uint32_t ho = s.outH(), wo = s.outW();
    auto ths = choices(req.th, ho), tws = choices(req.tw, wo), tcs = choices(req.tc, s.channels),
         tfs = choices(req.tf, s.filters);
    std::vector<LoopOrder> orders{LoopOrder::FiltersOuter, LoopOrder::SpatialOuter};
    if (!req.autoOrder)
        orders = {req.order};
    std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
    ConvTiling smallestTiling;
    // Every tiling that fits, in both loop orders, estimated; then, among those within
    // kNearTie of the least estimated time, the one with the least DDR traffic (the estimate does
    // not see DDR bank and read/write turnaround effects, which grow with the traffic).
    constexpr double kNearTie = 0.01;
    struct Candidate {
        ConvTiling t;
        PlanEstimate e;
    };
    std::vector<Candidate> fits;
    double best = std::numeric_limits<double>::infinity();
    std::vector<std::uint64_t> rowsFor(ths.size());
    std::vector<Columns> colsFor(tws.size());
    for (std::size_t i = 0; i < ths.size(); ++i)
        rowsFor[i] = sumValid(ths[i], ho, s.h, s.kh, s.strideH, s.padH);
    for (std::size_t i = 0; i < tws.size(); ++i)
        colsFor[i] = sumColumns(s, tws[i], m.ddrBurst);
    const bool inArray = m.arrayAccumulatorBytes > 0;
    const bool ws = m.dataflow == Dataflow::WeightStationary && !inArray;
    std::uint64_t overAccumulators = 0;  // tilings the SRAM holds whose partial sums the array does not
    const std::uint64_t pixels = std::uint64_t{ho} * wo;
    for (std::uint32_t tf : tfs)
        for (std::uint32_t tc : tcs) {
            // The array's SRAM bytes: per chunk sizes once when they do not depend on the pixels.
            const WsTraffic wsBytes = ws ? wsTraffic(s, tc, tf, m.rows, m.cols) : WsTraffic{};
            const std::uint64_t partials = ws ? partialSumAndOutputBytes(s, tc) : 0;
            for (std::size_t hi = 0; hi < ths.size(); ++hi)
                for (std::size_t wi = 0; wi < tws.size(); ++wi) {
                    ConvTiling t{ths[hi], tws[wi], tc, tf};
                    SramLayout l = sramLayout(s, t, strategy, inArray);
                    if (l.total < smallest) {
                        smallest = l.total;
                        smallestTiling = t;
                    }
                    if (l.total > m.sramBytes)
                        continue;
                    if (inArray && std::uint64_t{t.tf} * t.th * t.tw * 4 > m.arrayAccumulatorBytes) {
                        ++overAccumulators;
                        continue;
                    }
                    const std::uint64_t sram =
                        ws ? partials + spatialTiles(s, t) * wsBytes.perTile + pixels * wsBytes.perPixel
                           : arraySramBytes(s, t, m.rows, m.cols, m.dataflow, inArray);
                    for (LoopOrder o : orders) {
                        // With channels split both orders fetch the same: one estimate.
                        if (o == LoopOrder::SpatialOuter && tc < s.channels && orders.size() == 2)
                            continue;
                        t.order = o;
                        PlanEstimate e =
                            estimateWith(s, t, strategy, m, rowsFor[hi], colsFor[wi], sram, groups);
                        best = std::min(best, e.seconds);
                        if (e.seconds <= best * (1 + kNearTie))
                            fits.push_back({t, e});
                    }
                }
        }
    double chosen = std::numeric_limits<double>::infinity();
    std::uint64_t chosenBytes = std::numeric_limits<std::uint64_t>::max();
    for (const Candidate& c : fits) {
        if (c.e.seconds > best * (1 + kNearTie))
            continue;
        if (c.e.ddrBytes < chosenBytes || (c.e.ddrBytes == chosenBytes && c.e.seconds < chosen)) {
            chosen = c.e.seconds;
            chosenBytes = c.e.ddrBytes;
            out = c.t;
        }
    }
    if (best == std::numeric_limits<double>::infinity() && overAccumulators > 0) {
        message =
            fmt::format("no tiling fits: each one the SRAM holds ({} of them) keeps more partial sums than "
                        "the array's {} B of accumulators hold ({} INT32 outputs: tile_f × tile_h × tile_w)",
                        overAccumulators, m.arrayAccumulatorBytes, m.arrayAccumulatorBytes / 4);
        return false;
    }
    if (best == std::numeric_limits<double>::infinity()) {
        SramLayout l = sramLayout(s, smallestTiling, strategy, inArray);
        message =
            fmt::format("no tiling fits the SRAM: the smallest allowed tile (tile_h {}, tile_w {}, tile_c "
                        "{}, tile_f {}) needs "
                        "{} B ({} B input, {} B weights, {} B {} output per buffer × {} buffers, {} B "
                        "INT32 accumulators, {} B zero line) but the SRAM holds {} B",
                        smallestTiling.th, smallestTiling.tw, smallestTiling.tc, smallestTiling.tf, l.total,
                        l.inBytes, l.weightBytes, l.outBytes, s.requantize() ? "INT8" : "INT32", l.slots,
                        l.accBytes, l.zeroBytes, m.sramBytes);
        return false;
    }
    return true;
}

}  // namespace tessim
