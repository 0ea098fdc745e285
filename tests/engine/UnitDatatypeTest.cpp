// A unit executes the datatypes its `dtypes` lists. Schedules are checked when read; ops that
// kernels and programs generate are checked when the unit's counts are collected, where an
// unlisted datatype would otherwise be priced at no energy (k1's scalar loads once were).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/energy/EnergyLedger.h"
#include "sim/engine/TableUnit.h"
#include "sim/ir/OpTable.h"
#include "sim/stats/StatsTree.h"

namespace tessim {
namespace {

TEST(UnitDatatypes, AnOpInADatatypeTheUnitDoesNotListIsAnErrorNotFreeEnergy) {
    TableUnitConfig c;
    c.name = "valu";
    c.dtypes = {DType::F32};
    const TimingClass fma = opInfo(OpKind::Fma).timingClass;
    c.ops[fma].latency = 5;
    c.ops[fma].reciprocal = 1;
    c.energyPerElement[{fma, DType::F32}] = 4.6e-12;
    TableUnit unit(c);
    Op op;
    op.kind = OpKind::Fma;
    op.dtype = DType::F32;
    op.vl = 8;
    unit.issue(op);
    StatsTree stats;
    EnergyLedger energy;
    EXPECT_NO_THROW(unit.collect("core", stats, energy, 1e-6));

    op.dtype = DType::I8;
    unit.issue(op);
    unit.issue(op);
    try {
        unit.collect("core", stats, energy, 1e-6);
        FAIL() << "an i8 fma on an f32-only unit was priced";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(
            what.find("unit valu executed 2 'fma' ops in i8, a datatype its `dtypes` does not list (f32)"),
            std::string::npos)
            << what;
        EXPECT_NE(what.find("(fma_i8)"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace tessim
