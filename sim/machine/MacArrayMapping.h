// How a tile maps onto a systolic MAC array, as SCALE-Sim counts it: folds, cycles per fold, the
// SRAM bytes each operand streams and the requantisation cycles. The array model
// (models/compute/SystolicArray) times tiles with it and schedule planners estimate tilings with
// it, so both see one formula.
#pragma once

#include <cstdint>
#include <string>

#include "sim/ir/Op.h"

namespace tessim {

enum class Dataflow : std::uint8_t { OutputStationary, WeightStationary, InputStationary };
// "os", "ws" or "is" (MacArrayInfo::dataflow, the YAML's dataflow); weight stationary otherwise.
Dataflow dataflowFromName(const std::string& name);

// SCALE-Sim's mapping of a tile: Sr × Sc operands spatially, T temporally.
struct SystolicMapping {
    std::uint64_t sr = 0, sc = 0, t = 0;
    std::uint64_t folds = 0;
    std::uint64_t cyclesPerFold = 0;
    std::uint64_t cycles() const { return folds * cyclesPerFold; }
};

SystolicMapping mapTile(unsigned rows, unsigned cols, Dataflow dataflow, std::uint64_t outPixels,
                        std::uint64_t filters, std::uint64_t window);

// SRAM bytes one tile streams, as SCALE-Sim counts them: the stationary operand is loaded once,
// the streamed one once per fold of the other dimension, partial sums written once per row fold
// (column fold for os: once); accumulating tiles read their partial sums, requantising tiles
// write one INT8 per output.
struct OperandTraffic {
    std::uint64_t input = 0, weights = 0, accumulatorRead = 0, accumulatorWrite = 0, outputWrite = 0;
    // Partial-sum bytes read and written inside the array's accumulators (MacTileArgs::inArray):
    // the accumulator traffic above, kept off the SRAM (a drain's write to `out` stays above).
    std::uint64_t inArrayBytes = 0;
    std::uint64_t reads() const { return input + weights + accumulatorRead; }
    std::uint64_t writes() const { return accumulatorWrite + outputWrite; }
};
OperandTraffic operandTraffic(unsigned rows, unsigned cols, Dataflow dataflow, const MacTileArgs& a);

// Requantising outputs costs ceil(outputs / cols) array cycles per tile (0 without).
std::uint64_t requantCycles(const MacTileArgs& a, unsigned cols);

}  // namespace tessim
