// A functional unit of an engine: which ops it executes, for how many cycles it is busy
// (reciprocal throughput) and after how many cycles its result is ready (latency).
// Variants (table-driven vector unit, systolic MAC array, ...) implement this interface.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/FunctionalMemory.h"
#include "sim/energy/EnergyLedger.h"
#include "sim/ir/Op.h"
#include "sim/machine/MacArrayInfo.h"
#include "sim/machine/TargetInfo.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

enum class UnitClass { Compute, Memory };

// The engine's memory ports as a unit that streams a tile's operands sees them.
class OperandPort {
public:
    virtual ~OperandPort() = default;
    // One access of op `op`: `bytes` at space:addr, arriving at cycle `at`; returns the cycle it
    // is served (the memory's banks, ports and other initiators may delay it).
    virtual std::uint64_t operandAccess(const Op& op, std::uint8_t space, std::uint64_t addr,
                                        std::uint64_t bytes, bool write, std::uint64_t at) = 0;
};

// What issuing one op costs a unit; see FunctionalUnit::issue().
struct IssueCost {
    std::uint64_t occupancy;  // cycles the unit instance stays busy
    std::uint64_t latency;    // cycles until the result can be used
    double work;              // work units (FLOP, MAC) done
};

class FunctionalUnit {
public:
    FunctionalUnit(std::string name, UnitClass unitClass, unsigned instances)
        : name_(std::move(name)), class_(unitClass), instances_(instances) {}
    virtual ~FunctionalUnit() = default;

    virtual bool executes(OpKind kind) const = 0;
    // Whether it executes its ops in this datatype (a unit that lists none executes every one).
    virtual bool executesType(DType t) const { return true; }
    // Cycles the unit instance stays busy with this op (≥ 1).
    virtual std::uint64_t occupancy(const Op& op) const = 0;
    // Cycles from issue until the result can be used (memory ops: extra pipeline cycles after
    // the data arrives).
    virtual std::uint64_t latency(const Op& op) const = 0;
    // Count the op for statistics and energy (called once per issued op).
    virtual void account(const Op& op) = 0;
    // The engine's hot path: account the op and return its costs in one call. Units with a
    // cheap closed form override it; the default composes the calls above.
    virtual IssueCost issue(const Op& op) {
        account(op);
        return IssueCost{occupancy(op), latency(op), work(op)};
    }
    // Tile-level ops that touch memory themselves (MAC tiles) execute here in functional mode.
    virtual void executeFunctional(const Op& op, FunctionalMemory& memory) {}
    // A tile-level op whose operands stream through memory while it runs (a MAC tile issued
    // over cycles [first, first + cycles)): the unit sends the accesses through `port` and
    // returns the cycle the last is served (≥ first + cycles); the op lasts until then.
    virtual std::uint64_t streamOperands(const Op& op, std::uint64_t first, std::uint64_t cycles,
                                         OperandPort& port) {
        return first + cycles;
    }
    // Work of an op in the unit of peak(): element operations, MACs...
    virtual double work(const Op& op) const { return 0.0; }
    // MAC arrays describe their geometry (planners cost tiles with it); other units return none.
    virtual std::optional<MacArrayInfo> macArray() const { return std::nullopt; }
    // Peak work per cycle of one instance (the compute bound uses it).
    virtual double peakWorkPerCycle() const { return 0.0; }
    // The same for elements of type t: vector units fill more lanes with narrower elements.
    virtual double peakWorkPerCycleFor(DType t) const { return peakWorkPerCycle(); }

    virtual void collect(const std::string& path, StatsTree& stats, EnergyLedger& energy,
                         double seconds) const = 0;
    // The unit as planners see it (TargetInfo): identity, instances, slot class and, for
    // table-driven units, each op's latency and reciprocal throughput.
    virtual UnitInfo describe() const {
        UnitInfo info;
        info.name = name_;
        info.unitClass = class_ == UnitClass::Compute ? "compute" : "memory";
        info.instances = instances_;
        info.slotClass = slotClass_;
        return info;
    }

    const std::string& name() const { return name_; }
    UnitClass unitClass() const { return class_; }
    unsigned instances() const { return instances_; }
    // The VLIW slot class the unit issues from ("" on engines without slot classes).
    const std::string& slotClass() const { return slotClass_; }
    void setSlotClass(std::string slotClass) { slotClass_ = std::move(slotClass); }

private:
    std::string name_;
    UnitClass class_;
    unsigned instances_;
    std::string slotClass_;
};

}  // namespace tessim
