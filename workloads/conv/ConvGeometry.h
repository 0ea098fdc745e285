// Shapes of a convolution layer and of its tiles (halo: H_in_tile = (H_out_tile − 1)·S_H + K_H),
// the SRAM footprint of a tiling and the planner that picks a tiling that fits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine/MacArrayMapping.h"

namespace tessim {

// outBytes: bytes of an output element in DDR: 1 when the array requantises the INT32
// accumulators to INT8 (output_dtype i8), 4 when the accumulators themselves are written (i32).
// groups: the channels and filters split into that many independent convolutions (grouped
// convolution; depthwise when groups = channels): filter f sees only the channels/groups input
// channels of its group f / (filters/groups). Weights are filters × channels/groups × kh × kw.
// The kernel is kh rows by kw columns; padH rows of zeros above and below the input, padW columns
// left and right; the window moves strideH rows down and strideW columns across (ONNX's strides).
struct ConvShape {
    std::uint32_t h = 0, w = 0, channels = 0, filters = 0, kh = 0, kw = 0, strideH = 1, strideW = 1, padH = 0,
                  padW = 0;
    std::uint32_t outBytes = 1;
    std::uint32_t groups = 1;
    bool requantize() const { return outBytes == 1; }
    std::uint64_t outputs() const { return std::uint64_t{outH()} * outW() * filters; }
    std::uint32_t outH() const { return (h + 2 * padH - kh) / strideH + 1; }
    std::uint32_t outW() const { return (w + 2 * padW - kw) / strideW + 1; }
    std::uint64_t taps() const { return std::uint64_t{kh} * kw; }  // kernel positions per channel
    bool padded() const { return padH > 0 || padW > 0; }
    std::uint32_t groupChannels() const { return channels / groups; }
    std::uint32_t groupFilters() const { return filters / groups; }
    std::uint64_t macs() const { return std::uint64_t{outH()} * outW() * filters * groupChannels() * taps(); }
    // One group alone: the convolution of groupChannels() channels by groupFilters() filters that
    // each of the `groups` groups is (the shape itself when groups = 1).
    ConvShape group() const {
        ConvShape g = *this;
        g.channels = groupChannels();
        g.filters = groupFilters();
        g.groups = 1;
        return g;
    }
};

// The taps of output pixel `pixel`'s window (row-major over outH × outW) that lie over the input,
// padding left out, row by row: f(input pixel iy·w + ix, tap ky·kw + kx).
template <class F> void forEachInputTap(const ConvShape& s, std::uint64_t pixel, F f) {
    const auto oy = static_cast<std::int64_t>(pixel / s.outW()),
               ox = static_cast<std::int64_t>(pixel % s.outW());
    for (std::uint32_t ky = 0; ky < s.kh; ++ky) {
        const std::int64_t iy = oy * s.strideH - s.padH + ky;
        if (iy < 0 || iy >= s.h)
            continue;
        for (std::uint32_t kx = 0; kx < s.kw; ++kx) {
            const std::int64_t ix = ox * s.strideW - s.padW + kx;
            if (ix >= 0 && ix < s.w)
                f(static_cast<std::uint64_t>(iy) * s.w + static_cast<std::uint64_t>(ix),
                  std::uint64_t{ky} * s.kw + kx);
        }
    }
}

enum class ConvStrategy { Naive, StaticSingle, DoubleBuffer };

// Loop nest over the steps (input-channel chunks are always innermost, so that partial sums
// accumulate in one output buffer):
//   FiltersOuter: for f { for h { for w { for c } } } — a filter group's weights stay resident
//                 while the spatial tiles stream (weights fetched once when tile_c is full);
//   SpatialOuter: for h { for w { for f { for c } } } — a spatial tile's input stays resident
//                 while the filter groups stream (input fetched once when tile_c is full).
// An operand is fetched from DDR only when the step's chunk of it differs from the previous
// step's; a fetched operand goes to the other ping-pong buffer (double-buffer).
enum class LoopOrder { FiltersOuter, SpatialOuter };
const char* loopOrderName(LoopOrder o);

struct ConvTiling {
    std::uint32_t th = 1, tw = 1, tc = 1, tf = 1;
    LoopOrder order = LoopOrder::FiltersOuter;
};

// A tile dimension: the range of outputs [o0, o0+n) and the input range it needs, clipped to
// the image (valid) with the padding before and after it.
struct TileSpan {
    std::uint32_t o0 = 0, n = 0;  // outputs
    std::int64_t i0 = 0;          // first input index (may be negative: padding)
    std::uint32_t in = 0;         // input extent (n − 1)·S + K
    std::uint32_t padBefore = 0, valid = 0, padAfter = 0;
};
TileSpan tileSpan(std::uint32_t o0, std::uint32_t tile, std::uint32_t outSize, std::uint32_t inSize,
                  std::uint32_t k, std::uint32_t stride, std::uint32_t pad);

// Per slot an input, a weight and an output buffer (the one the write-back DMA reads: INT8
// outputs when requantising, else the INT32 accumulators). When requantising, the INT32
// accumulators sit in one more buffer, `acc`, shared by the slots: the array runs its tiles in
// order and the write-back reads only the INT8 buffer, so tile k+1 may accumulate there while
// tile k's INT8 outputs are written back. With the partial sums in the array (inArray) there is
// no `acc`: the output buffer takes the INT8 outputs, or the INT32 results the array drains.
struct SramLayout {
    std::uint32_t slots = 1;  // input+weight+output buffers (2 when double-buffered)
    std::uint64_t inBytes = 0, weightBytes = 0, outBytes = 0, accBytes = 0, zeroBytes = 0;
    std::uint64_t slotIn[2] = {0, 0}, slotW[2] = {0, 0}, slotOut[2] = {0, 0}, acc = 0, zero = 0;
    std::uint64_t total = 0;
    // Where a tile of output slot `slot` accumulates its INT32 partial sums.
    std::uint64_t accumulator(unsigned slot) const { return accBytes > 0 ? acc : slotOut[slot]; }
};
SramLayout sramLayout(const ConvShape& s, const ConvTiling& t, ConvStrategy strategy, bool inArray = false);

// DDR bytes a tiling reads for the input (halo included) and for the weights, re-fetches of the
// loop order included, closed form (an operand is fetched when its chunk changes between steps).
// Grouped shapes: the groups run one after the other, each tiled alike (tile_c and tile_f are
// chunks of a group's channels and filters), so every figure is `groups` times one group's.
std::uint64_t inputFetchBytes(const ConvShape& s, const ConvTiling& t);
std::uint64_t weightFetchBytes(const ConvShape& s, const ConvTiling& t);

// Requested tile sizes: 0 = auto, UINT32_MAX = full extent.
struct TileRequest {
    std::uint32_t th = 0, tw = 0, tc = 0, tf = 0;
    bool autoOrder = true;
    LoopOrder order = LoopOrder::FiltersOuter;  // when !autoOrder
};
constexpr std::uint32_t kFull = 0xFFFFFFFFu;

struct PlannerMachine {
    std::uint64_t sramBytes = 0;
    double ddrBytesPerSecond = 1e10;
    double clockHz = 1e9;  // the MAC array's clock
    // The MAC array the tiles run on: its SCALE-Sim cycle formula (mapTile) times each tile.
    unsigned rows = 32, cols = 32;
    Dataflow dataflow = Dataflow::WeightStationary;
    // DMA bursts of at most dmaBurst bytes (configs/targets/npu.yaml: dma.burst), each a DDR
    // request; the DDR serves about one request per ddrRequestSeconds however small (assumption,
    // measured on tessim's LPDDR4X-4266 model, 4 × x16: double-buffered conv1080p tiles with rows
    // of 28 to 240 B stall where requests × 6 ns exceed the step's compute, not before).
    double dmaBurst = 256, ddrRequestSeconds = 4.5e-9;
    // The DDR's burst (a row of b bytes at an arbitrary alignment moves b − 1 + burst bytes on
    // average; 0: exactly its bytes) and the SRAM's peak bandwidth, all ports (0: unlimited).
    double ddrBurst = 0, sramBytesPerSecond = 0;
    // > 0: the partial sums stay in the array (plan `accumulate: array`), whose accumulators hold
    // this many bytes: no INT32 buffer in the SRAM, and a tile's tile_f·tile_h·tile_w · 4 B must fit.
    std::uint64_t arrayAccumulatorBytes = 0;
};

// The planner's estimate of a tiling: array cycles of all tiles (stall-free, requantisation
// included: requantCycles per output tile), DDR bytes on the bus (whole bursts,
// with the loop order's re-fetches), the SRAM bytes the array streams (operandTraffic) and
// seconds (max(compute, DMA) per step when double-buffered, their sum when not; compute is the
// array's cycles or its SRAM bytes at the SRAM's bandwidth, whichever takes longer).
struct PlanEstimate {
    std::uint64_t computeCycles = 0;
    std::uint64_t ddrBytes = 0;
    std::uint64_t sramBytes = 0;
    double seconds = 0.0;
};
// SRAM bytes the array streams over all the tiles of a tiling (OperandTraffic, summed); inArray:
// with the partial sums in the array (each output leaves once: INT8, or INT32 drained).
std::uint64_t arraySramBytes(const ConvShape& s, const ConvTiling& t, unsigned rows, unsigned cols,
                             Dataflow dataflow, bool inArray = false);
PlanEstimate estimatePlan(const ConvShape& s, const ConvTiling& t, ConvStrategy strategy,
                          const PlannerMachine& m);

// Best tiling (tile sizes and loop order) for the strategy among those that fit, by least
// estimated time; returns false when none fits (message set).
bool planTiling(const ConvShape& s, ConvStrategy strategy, const TileRequest& req, const PlannerMachine& m,
                ConvTiling& out, std::string& message);

}  // namespace tessim
