#include "models/compute/UnitFactory.h"

#include <algorithm>
#include <array>
#include <optional>

#include <fmt/format.h>

#include "models/compute/SystolicArray.h"
#include "sim/engine/TableUnit.h"

namespace tessim {
namespace {

// A cycle count, or a table per LMUL ({m1: 4, m2: 16, m4: 64, m8: 256}) for costs that do not
// scale linearly with the register group; returns the m1 value in both cases. A table may also
// price the fractional groups (mf2, mf4, mf8: each defaults to the next larger group's) when
// `fractional` is given.
double readCycles(config::Reader& t, const std::string& key, std::optional<double> fallback,
                  config::Range<double> range, std::optional<std::array<double, 4>>& table,
                  std::array<double, 3>* fractional = nullptr) {
    const config::Node* node = t.self().find(key);
    if (node && node->isMap()) {
        config::Reader m = t.child(key);
        std::array<double, 4> values{};
        const char* names[] = {"m1", "m2", "m4", "m8"};
        for (std::size_t i = 0; i < values.size(); ++i)
            values[i] = m.get<double>(names[i], range);
        table = values;
        if (fractional) {  // mf8, mf4, mf2, read from the largest down
            const char* smaller[] = {"mf8", "mf4", "mf2"};
            double next = values[0];
            for (int i = 2; i >= 0; --i)
                next = (*fractional)[static_cast<std::size_t>(i)] = m.get<double>(smaller[i], next, range);
        }
        m.finish();
        return values[0];
    }
    if (fractional)
        fractional->fill(0.0);
    return fallback ? t.get<double>(key, *fallback, range) : t.get<double>(key, range);
}

std::unique_ptr<FunctionalUnit> makeTableUnit(config::Reader& r, const std::string& name,
                                              const UnitContext& context) {
    using namespace config;
    TableUnitConfig c;
    c.name = name;
    c.unitClass =
        r.oneOf("class", {"compute", "memory"}) == "compute" ? UnitClass::Compute : UnitClass::Memory;
    c.instances = r.get<unsigned>("instances", 1u, Range<unsigned>{1, 64});
    c.registerBytes = context.registerBytes;
    if (c.unitClass == UnitClass::Memory) {
        c.bytesPerCycle = r.get<double>("bytes_per_cycle", Range<double>{1e-3, 1e6});
        c.stridedElementsPerCycle =
            r.get<double>("strided_elements_per_cycle", 1.0, Range<double>{1e-3, 1e6});
        c.groupedSegmentFields = r.get<unsigned>("grouped_segment_fields", 0u, Range<unsigned>{0, 8});
    }
    std::vector<DType> dtypes;
    const auto dtypeNames = r.get<std::vector<std::string>>("dtypes");
    if (dtypeNames.empty())
        r.fail("dtypes", "a unit executes at least one datatype (i8, i16, i32, f16, f32, f64)");
    for (const auto& name : dtypeNames) {
        DType t;
        if (!parseDType(name, t))
            r.fail("dtypes", "unknown datatype '" + name + "' (expected i8, i16, i32, f16, f32, f64)");
        dtypes.push_back(t);
    }
    c.dtypes = dtypes;
    Reader ops = r.child("ops");
    ops.describeKeysAs("<op>");
    for (const auto& [opName, node] : ops.self().entries()) {
        TimingClass timingClass;
        if (!findTimingClass(opName, timingClass))
            ops.fail(opName, "unknown op '" + opName + "'");
        Reader t = ops.child(opName);
        TableUnitConfig::Timing timing;
        timing.latency =
            readCycles(t, "latency", std::nullopt, Range<double>{0.0, 1e6}, timing.latencyByLmul);
        timing.reciprocal = readCycles(t, "reciprocal", 1.0, Range<double>{1e-3, 1e6},
                                       timing.reciprocalByLmul, &timing.fractionalReciprocal);
        t.finish();
        c.ops[timingClass] = timing;
    }
    // A variant (reduce_ordered, slide_up) refines its primary class, which the unit then times too.
    for (const auto& [timingClass, timing] : c.ops) {
        const OpDescriptor* owner = variantOwner(timingClass);
        if (owner && !c.ops.count(owner->timingClass))
            ops.fail(std::string(timingClassName(timingClass)),
                     fmt::format("a unit with {} also needs {}", timingClassName(timingClass),
                                 timingClassName(owner->timingClass)));
    }
    // Energy per element (compute) or per byte (memory), per op and datatype: `<op>_<dtype>`.
    Reader energy = r.child("energy");
    energy.describeKeysAs("<op>_<dtype>", {"static_power"});
    for (const auto& [timingClass, timing] : c.ops) {
        if (variantOwner(timingClass))
            continue;  // priced as its primary class
        for (DType t : dtypes) {
            std::string key = std::string(timingClassName(timingClass)) + "_" + std::string(dtypeName(t));
            c.energyPerElement[{timingClass, t}] = energy.get<Energy>(key).joules;
        }
    }
    c.staticWatts = energy.get<Power>("static_power", Power{0.0}).watts;
    // An energy-table section may price more ops and datatypes than this unit executes.
    for (const auto& entry : energy.self().entries())
        energy.ignore(entry.first);
    return std::make_unique<TableUnit>(std::move(c));
}

}  // namespace

std::unique_ptr<FunctionalUnit> makeUnit(config::Reader& r, const std::string& name,
                                         const UnitContext& context) {
    std::string impl = r.get<std::string>("impl", std::string("table"));
    r.describeAs("impl: " + impl + " (unit of an engine)");
    std::unique_ptr<FunctionalUnit> unit;
    if (impl == "table")
        unit = makeTableUnit(r, name, context);
    else if (impl == "systolic")
        unit = std::make_unique<SystolicArray>(SystolicConfig::fromYaml(r, name));
    else
        r.fail("impl", "unknown unit model '" + impl + "' (expected one of: table, systolic)");
    if (context.slotClasses.empty()) {
        if (r.has("slot"))
            r.fail("slot", "the engine has no slot classes (give it vliw: true and slots: {...})");
    } else {
        std::string slot = r.get<std::string>("slot");
        if (std::find(context.slotClasses.begin(), context.slotClasses.end(), slot) ==
            context.slotClasses.end())
            r.fail("slot", "the engine has no slot class '" + slot + "'");
        unit->setSlotClass(slot);
    }
    return unit;
}

}  // namespace tessim
