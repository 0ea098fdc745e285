// A pipelined unit whose timing is a table from the target YAML: per op kind a latency and a
// reciprocal throughput for one register's worth of data; ops spanning several registers
// (vector length grouping, LMUL) occupy the unit proportionally longer, as measured on the X60.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "sim/engine/FunctionalUnit.h"

namespace tessim {

struct TableUnitConfig {
    std::string name;
    UnitClass unitClass = UnitClass::Compute;
    unsigned instances = 1;
    unsigned registerBytes = 32;  // bytes of one vector register (VLEN / 8)
    // Memory units: bytes moved per cycle for unit-stride and elements per cycle for strided.
    double bytesPerCycle = 16.0;
    double stridedElementsPerCycle = 1.0;
    struct Timing {
        double latency = 1.0;     // cycles
        double reciprocal = 1.0;  // cycles per register of data
    };
    std::map<OpKind, Timing> ops;
    // Energy per element operation (or per byte for memory units), J, keyed by op and dtype.
    std::map<std::pair<OpKind, DType>, double> energyPerElement;
    double staticWatts = 0.0;
};

class TableUnit : public FunctionalUnit {
public:
    explicit TableUnit(TableUnitConfig config);

    bool executes(OpKind kind) const override { return executes_[static_cast<std::size_t>(kind)]; }
    std::uint64_t occupancy(const Op& op) const override;
    std::uint64_t latency(const Op& op) const override;
    void account(const Op& op) override;
    IssueCost issue(const Op& op) override;
    double work(const Op& op) const override;
    double peakWorkPerCycle() const override;
    void collect(const std::string& path, StatsTree& stats, EnergyLedger& energy,
                 double seconds) const override;

private:
    std::uint64_t registerGroups(const Op& op) const;
    TableUnitConfig config_;
    // The op table as an array indexed by op kind: the hot path does no map look-ups.
    std::array<TableUnitConfig::Timing, 16> timing_{};
    std::array<bool, 16> executes_{};
    // Integer costs of an op that fits one register (the common case), precomputed.
    std::array<std::uint64_t, 16> singleOccupancy_{};
    std::array<std::uint64_t, 16> singleLatency_{};
    // [op kind][dtype] → (ops, elements)
    std::array<std::array<std::uint64_t, 6>, 16> opCount_{};
    std::array<std::array<std::uint64_t, 6>, 16> elementCount_{};
};

}  // namespace tessim
