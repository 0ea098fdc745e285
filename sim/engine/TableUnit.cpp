#include "sim/engine/TableUnit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

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
    rows_.resize(timingClassCount());
    kinds_.resize(opKindCount());
    auto setRow = [&](std::size_t row, const TableUnitConfig::Timing& t) {
        Row& r = rows_[row];
        r.timing = t;
        r.singleOccupancy = std::max<std::uint64_t>(1, ceilCycles(singleRegisterReciprocal(t)));
        r.singleLatency = ceilCycles(singleRegisterLatency(t));
        r.reciprocalTable = t.reciprocalByLmul.has_value();
    };
    for (const auto& [timingClass, t] : config_.ops)
        setRow(timingClass, t);
    for (std::size_t k = 0; k < kinds_.size(); ++k) {
        const OpDescriptor& d = opInfo(static_cast<OpKind>(k));
        Kind& kind = kinds_[k];
        kind.variant = d.variantWhen != nullptr || d.secondVariantWhen != nullptr;
        kind.variantFlags = d.variantFlags;
        kind.scalar = d.scalar;
        kind.scalarAccess = d.scalar && d.memory;
        kind.segment = d.segment;
        kind.row = d.timingClass;
        kind.work = d.workPerElement;
        const auto primary = config_.ops.find(d.timingClass);
        if (primary == config_.ops.end())
            continue;
        kind.executes = true;
        if (d.variantWhen && !config_.ops.count(d.variantClass))
            setRow(d.variantClass, primary->second);
        if (d.secondVariantWhen && !config_.ops.count(d.secondVariantClass))
            setRow(d.secondVariantClass, primary->second);
    }
    for (Kind& kind : kinds_) {
        kind.reciprocalTable = rows_[kind.row].reciprocalTable;
        kind.singleOccupancy = rows_[kind.row].singleOccupancy;
        kind.singleLatency = rows_[kind.row].singleLatency;
    }
}

IssueCost TableUnit::issue(const Op& op) {
    Kind& kind = kinds_[static_cast<std::size_t>(op.kind)];
    const auto d = static_cast<std::size_t>(op.dtype);
    ++kind.ops[d];
    kind.elements[d] += op.vl > 0 ? kind.memoryElements(op) : 1;  // scalar ops: see collect()
    if (kind.variant && kind.mayVary(op))  // the row depends on the op (reduce_ordered, slide_up)
        return variantCost(op, kind);
    if (kind.reciprocalTable && !kind.scalar)
        return tableCost(op, kind);
    return cost(op, kind, kind.reciprocalTable, kind.singleOccupancy, kind.singleLatency);
}

// Out of line: keeps the common path through issue() short.
__attribute__((noinline)) IssueCost TableUnit::variantCost(const Op& op, const Kind& kind) {
    const Row& r = rows_[rowOf(op)];
    return cost(op, kind, r.reciprocalTable, r.singleOccupancy, r.singleLatency);
}

// A table-timed op of a kind without variant: its occupancy and latency depend on its vl, type,
// LMUL, stride and fields alone, kept from the last op of the kind.
IssueCost TableUnit::tableCost(const Op& op, Kind& kind) {
    Kind::TableCost& last = kind.lastTable;
    if (!last.key.matches(op))
        last = Kind::TableCost{CostKey::of(op), occupancyCycles(op), latency(op)};
    return IssueCost{chargeOccupancy(last.occupancy), last.latency, work(op)};
}

std::uint64_t TableUnit::chargeOccupancy(double occupancy) {
    const double owed = occupancy + owed_;
    const std::uint64_t cycles = std::max<std::uint64_t>(1, ceilCycles(owed));
    owed_ = std::min(0.0, owed - static_cast<double>(cycles));
    if (owed_ > -1e-9)
        owed_ = 0.0;  // no drift from rounding errors
    return cycles;
}

inline __attribute__((always_inline)) IssueCost TableUnit::cost(const Op& op, const Kind& kind,
                                                                bool reciprocalTable,
                                                                std::uint64_t singleOccupancy,
                                                                std::uint64_t singleLatency) {
    if (reciprocalTable && !kind.scalar)
        return IssueCost{chargeOccupancy(occupancyCycles(op)), latency(op), work(op)};
    const std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    if (config_.unitClass == UnitClass::Compute && bytes <= config_.registerBytes && op.lmul8 <= 8)
        return IssueCost{singleOccupancy, singleLatency, kind.work * op.vl};
    if (config_.unitClass == UnitClass::Memory || (config_.unitClass == UnitClass::Compute && !kind.scalar))
        return keptCost(op);
    return IssueCost{occupancy(op), latency(op), work(op)};
}

// Out of line: keeps the compute units' path through issue() short. A stream repeats the same few
// accesses and vector ops of several registers: their occupancy and latency (a function of the
// row, vl, dtype, stride, fields and LMUL) are kept from the last op of the row.
__attribute__((noinline)) IssueCost TableUnit::keptCost(const Op& op) {
    LastCost& last = rows_[rowOf(op)].lastCost;
    if (!last.key.matches(op))
        last = LastCost{CostKey::of(op), occupancy(op), latency(op)};
    return IssueCost{last.occupancy, last.latency, work(op)};
}

std::uint64_t TableUnit::registerGroups(const Op& op) const {
    if (kinds_[static_cast<std::size_t>(op.kind)].scalar)
        return 1;
    std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    const std::uint64_t fromVl =
        std::max<std::uint64_t>(1, (bytes + config_.registerBytes - 1) / config_.registerBytes);
    return std::max<std::uint64_t>(fromVl, op.lmul8 / 8u);
}

double TableUnit::tableReciprocal(const OpTimingInfo& t, const Op& op) const {
    if (op.lmul8 != 0 && op.lmul8 < 8 && registerGroups(op) == 1 && t.fractionalReciprocal[2] > 0)
        return t.fractionalReciprocal[op.lmul8 >= 4 ? 2 : op.lmul8 >= 2 ? 1 : 0];
    return (*t.reciprocalByLmul)[lmulIndex(op, registerGroups(op))];
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
    const auto& t = rows_[rowOf(op)].timing;
    double cycles = 0.0;
    const Kind& kind = kinds_[static_cast<std::size_t>(op.kind)];
    if (config_.unitClass == UnitClass::Memory && !kind.scalarAccess) {
        const std::uint64_t bytes = memoryElements(op) * dtypeBytes(op.dtype);
        bool strided = op.stride != 0 && op.stride != static_cast<std::int64_t>(dtypeBytes(op.dtype));
        cycles = strided ? op.vl / config_.stridedElementsPerCycle
                         : static_cast<double>(bytes) / config_.bytesPerCycle;
        // Segments: the table prices one field — up to groupedSegmentFields fields; beyond, the
        // access goes field element by field element.
        const double fields = kind.segment ? static_cast<double>(op.count) : 1.0;
        if (kind.segment && config_.groupedSegmentFields != 0 && op.count > config_.groupedSegmentFields)
            return std::max(cycles, fields * op.vl / config_.stridedElementsPerCycle);
        cycles = std::max(cycles, fields * (t.reciprocalByLmul ? tableReciprocal(t, op) : t.reciprocal));
    } else if (t.reciprocalByLmul) {
        cycles = tableReciprocal(t, op);
    } else {
        cycles = t.reciprocal * static_cast<double>(registerGroups(op));
    }
    return cycles;
}

std::uint64_t TableUnit::latency(const Op& op) const {
    const Row& r = rows_[rowOf(op)];
    const auto& t = r.timing;
    if (t.latencyByLmul)
        return ceilCycles((*t.latencyByLmul)[lmulIndex(op, registerGroups(op))]);
    if (config_.unitClass != UnitClass::Compute)
        return r.singleLatency;
    const std::uint64_t groups = registerGroups(op);
    // A grouped op's last register leaves the pipeline as many cycles later as the group keeps
    // the unit busier than one register does.
    double extra = t.reciprocalByLmul
                       ? (*t.reciprocalByLmul)[lmulIndex(op, groups)] - (*t.reciprocalByLmul)[0]
                       : t.reciprocal * static_cast<double>(groups - 1);
    return ceilCycles(t.latency + extra);
}

void TableUnit::account(const Op& op) {
    Kind& kind = kinds_[static_cast<std::size_t>(op.kind)];
    const auto d = static_cast<std::size_t>(op.dtype);
    ++kind.ops[d];
    kind.elements[d] += std::max<std::uint64_t>(kind.memoryElements(op), 1);
}

double TableUnit::work(const Op& op) const {
    if (config_.unitClass != UnitClass::Compute)
        return 0.0;
    // FLOP-like work: an FMA is two operations per element.
    return kinds_[static_cast<std::size_t>(op.kind)].work * op.vl;
}

double TableUnit::peakWorkPerCycle() const {
    // Without a datatype: 32-bit elements, the width peaks are usually stated for.
    return peakWorkPerCycleFor(DType::F32);
}

double TableUnit::peakWorkPerCycleFor(DType t) const {
    if (config_.unitClass != UnitClass::Compute)
        return 0.0;
    // The kinds whose rate states a peak (an FMA's): work per element over a register per cycle.
    double peak = 0.0;
    for (std::size_t k = 0; k < opKindCount(); ++k) {
        const OpDescriptor& d = opInfo(static_cast<OpKind>(k));
        const auto it = d.statesPeak ? config_.ops.find(d.timingClass) : config_.ops.end();
        if (it != config_.ops.end())
            peak = std::max(peak, d.workPerElement *
                                      (config_.registerBytes / static_cast<double>(dtypeBytes(t))) /
                                      singleRegisterReciprocal(it->second));
    }
    return peak;
}

UnitInfo TableUnit::describe() const {
    UnitInfo info = FunctionalUnit::describe();
    for (const auto& [timingClass, t] : config_.ops)
        info.ops[std::string(timingClassName(timingClass))] = t;
    for (DType t : config_.dtypes)
        info.dtypes.emplace_back(dtypeName(t));
    if (config_.unitClass == UnitClass::Memory) {
        info.bytesPerCycle = config_.bytesPerCycle;
        info.stridedElementsPerCycle = config_.stridedElementsPerCycle;
    }
    return info;
}

void TableUnit::collect(const std::string& path, StatsTree& stats, EnergyLedger& energy,
                        double seconds) const {
    auto& node = stats.child(name());
    for (std::size_t k = 0; k < kinds_.size(); ++k) {
        const Kind& counts = kinds_[k];
        for (std::size_t d = 0; d < kDTypes; ++d) {
            if (counts.ops[d] == 0)
                continue;
            auto kind = static_cast<OpKind>(k);
            auto dtype = static_cast<DType>(d);
            // Schedules are checked against `dtypes` when read; generated ops and programs are
            // checked here, where an unlisted datatype would otherwise cost no energy.
            if (!executesType(dtype)) {
                std::vector<std::string_view> listed;
                for (DType t : config_.dtypes)
                    listed.push_back(dtypeName(t));
                throw std::runtime_error(fmt::format(
                    "{}: unit {} executed {} '{}' ops in {}, a datatype its `dtypes` does not list ({}); add "
                    "it "
                    "with its energy key ({}_{})",
                    path, name(), counts.ops[d], opKindName(kind), dtypeName(dtype), fmt::join(listed, ", "),
                    timingClassName(opInfo(kind).timingClass), dtypeName(dtype)));
            }
            std::string key = std::string(opKindName(kind)) + "_" + std::string(dtypeName(dtype));
            // A scalar op works on one element whatever its vl (vsetvl's vl is a requested length).
            const std::uint64_t elements = counts.scalar ? counts.ops[d] : counts.elements[d];
            node.add(key + "_ops", counts.ops[d], "ops");
            node.add(key + "_elements", elements, "elements");
            auto e = config_.energyPerElement.find({opInfo(kind).timingClass, dtype});
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
