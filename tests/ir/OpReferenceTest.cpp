// The op reference (docs/op-reference.md) is generated from the op-descriptor table and agrees
// with the JSON Lines reader and writer: every field it lists for a kind is accepted on a line of
// that kind, and every field the writer emits is listed.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/config/ConfigError.h"
#include "sim/ir/OpJsonl.h"
#include "sim/ir/OpReference.h"

namespace tessim {
namespace {

TargetInfo referenceTarget() {
    TargetInfo t;
    t.name = "reference-test";
    for (const char* name : {"spm", "spm1"}) {
        MemorySpaceInfo m;
        m.name = name;
        m.id = static_cast<std::uint8_t>(t.spaces.size());
        m.level = "sram";
        m.size = 1 << 16;
        m.peakBandwidth = 1e9;
        t.spaces.push_back(m);
    }
    MulticastGroupInfo g;
    g.name = "all";
    g.id = 1;
    g.members = {0, 1};
    t.groups.push_back(g);
    EngineInfo e;
    e.name = "core";
    e.dmaChannels = 2;
    t.engines.push_back(e);
    return t;
}

std::string sampleValue(const OpField& f) {
    if (f.sample == "\"$mem\"")
        return "\"spm\"";
    if (f.sample == "\"$group\"")
        return "\"all\"";
    return f.sample;
}

// An op line of `d` with its required fields and, when given, one more.
std::string line(const OpDescriptor& d, const OpField* extra) {
    std::string text = R"({"engine":"core","op":")" + d.name + "\"";
    // A required register is left out when the extra field is its other form (ss0 for vs0).
    auto replaced = [&](const OpField& f) {
        return extra && f.type == "register" && extra->type == "register" && f.name != extra->name &&
               f.name.substr(1) == extra->name.substr(1);
    };
    for (const OpField& f : opFields(d))
        if ((f.presence == "required" && !replaced(f)) || (extra && f.name == extra->name))
            text += ",\"" + f.name + "\":" + sampleValue(f);
    // A requantising tile needs out8 beside it.
    if (extra && extra->name == "requantize")
        text += R"(,"out8":64)";
    return text + "}";
}

TEST(OpReference, EveryListedFieldIsAcceptedOnALineOfItsKind) {
    const TargetInfo target = referenceTarget();
    std::string engine;
    for (std::size_t k = 0; k < opKindCount(); ++k) {
        const OpDescriptor& d = opInfo(static_cast<OpKind>(k));
        EXPECT_NO_THROW(parseScheduleOp("ref.jsonl", 1, line(d, nullptr), target, engine))
            << line(d, nullptr);
        for (const OpField& f : opFields(d)) {
            const std::string text = line(d, &f);
            EXPECT_NO_THROW(parseScheduleOp("ref.jsonl", 1, text, target, engine)) << text;
        }
        // A field the reference does not list is refused.
        std::string unlisted = line(d, nullptr);
        unlisted.insert(unlisted.size() - 1, R"(,"not_a_field":1)");
        EXPECT_THROW(parseScheduleOp("ref.jsonl", 1, unlisted, target, engine), config::ConfigError)
            << unlisted;
    }
}

TEST(OpReference, EveryFieldTheWriterEmitsIsListed) {
    const TargetInfo target = referenceTarget();
    std::string engine;
    for (std::size_t k = 0; k < opKindCount(); ++k) {
        const OpDescriptor& d = opInfo(static_cast<OpKind>(k));
        std::set<std::string> listed{"engine", "op", "bundle"};
        for (const OpField& f : opFields(d))
            listed.insert(f.name);
        for (const OpField& f : opFields(d)) {
            std::vector<Op> ops{parseScheduleOp("ref.jsonl", 1, line(d, &f), target, engine)};
            std::vector<EngineStream> streams;
            streams.push_back(EngineStream{"core", std::make_unique<VectorOpStream>(ops)});
            std::ostringstream text;
            writeSchedule(text, streams, target);
            std::istringstream lines(text.str());
            std::string header, written;
            std::getline(lines, header);
            std::getline(lines, written);
            const nlohmann::json fields = nlohmann::json::parse(written);
            for (const auto& [key, value] : fields.items())
                EXPECT_TRUE(listed.count(key)) << d.name << ": the writer emits '" << key << "', not listed";
        }
    }
}

TEST(OpReference, TheDocsPageIsTheGeneratedOne) {
    std::ifstream in(std::string(TESSIM_SOURCE_DIR) + "/docs/op-reference.md");
    ASSERT_TRUE(in) << "docs/op-reference.md is missing";
    std::stringstream page;
    page << in.rdbuf();
    EXPECT_EQ(page.str(), opReferenceMarkdown())
        << "docs/op-reference.md is stale: regenerate it with build/tessim list ops --reference > "
           "docs/op-reference.md";
}

TEST(OpReference, EveryBuiltInKindIsOnThePage) {
    const std::string page = opReferenceMarkdown();
    for (std::size_t k = 0; k < kBuiltInOpKinds; ++k)
        EXPECT_NE(page.find("| `" + std::string(opKindName(static_cast<OpKind>(k))) + "` |"),
                  std::string::npos)
            << k;
}

}  // namespace
}  // namespace tessim
