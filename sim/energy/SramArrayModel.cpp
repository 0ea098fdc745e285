#include "sim/energy/SramArrayModel.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Quantity.h"

namespace tessim {

SramArrayModel SramArrayModel::fromYaml(config::Reader& r) {
    using namespace config;
    SramArrayModel m;
    const Node& anchors = r.node("read_64bit");
    if (!anchors.isMap() || anchors.entries().empty())
        throw ConfigError(anchors.location(), anchors.path(),
                          "expected a map of array capacity to 64-bit read energy (e.g. {32 KiB: 20 pJ})");
    for (const auto& [key, value] : anchors.entries()) {
        const auto bytes = parseBytes(key);
        if (!bytes || bytes->value == 0)
            throw ConfigError(value.keyLocation(), value.path(),
                              "'" + key + "' is not a capacity (e.g. 32 KiB)");
        const auto energy = value.isScalar() ? parseEnergy(value.scalar()) : std::nullopt;
        if (!energy || energy->joules <= 0)
            throw ConfigError(value.location(), value.path(), "expected a positive energy (e.g. 20 pJ)");
        m.anchors_.emplace_back(static_cast<double>(bytes->value), energy->joules);
    }
    std::sort(m.anchors_.begin(), m.anchors_.end());
    for (std::size_t i = 1; i < m.anchors_.size(); ++i)
        if (m.anchors_[i].first == m.anchors_[i - 1].first)
            throw ConfigError(anchors.location(), anchors.path(), "two anchors for the same capacity");
    m.energyScaling_ = r.get<double>("energy_scaling", 1.0, Range<double>{1e-3, 1e3});
    m.writeOverRead_ = r.get<double>("write_over_read", 1.0, Range<double>{0.0, 100.0});
    m.wireJoulesPerBitMm_ = r.get<Energy>("wire_energy_per_bit_mm", Energy{0.0}).joules;
    m.leakageWattsPerMiB_ = r.get<Power>("leakage_per_mib", Power{0.0}).watts;
    m.bitcellAreaUm2_ = r.get<double>("bitcell_area_um2", 0.0, Range<double>{0.0, 100.0});
    m.arrayEfficiency_ = r.get<double>("array_efficiency", 1.0, Range<double>{0.01, 1.0});
    m.portAreaOverhead_ = r.get<double>("port_area_overhead", 0.0, Range<double>{0.0, 10.0});
    return m;
}

double SramArrayModel::read64Joules(double capacity) const {
    if (anchors_.size() == 1)
        return anchors_.front().second;
    // The segment containing `capacity`, or the nearest end segment when outside the anchors.
    std::size_t i = 1;
    while (i + 1 < anchors_.size() && capacity > anchors_[i].first)
        ++i;
    const auto [c0, e0] = anchors_[i - 1];
    const auto [c1, e1] = anchors_[i];
    const double slope = std::log(e1 / e0) / std::log(c1 / c0);
    return e0 * std::pow(capacity / c0, slope);
}

SramArrayCost SramArrayModel::cost(const SramArrayGeometry& g) const {
    const double capacity = static_cast<double>(g.capacity);
    const double bankCapacity = capacity / std::max(1u, g.banks);
    const double portArea = 1.0 + portAreaOverhead_ * (std::max(1u, g.ports) - 1);
    SramArrayCost c;
    c.areaMm2 = capacity * 8.0 * bitcellAreaUm2_ * portArea / arrayEfficiency_ * 1e-6;
    const double wireMm = 0.5 * (std::sqrt(c.areaMm2) - std::sqrt(c.areaMm2 / std::max(1u, g.banks)));
    const double bits = 8.0 * g.wordBytes;
    const double array = read64Joules(bankCapacity) * (g.wordBytes / 8.0) * std::sqrt(portArea);
    const double wire = wireJoulesPerBitMm_ * bits * wireMm;
    c.readJoules = (array + wire) * energyScaling_;
    c.writeJoules = c.readJoules * writeOverRead_;
    c.staticWatts = leakageWattsPerMiB_ * capacity / (1024.0 * 1024.0) * portArea;
    return c;
}

}  // namespace tessim
