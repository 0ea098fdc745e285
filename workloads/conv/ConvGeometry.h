// Shapes of a convolution layer and of its tiles (halo: H_in_tile = (H_out_tile − 1)·S + K),
// the SRAM footprint of a tiling and the planner that picks a tiling that fits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessim {

struct ConvShape {
    std::uint32_t h = 0, w = 0, channels = 0, filters = 0, k = 0, stride = 1, pad = 0;
    std::uint32_t outH() const { return (h + 2 * pad - k) / stride + 1; }
    std::uint32_t outW() const { return (w + 2 * pad - k) / stride + 1; }
    std::uint64_t macs() const {
        return std::uint64_t{outH()} * outW() * filters * channels * k * k;
    }
};

enum class ConvStrategy { Naive, StaticSingle, DoubleBuffer };

struct ConvTiling {
    std::uint32_t th = 1, tw = 1, tc = 1, tf = 1;
};

// A tile dimension: the range of outputs [o0, o0+n) and the input range it needs, clipped to
// the image (valid) with the padding before and after it.
struct TileSpan {
    std::uint32_t o0 = 0, n = 0;     // outputs
    std::int64_t i0 = 0;             // first input index (may be negative: padding)
    std::uint32_t in = 0;            // input extent (n − 1)·S + K
    std::uint32_t padBefore = 0, valid = 0, padAfter = 0;
};
TileSpan tileSpan(std::uint32_t o0, std::uint32_t tile, std::uint32_t outSize, std::uint32_t inSize,
                  std::uint32_t k, std::uint32_t stride, std::uint32_t pad);

struct SramLayout {
    std::uint32_t slots = 1;          // input+weight buffers (2 when double-buffered)
    std::uint64_t inBytes = 0, weightBytes = 0, outBytes = 0, zeroBytes = 0;
    std::uint64_t slotIn[2] = {0, 0}, slotW[2] = {0, 0}, slotOut[2] = {0, 0}, zero = 0;
    std::uint64_t total = 0;
};
SramLayout sramLayout(const ConvShape& s, const ConvTiling& t, ConvStrategy strategy);

// DDR bytes a tiling reads for the input (halo included), closed form.
std::uint64_t inputFetchBytes(const ConvShape& s, const ConvTiling& t);

// Requested tile sizes: 0 = auto, UINT32_MAX = full extent.
struct TileRequest {
    std::uint32_t th = 0, tw = 0, tc = 0, tf = 0;
};
constexpr std::uint32_t kFull = 0xFFFFFFFFu;

struct PlannerMachine {
    std::uint64_t sramBytes = 0;
    double ddrBytesPerSecond = 1e10;
    double macsPerSecond = 1e12;
    double macsPerCycle = 1024;
};

// Best tiling for the strategy among those that fit; returns false when none fits (message set).
bool planTiling(const ConvShape& s, ConvStrategy strategy, const TileRequest& req, const PlannerMachine& m,
                ConvTiling& out, std::string& message);

}  // namespace tessim
