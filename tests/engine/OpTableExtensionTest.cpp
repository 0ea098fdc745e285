// A new op kind is one row of the op-descriptor table: registered here with its semantics, each
// kind below parses from JSON Lines, passes the schedule checks, has a footprint, executes
// functionally and is timed by the unit table that names its timing class — with no other edit.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "engine/EngineTestUtil.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/ir/Footprint.h"
#include "sim/ir/OpJsonl.h"
#include "sim/ir/OpSemantics.h"
#include "sim/ir/OpTable.h"
#include "sim/validate/CheckedOpStream.h"

namespace tessim {
namespace {

using namespace test;

// vd[i] ← max(vs0[i], vs1[i])
void vectorMax(const Op& op, OpExecution& exec) {
    std::vector<double> result = semantics::undisturbedTail(exec.vector(op.dst), op.vl);
    const auto& a = exec.source(op, 0);
    const auto& b = exec.source(op, 1);
    for (std::size_t i = 0; i < op.vl; ++i)
        result[i] = std::max(semantics::element(a, i), semantics::element(b, i));
    exec.vector(op.dst) = std::move(result);
}

// vd[i] ← the element at addr + (vl − 1 − i) · size: a load in reverse order.
void reversedLoad(const Op& op, OpExecution& exec) {
    auto& d = exec.vector(op.dst);
    d.resize(std::max<std::size_t>(d.size(), op.vl));
    const unsigned elem = dtypeBytes(op.dtype);
    for (std::size_t i = 0; i < op.vl; ++i)
        d[i] = decodeElement(op.dtype, exec.loaded() + (op.vl - 1 - i) * elem);
}

OpKind vectorMaxKind() {
    static const OpKind kind = [] {
        OpDescriptor row;
        row.name = "vmax";
        row.summary = "vd[i] ← max(vs0[i], vs1[i])";
        row.opClass = OpClass::Compute;
        row.semantics = vectorMax;
        return registerOpKind(row);
    }();
    return kind;
}

OpKind reversedLoadKind() {
    static const OpKind kind = [] {
        OpDescriptor row;
        row.name = "vlrev";
        row.summary = "vd[i] ← element vl − 1 − i at mem:addr";
        row.opClass = OpClass::Memory;
        row.memory = true;
        row.footprint = FootprintRule::ElementsRead;
        row.semantics = reversedLoad;
        return registerOpKind(row);
    }();
    return kind;
}

// The engine-test target with the two new timing classes in its unit tables.
ConfiguredTarget& targetTiming(unsigned maxLatency, unsigned reversedReciprocal) {
    return makeTarget({"rvv.units.valu.ops.vmax.latency=" + std::to_string(maxLatency),
                       "rvv.units.valu.energy.vmax_f32=1 pJ", "rvv.units.lsu.ops.vlrev.latency=2",
                       "rvv.units.lsu.ops.vlrev.reciprocal=" + std::to_string(reversedReciprocal),
                       "rvv.units.lsu.energy.vlrev_f32=0.05 pJ", "rvv.units.lsu.energy.vlrev_i32=0.05 pJ"});
}

std::vector<Op> parse(const std::vector<std::string>& lines, const TargetInfo& info) {
    std::vector<Op> ops;
    std::string engine;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        ops.push_back(parseScheduleOp("new-kinds.jsonl", static_cast<int>(i + 1), lines[i], info, engine));
        EXPECT_EQ(engine, "rvv");
    }
    return ops;
}

const std::vector<std::string> kProgram = {
    R"({"engine":"rvv","op":"vload","dtype":"f32","vd":1,"vl":8,"mem":"spm","addr":0})",
    R"({"engine":"rvv","op":"vlrev","dtype":"f32","vd":2,"vl":8,"mem":"spm","addr":0})",
    R"({"engine":"rvv","op":"vmax","dtype":"f32","vd":3,"vs0":1,"vs1":2,"vl":8})",
    R"({"engine":"rvv","op":"vstore","dtype":"f32","vs0":3,"vl":8,"mem":"spm","addr":64})",
};

TEST(OpTableExtension, NewKindsParseCheckFootprintExecuteAndTime) {
    const OpKind vmax = vectorMaxKind();
    const OpKind vlrev = reversedLoadKind();
    EXPECT_GE(static_cast<std::size_t>(vmax), kBuiltInOpKinds);
    EXPECT_EQ(opKindName(vlrev), "vlrev");

    ConfiguredTarget& t = targetTiming(30, 3);
    const std::vector<Op> ops = parse(kProgram, t.info());
    EXPECT_EQ(ops[1].kind, vlrev);
    EXPECT_EQ(ops[2].kind, vmax);

    // Written back to JSON Lines, the ops read the same.
    std::vector<EngineStream> streams;
    streams.push_back(EngineStream{"rvv", std::make_unique<VectorOpStream>(ops)});
    std::ostringstream text;
    writeSchedule(text, streams, t.info());
    EXPECT_NE(text.str().find(R"("op":"vmax")"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find(R"("op":"vlrev")"), std::string::npos) << text.str();

    // Footprint: the reversed load reads its 32 bytes; vmax touches no memory.
    const std::vector<FootprintRange> read = footprint(ops[1]);
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].bytes, 32u);
    EXPECT_FALSE(read[0].write);
    EXPECT_TRUE(footprint(ops[2]).empty());

    // The schedule checks accept them; a register the engine lacks is refused as for any kind.
    const EngineInfo* engine = t.info().findEngine("rvv");
    ASSERT_NE(engine, nullptr);
    ValidationLog log;
    std::vector<Op> checked = ops;
    Op tooHigh = ops[2];
    tooHigh.dst = 40;  // rvv has v0..v31
    checked.push_back(tooHigh);
    CheckedOpStream stream(std::make_unique<VectorOpStream>(checked), *engine, t.info(), log);
    while (stream.next()) {
    }
    ASSERT_EQ(log.errors().size(), 1u);
    EXPECT_EQ(log.errors()[0].kind, "register-budget");

    // Functional: v3 = max(x, reversed x), stored at 64.
    std::vector<float> x{1, 9, 2, 8, 3, 7, 4, 6};
    t.functionalMemory().write(0, 0, x.data(), x.size() * 4);
    runStream("rvv", ops, /*functional=*/true);
    std::vector<float> out(8);
    t.functionalMemory().read(0, 64, out.data(), out.size() * 4);
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(out[i], std::max(x[i], x[x.size() - 1 - i])) << i;
}

TEST(OpTableExtension, UnitTablesTimeTheNewKinds) {
    vectorMaxKind();
    reversedLoadKind();
    auto cycles = [](unsigned maxLatency, unsigned reversedReciprocal) {
        ConfiguredTarget& t = targetTiming(maxLatency, reversedReciprocal);
        return runStream("rvv", parse(kProgram, t.info())).finishCycle();
    };
    const std::uint64_t base = cycles(30, 3);
    // vmax's latency lies on the path from the loads to the store: 20 more cycles of it.
    EXPECT_EQ(cycles(50, 3), base + 20);
    // The reversed load's reciprocal throughput delays vmax's operand.
    EXPECT_GT(cycles(30, 40), base);
}

TEST(OpTableExtension, AUnitTableNamingAnUnknownClassIsRefused) {
    EXPECT_THROW(makeTarget({"rvv.units.valu.ops.vnosuch.latency=1"}), config::ConfigError);
}

TEST(OpTableExtension, NamesAreUnique) {
    vectorMaxKind();
    OpDescriptor again;
    again.name = "vmax";
    EXPECT_THROW(registerOpKind(again), std::invalid_argument);
    OpDescriptor builtIn;
    builtIn.name = "fma";
    EXPECT_THROW(registerOpKind(builtIn), std::invalid_argument);
}

}  // namespace
}  // namespace tessim
