// The text form of the vector-ISA ops: segment loads and stores carry their field count, a load's
// address register is read when present and absent lines (older streams) still parse, and bad
// values are errors that name the field.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/config/ConfigError.h"
#include "sim/ir/OpJsonl.h"

namespace tessim {
namespace {

TargetInfo oneCoreTarget() {
    TargetInfo t;
    t.name = "isa-test";
    MemorySpaceInfo m;
    m.name = "l1";
    m.id = 0;
    m.level = "l1";
    m.size = 1ULL << 16;
    m.peakBandwidth = 1e9;
    t.spaces.push_back(m);
    EngineInfo e;
    e.name = "core";
    t.engines.push_back(e);
    return t;
}

std::vector<Op> parse(const std::string& text) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("tessim-isa-" + std::to_string(::getpid()) + ".jsonl"))
            .string();
    std::ofstream(path) << "{\"schema\":\"tessim.schedule/1\"}\n" << text;  // the header, then the lines
    std::vector<Op> ops;
    try {
        for (auto& es : readSchedule(path, oneCoreTarget()))
            while (const Op* op = es.stream->next())
                ops.push_back(*op);
    } catch (...) {
        std::remove(path.c_str());
        throw;
    }
    std::remove(path.c_str());
    return ops;
}

void expectError(const std::string& line, const std::string& fragment) {
    try {
        parse(line + "\n");
        FAIL() << "expected an error for " << line;
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(VectorIsaJsonl, SegmentOpsAndAddressRegistersParse) {
    std::vector<Op> ops = parse(
        R"({"engine":"core","op":"vlseg","dtype":"f16","vd":8,"vl":16,"mem":"l1","addr":64,"nf":4,"saddr":9}
{"engine":"core","op":"vsseg","dtype":"f32","vs0":0,"vl":8,"mem":"l1","addr":0,"nf":2}
{"engine":"core","op":"vload","dtype":"f32","vd":0,"vl":8,"mem":"l1","addr":0}
{"engine":"core","op":"sload","dtype":"i32","sd":3,"mem":"l1","addr":4,"saddr":2}
{"engine":"core","op":"wfma","dtype":"f16","vd":8,"vs0":0,"vs1":4,"vs2":8,"vl":16}
)");
    ASSERT_EQ(ops.size(), 5u);
    EXPECT_EQ(ops[0].kind, OpKind::SegLoad);
    EXPECT_EQ(ops[0].count, 4u);
    EXPECT_EQ(ops[0].base, kScalarRegBase + 9);
    EXPECT_EQ(ops[0].dtype, DType::F16);
    EXPECT_EQ(ops[1].kind, OpKind::SegStore);
    EXPECT_EQ(ops[1].count, 2u);
    EXPECT_EQ(ops[1].base, kNoReg);
    EXPECT_EQ(ops[2].base, kNoReg);  // an older stream: no address register
    EXPECT_EQ(ops[3].base, kScalarRegBase + 2);
    EXPECT_EQ(ops[4].kind, OpKind::WidenFma);
    EXPECT_EQ(ops[4].src[2], 8);
}

TEST(VectorIsaJsonl, ALoadWithoutAnAddressRegisterIsWrittenAsBefore) {
    Op load;
    load.kind = OpKind::VLoad;
    load.dst = 8;
    load.vl = 8;
    load.addr = 64;
    std::vector<EngineStream> streams;
    streams.push_back(EngineStream{"core", std::make_unique<VectorOpStream>(std::vector<Op>{load})});
    std::ostringstream text;
    writeSchedule(text, streams, oneCoreTarget());
    const std::string line = text.str().substr(text.str().find('\n') + 1);
    EXPECT_EQ(line, R"({"engine":"core","op":"vload","dtype":"f32","vd":8,"vl":8,"mem":"l1","addr":64})"
                    "\n");
}

TEST(VectorIsaJsonl, BadSegmentAndAddressFieldsAreErrors) {
    expectError(R"({"engine":"core","op":"vlseg","vd":8,"vl":8,"mem":"l1","addr":0})", "nf");
    expectError(R"({"engine":"core","op":"vlseg","vd":8,"vl":8,"mem":"l1","addr":0,"nf":9})",
                "a segment has 1 to 8 fields, not 9");
    expectError(R"({"engine":"core","op":"vsseg","vs0":8,"vl":8,"mem":"l1","addr":0,"nf":2,"stride":8})",
                "unit-stride");
    expectError(R"({"engine":"core","op":"vload","vd":8,"vl":8,"mem":"l1","addr":0,"saddr":99})",
                "scalar register 99 out of range");
    // Only loads and stores take an address register.
    expectError(R"({"engine":"core","op":"add","vd":1,"vs0":2,"vs1":3,"saddr":1})", "unknown field 'saddr'");
}

}  // namespace
}  // namespace tessim
