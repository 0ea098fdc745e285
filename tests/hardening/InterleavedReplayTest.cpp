// A replayed schedule streams each engine's ops from its own place in the file: an emitted
// schedule (each engine's lines in one run) and the same lines interleaved engine by engine, as
// another tool may write them, replay to the same report, barriers and joins included.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "hardening/CliRun.h"

namespace {

using tessim::test::runTessim;

// The schedule's op lines dealt one per engine in turn, after the header.
std::string interleaveByEngine(const std::string& schedule) {
    std::istringstream in(schedule);
    std::string header, line;
    std::getline(in, header);
    std::map<std::string, std::deque<std::string>> byEngine;
    while (std::getline(in, line))
        byEngine[nlohmann::json::parse(line).at("engine").get<std::string>()].push_back(line);
    std::string out = header + "\n";
    for (bool any = true; any;) {
        any = false;
        for (auto& [engine, lines] : byEngine) {
            if (lines.empty())
                continue;
            out += lines.front() + "\n";
            lines.pop_front();
            any = true;
        }
    }
    return out;
}

nlohmann::json replay(const std::string& args, const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
    const auto r = runTessim("run " + args + " --schedule " + path);
    std::remove(path.c_str());
    EXPECT_EQ(r.status, 0) << r.err;
    auto report = nlohmann::json::parse(r.out, nullptr, false);
    if (report.is_object())
        report.erase("plan");  // names the schedule file
    return report;
}

TEST(InterleavedReplay, GivesTheReportOfTheEmittedOrder) {
    for (const std::string args : {
             "--target minimal-8core --workload dot --plan two-cores --set workload.n=4096",
             "--target k1 --workload memcpy --plan memory/all-cores --set workload.bytes=16KiB",
         }) {
        const auto emitted = runTessim("emit " + args);
        ASSERT_EQ(emitted.status, 0) << emitted.err;
        const std::string interleaved = interleaveByEngine(emitted.out);
        ASSERT_NE(interleaved, emitted.out) << args << ": several engines expected";
        const std::string base = "/tmp/tessim-interleaved-" + std::to_string(::getpid());
        const auto inOrder = replay(args, base + "-emitted.jsonl", emitted.out);
        const auto dealt = replay(args, base + "-interleaved.jsonl", interleaved);
        ASSERT_TRUE(inOrder.is_object()) << args;
        EXPECT_EQ(inOrder.dump(2), dealt.dump(2)) << args;
    }
}

}  // namespace
