// A systolic MAC array (impl: systolic): rows × cols INT8 MACs with INT32 accumulation, dataflow
// os | ws | is. Executes OpKind::MacTile; a tile's cycle count is SCALE-Sim v2's stall-free
// formula (docs/sources/scalesim-compat.md): folds × (fill + skew + T + drain).
// The tile's operand reads and result writes (OperandTraffic) stream through the SRAM that holds
// them (streamOperands, through the engine's ports): its banks and ports may stretch a tile.
// Requantisation (MacTileArgs::requantize): the tile's INT32 outputs leave the array's columns
// into a post-processing stage that multiplies, rounds, shifts and clamps one output row of the
// array (cols outputs) per cycle: ceil(outputs / cols) cycles after the tile's formula cycles
// (assumption: one requantiser per column, as the accumulators drain column-wise).
// Grouped and depthwise convolutions arrive one group per tile (channels and filters of one
// group): each group is its own small GEMM, so a 3×3 depthwise tile fills k² = 9 rows and one
// column of a weight-stationary array, and its utilisation is what that mapping gives.
// Accumulators in the array (`accumulators: SIZE`, assumption-marked in a target; MacTileArgs::
// inArray): a tile's INT32 partial sums may stay in the array between the channel chunks of one
// output tile, off the SRAM, as TPU-style accumulator memories keep them; a tile whose outputs × 4
// B exceed them is refused. Their reads and writes cost `energy.accumulator_per_byte`; without it,
// the energy section's `array:` (the SRAM array model, sim/energy/SramArrayModel.h) prices them by
// their size — one bank per column, INT32 words, a read and a write port — and adds their leakage
// and area; without either, psum_write_per_byte (what the same bytes would cost in the SRAM).
// A MacTile with no output (outH·outW = 0) is a fence: it occupies the array one cycle after the
// work before it, so the next op (a DMA start of a write-back) issues only after it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/Reader.h"
#include "sim/engine/FunctionalUnit.h"
#include "sim/ir/OpTable.h"
#include "sim/machine/MacArrayMapping.h"

namespace tessim {

struct SystolicConfig {
    std::string name;
    unsigned rows = 32;
    unsigned cols = 32;
    Dataflow dataflow = Dataflow::WeightStationary;
    double joulesPerMac = 0.0;              // one INT8 multiply + INT32 accumulate
    double joulesPerSramReadByte = 0.0;     // operand bytes fed from the on-chip SRAM
    double joulesPerSramWriteByte = 0.0;    // partial-sum (and INT8 output) bytes written back
    double joulesPerRequant = 0.0;          // one output requantised: INT32 multiply + round + shift
    double joulesPerAccumulatorByte = 0.0;  // a partial-sum byte read or written in the array
    std::uint64_t accumulatorBytes = 0;     // INT32 partial sums the array holds (0: none)
    double accumulatorStaticWatts = 0.0;    // their leakage, from the SRAM array model
    double accumulatorAreaMm2 = 0.0;        // their area, from the SRAM array model
    double staticWatts = 0.0;

    static SystolicConfig fromYaml(config::Reader& r, const std::string& name);
};

class SystolicArray : public FunctionalUnit {
public:
    explicit SystolicArray(SystolicConfig config);

    bool executes(OpKind kind) const override {
        return isKnownOpKind(kind) && opInfo(kind).layout == OpLayout::MacTile;
    }
    std::uint64_t occupancy(const Op& op) const override;
    std::uint64_t latency(const Op& op) const override { return occupancy(op); }
    void account(const Op& op) override;
    void executeFunctional(const Op& op, FunctionalMemory& memory) override;
    // Input, weights, partial sums and INT8 outputs, each in the tile's SRAM buffers.
    std::uint64_t streamOperands(const Op& op, std::uint64_t first, std::uint64_t cycles,
                                 OperandPort& port) override;
    // A block of operands a tile streams through its memory: `bytes` read or written within
    // [addr, addr + span) of `space`; bytes > span when the array reads (or writes) the block
    // several times, once per fold.
    struct OperandBlock {
        std::uint8_t space = 0;
        std::uint64_t addr = 0, span = 0, bytes = 0;
        bool write = false;
    };
    // The operand blocks a tile streams (appended to `out`).
    void operandBlocks(const Op& op, std::vector<OperandBlock>& out) const;
    double work(const Op& op) const override;
    double peakWorkPerCycle() const override { return double(config_.rows) * config_.cols; }
    std::optional<MacArrayInfo> macArray() const override;
    void collect(const std::string& path, StatsTree& stats, EnergyLedger& energy,
                 double seconds) const override;

    const SystolicConfig& config() const { return config_; }
    static std::uint64_t macs(const MacTileArgs& a);
    // Operand bytes read from SRAM: input tile and weights once per fold they are streamed in.
    static std::uint64_t inputBytes(const MacTileArgs& a);
    static std::uint64_t weightBytes(const MacTileArgs& a);
    static std::uint64_t outputBytes(const MacTileArgs& a);

private:
    SystolicConfig config_;
    std::uint64_t tiles_ = 0, fences_ = 0, macs_ = 0, cycles_ = 0, folds_ = 0;
    std::uint64_t sramReadBytes_ = 0, sramWriteBytes_ = 0;
    // Of those, the bytes of tiles whose operands bypass the SRAM model (ideal operands).
    std::uint64_t unservedReadBytes_ = 0, unservedWriteBytes_ = 0;
    std::uint64_t requantOps_ = 0, requantCycles_ = 0;
    std::uint64_t inArrayBytes_ = 0;          // partial-sum bytes kept in the array's accumulators
    std::uint64_t residentOutputs_ = 0;       // outputs whose partial sums the array holds now
    std::vector<std::int32_t> accumulators_;  // functional: those partial sums
    std::uint64_t usedPeCycles_ = 0;  // Σ min(Sr,rows)·min(Sc,cols)·cyclesPerFold: mapping efficiency
    // Functional execution: a tile's weights and one receptive field, widened to int16.
    std::vector<std::int16_t> weights16_, patch_;
    std::vector<const std::int8_t*> rows_;  // the input rows an output row reads
    std::vector<OperandBlock> blocks_;      // streamOperands(): the tile's operand blocks
};

}  // namespace tessim
