// A pipelined unit whose timing is a table from the target YAML: per op kind a latency and a
// reciprocal throughput for one register's worth of data. An op spanning G registers (vector
// length grouping, LMUL) occupies the unit G times longer, as measured on the X60 for most ops.
// Where the cost does not scale linearly, the YAML gives it per LMUL, for latency, reciprocal or
// both (all four entries; G is rounded up to a power of two, and above m8 there is no entry); a
// reciprocal table may price the fractional groups too (mf2, mf4, mf8), for ops that state their
// LMUL (Op::lmul8: a program's instructions). An op that states its LMUL spans that group whatever
// its vl (the X60 prices an instruction by its LMUL, not its active elements):
//
//   ops:
//     fma:            {latency: 5, reciprocal: 1}                        # linear in G
//     vgather:        {latency: 4, reciprocal: {m1: 4, m2: 16, m4: 64, m8: 256}}
//     reduce:         {latency: 7, reciprocal: {m1: 6.5, m2: 11, m4: 17, m8: 54}}
//     reduce_ordered: {latency: 11, reciprocal: {m1: 11, m2: 23, m4: 48, m8: 192}}
//
// `reduce_ordered` times reductions flagged ordered (vfredosum); without it they cost as `reduce`.
// `reduce_int` times reductions of integer elements, `add_logic` adds flagged bitwise (a program's
// vand/vor/vxor); without them they cost as `reduce` and `add`.
// `slide_up` times slides towards higher elements (vslideup: imm < 0); without it they cost as
// `slide` (which then times vslidedown alone).
// Segment loads and stores (vlseg/vsseg): the table gives the cost of one field; an op of nf
// fields costs nf times as much (and moves nf times the bytes).
// The peak of a unit with `fma` is 2 FLOP per element of one register per reciprocal cycle: at
// the same cost per register, 16-bit elements double it and 64-bit ones halve it.
// A per-LMUL reciprocal may be fractional (measured: vle32 m1 2.45 cycles). The unit then stays
// busy for whole cycles whose sum follows the fractions: each op takes its cost plus what earlier
// ops owe (−1 < owed ≤ 0), rounded up, so n ops of 16.5 cycles keep the unit busy 16.5·n cycles
// (±1). Costs without a table round each op up on its own, as before.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/FunctionalUnit.h"
#include "sim/ir/OpTable.h"

namespace tessim {

struct TableUnitConfig {
    std::string name;
    UnitClass unitClass = UnitClass::Compute;
    unsigned instances = 1;
    unsigned registerBytes = 32;  // bytes of one vector register (VLEN / 8)
    // Memory units: bytes moved per cycle for unit-stride and elements per cycle for strided.
    double bytesPerCycle = 16.0;
    double stridedElementsPerCycle = 1.0;
    // Segment accesses of up to this many fields go by register group, at the vlseg/vsseg row's
    // cost per field; more fields, one field element at a time (stridedElementsPerCycle). 0: any.
    unsigned groupedSegmentFields = 0;
    using Timing = OpTimingInfo;  // cycles; reciprocal per register of data
    // By timing class (OpTable.h): the unit executes every kind whose class is here; a variant
    // class (reduce_ordered, slide_up) absent here costs as its primary class.
    std::map<TimingClass, Timing> ops;
    // Energy per element operation (or per byte for memory units), J, keyed by timing class and dtype.
    std::map<std::pair<TimingClass, DType>, double> energyPerElement;
    double staticWatts = 0.0;
    // The datatypes it executes (`dtypes`); empty: every one.
    std::vector<DType> dtypes;
};

class TableUnit : public FunctionalUnit {
public:
    explicit TableUnit(TableUnitConfig config);

    bool executes(OpKind kind) const override {
        const auto k = static_cast<std::size_t>(kind);
        return k < kinds_.size() && kinds_[k].executes;
    }
    bool executesType(DType t) const override {
        return config_.dtypes.empty() ||
               std::find(config_.dtypes.begin(), config_.dtypes.end(), t) != config_.dtypes.end();
    }
    std::uint64_t occupancy(const Op& op) const override;
    std::uint64_t latency(const Op& op) const override;
    void account(const Op& op) override;
    IssueCost issue(const Op& op) override;
    double work(const Op& op) const override;
    double peakWorkPerCycle() const override;
    double peakWorkPerCycleFor(DType t) const override;
    void collect(const std::string& path, StatsTree& stats, EnergyLedger& energy,
                 double seconds) const override;
    UnitInfo describe() const override;

private:
    std::uint64_t registerGroups(const Op& op) const;
    // Cycles the op keeps an instance busy, before rounding to whole cycles.
    double occupancyCycles(const Op& op) const;
    // Index into a per-LMUL table (0..3 for m1..m8) of an op spanning `groups` registers.
    std::size_t lmulIndex(const Op& op, std::uint64_t groups) const;
    // The per-LMUL table's reciprocal for the op: its stated fractional group's (Op::lmul8 < 8),
    // else its register groups'.
    double tableReciprocal(const OpTimingInfo& t, const Op& op) const;

    static constexpr std::size_t kDTypes = 6;
    // What an op's cost depends on besides its row: kept with the last op's cost, as a stream
    // repeats the same few ops.
    struct CostKey {
        bool valid = false;
        std::uint32_t vl = 0;
        DType dtype = DType::F32;
        std::int64_t stride = 0;
        std::uint32_t fields = 0;
        std::uint8_t lmul8 = 0;
        static CostKey of(const Op& op) {
            return CostKey{true, op.vl, op.dtype, op.stride, op.count, op.lmul8};
        }
        bool matches(const Op& op) const {
            return valid && vl == op.vl && dtype == op.dtype && stride == op.stride && fields == op.count &&
                   lmul8 == op.lmul8;
        }
    };
    // The last op's occupancy and latency per timing row (see keptCost()).
    struct LastCost {
        CostKey key;
        std::uint64_t occupancy = 0, latency = 0;
    };
    // A timing row (one per timing class), with the integer costs of an op that fits one
    // register (the common case) precomputed: the hot path does no map look-ups.
    struct Row {
        TableUnitConfig::Timing timing;
        std::uint64_t singleOccupancy = 0;
        std::uint64_t singleLatency = 0;
        bool reciprocalTable = false;  // the reciprocal is a per-LMUL table
        LastCost lastCost;             // memory ops, and compute ops of several registers
    };
    // What issue() needs of an op kind's table row, copied here (one look-up per op), and the
    // kind's counts: [dtype] → ops, elements.
    struct Kind {
        bool executes = false;
        bool variant = false;           // the row depends on the op (timingClassOf)
        std::uint8_t variantFlags = 0;  // nonzero: only ops with one of these flags may vary
        bool scalar = false;            // one element whatever vl says
        bool scalarAccess = false;      // a load or store of one element
        bool segment = false;
        bool reciprocalTable = false;  // of its row (a kind without variant), copied
        std::size_t row = 0;
        std::uint64_t singleOccupancy = 0;  // of its row (a kind without variant), copied
        std::uint64_t singleLatency = 0;
        double work = 0.0;  // per element
        // The last table-timed op's figures (see tableCost()): a stream repeats the same few ops.
        struct TableCost {
            CostKey key;
            double occupancy = 0.0;
            std::uint64_t latency = 0;
        } lastTable;
        std::array<std::uint64_t, kDTypes> ops{};
        std::array<std::uint64_t, kDTypes> elements{};
        bool mayVary(const Op& op) const { return variantFlags == 0 || (op.flags & variantFlags) != 0; }
        std::uint64_t memoryElements(const Op& op) const {
            return scalarAccess ? 1 : segment ? std::uint64_t{op.vl} * op.count : op.vl;
        }
    };
    TableUnitConfig config_;
    std::vector<Row> rows_;
    std::vector<Kind> kinds_;
    double owed_ = 0.0;  // fractional cycles of table-timed ops not yet charged (−1 < owed ≤ 0)
    std::size_t rowOf(const Op& op) const {
        const Kind& k = kinds_[static_cast<std::size_t>(op.kind)];
        return k.variant && k.mayVary(op) ? timingClassOf(op, opInfo(op.kind)) : k.row;
    }
    IssueCost keptCost(const Op& op);
    IssueCost variantCost(const Op& op, const Kind& kind);
    IssueCost tableCost(const Op& op, Kind& kind);
    // Charges `occupancy` fractional cycles, carrying what rounding leaves to the next op.
    std::uint64_t chargeOccupancy(double occupancy);
    // issue()'s cost of an op of `kind`, given its row's single-register figures.
    IssueCost cost(const Op& op, const Kind& kind, bool reciprocalTable, std::uint64_t singleOccupancy,
                   std::uint64_t singleLatency);
};

}  // namespace tessim
