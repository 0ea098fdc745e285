// Complete reports of small runs (one per target, a sweep's results.csv and a SCALE-Sim
// COMPUTE_REPORT.csv), compared byte for byte with the files checked in under
// tests/hardening/golden/: a report that comes out differently on another machine (CI's), with
// another build type or after an unintended model change fails here, with the first differing
// line. After a deliberate change, regenerate them and review the diff:
//   TESSIM_REGENERATE_GOLDEN=1 ctest --test-dir build -R GoldenReports && git diff tests/hardening/golden
// TESSIM_GOLDEN_BINARY=path/to/tessim checks another build's executable against the same files
// (CI runs the sanitized suite and so checks the release build's tessim this way).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "hardening/CliRun.h"

namespace {

using tessim::test::runTessim;

struct GoldenRun {
    std::string golden;  // file name under tests/hardening/golden/
    std::string args;    // {out}: a scratch folder; {src}: the source tree
    std::string output;  // the file under {out} that is compared; empty: stdout
};

// Each well under a second. The sweep spans a log range (std::pow) and unit-carrying values.
const std::vector<GoldenRun> kRuns{
    {"minimal-dot.json", "run --target minimal --workload dot --set workload.n=1024", ""},
    {"minimal-axpy.md", "run --target minimal --workload axpy --set workload.n=4096 --format md", ""},
    {"npu-conv.json",
     "run --target npu --workload conv1080p --set workload.h=16 --set workload.w=32 --set "
     "workload.channels=8 "
     "--set workload.filters=8",
     ""},
    {"npu-conv.csv",
     "run --target npu --workload conv1080p --set workload.h=16 --set workload.w=32 --set "
     "workload.channels=8 "
     "--set workload.filters=8 --format csv",
     ""},
    {"k1-memcpy.json", "run --target k1 --workload memcpy --set workload.bytes=16KiB", ""},
    {"ftm2000-shuffle.json",
     "run --target ftm2000 --workload conv-ftm --plan shuffle --set workload.h=16 --set workload.w=32", ""},
    {"sweep-results.csv", "sweep {out}/sweep.yaml --jobs 2 --out {out}/sweep", "sweep/results.csv"},
    {"scalesim-COMPUTE_REPORT.csv",
     "run --target {src}/tests/scalesim/data/calc_16x8_os.cfg --workload "
     "{src}/tests/scalesim/data/gemm_small.csv "
     "--format scalesim --out {out}",
     "COMPUTE_REPORT.csv"},
};

// How gtest names a case in its output: the golden file, not the struct's bytes.
void PrintTo(const GoldenRun& run, std::ostream* os) {
    *os << run.golden;
}

const char* kGoldenSweep = R"(name: golden
base:
  target: minimal
  workload: axpy
  set:
    workload.n: 4096
grid:
  target.ddr.bandwidth: {from: 2.67 GB/s, to: 21.36 GB/s, count: 3, log: true}
  plan.lmul: [1, 8]
metrics: [seconds, cycles, stall_fraction, energy_j.total, power_w, traffic_bytes.ddr.read]
objectives:
  - minimize: seconds
  - minimize: energy_j.total
)";

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

// Where two texts first differ, line by line, with the lines themselves.
std::string firstDifference(const std::string& expected, const std::string& actual) {
    const std::vector<std::string> e = lines(expected), a = lines(actual);
    for (std::size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
        const std::string* el = i < e.size() ? &e[i] : nullptr;
        const std::string* al = i < a.size() ? &a[i] : nullptr;
        if (el && al && *el == *al)
            continue;
        return "first difference at line " + std::to_string(i + 1) +
               ":\n  golden: " + (el ? *el : std::string("(end of file)")) +
               "\n  now:    " + (al ? *al : std::string("(end of file)"));
    }
    return "the texts differ only in their final line break";
}

class GoldenReports : public ::testing::TestWithParam<GoldenRun> {};

TEST_P(GoldenReports, AreByteIdenticalToTheCheckedInReport) {
    const GoldenRun& run = GetParam();
    char pattern[] = "/tmp/tessim-golden-XXXXXX";
    const std::string out = ::mkdtemp(pattern);
    std::ofstream(out + "/sweep.yaml") << kGoldenSweep;
    std::string args = run.args;
    replaceAll(args, "{out}", out);
    replaceAll(args, "{src}", TESSIM_SOURCE_DIR);
    const char* binary = std::getenv("TESSIM_GOLDEN_BINARY");
    const auto r = runTessim(args, binary ? binary : "");
    ASSERT_EQ(r.status, 0) << "tessim " << args << "\n" << r.output;
    const std::string actual = run.output.empty() ? r.out : tessim::test::readFile(out + "/" + run.output);
    std::filesystem::remove_all(out);
    ASSERT_FALSE(actual.empty()) << "tessim " << args;

    const std::string golden = std::string(TESSIM_SOURCE_DIR) + "/tests/hardening/golden/" + run.golden;
    const char* regenerate = std::getenv("TESSIM_REGENERATE_GOLDEN");
    if (regenerate && *regenerate && std::string(regenerate) != "0") {
        std::ofstream(golden, std::ios::binary) << actual;
        GTEST_SKIP() << "regenerated " << golden;
    }
    ASSERT_TRUE(std::filesystem::exists(golden))
        << golden
        << " is missing: TESSIM_REGENERATE_GOLDEN=1 ctest --test-dir build -R GoldenReports writes it";
    const std::string expected = tessim::test::readFile(golden);
    if (expected == actual)
        return;
    const std::string now = "/tmp/tessim-golden-" + run.golden;
    std::ofstream(now, std::ios::binary) << actual;
    ADD_FAILURE() << "tessim " << args << "\ndiffers from " << golden << "; "
                  << firstDifference(expected, actual) << "\nthe whole report is in " << now << " (diff -u "
                  << golden << " " << now
                  << "); if the change is intended, TESSIM_REGENERATE_GOLDEN=1 ctest --test-dir build -R "
                     "GoldenReports rewrites the golden files";
}

std::string caseName(const ::testing::TestParamInfo<GoldenRun>& info) {
    std::string name;
    for (char c : info.param.golden)
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Runs, GoldenReports, ::testing::ValuesIn(kRuns), caseName);

}  // namespace
