#include "sim/engine/TableUnit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace tessim {
namespace {

static_assert(static_cast<std::size_t>(DType::F64) + 1 == 6, "TableUnit counts six datatypes");

std::uint64_t ceilCycles(double cycles) {
    return static_cast<std::uint64_t>(std::ceil(cycles - 1e-9));
}

double singleRegisterReciprocal(const OpTimingInfo& t) {
    return t.reciprocalByLmul ? (*t.reciprocalByLmul)[0] : t.reciprocal;
}

double singleRegisterLatency(const OpTimingInfo& t) {
    return t.latencyByLmul ? (*t.latencyByLmul)[0] : t.latency;
}

}  // namespace

TableUnit::TableUnit(TableUnitConfig config)
    : FunctionalUnit(config.name, config.unitClass, config.instances), config_(std::move(config)) {
    auto setRow = [&](std::size_t row, const TableUnitConfig::Timing& t) {
        timing_[row] = t;
        singleOccupancy_[row] = std::max<std::uint64_t>(1, ceilCycles(singleRegisterReciprocal(t)));
        singleLatency_[row] = ceilCycles(singleRegisterLatency(t));
        reciprocalTable_[row] = t.reciprocalByLmul.has_value();
    };
    for (const auto& [kind, t] : config_.ops) {
        auto k = static_cast<std::size_t>(kind);
        setRow(k, t);
        executes_[k] = true;
    }
    auto reduce = config_.ops.find(OpKind::Reduce);
    if (config_.orderedReduce)
        setRow(kOrderedReduceRow, *config_.orderedReduce);
    else if (reduce != config_.ops.end())
        setRow(kOrderedReduceRow, reduce->second);
    auto slide = config_.ops.find(OpKind::Slide);
    if (config_.slideUp)
        setRow(kSlideUpRow, *config_.slideUp);
    else if (slide != config_.ops.end())
        setRow(kSlideUpRow, slide->second);
}

IssueCost TableUnit::issue(const Op& op) {
    auto k = static_cast<std::size_t>(op.kind);
    auto d = static_cast<std::size_t>(op.dtype);
    ++opCount_[k][d];
    elementCount_[k][d] += op.vl > 0 ? memoryElements(op) : 1;  // scalar ops: see collect()
    const std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    const std::size_t row = timingRow(op);
    if (reciprocalTable_[row] && !isScalarOp(op.kind)) {
        const double owed = occupancyCycles(op) + owed_;
        const std::uint64_t cycles = std::max<std::uint64_t>(1, ceilCycles(owed));
        owed_ = std::min(0.0, owed - static_cast<double>(cycles));
        if (owed_ > -1e-9)
            owed_ = 0.0;  // no drift from rounding errors
        return IssueCost{cycles, latency(op), work(op)};
    }
    if (config_.unitClass == UnitClass::Compute && bytes <= config_.registerBytes) {
        double w = op.kind == OpKind::Fma || op.kind == OpKind::WidenFma ? 2.0 * op.vl
                   : (op.kind == OpKind::Mul || op.kind == OpKind::Add)  ? static_cast<double>(op.vl)
                                                                         : 0.0;
        return IssueCost{singleOccupancy_[row], singleLatency_[row], w};
    }
    if (config_.unitClass == UnitClass::Memory)
        return memoryCost(op);
    return IssueCost{occupancy(op), latency(op), work(op)};
}

// Out of line: keeps the compute units' path through issue() short.
__attribute__((noinline)) IssueCost TableUnit::memoryCost(const Op& op) {
    // A stream repeats the same few accesses: the cost of the last one of each op kind is kept
    // (a memory op's cost depends on its row, vl, dtype and stride alone).
    MemoryCost& last = lastMemoryCost_[timingRow(op)];
    if (!last.valid || last.vl != op.vl || last.dtype != op.dtype || last.stride != op.stride ||
        last.fields != op.count)
        last = MemoryCost{true,      op.vl,    op.dtype,
                          op.stride, op.count, IssueCost{occupancy(op), latency(op), 0.0}};
    return last.cost;
}

std::uint64_t TableUnit::registerGroups(const Op& op) const {
    if (isScalarOp(op.kind))
        return 1;
    std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    return std::max<std::uint64_t>(1, (bytes + config_.registerBytes - 1) / config_.registerBytes);
}

std::size_t TableUnit::lmulIndex(const Op& op, std::uint64_t groups) const {
    if (groups > 8)
        throw std::runtime_error(fmt::format(
            "unit {}: op '{}' with vl {} spans {} registers, beyond the m8 entry of its per-LMUL table",
            name(), opKindName(op.kind), op.vl, groups));
    return groups > 4 ? 3 : groups > 2 ? 2 : groups > 1 ? 1 : 0;
}

std::uint64_t TableUnit::occupancy(const Op& op) const {
    return std::max<std::uint64_t>(1, ceilCycles(occupancyCycles(op)));
}

double TableUnit::occupancyCycles(const Op& op) const {
    const auto& t = timing_[timingRow(op)];
    double cycles = 0.0;
    if (config_.unitClass == UnitClass::Memory && op.kind != OpKind::ScalarLoad &&
        op.kind != OpKind::ScalarStore) {
        const std::uint64_t bytes = memoryElements(op) * dtypeBytes(op.dtype);
        bool strided = op.stride != 0 && op.stride != static_cast<std::int64_t>(dtypeBytes(op.dtype));
        cycles = strided ? op.vl / config_.stridedElementsPerCycle
                         : static_cast<double>(bytes) / config_.bytesPerCycle;
        // Segments: the table prices one field.
        const double fields = isSegmentOp(op.kind) ? static_cast<double>(op.count) : 1.0;
        cycles = std::max(cycles, fields * (t.reciprocalByLmul
                                                ? (*t.reciprocalByLmul)[lmulIndex(op, registerGroups(op))]
                                                : t.reciprocal));
    } else if (t.reciprocalByLmul) {
        cycles = (*t.reciprocalByLmul)[lmulIndex(op, registerGroups(op))];
    } else {
        cycles = t.reciprocal * static_cast<double>(registerGroups(op));
    }
    return cycles;
}

std::uint64_t TableUnit::latency(const Op& op) const {
    const std::size_t row = timingRow(op);
    const auto& t = timing_[row];
    if (t.latencyByLmul)
        return ceilCycles((*t.latencyByLmul)[lmulIndex(op, registerGroups(op))]);
    if (config_.unitClass != UnitClass::Compute)
        return singleLatency_[row];
    const std::uint64_t groups = registerGroups(op);
    // A grouped op's last register leaves the pipeline as many cycles later as the group keeps
    // the unit busier than one register does.
    double extra = t.reciprocalByLmul
                       ? (*t.reciprocalByLmul)[lmulIndex(op, groups)] - (*t.reciprocalByLmul)[0]
                       : t.reciprocal * static_cast<double>(groups - 1);
    return ceilCycles(t.latency + extra);
}

void TableUnit::account(const Op& op) {
    auto k = static_cast<std::size_t>(op.kind);
    auto d = static_cast<std::size_t>(op.dtype);
    ++opCount_[k][d];
    elementCount_[k][d] += std::max<std::uint64_t>(memoryElements(op), 1);
}

double TableUnit::work(const Op& op) const {
    if (config_.unitClass != UnitClass::Compute)
        return 0.0;
    // FLOP-like work: an FMA is two operations per element.
    const bool fma = op.kind == OpKind::Fma || op.kind == OpKind::WidenFma;
    double perElement = fma ? 2.0 : 1.0;
    if (!fma && op.kind != OpKind::Mul && op.kind != OpKind::Add)
        return 0.0;
    return perElement * op.vl;
}

double TableUnit::peakWorkPerCycle() const {
    // Without a datatype: 32-bit elements, the width peaks are usually stated for.
    return peakWorkPerCycleFor(DType::F32);
}

double TableUnit::peakWorkPerCycleFor(DType t) const {
    if (config_.unitClass != UnitClass::Compute)
        return 0.0;
    auto it = config_.ops.find(OpKind::Fma);
    if (it == config_.ops.end())
        return 0.0;
    return 2.0 * (config_.registerBytes / static_cast<double>(dtypeBytes(t))) /
           singleRegisterReciprocal(it->second);
}

UnitInfo TableUnit::describe() const {
    UnitInfo info = FunctionalUnit::describe();
    for (const auto& [kind, t] : config_.ops)
        info.ops[std::string(opKindName(kind))] = t;
    if (config_.orderedReduce)
        info.ops["reduce_ordered"] = *config_.orderedReduce;
    if (config_.slideUp)
        info.ops["slide_up"] = *config_.slideUp;
    return info;
}

void TableUnit::collect(const std::string& path, StatsTree& stats, EnergyLedger& energy,
                        double seconds) const {
    auto& node = stats.child(name());
    for (std::size_t k = 0; k < opCount_.size(); ++k) {
        for (std::size_t d = 0; d < opCount_[k].size(); ++d) {
            if (opCount_[k][d] == 0)
                continue;
            auto kind = static_cast<OpKind>(k);
            auto dtype = static_cast<DType>(d);
            std::string key = std::string(opKindName(kind)) + "_" + std::string(dtypeName(dtype));
            // A scalar op works on one element whatever its vl (vsetvl's vl is a requested length).
            const std::uint64_t elements = isScalarOp(kind) ? opCount_[k][d] : elementCount_[k][d];
            node.add(key + "_ops", opCount_[k][d], "ops");
            node.add(key + "_elements", elements, "elements");
            auto e = config_.energyPerElement.find({kind, dtype});
            double joules = e == config_.energyPerElement.end() ? 0.0 : e->second;
            std::uint64_t events = elements;
            if (config_.unitClass == UnitClass::Memory)
                events *= dtypeBytes(dtype);
            energy.addEvents(path, key, events, joules);
        }
    }
    if (config_.staticWatts > 0)
        energy.addStaticPower(path, config_.staticWatts * config_.instances);
    (void)seconds;
}

}  // namespace tessim
