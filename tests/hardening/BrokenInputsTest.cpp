// The broken-input corpus (tests/hardening/broken-inputs/): each file is run as a user would
// (`*.target.yaml` as --target, `*.workload.yaml` as --workload, `*.schedule.jsonl` as
// --schedule, `*.sweep.yaml` with `tessim sweep`) and must exit 2 with an error that names the
// file, line and column and the key, and says what was wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hardening/CliRun.h"

namespace {

struct Case {
    const char* file;
    const char* where;    // "line:column: error: key"
    const char* message;  // what was expected or wrong
};

const std::vector<Case> kCases = {
    {"absurd-latency.target.yaml", "3:12: error: spm.latency", "between 0 s and 1 ms"},
    {"alias-cycle.target.yaml", "3:16: error: spm.latency[1]", "alias inside its own anchor"},
    {"beyond-time.target.yaml", "3:12: error: spm.latency", "64-bit picoseconds"},
    {"bool-imm.schedule.jsonl", "2:45: error: imm", "expects a number, not true"},
    {"duplicate-key.target.yaml", "4:3: error: spm.size", "duplicate key 'size' (first given at line 3)"},
    {"float-vl.schedule.jsonl", "2:52: error: vl", "expects an integer in 0..4294967295, not 1.5"},
    {"empty.workload.yaml", "1:1: error:", "the workload file is empty"},
    {"fractional-count.workload.yaml", "3:4: error: n", "expected an integer, got '1.5'"},
    {"huge-grid.sweep.yaml", "1:1: error:", "1000000000000 points; at most 10000000"},
    {"negative-count.workload.yaml", "3:4: error: n", "non-negative integer, got '-4'"},
    {"negative-size.target.yaml", "3:9: error: spm.size", "not negative, got '-1 KiB'"},
    {"self-include.target.yaml", "1:10: error: include", "include cycle"},
    {"size-without-unit.target.yaml", "3:9: error: spm.size", "a size with a unit"},
    {"truncated.schedule.jsonl", "2:35: error:", "invalid JSON"},
    {"not-utf8.workload.yaml", "1:8: error:", "byte 0xff is not UTF-8 text"},
    {"unclosed-flow.target.yaml", "3:1: error:", "end of sequence flow not found"},
    {"unknown-field.schedule.jsonl", "2:29: error: colour", "unknown field 'colour'"},
    {"unknown-kernel.workload.yaml", "2:9: error: kernel", "did you mean 'axpy'?"},
    {"unknown-key.target.yaml", "3:3: error: spm.colour", "unknown key 'colour'"},
    {"unknown-memory.schedule.jsonl", "2:59: error: mem", "has no memory 'hbm'"},
    {"wrong-type.target.yaml", "3:14: error: ddr.bandwidth", "a bandwidth with a unit"},
    {"zero-clock.target.yaml", "2:8: error: clock", "between 1 kHz and 100 GHz"},
    {"zero-step.sweep.yaml", "4:39: error: grid.workload.n.step", "must be positive"},
};

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string commandFor(const std::string& path) {
    if (endsWith(path, ".target.yaml"))
        return "run --target " + path + " --workload axpy";
    if (endsWith(path, ".workload.yaml"))
        return "run --target minimal --workload " + path;
    if (endsWith(path, ".schedule.jsonl"))
        return "run --target minimal --schedule " + path;
    return "sweep " + path + " --out /nonexistent-dir-never-written";
}

TEST(BrokenInputs, EachCaseExitsTwoNamingFileLineColumnAndKey) {
    const std::string dir = std::string(TESSIM_SOURCE_DIR) + "/tests/hardening/broken-inputs/";
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.file);
        const std::string path = dir + c.file;
        const auto r = tessim::test::runTessim(commandFor(path));
        EXPECT_EQ(r.status, 2) << r.output;
        EXPECT_NE(r.output.find(path + ":" + c.where), std::string::npos) << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    }
}

TEST(BrokenInputs, EveryFileOfTheCorpusHasACase) {
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(TESSIM_SOURCE_DIR) +
                                                                 "/tests/hardening/broken-inputs")) {
        ++files;
        const std::string name = entry.path().filename().string();
        bool listed = false;
        for (const Case& c : kCases)
            listed = listed || name == c.file;
        EXPECT_TRUE(listed) << name;
    }
    EXPECT_EQ(files, kCases.size());
}

}  // namespace
