// The plan of the shuffle convolution (ShuffleConvKernel): its problem and machine figures, input
// blocks, channel passes, and the software-pipelined loop body of each pass height.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/Reader.h"
#include "workloads/ftm/DspConvProblem.h"
#include "workloads/ftm/ModuloScheduler.h"
#include "workloads/ftm/ScalarDataMemory.h"

namespace tessim {
namespace shuffle {

inline constexpr unsigned kMaxUnroll = 8;      // output chunks per iteration the planner tries
inline constexpr unsigned kMemoryLatency = 2;  // cycles the AM adds to a load (assumption, as the target)

// One op of the loop body and what it does. At stride S > 1 the S lane phases of an input row
// (elements ph, ph + S, ph + 2S …) come either from strided loads, one a phase, or — seed 003's
// "shuffle mode configured by the stride" — from S contiguous loads that a Deal (a slide at
// stride S) splits into phases.
enum class BodyRole { Load, Deal, Slide, Broadcast, Partial, Fma, Store, Count, Compare, Branch };
struct BodyOp {
    BodyRole role;
    // Phase (a Load's register within its chunk's S when phases are dealt), chunk, kernel row (in
    // the pass), kernel column.
    unsigned p = 0, u = 0, j = 0, kx = 0;
};

// A pipelined loop body for one pass height (kernel rows per pass) and unroll (chunks per iteration).
struct Body {
    unsigned kp = 0, unroll = 0, rowSlots = 0;
    std::vector<BodyOp> ops;
    ModuloSchedule schedule;
    std::vector<unsigned> copies, base;  // rotating registers of each value op
    std::vector<std::vector<unsigned>> byResidue;
    unsigned vectorRegisters = 0;
    std::uint64_t fmas = 0;
    // Per op, the body ops its sources come from: a slide's two phase vectors; a deal's S loads; an
    // fma's phase vector or slid value and its broadcast (looked up once, not per op materialised).
    std::vector<std::array<unsigned, 3>> sources;

    unsigned find(BodyRole role, unsigned ph, unsigned u, unsigned j, unsigned kx) const {
        for (std::size_t n = 0; n < ops.size(); ++n) {
            const BodyOp& o = ops[n];
            if (o.role == role && o.p == ph && o.u == u && o.j == j && o.kx == kx)
                return static_cast<unsigned>(n);
        }
        return 0;
    }
};

// A block of output rows and where its data sits. Double-buffered: its input rows (halo
// included) are fetched into the block's ping-pong buffer. Resident (single buffer): the whole
// map and its outputs stay in the AM and a block fetches only the rows it adds.
struct Block {
    std::uint32_t r0 = 0, r1 = 0;             // output rows [r0, r1)
    std::uint32_t in0 = 0, inRows = 0;        // input rows it reads
    std::uint32_t fetch0 = 0, fetchRows = 0;  // input rows its DMA brings from DDR
    std::uint32_t real0 = 0, realRows = 0;    // of those, the map's rows (not padding), map coordinates
    std::uint64_t inAddr = 0;                 // AM address of input row in0
    std::uint64_t fetchAddr = 0;              // AM address of input row fetch0
    std::uint64_t outAddr = 0;                // AM address of output row r0 of the core's first filter
    std::uint32_t tag = 0;                    // DMA tag of its input
    // The input channels [c0, c1) it brings and its passes (over those channels). Where the input
    // rows of every channel do not fit the AM beside the outputs, a block of output rows is taken
    // in channel groups one after the other, its outputs staying in the AM (accumulated by each
    // group's passes) until the last group's are done.
    unsigned c0 = 0, c1 = 0;
    std::uint32_t firstPass = 0, passCount = 0;
    std::uint32_t rowBlock = 0;  // the block of output rows (its output buffer: rowBlock % 2)
    bool firstGroup = true, lastGroup = true;
};

// A pass: kernel rows [k0, k0 + kp) of one input channel; passes after the first accumulate onto
// the partial sums the previous one stored.
struct Pass {
    unsigned channel = 0, k0 = 0, kp = 0;
};

struct ShuffleParams : DspConvProblem {
    unsigned lanes = 16, chunks = 0;
    std::uint64_t inPlaneStride = 0;  // AM bytes between the channels of an input buffer
    std::uint8_t am = 0, group = 0;
    unsigned fmaLatency = 4, loadLatency = 1, slideLatency = 2;
    double loadCycles = 1.0, stridedLoadCycles = 1.0;  // a load/store unit's cycles per vector
    bool dealPhases = false;  // sw > 1: phases dealt by the shuffle from contiguous loads, not strided loads
    // Seed 003's loop order: an iteration takes one output row through the pass's kernel rows (each
    // input row loaded K/S times, one accumulator a vector); else one input row into the K/S
    // output rows it feeds (each loaded once).
    bool outputRowOrder = false;
    unsigned fmacs = 3, lsus = 2, shufflers = 1, vectorSlots = 6;
    unsigned broadcasters = 1, scalarSlots = 5, broadcastLatency = 2, scalarAlus = 1, branchUnits = 1;
    bool explicitBroadcast = false;  // kernel elements broadcast into vector registers in the loop
    ScalarDataMemory scalarMemory;   // where the kernel elements are loaded from
    unsigned vectorRegisters = 64, scalarRegisters = 64;
    std::vector<Pass> passes;
    std::vector<Body> bodies;  // one per distinct pass height
    std::vector<Block> blocks;
    bool doubleBuffer = false;
    std::string buffering;
    std::uint64_t inBuf[2] = {0, 0}, outBuf[2] = {0, 0}, inBufBytes = 0, outBufBytes = 0, amBytes = 0;
    std::uint32_t maxBlockRows = 0;
    unsigned groupChannels = 0;            // input channels per block (all of them, unless in groups)
    std::uint32_t largestResidentMap = 0;  // largest N: an N×N map and its outputs fit the AM
    std::uint32_t largestStreamedMap = 0;  // largest N: two blocks of one output row of an N×N map fit
    std::uint64_t outFilterStride = 0;     // AM bytes between the output rows of consecutive filters

    const Body& body(unsigned kp) const {
        for (const auto& b : bodies)
            if (b.kp == kp)
                return b;
        return bodies.front();
    }
    std::uint64_t inputDdrBytes() const {
        std::uint64_t rowChannels = 0;
        for (const auto& b : blocks)
            rowChannels += std::uint64_t{b.realRows} * (b.c1 - b.c0);
        return rowChannels * w * elem;
    }
};

// The loop body that plans one pass of kp kernel rows: the unroll (`requested`, or the planner's
// choice) and accumulator slots with the most chunks per cycle that fit the registers; memoised
// per process on the figures it depends on.
Body cachedPlanBody(const ShuffleParams& p, unsigned kp, unsigned requested, bool partial,
                    const config::Reader& pl);

// Output-row order: the most kernel rows per pass, up to maxRows, whose loop body at unroll 1
// fits the vector registers (1 if none does; planning that pass then says why).
unsigned largestFittingPass(const ShuffleParams& p, unsigned maxRows);

}  // namespace shuffle
}  // namespace tessim
