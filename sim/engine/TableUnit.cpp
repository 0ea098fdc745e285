#include "sim/engine/TableUnit.h"

#include <algorithm>
#include <cmath>

namespace tessim {

TableUnit::TableUnit(TableUnitConfig config)
    : FunctionalUnit(config.name, config.unitClass, config.instances), config_(std::move(config)) {
    for (const auto& [kind, t] : config_.ops) {
        auto k = static_cast<std::size_t>(kind);
        timing_[k] = t;
        executes_[k] = true;
        singleOccupancy_[k] =
            std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(t.reciprocal - 1e-9)));
        singleLatency_[k] = static_cast<std::uint64_t>(std::ceil(t.latency - 1e-9));
    }
}

IssueCost TableUnit::issue(const Op& op) {
    auto k = static_cast<std::size_t>(op.kind);
    auto d = static_cast<std::size_t>(op.dtype);
    ++opCount_[k][d];
    elementCount_[k][d] += op.vl > 0 ? op.vl : 1;
    const std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    if (config_.unitClass == UnitClass::Compute && bytes <= config_.registerBytes) {
        double w = op.kind == OpKind::Fma                               ? 2.0 * op.vl
                   : (op.kind == OpKind::Mul || op.kind == OpKind::Add) ? static_cast<double>(op.vl)
                                                                        : 0.0;
        return IssueCost{singleOccupancy_[k], singleLatency_[k], w};
    }
    return IssueCost{occupancy(op), latency(op), work(op)};
}

std::uint64_t TableUnit::registerGroups(const Op& op) const {
    std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
    return std::max<std::uint64_t>(1, (bytes + config_.registerBytes - 1) / config_.registerBytes);
}

std::uint64_t TableUnit::occupancy(const Op& op) const {
    const auto& t = timing_[static_cast<std::size_t>(op.kind)];
    double cycles = 0.0;
    if (config_.unitClass == UnitClass::Memory && op.kind != OpKind::ScalarLoad) {
        std::uint64_t bytes = std::uint64_t{op.vl} * dtypeBytes(op.dtype);
        bool strided = op.stride != 0 && op.stride != static_cast<std::int64_t>(dtypeBytes(op.dtype));
        cycles = strided ? op.vl / config_.stridedElementsPerCycle
                         : static_cast<double>(bytes) / config_.bytesPerCycle;
        cycles = std::max(cycles, t.reciprocal);
    } else {
        cycles = t.reciprocal * static_cast<double>(registerGroups(op));
    }
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(cycles - 1e-9)));
}

std::uint64_t TableUnit::latency(const Op& op) const {
    const auto& t = timing_[static_cast<std::size_t>(op.kind)];
    // A grouped op's last register leaves the pipeline (groups − 1) occupancy slots later.
    double extra = config_.unitClass == UnitClass::Compute
                       ? t.reciprocal * static_cast<double>(registerGroups(op) - 1)
                       : 0.0;
    return static_cast<std::uint64_t>(std::ceil(t.latency + extra - 1e-9));
}

void TableUnit::account(const Op& op) {
    auto k = static_cast<std::size_t>(op.kind);
    auto d = static_cast<std::size_t>(op.dtype);
    ++opCount_[k][d];
    elementCount_[k][d] += std::max<std::uint32_t>(op.vl, 1);
}

double TableUnit::work(const Op& op) const {
    if (config_.unitClass != UnitClass::Compute)
        return 0.0;
    // FLOP-like work: an FMA is two operations per element.
    double perElement = op.kind == OpKind::Fma ? 2.0 : 1.0;
    if (op.kind != OpKind::Fma && op.kind != OpKind::Mul && op.kind != OpKind::Add)
        return 0.0;
    return perElement * op.vl;
}

double TableUnit::peakWorkPerCycle() const {
    if (config_.unitClass != UnitClass::Compute)
        return 0.0;
    auto it = config_.ops.find(OpKind::Fma);
    if (it == config_.ops.end())
        return 0.0;
    // Peak for 32-bit elements, the datatype the bound is stated for.
    return 2.0 * (config_.registerBytes / 4.0) / it->second.reciprocal;
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
            node.add(key + "_ops", opCount_[k][d], "ops");
            node.add(key + "_elements", elementCount_[k][d], "elements");
            auto e = config_.energyPerElement.find({kind, dtype});
            double joules = e == config_.energyPerElement.end() ? 0.0 : e->second;
            std::uint64_t events = elementCount_[k][d];
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
