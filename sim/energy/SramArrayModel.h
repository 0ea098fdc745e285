// Energy per access, leakage and area of an on-chip SRAM array (scratchpad or cache) from its
// geometry, so that sweeping a memory's size, banks, word width or ports moves its energy and area
// the way the silicon would instead of reusing one figure for every size.
//
// Per access of one word in one bank:
//   E = read_64bit(bank capacity) × word bytes / 8 × √(port area factor) × energy_scaling + wire
// read_64bit interpolates the published anchors log-linearly in capacity (exact at the anchors,
// extrapolated with the nearest segment's slope). A bank is an independent array, so the array
// energy follows the bank's capacity; reaching the bank from the memory's port costs wire energy
// over ½(√area − √bank area) (none for one bank: the anchors include an array's own wiring).
// Each port beyond the first adds a wordline and bitline pair to every cell: area and leakage grow
// by port_area_overhead per extra port, per-access energy with the square root (line lengths).
// Leakage = leakage_per_mib × capacity × port area factor; area = bits × bitcell area × port area
// factor / array_efficiency.
//
// YAML (an energy-table section, named by a memory's `energy: {array: NAME}`): read_64bit (map of
// capacity → energy of a 64-bit read, at the anchor node), energy_scaling (node factor applied to
// every energy), write_over_read, wire_energy_per_bit_mm, leakage_per_mib (at the target node),
// bitcell_area_um2, array_efficiency, port_area_overhead.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/config/Reader.h"

namespace tessim {

struct SramArrayGeometry {
    std::uint64_t capacity = 0;  // bytes
    unsigned banks = 1;
    unsigned wordBytes = 8;  // bytes one bank access reads or writes
    unsigned ports = 1;
};

struct SramArrayCost {
    double readJoules = 0.0;   // per word access
    double writeJoules = 0.0;  // per word access
    double staticWatts = 0.0;
    double areaMm2 = 0.0;
};

class SramArrayModel {
public:
    static SramArrayModel fromYaml(config::Reader& r);

    // Energy of a 64-bit read of a monolithic array of `capacity` bytes, anchor node, unscaled.
    double read64Joules(double capacity) const;
    SramArrayCost cost(const SramArrayGeometry& g) const;

private:
    std::vector<std::pair<double, double>> anchors_;  // (bytes, joules), ascending bytes
    double energyScaling_ = 1.0;
    double writeOverRead_ = 1.0;
    double wireJoulesPerBitMm_ = 0.0;
    double leakageWattsPerMiB_ = 0.0;
    double bitcellAreaUm2_ = 0.0;
    double arrayEfficiency_ = 1.0;
    double portAreaOverhead_ = 0.0;
};

}  // namespace tessim
