// The text form of the op IR: every op kind survives emit → parse unchanged, and the new fields
// (scalar sources of vector ops, ordered reductions, branches, vsetvl) are checked on input.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "sim/config/ConfigError.h"
#include "sim/ir/OpJsonl.h"

namespace tessim {
namespace {

constexpr std::uint8_t s(unsigned r) {
    return static_cast<std::uint8_t>(kScalarRegBase + r);
}

TargetInfo testTarget() {
    TargetInfo t;
    t.name = "jsonl-test";
    for (auto [name, size] : {std::pair{"spm", 1ULL << 16}, {"ddr", 1ULL << 30}}) {
        MemorySpaceInfo m;
        m.name = name;
        m.id = static_cast<std::uint8_t>(t.spaces.size());
        m.level = name == std::string("spm") ? "sram" : "ddr";
        m.size = size;
        m.peakBandwidth = 1e9;
        t.spaces.push_back(m);
    }
    EngineInfo e;
    e.name = "core";
    e.dmaChannels = 4;
    t.engines.push_back(e);
    return t;
}

// One representative op of each kind, with the fields that kind carries set to non-defaults.
Op sampleOp(OpKind kind) {
    Op op;
    op.kind = kind;
    switch (kind) {
    case OpKind::Nop: op.tag = 7; break;
    case OpKind::VLoad:
        op.dst = 8;
        op.vl = 16;
        op.space = 1;
        op.addr = 4096;
        op.stride = 12;
        break;
    case OpKind::VStore:
        op.src[0] = 8;
        op.vl = 8;
        op.addr = 64;
        op.base = s(9);  // the address comes from a pointer register
        break;
    case OpKind::SegLoad:
        op.dtype = DType::F16;
        op.dst = 8;
        op.vl = 16;
        op.count = 3;
        op.addr = 96;
        op.base = s(10);
        break;
    case OpKind::SegStore:
        op.src[0] = 16;
        op.vl = 8;
        op.count = 2;
        op.space = 1;
        op.addr = 128;
        break;
    case OpKind::WidenFma:  // vfwmacc.vf: f16 sources, f32 accumulator
        op.dtype = DType::F16;
        op.dst = 8;
        op.src[0] = s(2);
        op.src[1] = 4;
        op.src[2] = 8;
        op.vl = 16;
        break;
    case OpKind::ScalarLoad:
    case OpKind::ScalarStore:
        op.dtype = DType::I32;
        (kind == OpKind::ScalarLoad ? op.dst : op.src[0]) = s(3);
        op.space = 1;
        op.addr = 256;
        break;
    case OpKind::Fma:  // vfmacc.vf: a scalar source
        op.dst = 8;
        op.src[0] = s(2);
        op.src[1] = 4;
        op.src[2] = 8;
        op.vl = 8;
        break;
    case OpKind::Mul:
    case OpKind::Add:
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Sub:
    case OpKind::Div:
    case OpKind::Convert:
    case OpKind::Recip:
    case OpKind::Gather:
        op.dst = 16;
        op.src[0] = 8;
        op.src[1] = 12;
        op.vl = 32;
        op.flags = Op::kBundleStart;
        break;
    case OpKind::Broadcast:
        op.dst = 1;
        op.vl = 8;
        op.imm = 0.25;
        break;
    case OpKind::Slide:
        op.dst = 2;
        op.src[0] = 3;
        op.src[1] = 4;
        op.vl = 8;
        op.imm = -1;
        break;
    case OpKind::Reduce:
        op.dst = s(1);
        op.src[0] = 8;
        op.src[1] = s(1);
        op.vl = 8;
        op.flags = Op::kOrdered;
        break;
    case OpKind::MacTile:
        op.dtype = DType::I8;
        op.mac = MacTileArgs{};
        op.mac.space = 0;
        op.mac.strideH = 2;
        op.mac.strideW = 1;  // per axis: written as stride_h and stride_w
        op.mac.kh = 3;
        op.mac.kw = 3;
        op.mac.channels = 4;
        op.mac.filters = 8;
        op.mac.inH = 9;
        op.mac.inW = 9;
        op.mac.outH = 4;
        op.mac.outW = 4;
        op.mac.in = 0;
        op.mac.weights = 1024;
        op.mac.out = 2048;
        op.mac.requantize = 1;
        op.mac.multiplier = 3;
        op.mac.shift = 5;
        op.mac.out8 = 4096;
        break;
    case OpKind::DmaStart: {
        DmaArgs d{};
        d.srcSpace = 1;
        d.dstSpace = 0;
        d.channel = 2;
        d.rowBytes = 64;
        d.rows = 3;
        d.planes = 2;
        d.src = 100;
        d.dst = 200;
        d.srcRowStride = 128;
        d.srcPlaneStride = 1024;
        d.dstRowStride = 64;
        d.dstPlaneStride = 192;
        op = dmaStartOp(5, d);
        break;
    }
    case OpKind::DmaWait: op = dmaWaitOp(5); break;
    case OpKind::Barrier:
    case OpKind::Join:
        op.tag = 3;
        op.count = 2;
        break;
    case OpKind::Fork: op.tag = 3; break;
    case OpKind::SAdd:
    case OpKind::SCompare:
        op.dtype = DType::I32;
        op.dst = s(1);
        op.src[0] = s(1);
        op.imm = 100;
        break;
    case OpKind::SMul:
    case OpKind::SDiv:  // an RV64 word op: its flag round-trips
        op.flags = Op::kWord;
        [[fallthrough]];
    case OpKind::SShift:
        op.dtype = DType::I32;
        op.dst = s(4);
        op.src[0] = s(5);
        op.src[1] = s(6);
        break;
    case OpKind::FAdd:
    case OpKind::FMul:
    case OpKind::FDiv:
    case OpKind::FCmp:
        op.dtype = DType::F64;
        op.dst = s(4);
        op.src[0] = s(5);
        op.src[1] = s(6);
        break;
    case OpKind::FMadd:
        op.dst = s(4);
        op.src[0] = s(5);
        op.src[1] = s(6);
        op.src[2] = s(7);
        break;
    case OpKind::FCvt:
        op.dst = s(4);
        op.src[0] = s(5);
        break;
    case OpKind::Branch:
        op.src[0] = s(2);
        op.flags = Op::kTaken | Op::kMispredicted;
        break;
    case OpKind::VSetVl:
        op.dtype = DType::F32;
        op.dst = s(7);
        op.src[0] = s(8);
        op.imm = 4;
        break;
    case OpKind::Fence:
    case OpKind::BuiltInCount: break;
    }
    return op;
}

void expectSameOp(const Op& a, const Op& b) {
    SCOPED_TRACE(std::string(opKindName(a.kind)));
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(a.tag, b.tag);
    EXPECT_EQ(a.count, b.count);
    switch (a.kind) {
    case OpKind::DmaStart:
        EXPECT_EQ(a.dma.srcSpace, b.dma.srcSpace);
        EXPECT_EQ(a.dma.dstSpace, b.dma.dstSpace);
        EXPECT_EQ(a.dma.channel, b.dma.channel);
        EXPECT_EQ(a.dma.rowBytes, b.dma.rowBytes);
        EXPECT_EQ(a.dma.rows, b.dma.rows);
        EXPECT_EQ(a.dma.planes, b.dma.planes);
        EXPECT_EQ(a.dma.src, b.dma.src);
        EXPECT_EQ(a.dma.dst, b.dma.dst);
        EXPECT_EQ(a.dma.srcRowStride, b.dma.srcRowStride);
        EXPECT_EQ(a.dma.srcPlaneStride, b.dma.srcPlaneStride);
        EXPECT_EQ(a.dma.dstRowStride, b.dma.dstRowStride);
        EXPECT_EQ(a.dma.dstPlaneStride, b.dma.dstPlaneStride);
        return;
    case OpKind::MacTile:
        EXPECT_EQ(a.dtype, b.dtype);
        // Field by field: the struct has padding bytes, which a parse need not reproduce.
        EXPECT_EQ(std::tie(a.mac.space, a.mac.accumulate, a.mac.strideH, a.mac.strideW, a.mac.kh, a.mac.kw,
                           a.mac.pad, a.mac.requantize, a.mac.shift, a.mac.channels, a.mac.filters,
                           a.mac.multiplier, a.mac.inH, a.mac.inW, a.mac.outH, a.mac.outW, a.mac.in,
                           a.mac.weights, a.mac.out, a.mac.out8),
                  std::tie(b.mac.space, b.mac.accumulate, b.mac.strideH, b.mac.strideW, b.mac.kh, b.mac.kw,
                           b.mac.pad, b.mac.requantize, b.mac.shift, b.mac.channels, b.mac.filters,
                           b.mac.multiplier, b.mac.inH, b.mac.inW, b.mac.outH, b.mac.outW, b.mac.in,
                           b.mac.weights, b.mac.out, b.mac.out8));
        return;
    case OpKind::Nop:
    case OpKind::DmaWait:
    case OpKind::Barrier:
    case OpKind::Join:
    case OpKind::Fork: return;
    case OpKind::Branch: EXPECT_EQ(a.src[0], b.src[0]); return;
    default:
        EXPECT_EQ(a.dtype, b.dtype);
        EXPECT_EQ(a.dst, b.dst);
        for (int i = 0; i < 3; ++i)
            EXPECT_EQ(a.src[i], b.src[i]) << "src " << i;
        EXPECT_EQ(a.vl, b.vl);
        EXPECT_EQ(a.space, b.space);
        EXPECT_EQ(a.addr, b.addr);
        EXPECT_EQ(a.stride, b.stride);
        EXPECT_EQ(a.imm, b.imm);
        EXPECT_EQ(a.base, b.base);
    }
}

struct TempFile {
    std::string path;
    explicit TempFile(const std::string& name)
        : path((std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".jsonl"))
                   .string()) {}
    ~TempFile() { std::remove(path.c_str()); }
};

std::vector<Op> readBack(const std::string& text, const TargetInfo& target) {
    TempFile file("tessim-jsonl");
    // Hand-written lines get the header a schedule starts with.
    std::ofstream(file.path) << (text.rfind(R"({"schema")", 0) == 0 ? ""
                                                                    : "{\"schema\":\"tessim.schedule/1\"}\n")
                             << text;
    std::vector<EngineStream> streams = readSchedule(file.path, target);
    std::vector<Op> ops;
    for (auto& es : streams)
        while (const Op* op = es.stream->next())
            ops.push_back(*op);
    return ops;
}

TEST(OpJsonl, EveryOpKindSurvivesEmitAndParse) {
    const TargetInfo target = testTarget();
    std::vector<Op> ops;
    for (std::size_t k = 0; k < kBuiltInOpKinds; ++k)
        ops.push_back(sampleOp(static_cast<OpKind>(k)));
    std::vector<EngineStream> streams;
    streams.push_back(EngineStream{"core", std::make_unique<VectorOpStream>(ops)});
    std::ostringstream text;
    EXPECT_EQ(writeSchedule(text, streams, target), kBuiltInOpKinds);
    std::vector<Op> back = readBack(text.str(), target);
    ASSERT_EQ(back.size(), ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
        expectSameOp(ops[i], back[i]);
}

TEST(OpJsonl, OpNamesRoundTrip) {
    for (std::size_t k = 0; k < kBuiltInOpKinds; ++k) {
        OpKind parsed = OpKind::Nop;
        ASSERT_TRUE(parseOpKind(opKindName(static_cast<OpKind>(k)), parsed)) << k;
        EXPECT_EQ(static_cast<std::size_t>(parsed), k);
    }
    OpKind unused;
    EXPECT_FALSE(parseOpKind("vfmacc", unused));
}

TEST(OpJsonl, NewOpsReadFromHandWrittenLines) {
    const std::string text =
        R"({"engine":"core","op":"fma","dtype":"f32","vd":8,"ss0":2,"vs1":4,"vs2":8,"vl":8}
{"engine":"core","op":"reduce","dtype":"f32","sd":1,"vs0":8,"vl":8,"ordered":true}
{"engine":"core","op":"branch","ss0":3,"taken":false}
{"engine":"core","op":"vsetvl","dtype":"i32","sd":5,"vl":100,"lmul":8}
{"engine":"core","op":"sadd","dtype":"i32","sd":1,"ss0":1,"imm":-4}
{"engine":"core","op":"reduce","dtype":"f32","sd":2,"vs0":8,"ss1":2,"vl":8,"max":true}
)";
    std::vector<Op> ops = readBack(text, testTarget());
    ASSERT_EQ(ops.size(), 6u);
    EXPECT_EQ(ops[5].count, kReduceMax);  // vfredmax
    EXPECT_EQ(ops[1].count, 0u);
    // Written back with the field, read again the same.
    std::vector<EngineStream> streams;
    streams.push_back(EngineStream{"core", std::make_unique<VectorOpStream>(std::vector<Op>{ops[5]})});
    std::ostringstream written;
    writeSchedule(written, streams, testTarget());
    EXPECT_NE(written.str().find("\"max\":true"), std::string::npos) << written.str();
    EXPECT_EQ(readBack(written.str(), testTarget()).at(0).count, kReduceMax);
    EXPECT_EQ(ops[0].src[0], s(2));
    EXPECT_TRUE(ops[1].flags & Op::kOrdered);
    EXPECT_EQ(ops[2].kind, OpKind::Branch);
    EXPECT_FALSE(ops[2].flags & Op::kTaken);
    EXPECT_EQ(ops[2].src[0], s(3));
    EXPECT_EQ(ops[3].imm, 8.0);
    EXPECT_EQ(ops[3].vl, 100u);
    EXPECT_EQ(ops[4].imm, -4.0);
}

// A vector op's register group travels with it: an emitted schedule replays a short tail at the
// group's price, as the run that emitted it did.
TEST(OpJsonl, AVectorOpsRegisterGroupSurvivesEmitAndParse) {
    const TargetInfo target = testTarget();
    Op load = sampleOp(OpKind::VLoad);
    load.vl = 3;
    load.lmul8 = 64;  // LMUL 8, three elements
    Op add = sampleOp(OpKind::Add);
    add.lmul8 = 4;  // LMUL 1/2
    std::vector<EngineStream> streams;
    streams.push_back(EngineStream{"core", std::make_unique<VectorOpStream>(std::vector<Op>{load, add})});
    std::ostringstream text;
    writeSchedule(text, streams, target);
    EXPECT_NE(text.str().find("\"lmul\":8.0"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("\"lmul\":0.5"), std::string::npos) << text.str();
    const std::vector<Op> back = readBack(text.str(), target);
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].lmul8, 64u);
    EXPECT_EQ(back[1].lmul8, 4u);
}

void expectParseError(const std::string& line, const std::string& fragment) {
    try {
        readBack(line + "\n", testTarget());
        FAIL() << "expected an error for " << line;
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(OpJsonl, BadNewFieldsAreErrors) {
    expectParseError(R"({"engine":"core","op":"branch","ss0":3})", "taken");
    expectParseError(R"({"engine":"core","op":"branch","vs0":3,"taken":true})", "scalar register");
    expectParseError(R"({"engine":"core","op":"vsetvl","sd":1,"lmul":3})", "lmul must be 1, 2, 4 or 8");
    expectParseError(R"({"engine":"core","op":"add","vd":1,"vs0":2,"vs1":3,"ordered":true})", "ordered");
    expectParseError(R"({"engine":"core","op":"add","vd":1,"vs0":2,"vs1":3,"lmul":3})", "a vector op's lmul");
    expectParseError(R"({"engine":"core","op":"add","vd":1,"vs0":2,"vs1":3,"lmul":0.1})",
                     "a vector op's lmul");
    expectParseError(R"({"engine":"core","op":"slide","vd":1,"vs0":2,"vs1":3,"vl":8,"imm":1,"stride":4})",
                     "every 4");
    expectParseError(R"({"engine":"core","op":"slide","vd":1,"vs0":2,"vs1":3,"vl":8,"imm":-1,"stride":2})",
                     "imm ≥ 0");
}

// A shuffle configured by a stride (a slide at stride S over up to three registers) keeps its
// stride and its third source through emit and parse; a plain slide writes no stride.
TEST(OpJsonl, AStridedSlideSurvivesEmitAndParse) {
    const std::string text =
        R"({"engine":"core","op":"slide","dtype":"f32","vd":1,"vs0":2,"vs1":3,"vs2":4,"vl":8,"imm":2,"stride":3}
{"engine":"core","op":"slide","dtype":"f32","vd":1,"vs0":2,"vs1":3,"vl":8,"imm":1}
)";
    std::vector<Op> ops = readBack(text, testTarget());
    ASSERT_EQ(ops.size(), 2u);
    EXPECT_EQ(ops[0].stride, 3);
    EXPECT_EQ(ops[0].src[2], 4u);
    EXPECT_EQ(ops[0].imm, 2.0);
    EXPECT_EQ(ops[1].stride, 0);
    std::vector<EngineStream> streams;
    streams.push_back(EngineStream{"core", std::make_unique<VectorOpStream>(ops)});
    std::ostringstream written;
    writeSchedule(written, streams, testTarget());
    const std::vector<Op> back = readBack(written.str(), testTarget());
    ASSERT_EQ(back.size(), 2u);
    expectSameOp(ops[0], back[0]);
    EXPECT_EQ(back[0].stride, 3);
    EXPECT_EQ(back[1].stride, 0);
    EXPECT_EQ(written.str().find("\"stride\""), written.str().rfind("\"stride\""));  // the strided one only
}

}  // namespace
}  // namespace tessim
