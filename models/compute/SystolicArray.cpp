#include "models/compute/SystolicArray.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "sim/energy/SramArrayModel.h"
#include "sim/ir/Int8Dot.h"

namespace tessim {
namespace {

// A tile streams its operands in about this many accesses (SystolicArray::streamOperands).
constexpr std::uint64_t kOperandAccessesPerTile = 32;

}  // namespace

SystolicConfig SystolicConfig::fromYaml(config::Reader& r, const std::string& name) {
    using namespace config;
    SystolicConfig c;
    c.name = name;
    c.rows = r.get<unsigned>("rows", Range<unsigned>{1, 4096});
    c.cols = r.get<unsigned>("cols", Range<unsigned>{1, 4096});
    std::string df = r.oneOf("dataflow", {"os", "ws", "is"}, std::string("ws"));
    c.dataflow = dataflowFromName(df);
    r.oneOf("dtype", {"i8"}, std::string("i8"));
    c.accumulatorBytes = r.get<Bytes>("accumulators", Bytes{0}).value;
    if (auto e = r.optionalChild("energy")) {
        c.joulesPerMac = e->get<Energy>("mac_i8", Energy{0.0}).joules;
        c.joulesPerSramReadByte = e->get<Energy>("operand_read_per_byte", Energy{0.0}).joules;
        c.joulesPerSramWriteByte =
            e->get<Energy>("psum_write_per_byte", Energy{c.joulesPerSramReadByte}).joules;
        c.joulesPerRequant = e->get<Energy>("requant_op", Energy{0.0}).joules;
        // The accumulators priced by their size: the SRAM array model (`array:`) for a memory of
        // one bank per column (each column accumulates its own outputs), INT32 words, one read and
        // one write port (a partial sum is read and written back in one step; assumption).
        SramArrayCost accumulators;
        std::optional<SramArrayModel> model;
        if (auto a = e->optionalChild("array"))
            model = SramArrayModel::fromYaml(*a);
        if (model && c.accumulatorBytes > 0) {
            accumulators = model->cost({c.accumulatorBytes, c.cols, 4, 2});
            c.accumulatorStaticWatts = accumulators.staticWatts;
            c.accumulatorAreaMm2 = accumulators.areaMm2;
        }
        const double perByte = accumulators.readJoules > 0
                                   ? (accumulators.readJoules + accumulators.writeJoules) / 2 / 4
                                   : c.joulesPerSramWriteByte;
        c.joulesPerAccumulatorByte = e->get<Energy>("accumulator_per_byte", Energy{perByte}).joules;
        c.staticWatts = e->get<Power>("static_power", Power{0.0}).watts;
    }
    return c;
}

SystolicArray::SystolicArray(SystolicConfig config)
    : FunctionalUnit(config.name, UnitClass::Compute, 1), config_(std::move(config)) {}

std::uint64_t SystolicArray::macs(const MacTileArgs& a) {
    return std::uint64_t{a.outH} * a.outW * a.filters * a.channels * a.kh * a.kw;
}
std::uint64_t SystolicArray::inputBytes(const MacTileArgs& a) {
    return std::uint64_t{a.channels} * a.inH * a.inW;
}
std::uint64_t SystolicArray::weightBytes(const MacTileArgs& a) {
    return std::uint64_t{a.filters} * a.channels * a.kh * a.kw;
}
std::uint64_t SystolicArray::outputBytes(const MacTileArgs& a) {
    return std::uint64_t{a.filters} * a.outH * a.outW * 4;
}

static SystolicMapping mappingOf(const SystolicConfig& c, const MacTileArgs& a) {
    return mapTile(c.rows, c.cols, c.dataflow, std::uint64_t{a.outH} * a.outW, a.filters,
                   std::uint64_t{a.channels} * a.kh * a.kw);
}

std::uint64_t SystolicArray::occupancy(const Op& op) const {
    if (macs(op.mac) == 0)
        return 1;  // fence
    return std::max<std::uint64_t>(1, mappingOf(config_, op.mac).cycles()) +
           requantCycles(op.mac, config_.cols);
}

double SystolicArray::work(const Op& op) const {
    return static_cast<double>(macs(op.mac));
}

void SystolicArray::account(const Op& op) {
    const MacTileArgs& a = op.mac;
    std::uint64_t m = macs(a);
    if (m == 0) {
        ++fences_;
        return;
    }
    if (a.inArray) {
        const std::uint64_t outputs = std::uint64_t{a.outH} * a.outW * a.filters;
        if (outputs * 4 > config_.accumulatorBytes)
            throw std::runtime_error(fmt::format(
                "unit {}: a MacTile keeps {} partial sums ({} B of INT32) in the array, which holds {} B of "
                "accumulators{}",
                name(), outputs, outputs * 4, config_.accumulatorBytes,
                config_.accumulatorBytes == 0 ? " (the target gives it none: `accumulators`)" : ""));
        if (a.accumulate && outputs != residentOutputs_)
            throw std::runtime_error(
                fmt::format("unit {}: a MacTile adds to {} partial sums in the array, which holds {}", name(),
                            outputs, residentOutputs_));
        residentOutputs_ = a.inArray == 2 ? 0 : outputs;
    }
    ++tiles_;
    macs_ += m;
    SystolicMapping map = mappingOf(config_, a);
    const std::uint64_t rq = requantCycles(a, config_.cols);
    cycles_ += map.cycles() + rq;
    requantCycles_ += rq;
    folds_ += map.folds;
    // Used processing elements per fold, summed over folds (partial folds use fewer rows/cols).
    usedPeCycles_ += map.sr * map.sc * map.t;
    const OperandTraffic traffic = operandTraffic(config_.rows, config_.cols, config_.dataflow, a);
    if (a.requantize)
        requantOps_ += std::uint64_t{a.outH} * a.outW * a.filters;
    sramReadBytes_ += traffic.reads();
    sramWriteBytes_ += traffic.writes();
    inArrayBytes_ += traffic.inArrayBytes;
    if (op.flags & Op::kIdealOperands) {  // no SRAM model serves these: the array charges them
        unservedReadBytes_ += traffic.reads();
        unservedWriteBytes_ += traffic.writes();
    }
}

// A tile's operand blocks reach their memories in about kOperandAccessesPerTile accesses, arriving
// spread over the tile's cycles [first, first + cycles) in proportion to the bytes before them: a
// memory that keeps up costs nothing and leaves gaps for other initiators (the DMA), one that
// cannot (banks, ports, other initiators) stretches the tile. Few accesses keep the simulation
// fast and leave the memory's reservation timelines room for the DMA's bursts between them.
// Returns the cycle the last access is served (≥ first + cycles).
std::uint64_t SystolicArray::streamOperands(const Op& op, std::uint64_t first, std::uint64_t cycles,
                                            OperandPort& port) {
    blocks_.clear();
    operandBlocks(op, blocks_);
    std::uint64_t total = 0;
    for (const OperandBlock& b : blocks_)
        total += b.span > 0 ? b.bytes : 0;
    std::uint64_t done = first + cycles;
    if (total == 0)
        return done;
    const std::uint64_t piece =
        std::max<std::uint64_t>(4096, (total + kOperandAccessesPerTile - 1) / kOperandAccessesPerTile);
    std::uint64_t before = 0;
    for (const OperandBlock& b : blocks_) {
        std::uint64_t offset = 0;  // in the block's footprint
        for (std::uint64_t left = b.span > 0 ? b.bytes : 0; left > 0;) {
            const std::uint64_t bytes = std::min({left, b.span - offset, piece});
            const double at = double(cycles) * double(before) / double(total);
            done = std::max(done, port.operandAccess(op, b.space, b.addr + offset, bytes, b.write,
                                                     first + static_cast<std::uint64_t>(at)));
            before += bytes;
            left -= bytes;
            offset = offset + bytes == b.span ? 0 : offset + bytes;
        }
    }
    return done;
}

void SystolicArray::operandBlocks(const Op& op, std::vector<OperandBlock>& out) const {
    const MacTileArgs& a = op.mac;
    const OperandTraffic t = operandTraffic(config_.rows, config_.cols, config_.dataflow, a);
    const std::uint64_t outputs = std::uint64_t{a.outH} * a.outW * a.filters;
    auto block = [&](std::uint64_t addr, std::uint64_t span, std::uint64_t bytes, bool write) {
        if (bytes > 0 && span > 0)
            out.push_back(OperandBlock{a.space, addr, span, bytes, write});
    };
    block(a.weights, weightBytes(a), t.weights, false);
    block(a.in, inputBytes(a), t.input, false);
    block(a.out, outputs * 4, t.accumulatorRead, false);
    block(a.out, outputs * 4, t.accumulatorWrite, true);
    block(a.out8, outputs, t.outputWrite, true);
}

void SystolicArray::executeFunctional(const Op& op, FunctionalMemory& memory) {
    const MacTileArgs& a = op.mac;
    if (macs(a) == 0)
        return;
    std::vector<std::int8_t> in(inputBytes(a)), w(weightBytes(a));
    std::vector<std::int32_t> out(std::uint64_t{a.filters} * a.outH * a.outW, 0);
    memory.read(a.space, a.in, in.data(), in.size());
    memory.read(a.space, a.weights, w.data(), w.size());
    if (a.accumulate && a.inArray)
        out = accumulators_;  // account() has checked that it holds these outputs
    else if (a.accumulate)
        memory.read(a.space, a.out, out.data(), out.size() * 4);
    // Output (y, x) of filter n is the dot product of the filter's weights, in their (c, ky, kx)
    // order, with the receptive field of (y, x) gathered in that order.
    const std::uint64_t plane = std::uint64_t{a.inH} * a.inW;
    const std::uint64_t taps = std::uint64_t{a.channels} * a.kh * a.kw;
    const std::uint64_t outPlane = std::uint64_t{a.outH} * a.outW;
    weights16_.assign(w.begin(), w.end());
    patch_.resize(2 * taps);
    rows_.resize(std::uint64_t{a.channels} * a.kh);
    for (std::uint32_t y = 0; y < a.outH; ++y) {
        // The input rows that output row y reads, in the weights' (c, ky) order.
        for (std::uint32_t c = 0; c < a.channels; ++c)
            for (std::uint32_t ky = 0; ky < a.kh; ++ky)
                rows_[std::uint64_t{c} * a.kh + ky] =
                    in.data() + c * plane + std::uint64_t{y * a.strideH + ky} * a.inW;
        for (std::uint32_t x = 0; x < a.outW; x += 2) {
            const std::uint32_t pair = std::min(2u, a.outW - x);  // two outputs share the weights' loads
            std::int16_t* p = patch_.data();
            for (std::uint32_t j = 0; j < pair; ++j) {
                const std::uint64_t left = std::uint64_t{x + j} * a.strideW;
                for (const std::int8_t* row : rows_)
                    for (std::uint32_t kx = 0; kx < a.kw; ++kx)
                        *p++ = row[left + kx];
            }
            accumulateDots(patch_.data(), pair, weights16_.data(), taps, a.filters, outPlane,
                           out.data() + std::uint64_t{y} * a.outW + x);
        }
    }
    if (a.inArray == 1)
        accumulators_ = out;
    else
        memory.write(a.space, a.out, out.data(), out.size() * 4);
    if (!a.requantize)
        return;
    std::vector<std::int8_t> q(out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        q[i] = requantizeI8(out[i], a.multiplier, a.shift);
    memory.write(a.space, a.out8, q.data(), q.size());
}

void SystolicArray::collect(const std::string& path, StatsTree& stats, EnergyLedger& energy,
                            double seconds) const {
    auto& node = stats.child(name());
    node.add("tiles", tiles_, "ops", "MAC tiles executed");
    node.add("fences", fences_, "ops", "zero-work tiles that order a write-back after compute");
    node.add("macs", macs_, "MAC", "multiply-accumulates");
    node.add("busy_cycles", cycles_, "cycles",
             "array cycles of the tiles (SCALE-Sim formula, plus requantisation)");
    node.add("requant_cycles", requantCycles_, "cycles",
             "requantisation cycles: ceil(outputs / cols) per requantising tile");
    node.add("requant_ops", requantOps_, "ops", "outputs requantised to INT8");
    node.add("folds", folds_, "folds", "array folds");
    node.add("sram_read_bytes", sramReadBytes_, "B", "operand bytes read from SRAM by the array");
    node.add("sram_write_bytes", sramWriteBytes_, "B",
             "partial-sum and INT8 output bytes written by the array");
    if (config_.accumulatorBytes > 0)
        node.add("in_array_accumulator_bytes", inArrayBytes_, "B",
                 "partial-sum bytes read and written in the array's own accumulators");
    double peCycles = double(cycles_) * config_.rows * config_.cols;
    node.add("mapping_efficiency", peCycles > 0 ? double(macs_) / peCycles : 0.0, "ratio",
             "MACs / (busy cycles × rows × cols)");
    energy.addEvents(path, "mac_i8", macs_, config_.joulesPerMac);
    // Operands streamed through the SRAM model cost the SRAM's energy per bank word there.
    energy.addEvents(path, "operand_read", unservedReadBytes_, config_.joulesPerSramReadByte);
    energy.addEvents(path, "psum_write", unservedWriteBytes_, config_.joulesPerSramWriteByte);
    if (requantOps_ > 0)
        energy.addEvents(path, "requant_op", requantOps_, config_.joulesPerRequant);
    if (inArrayBytes_ > 0)
        energy.addEvents(path, "accumulator", inArrayBytes_, config_.joulesPerAccumulatorByte);
    if (config_.staticWatts + config_.accumulatorStaticWatts > 0)
        energy.addStaticPower(path, config_.staticWatts + config_.accumulatorStaticWatts);
    if (config_.accumulatorAreaMm2 > 0)
        energy.addArea(path, config_.accumulatorAreaMm2);
    (void)seconds;
}

std::optional<MacArrayInfo> SystolicArray::macArray() const {
    const char* df = config_.dataflow == Dataflow::OutputStationary   ? "os"
                     : config_.dataflow == Dataflow::WeightStationary ? "ws"
                                                                      : "is";
    return MacArrayInfo{config_.rows, config_.cols, df, config_.accumulatorBytes};
}

}  // namespace tessim
