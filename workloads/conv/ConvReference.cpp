#include "workloads/conv/ConvReference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/ir/Int8Dot.h"
#include "workloads/common/TestData.h"

namespace tessim {
namespace {

// The requantisation of MacTileArgs, written out independently of requantizeI8 (quotient and
// remainder of |acc · multiplier| by 2^shift; a remainder of half or more rounds away from 0).
std::int32_t referenceRequant(std::int32_t acc, std::int32_t multiplier, std::uint32_t shift) {
    const std::int64_t prod = std::int64_t{acc} * multiplier;
    const std::uint64_t mag =
        prod < 0 ? 0 - static_cast<std::uint64_t>(prod) : static_cast<std::uint64_t>(prod);
    std::uint64_t q = shift == 0 ? mag : mag >> shift;
    if (shift > 0 && mag - (q << shift) >= (std::uint64_t{1} << (shift - 1)))
        ++q;
    const std::int64_t v = prod < 0 ? -static_cast<std::int64_t>(q) : static_cast<std::int64_t>(q);
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -128, 127));
}

}  // namespace

void checkConvLayer(const ConvParams& p, FunctionalMemory& memory, bool listed, FunctionalCheck& c) {
    const auto& s = p.s;
    const std::uint32_t ho = s.outH(), wo = s.outW();
    std::vector<std::int32_t> got(s.outputs());
    if (s.requantize()) {
        std::vector<std::int8_t> q(got.size());
        memory.read(p.ddr->id, p.ddrOut, q.data(), q.size());
        std::copy(q.begin(), q.end(), got.begin());
    } else {
        memory.read(p.ddr->id, p.ddrOut, got.data(), got.size() * 4);
    }
    const std::string where = listed ? fmt::format("layer {} ({}) ", p.index, p.name) : std::string();
    // Every input and weight once, widened to int16: a test value is a hash, and recomputing
    // it for each MAC would cost far more than the convolution itself.
    const std::uint32_t cg = s.groupChannels(), gf = s.groupFilters();
    std::vector<std::int16_t> in(std::uint64_t{s.channels} * s.h * s.w);
    std::vector<std::int16_t> weights(std::uint64_t{s.filters} * cg * s.taps());
    for (std::uint64_t i = 0; i < in.size(); ++i)
        in[i] = testInt8(i, p.saltIn());
    for (std::uint64_t i = 0; i < weights.size(); ++i)
        weights[i] = testInt8(i, p.saltW());
    // Direct convolution: output (f, y, x) sums, over the cg channels ch of f's group and (ky, kx),
    // the weight times the input at (y·strideH + ky − padH, x·strideW + kx − padW), zero in the
    // padding. The receptive field of (y, x) in a group is gathered once, in the weights' order,
    // for every filter of that group.
    const std::uint64_t taps = std::uint64_t{cg} * s.taps();
    std::vector<std::int16_t> field(2 * taps);
    std::vector<std::int32_t> sums(std::uint64_t{s.filters} * wo);    // one output row
    std::vector<const std::int16_t*> rows(std::uint64_t{cg} * s.kh);  // null: padding
    for (std::uint32_t y = 0; y < ho; ++y) {
        std::fill(sums.begin(), sums.end(), 0);
        for (std::uint32_t g = 0; g < s.groups; ++g) {
            for (std::uint32_t ch = 0; ch < cg; ++ch)
                for (std::uint32_t ky = 0; ky < s.kh; ++ky) {
                    const std::int64_t iy = std::int64_t{y} * s.strideH + ky - s.padH;
                    const std::uint64_t c = std::uint64_t{g} * cg + ch;
                    rows[std::uint64_t{ch} * s.kh + ky] =
                        iy < 0 || iy >= s.h ? nullptr
                                            : in.data() + (c * s.h + static_cast<std::uint64_t>(iy)) * s.w;
                }
            for (std::uint32_t x = 0; x < wo; x += 2) {
                const std::uint32_t pair = std::min(2u, wo - x);  // two outputs share the weights' loads
                std::int16_t* f = field.data();
                for (std::uint32_t j = 0; j < pair; ++j) {
                    const std::int64_t left = std::int64_t{x + j} * s.strideW - s.padW;  // column of kx = 0
                    const bool inside = left >= 0 && left + s.kw <= s.w;
                    for (const std::int16_t* row : rows)
                        for (std::uint32_t kx = 0; kx < s.kw; ++kx) {
                            const std::int64_t ix = left + kx;
                            *f++ = row && (inside || (ix >= 0 && ix < s.w)) ? row[ix] : std::int16_t{0};
                        }
                }
                accumulateDots(field.data(), pair, weights.data() + std::uint64_t{g} * gf * taps, taps, gf,
                               wo, sums.data() + std::uint64_t{g} * gf * wo + x);
            }
        }
        for (std::uint32_t f = 0; f < s.filters; ++f)
            for (std::uint32_t x = 0; x < wo; ++x) {
                std::int32_t acc = sums[std::uint64_t{f} * wo + x];
                if (s.requantize())
                    acc = referenceRequant(acc, p.multiplier, p.shift);
                std::uint64_t idx = (std::uint64_t{f} * ho + y) * wo + x;
                if (c.countOutput(got[idx], acc, got[idx] != acc)) {
                    c.firstMismatch = fmt::format("{}output [{}][{}][{}]: simulated {} reference {}", where,
                                                  f, y, x, got[idx], acc);
                    c.locateFirstMismatch(p.ddr->id, p.ddrOut + idx * (s.requantize() ? 1 : 4));
                }
            }
    }
}

}  // namespace tessim
