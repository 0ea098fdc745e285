#include "workloads/conv/ConvGeometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace tessim {
namespace {

std::uint64_t align64(std::uint64_t v) { return (v + 63) / 64 * 64; }

std::uint32_t ceilDiv(std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; }

// Σ over tiles of the valid input extent (rows or columns fetched from DDR).
std::uint64_t sumValid(std::uint32_t tile, std::uint32_t outSize, std::uint32_t inSize, std::uint32_t k,
                       std::uint32_t stride, std::uint32_t pad) {
    std::uint64_t sum = 0;
    for (std::uint32_t o = 0; o < outSize; o += tile) sum += tileSpan(o, tile, outSize, inSize, k, stride, pad).valid;
    return sum;
}

// Distinct values of ceil(n / d) for d = 1..n (the tile sizes that give different tile counts).
std::vector<std::uint32_t> candidates(std::uint32_t n) {
    std::vector<std::uint32_t> v;
    for (std::uint32_t d = 1; d <= n; ++d) {
        std::uint32_t t = ceilDiv(n, d);
        if (v.empty() || v.back() != t) v.push_back(t);
    }
    return v;
}

std::vector<std::uint32_t> choices(std::uint32_t requested, std::uint32_t n) {
    if (requested == kFull) return {n};
    if (requested != 0) return {std::min(requested, n)};
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
    t.padBefore = static_cast<std::uint32_t>(first - t.i0);
    t.valid = last > first ? static_cast<std::uint32_t>(last - first) : 0;
    t.padAfter = t.in - t.padBefore - t.valid;
    return t;
}

SramLayout sramLayout(const ConvShape& s, const ConvTiling& t, ConvStrategy strategy) {
    SramLayout l;
    l.slots = strategy == ConvStrategy::DoubleBuffer ? 2 : 1;
    std::uint64_t inH = std::uint64_t{t.th - 1} * s.stride + s.k, inW = std::uint64_t{t.tw - 1} * s.stride + s.k;
    l.inBytes = align64(std::uint64_t{t.tc} * inH * inW);
    l.weightBytes = align64(std::uint64_t{t.tf} * t.tc * s.k * s.k);
    l.outBytes = align64(std::uint64_t{t.tf} * t.th * t.tw * 4);
    l.zeroBytes = s.pad > 0 ? align64(inW) : 0;
    std::uint64_t a = 0;
    for (unsigned i = 0; i < l.slots; ++i) {
        l.slotIn[i] = a; a += l.inBytes;
        l.slotW[i] = a; a += l.weightBytes;
        l.slotOut[i] = a; a += l.outBytes;
    }
    l.zero = a;
    a += l.zeroBytes;
    l.total = a;
    return l;
}

std::uint64_t inputFetchBytes(const ConvShape& s, const ConvTiling& t) {
    std::uint64_t nF = ceilDiv(s.filters, t.tf);
    return nF * s.channels * sumValid(t.th, s.outH(), s.h, s.k, s.stride, s.pad) *
           sumValid(t.tw, s.outW(), s.w, s.k, s.stride, s.pad);
}

bool planTiling(const ConvShape& s, ConvStrategy strategy, const TileRequest& req, const PlannerMachine& m,
                ConvTiling& out, std::string& message) {
    const std::uint32_t ho = s.outH(), wo = s.outW();
    auto ths = choices(req.th, ho), tws = choices(req.tw, wo), tcs = choices(req.tc, s.channels),
         tfs = choices(req.tf, s.filters);
    // Valid input rows / columns per candidate, computed once.
    std::vector<std::uint64_t> rowsFor(ths.size()), colsFor(tws.size());
    for (std::size_t i = 0; i < ths.size(); ++i) rowsFor[i] = sumValid(ths[i], ho, s.h, s.k, s.stride, s.pad);
    for (std::size_t i = 0; i < tws.size(); ++i) colsFor[i] = sumValid(tws[i], wo, s.w, s.k, s.stride, s.pad);
    const double bw = m.ddrBytesPerSecond * 0.8;  // assumption: sustained ≈ 80 % of peak
    const double side = std::sqrt(m.macsPerCycle);
    const double stepLatency = 2e-6;              // assumption: DMA set-up + DDR latency per step
    double best = std::numeric_limits<double>::infinity();
    std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
    ConvTiling smallestTiling;
    // Channel and filter splits cost weight reloads, partial-sum traffic and array mapping
    // efficiency (a short window under-fills the array), so the largest (tile_c, tile_f) for which
    // some spatial tile fits is taken first (channels kept whole before filters); the spatial tile
    // is then the one with the least estimated time.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint32_t tf : tfs)
        for (std::uint32_t tc : tcs) pairs.emplace_back(tc, tf);
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
        return std::uint64_t{a.first} * a.second > std::uint64_t{b.first} * b.second ||
               (std::uint64_t{a.first} * a.second == std::uint64_t{b.first} * b.second && a.first > b.first);
    });
    for (const auto& [tc, tf] : pairs) {
        if (best != std::numeric_limits<double>::infinity()) break;
        for (std::size_t hi = 0; hi < ths.size(); ++hi)
            for (std::size_t wi = 0; wi < tws.size(); ++wi) {
                {
                    ConvTiling t{ths[hi], tws[wi], tc, tf};
                    SramLayout l = sramLayout(s, t, strategy);
                    if (l.total < smallest) { smallest = l.total; smallestTiling = t; }
                    if (l.total > m.sramBytes) continue;
                    const double nH = ceilDiv(ho, t.th), nW = ceilDiv(wo, t.tw), nC = ceilDiv(s.channels, tc),
                                 nF = ceilDiv(s.filters, tf);
                    const double steps = nH * nW * nC * nF;
                    // DDR bytes, with short DMA rows rounded up to 64-byte bursts.
                    auto eff = [](double rowBytes) { return std::ceil(rowBytes / 64.0) * 64.0 / rowBytes; };
                    double inRow = std::min<double>(s.w, double(t.tw - 1) * s.stride + s.k);
                    double in = nF * s.channels * double(rowsFor[hi]) * double(colsFor[wi]) * eff(inRow);
                    double outB = double(s.filters) * ho * wo * 4 * eff(t.tw * 4.0);
                    double wBytes = double(s.filters) * s.channels * s.k * s.k;
                    double weights = (nC > 1 || nF > 1) ? wBytes * nH * nW : wBytes;
                    double mem = (in + outB + weights) / bw;
                    double comp = double(s.macs()) / m.macsPerSecond * (1.0 + 3.0 * side / (double(t.th) * t.tw));
                    double time = strategy == ConvStrategy::DoubleBuffer
                                      ? std::max(mem, comp) + mem / steps + stepLatency
                                      : mem + comp + steps * stepLatency;
                    if (time < best * (1 - 1e-9)) {
                        best = time;
                        out = t;
                    }
                }
            }
    }
    if (best == std::numeric_limits<double>::infinity()) {
        SramLayout l = sramLayout(s, smallestTiling, strategy);
        message = fmt::format(
            "no tiling fits the SRAM: the smallest allowed tile (tile_h {}, tile_w {}, tile_c {}, tile_f {}) needs "
            "{} B ({} B input, {} B weights, {} B output per buffer × {} buffers, {} B zero line) but the SRAM holds {} B",
            smallestTiling.th, smallestTiling.tw, smallestTiling.tc, smallestTiling.tf, l.total, l.inBytes,
            l.weightBytes, l.outBytes, l.slots, l.zeroBytes, m.sramBytes);
        return false;
    }
    return true;
}

}  // namespace tessim
