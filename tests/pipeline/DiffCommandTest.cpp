// `tessim diff` as users run it: two reports of the same workload on two DDR speeds (the deltas are
// the reports' own numbers, the slower one regresses), sweeps' results matched by point, and bad
// input refused with exit 2.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

std::string scratchFile(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("tessim_diff_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

std::string writeFile(const std::string& name, const std::string& text) {
    const std::string path = scratchFile(name);
    std::ofstream(path) << text;
    return path;
}

// A report of axpy on the minimal target with its DDR at `bandwidth`.
std::string axpyReport(const std::string& name, const std::string& bandwidth) {
    auto r =
        runTessim("run --target minimal --workload axpy --set workload.n=65536 --set target.ddr.bandwidth=" +
                  bandwidth);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return writeFile(name, r.out);
}

const Json* rowOf(const Json& diff, const std::string& key, const std::string& point = "") {
    for (const auto& row : diff["rows"])
        if (row["key"] == key && (point.empty() || row["point"] == point))
            return &row;
    return nullptr;
}

TEST(DiffCommand, ASlowerDdrRegressesInTimeAndTheDeltasAreTheReportsOwn) {
    const std::string fast = axpyReport("fast.json", "10.66GB/s");
    const std::string slow = axpyReport("slow.json", "2.67GB/s");
    const Json a = Json::parse(std::ifstream(fast));
    const Json b = Json::parse(std::ifstream(slow));
    ASSERT_GT(b["seconds"].get<double>(), a["seconds"].get<double>() * 1.05) << "the slower DDR must show";

    auto r = runTessim("diff " + fast + " " + slow + " --threshold 5 --format json");
    EXPECT_EQ(r.exitCode, 1) << r.err << r.out;
    const Json diff = Json::parse(r.out);
    EXPECT_EQ(diff["schema"], "tessim.diff/1");
    EXPECT_EQ(diff["kind"], "report");
    const Json* seconds = rowOf(diff, "seconds");
    ASSERT_NE(seconds, nullptr) << r.out;
    EXPECT_EQ((*seconds)["a"].get<double>(), a["seconds"].get<double>());
    EXPECT_EQ((*seconds)["b"].get<double>(), b["seconds"].get<double>());
    EXPECT_EQ((*seconds)["delta"].get<double>(), b["seconds"].get<double>() - a["seconds"].get<double>());
    EXPECT_TRUE((*seconds)["regression"].get<bool>());
    // Every level's traffic, every component's energy and every bound of the report is a row.
    for (const auto& [level, t] : a["traffic_bytes"].items())
        EXPECT_NE(rowOf(diff, "traffic_bytes." + level + ".read"), nullptr) << level;
    for (const auto& [component, e] : a["energy_j"]["by_component"].items())
        EXPECT_NE(rowOf(diff, "energy_j.by_component." + component + ".static"), nullptr) << component;
    for (const auto& [level, s] : a["bounds"]["bandwidth_s"].items())
        EXPECT_NE(rowOf(diff, "bounds.bandwidth_s." + level), nullptr) << level;
    EXPECT_NE(rowOf(diff, "engines.core.stall.memory"), nullptr);
    // Same bytes moved at either speed: traffic does not change.
    EXPECT_EQ((*rowOf(diff, "traffic_bytes.ddr.read"))["delta"].get<double>(), 0.0);

    // The other way round it is an improvement; Markdown names what changed.
    r = runTessim("diff " + slow + " " + fast + " --threshold 5");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("| seconds |"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("regression**"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Regressions (B above A by more than 5 % in seconds, energy_j.total): 0."),
              std::string::npos)
        << r.out;
    // A threshold above the change is no regression.
    r = runTessim("diff " + fast + " " + slow + " --threshold 1000 --watch seconds");
    EXPECT_EQ(r.exitCode, 0) << "a threshold above the change is no regression: " << r.out;
}

TEST(DiffCommand, AReportAgainstItselfChangesNothing) {
    const std::string one = axpyReport("same.json", "10.66GB/s");
    auto r = runTessim("diff " + one + " " + one + " --threshold 0");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("| (none) |"), std::string::npos) << r.out;
    r = runTessim("diff " + one + " " + one + " --all");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("| seconds | "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" | = |"), std::string::npos) << r.out;
}

TEST(DiffCommand, SweepsAreMatchedByPointAndAbsentPointsListed) {
    const std::string a = writeFile(
        "a.jsonl",
        R"({"id":"p1","params":{"x":"1"},"metrics":{"seconds":0.002,"energy_j.total":0.001},"status":"ok","message":""})"
        "\n"
        R"({"id":"p2","params":{"x":"2"},"metrics":{"seconds":0.004,"energy_j.total":0.002},"status":"ok","message":""})"
        "\n"
        R"({"id":"p3","params":{"x":"3"},"metrics":{},"status":"error","message":"exit 2"})"
        "\n");
    const std::string dir = scratchFile("b-sweep");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/results.jsonl")
        << R"({"id":"p2","params":{"x":"2"},"metrics":{"seconds":0.005,"energy_j.total":0.002},"status":"ok","message":""})"
           "\n"
           R"({"id":"p4","params":{"x":"4"},"metrics":{"seconds":0.001,"energy_j.total":0.001},"status":"ok","message":""})"
           "\n";
    auto r = runTessim("diff " + a + " " + dir + " --threshold 10 --format json");
    EXPECT_EQ(r.exitCode, 1) << r.err << r.out;
    const Json diff = Json::parse(r.out);
    EXPECT_EQ(diff["kind"], "sweep");
    EXPECT_EQ(diff["only_in_a"], Json::array({"p1"})) << "p3 failed in A (absent there) and B lacks it";
    EXPECT_EQ(diff["only_in_b"], Json::array({"p4"}));
    const Json* seconds = rowOf(diff, "seconds", "p2");
    ASSERT_NE(seconds, nullptr) << r.out;
    EXPECT_DOUBLE_EQ((*seconds)["change"].get<double>(), 0.25);
    EXPECT_TRUE((*seconds)["regression"].get<bool>());
    EXPECT_FALSE((*rowOf(diff, "energy_j.total", "p2"))["regression"].get<bool>());
    EXPECT_EQ(diff["regressions"], 1);
}

TEST(DiffCommand, BadInputIsRefusedWithExit2AndItsFileNamed) {
    const std::string report = axpyReport("ok.json", "10.66GB/s");
    const std::string broken =
        writeFile("broken.json", "{\n  \"schema\": \"tessim.report/1\",\n  \"seconds\": ]\n}\n");
    auto r = runTessim("diff " + report + " " + broken);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(broken + ":3:"), std::string::npos) << r.err;

    r = runTessim("diff " + report + " " + scratchFile("missing.json"));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;

    const std::string sweep = writeFile("s.jsonl", R"({"id":"p","metrics":{"seconds":1},"status":"ok"})"
                                                   "\n");
    r = runTessim("diff " + report + " " + sweep);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("compare a report with a report"), std::string::npos) << r.err;

    const std::string csv = writeFile("results.csv", "id,seconds,status,message\np,1,ok,\n");
    r = runTessim("diff " + csv + " " + csv);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("results.jsonl"), std::string::npos) << r.err;

    const std::string other = writeFile("other.json", "{\"schema\": \"something/1\"}\n");
    r = runTessim("diff " + other + " " + report);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("not a tessim report"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tessim
