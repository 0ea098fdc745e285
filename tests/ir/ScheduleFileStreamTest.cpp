// A replayed schedule is read from its file as the engines pull it: each engine's stream holds one
// chunk of ops at a time, whatever the length of the schedule, and hands out that engine's ops in
// file order however the engines' lines are interleaved.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/config/ConfigError.h"
#include "sim/ir/OpJsonl.h"
#include "sim/ir/ScheduleFileStream.h"

namespace tessim {
namespace {

TargetInfo twoEngines() {
    TargetInfo t;
    t.name = "stream-test";
    for (const char* name : {"a", "b"}) {
        EngineInfo e;
        e.name = name;
        t.engines.push_back(e);
    }
    return t;
}

struct TempSchedule {
    std::string path = (std::filesystem::temp_directory_path() /
                        ("tessim-schedule-stream-" + std::to_string(::getpid()) + ".jsonl"))
                           .string();
    ~TempSchedule() { std::remove(path.c_str()); }
};

const std::string kHeader = R"({"schema":"tessim.schedule/1","target":"stream-test"})"
                            "\n";

std::string nop(const std::string& engine, std::uint32_t mark) {
    return R"({"engine":")" + engine + R"(","op":"nop","mark":)" + std::to_string(mark) + "}\n";
}

// A schedule of `ops` marks numbered 1.. in file order: first the engines alternate line by line
// (many short runs of lines, more than a stream keeps apart), then in runs of growing length,
// then engine a alone. Expected marks per engine in `marks`.
std::string interleaved(std::uint32_t ops, std::map<std::string, std::vector<std::uint32_t>>& marks) {
    std::ostringstream text;
    text << R"({"schema":"tessim.schedule/1","target":"stream-test"})" << '\n';
    std::uint32_t mark = 1;
    auto put = [&](const std::string& engine) {
        text << nop(engine, mark);
        marks[engine].push_back(mark++);
    };
    for (std::uint32_t i = 0; i < 4 * ScheduleFileStream::kMaxExtents && mark <= ops; ++i)
        put(i % 2 ? "b" : "a");
    for (std::uint32_t run = 1; mark <= ops / 2; ++run)
        for (std::uint32_t i = 0; i < run && mark <= ops / 2; ++i)
            put(run % 2 ? "b" : "a");
    text << "\n";  // blank lines are skipped
    while (mark <= ops)
        put("a");
    return text.str();
}

TEST(ScheduleFileStream, HoldsOneChunkOfOpsWhateverTheScheduleLength) {
    constexpr std::uint32_t kOps = 50'000;
    static_assert(kOps > 20 * ScheduleFileStream::kChunkOps);
    TempSchedule file;
    std::map<std::string, std::vector<std::uint32_t>> expected;
    std::ofstream(file.path) << interleaved(kOps, expected);
    std::vector<EngineStream> streams = readSchedule(file.path, twoEngines());
    ASSERT_EQ(streams.size(), 2u);
    for (auto& es : streams) {
        auto* stream = dynamic_cast<ScheduleFileStream*>(es.stream.get());
        ASSERT_NE(stream, nullptr) << es.engine << ": a replayed schedule is read from its file, not held";
        EXPECT_EQ(stream->opsRead(), 0u) << "nothing is read before the engine pulls";
        EXPECT_LE(stream->extents(), ScheduleFileStream::kMaxExtents);
        std::vector<std::uint32_t> marks;
        const Op* first = nullptr;
        while (std::size_t n = es.stream->nextChunk(first)) {
            for (std::size_t i = 0; i < n; ++i)
                marks.push_back(first[i].tag);
            EXPECT_EQ(stream->opsRead(), marks.size()) << "one chunk read ahead at most";
        }
        EXPECT_EQ(marks, expected[es.engine]) << es.engine;
        EXPECT_EQ(stream->largestChunk(), ScheduleFileStream::kChunkOps);
    }
}

TEST(ScheduleFileStream, EnginesAreToldApartInAnyFieldOrderAndSpelling) {
    TempSchedule file;
    // "engine" last, after a nested value that holds braces; a name spelt with an escape.
    std::ofstream(file.path) << kHeader
                             << R"({"op":"nop","mark":1,"engine":"b"})"
                                "\n"
                             << R"({"engine":"\u0061","op":"nop","mark":2})"
                                "\n"
                             << R"(  { "mark" : 3 , "op" : "nop" , "engine" : "a" }  )"
                                "\n"
                             << nop("b", 4);
    std::map<std::string, std::vector<std::uint32_t>> marks;
    for (auto& es : readSchedule(file.path, twoEngines()))
        while (const Op* op = es.stream->next())
            marks[es.engine].push_back(op->tag);
    EXPECT_EQ(marks["a"], (std::vector<std::uint32_t>{2, 3}));
    EXPECT_EQ(marks["b"], (std::vector<std::uint32_t>{1, 4}));
}

TEST(ScheduleFileStream, ReadsOnAfterTheFileIsRemoved) {
    std::vector<EngineStream> streams;
    {
        TempSchedule file;
        std::ofstream(file.path) << kHeader << nop("a", 1) << nop("a", 2);
        streams = readSchedule(file.path, twoEngines());
    }
    ASSERT_EQ(streams.size(), 1u);
    std::vector<std::uint32_t> marks;
    while (const Op* op = streams[0].stream->next())
        marks.push_back(op->tag);
    EXPECT_EQ(marks, (std::vector<std::uint32_t>{1, 2}));
}

TEST(ScheduleFileStream, AFileCutShortDuringTheReplayIsAnErrorNamingIt) {
    TempSchedule file;
    std::ofstream(file.path) << kHeader << nop("a", 1) << nop("a", 2) << nop("a", 3);
    std::vector<EngineStream> streams = readSchedule(file.path, twoEngines());
    std::ofstream(file.path, std::ios::trunc) << kHeader << nop("a", 1);  // the same file, rewritten shorter
    try {
        while (streams[0].stream->next()) {
        }
        FAIL() << "a schedule that lost ops while replayed must not end quietly";
    } catch (const config::ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(file.path), std::string::npos) << what;
        EXPECT_NE(what.find("changed while it was replayed"), std::string::npos) << what;
        EXPECT_NE(what.find("engine a had 3 ops"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace tessim
