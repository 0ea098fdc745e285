// One convolution layer as its plan resolved it (kernel conv2d): shape, requantisation,
// strategy, tiles, SRAM layout, DDR buffers, DMA tags and channels; the bytes it moves and the
// report JSON of its shape, tiles and fetches. Shared by the stream, the reference and the kernel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/machine/TargetInfo.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {

// DMA tags of layer i: 5i+1, 5i+2 input buffers, 5i+3, 5i+4 output buffers, 5i+5 zero line.
constexpr std::uint32_t kTagsPerLayer = 5;

// The layer's four DMA streams and the channel each takes on a DMA with 1, 2, 3 or ≥ 4 channels:
// the input (the largest stream) keeps a channel of its own whenever there are two; the weights,
// the write-back and the zero fill share what is left. Channels 4, 5, ... take a share of the
// input's channel planes (ConvStream::load).
enum class DmaStream : unsigned { Input, Weights, Output, Zero };
inline unsigned dmaChannelFor(DmaStream stream, unsigned channels) {
    static constexpr unsigned kChannel[4][4] = {
        {0, 0, 0, 0},  // one channel
        {0, 1, 1, 1},  // two
        {0, 1, 2, 1},  // three
        {0, 1, 2, 3},  // four or more
    };
    return kChannel[std::min(channels, 4u) - 1][static_cast<unsigned>(stream)];
}

struct ConvParams {
    std::string name;
    std::uint32_t index = 0;      // position in the layer list
    ConvShape s;                  // s.outBytes: 1 (output_dtype i8, requantised) or 4 (i32)
    std::int32_t multiplier = 1;  // requantisation (i8): see MacTileArgs
    std::uint32_t shift = 0;
    ConvStrategy strategy = ConvStrategy::DoubleBuffer;
    std::string strategyName;
    ConvTiling t;
    SramLayout layout;
    std::string engine;
    const MemorySpaceInfo* sram = nullptr;
    const MemorySpaceInfo* ddr = nullptr;
    unsigned dmaChannels = 4;
    std::uint64_t ddrIn = 0, ddrW = 0, ddrOut = 0, ddrZero = 0;
    std::uint32_t nH = 0, nW = 0, nC = 0, nF = 0;  // tiles of one group (nC, nF: of its channels, filters)
    std::uint32_t nG = 1;                          // groups, one after the other
    double macsPerSecond = 1e12;
    PlanEstimate estimate;
    std::uint64_t arraySramBytes = 0;  // operand bytes the engine's MAC array streams (0: no array)
    std::string arraySource;           // where the planner's array geometry came from
    bool inArray = false;              // plan `accumulate: array`: partial sums stay in the MAC array
    std::uint64_t steps() const { return std::uint64_t{nG} * nH * nW * nC * nF; }
    std::uint32_t tagIn(unsigned slot) const { return kTagsPerLayer * index + 1 + slot; }
    std::uint32_t tagOut(unsigned slot) const { return kTagsPerLayer * index + 3 + slot; }
    std::uint32_t tagInit() const { return kTagsPerLayer * index + 5; }
    std::uint64_t saltIn() const { return 2 * std::uint64_t{index} + 1; }
    std::uint64_t saltW() const { return 2 * std::uint64_t{index} + 2; }
};

std::uint64_t outputBytes(const ConvParams& p);
std::uint64_t weightBytes(const ConvParams& p);
std::uint64_t inputBytes(const ConvParams& p);
// Input bytes some output needs: all of them unless the stride skips rows or columns (k < stride).
std::uint64_t touchedInputBytes(const ConvParams& p);
nlohmann::ordered_json shapeJson(const ConvParams& p);
nlohmann::ordered_json tilesJson(const ConvParams& p);
nlohmann::ordered_json fetchJson(const ConvParams& p);

}  // namespace tessim
