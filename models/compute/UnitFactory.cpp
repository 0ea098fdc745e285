#include "models/compute/UnitFactory.h"

#include "models/compute/SystolicArray.h"
#include "sim/engine/TableUnit.h"

namespace tessim {
namespace {

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
    }
    std::vector<DType> dtypes;
    for (const auto& name : r.get<std::vector<std::string>>("dtypes")) {
        DType t;
        if (!parseDType(name, t))
            r.fail("dtypes", "unknown datatype '" + name + "' (expected i8, i16, i32, f16, f32, f64)");
        dtypes.push_back(t);
    }
    Reader ops = r.child("ops");
    for (const auto& [opName, node] : ops.self().entries()) {
        OpKind kind;
        if (!parseOpKind(opName, kind))
            ops.fail(opName, "unknown op '" + opName + "'");
        Reader t = ops.child(opName);
        TableUnitConfig::Timing timing;
        timing.latency = t.get<double>("latency", Range<double>{0.0, 1e6});
        timing.reciprocal = t.get<double>("reciprocal", 1.0, Range<double>{1e-3, 1e6});
        t.finish();
        c.ops[kind] = timing;
    }
    // Energy per element (compute) or per byte (memory), per op and datatype: `<op>_<dtype>`.
    Reader energy = r.child("energy");
    for (const auto& [kind, timing] : c.ops) {
        for (DType t : dtypes) {
            std::string key = std::string(opKindName(kind)) + "_" + std::string(dtypeName(t));
            c.energyPerElement[{kind, t}] = energy.get<Energy>(key).joules;
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
    if (impl == "table")
        return makeTableUnit(r, name, context);
    if (impl == "systolic")
        return std::make_unique<SystolicArray>(SystolicConfig::fromYaml(r, name));
    r.fail("impl", "unknown unit model '" + impl + "' (expected one of: table, systolic)");
}

}  // namespace tessim
