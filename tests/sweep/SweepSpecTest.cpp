// Sweep files: parameter spaces expand to the right points, values keep their units as text,
// ids are stable, and malformed files fail with file:line:column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "run/sweep/PointRun.h"
#include "run/sweep/PointSet.h"
#include "run/sweep/SweepSpec.h"
#include "run/sweep/ValueText.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"

namespace tessim::sweep {
namespace {

SweepSpec parse(const std::string& text) {
    return parseSweepSpec(config::loadYamlString(text, "test.yaml"), "test.yaml");
}

std::vector<std::string> valuesOf(const std::vector<Point>& points, const std::string& key) {
    std::vector<std::string> values;
    for (const Point& p : points) {
        for (const auto& [k, v] : p.params) {
            if (k == key && std::find(values.begin(), values.end(), v) == values.end()) {
                values.push_back(v);
            }
        }
    }
    return values;
}

// The error's text, which must start with test.yaml:<line>:<column>.
std::string errorOf(const std::string& text) {
    try {
        parse(text);
    } catch (const config::ConfigError& e) {
        return e.what();
    }
    return "no error";
}

TEST(SweepSpec, GridOfSizeRangeAndStrategies) {
    SweepSpec spec = parse(R"(
name: npu-sram
base:
  target: npu
  workload: conv1080p
  set:
    target.dma.channels: 2
grid:
  target.sram.size: {from: 256 KiB, to: 4 MiB, count: 5, log: true}
  plan.strategy: [naive, static-single, double-buffer]
metrics: [seconds, energy_j.total]
objectives:
  - minimize: seconds
  - minimize: target.sram.size
)");
    EXPECT_EQ(spec.name, "npu-sram");
    std::vector<Point> points = generatePoints(spec);
    ASSERT_EQ(points.size(), 15u);
    EXPECT_EQ(valuesOf(points, "target.sram.size"),
              (std::vector<std::string>{"256 KiB", "512 KiB", "1 MiB", "2 MiB", "4 MiB"}));
    EXPECT_EQ(valuesOf(points, "plan.strategy"),
              (std::vector<std::string>{"naive", "static-single", "double-buffer"}));
    // First key outermost.
    EXPECT_EQ(points[1].params[0].second, "256 KiB");
    EXPECT_EQ(points[1].params[1].second, "static-single");
    EXPECT_EQ(spec.parameterKeys(), (std::vector<std::string>{"target.sram.size", "plan.strategy"}));
    ASSERT_EQ(spec.objectives.size(), 2u);
    EXPECT_EQ(spec.objectives[1].key, "target.sram.size");
}

TEST(SweepSpec, SizesStayTextOnTheRunCommandLine) {
    SweepSpec spec = parse(R"(
base: {target: npu, workload: conv1080p, plan: tiles.yaml, set: {plan.tile_w: 32}}
grid:
  target.sram.size: [256 KiB, 1.5 MiB]
)");
    std::vector<Point> points = generatePoints(spec);
    ASSERT_EQ(points.size(), 2u);
    std::vector<std::string> argv = pointCommand(spec, points[1], {"/proc/self/exe", "run"});
    std::vector<std::string> expected{"/proc/self/exe", "run",
                                      "--target",       "npu",
                                      "--workload",     "conv1080p",
                                      "--plan",         "tiles.yaml",
                                      "--set",          "plan.tile_w=32",
                                      "--set",          "target.sram.size=1.5 MiB",
                                      "--format",       "json"};
    EXPECT_EQ(argv, expected);
}

TEST(SweepSpec, APlanAxisPassesLibraryPlansByName) {
    SweepSpec spec = parse(R"(
base: {target: npu, workload: conv1080p}
grid:
  target.sram.size: [1 MiB]
  plan: [naive, double-buffer]
objectives: [{minimize: seconds}]
plots: [{kind: lines, x: target.sram.size, y: seconds, group: plan}]
)");
    std::vector<Point> points = generatePoints(spec);
    ASSERT_EQ(points.size(), 2u);
    EXPECT_EQ(spec.parameterKeys(), (std::vector<std::string>{"target.sram.size", "plan"}));
    std::vector<std::string> argv = pointCommand(spec, points[1], {"tessim", "run"});
    std::vector<std::string> expected{"tessim",     "run",           "--target", "npu",
                                      "--workload", "conv1080p",     "--set",    "target.sram.size=1 MiB",
                                      "--plan",     "double-buffer", "--format", "json"};
    EXPECT_EQ(argv, expected);
}

TEST(SweepSpec, APlanAxisTakesNamesAndNeedsNoBasePlan) {
    EXPECT_NE(errorOf("base: {target: npu, workload: conv1080p, plan: naive}\ngrid: {plan: [naive]}\n")
                  .find("test.yaml:2:"),
              std::string::npos);
    EXPECT_NE(errorOf("base: {target: npu, workload: conv1080p}\ngrid: {plan: {from: 1, to: 2, step: 1}}\n")
                  .find("a plan axis takes a list of plan names"),
              std::string::npos);
}

TEST(SweepSpec, LinearRangesAreExact) {
    SweepSpec spec = parse(R"(
base: {target: minimal, workload: axpy}
grid:
  workload.n: {from: 8, to: 64, step: 8}
  plan.alpha: {from: 0.1, to: 0.5, step: 0.1}
  target.clock: {from: 1 GHz, to: 2 GHz, count: 3}
)");
    std::vector<Point> points = generatePoints(spec);
    EXPECT_EQ(valuesOf(points, "workload.n"),
              (std::vector<std::string>{"8", "16", "24", "32", "40", "48", "56", "64"}));
    EXPECT_EQ(valuesOf(points, "plan.alpha"), (std::vector<std::string>{"0.1", "0.2", "0.3", "0.4", "0.5"}));
    EXPECT_EQ(valuesOf(points, "target.clock"), (std::vector<std::string>{"1 GHz", "1.5 GHz", "2 GHz"}));
    EXPECT_EQ(points.size(), 8u * 5u * 3u);
}

TEST(SweepSpec, ZipWalksListsTogether) {
    SweepSpec spec = parse(R"(
base: {target: npu, workload: conv1080p}
grid:
  plan.strategy: [naive, double-buffer]
zip:
  plan.tile_h: [8, 16, 32]
  plan.tile_w: {from: 16, to: 64, count: 3, log: true}
)");
    std::vector<Point> points = generatePoints(spec);
    ASSERT_EQ(points.size(), 6u);
    EXPECT_EQ(points[2].params,
              (ParameterValues{{"plan.strategy", "naive"}, {"plan.tile_h", "32"}, {"plan.tile_w", "64"}}));
}

TEST(SweepSpec, LatinHypercubeIsStratifiedAndSeeded) {
    const std::string text = R"(
base: {target: minimal, workload: axpy}
sample:
  method: lhs
  count: 10
  seed: 42
  space:
    plan.x: {from: 0, to: 10, integer: false}
    plan.size: {from: 1 KiB, to: 1 MiB, log: true, round: 1 KiB}
    plan.kind: [a, b]
)";
    std::vector<Point> points = generatePoints(parse(text));
    ASSERT_EQ(points.size(), 10u);
    EXPECT_EQ(points[3].params, generatePoints(parse(text))[3].params);
    std::set<int> strata;
    for (const Point& p : points) {
        double x = std::stod(p.params[0].second);
        ASSERT_GE(x, 0.0);
        ASSERT_LE(x, 10.0);
        strata.insert(static_cast<int>(std::floor(x)));
        auto bytes = numericValue(p.params[1].second);
        ASSERT_TRUE(bytes) << p.params[1].second;
        EXPECT_GE(*bytes, 1024.0);
        EXPECT_LE(*bytes, 1048576.0);
        EXPECT_EQ(std::fmod(*bytes, 1024.0), 0.0) << p.params[1].second;
    }
    EXPECT_EQ(strata.size(), 10u) << "one sample per stratum";

    std::string other = text;
    other.replace(other.find("seed: 42"), 8, "seed: 43");
    EXPECT_NE(generatePoints(parse(other))[0].params, points[0].params);
}

TEST(SweepSpec, RandomSamplesOfIntegers) {
    std::vector<Point> points = generatePoints(parse(R"(
base: {target: minimal, workload: axpy}
sample: {method: random, count: 20, seed: 7, space: {workload.n: {from: 1, to: 100000, log: true}}}
)"));
    ASSERT_GE(points.size(), 18u);
    for (const Point& p : points) {
        EXPECT_EQ(p.params[0].second.find_first_not_of("0123456789"), std::string::npos)
            << p.params[0].second;
    }
}

TEST(SweepSpec, PointIdsAreStableHashesOfSortedParameters) {
    EXPECT_EQ(pointId({{"a", "1"}, {"b", "x"}}), "e094ef9136802fdf");
    EXPECT_EQ(pointId({{"b", "x"}, {"a", "1"}}), "e094ef9136802fdf");
    EXPECT_NE(pointId({{"a", "1"}, {"b", "y"}}), "e094ef9136802fdf");
}

TEST(SweepSpec, DefaultsWhenTheFileIsTerse) {
    SweepSpec spec = parse("base: {target: minimal, workload: axpy}\n"
                           "grid: {workload.n: [1, 2]}\n"
                           "timeout: 1.5 s\n");
    EXPECT_EQ(spec.name, "test");
    EXPECT_EQ(spec.metrics, defaultMetrics());
    EXPECT_TRUE(spec.objectives.empty());
    ASSERT_TRUE(spec.timeoutSeconds);
    EXPECT_DOUBLE_EQ(*spec.timeoutSeconds, 1.5);
}

TEST(SweepSpec, MalformedFilesNameFileLineAndColumn) {
    const std::string base = "base: {target: minimal, workload: axpy}\n";
    // Misspelt top-level key.
    EXPECT_EQ(errorOf(base + "grid: {workload.n: [1]}\nmetircs: [seconds]\n").rfind("test.yaml:3:", 0), 0u)
        << errorOf(base + "grid: {workload.n: [1]}\nmetircs: [seconds]\n");
    // A parameter that is no --set path.
    std::string e = errorOf(base + "grid:\n  sram.size: [1 MiB]\n");
    EXPECT_EQ(e.rfind("test.yaml:3:3:", 0), 0u) << e;
    EXPECT_NE(e.find("target."), std::string::npos) << e;
    // Zipped lists of different lengths.
    e = errorOf(base + "zip:\n  plan.a: [1, 2]\n  plan.b: [1, 2, 3]\n");
    EXPECT_EQ(e.rfind("test.yaml:4:3:", 0), 0u) << e;
    EXPECT_NE(e.find("equal length"), std::string::npos) << e;
    // A range without step or count.
    e = errorOf(base + "grid:\n  workload.n: {from: 1, to: 9}\n");
    EXPECT_EQ(e.rfind("test.yaml:3:", 0), 0u) << e;
    EXPECT_NE(e.find("step"), std::string::npos) << e;
    // Units of different kinds in one range.
    e = errorOf(base + "grid:\n  target.sram.size: {from: 1 MiB, to: 10 ns, count: 2}\n");
    EXPECT_EQ(e.rfind("test.yaml:3:", 0), 0u) << e;
    // A metric whose first key no report has (it would be an empty column at every point).
    e = errorOf(base + "grid: {workload.n: [1]}\nmetrics:\n  - seconds\n  - secnods.total\n");
    EXPECT_EQ(e.rfind("test.yaml:5:5: error: metrics[1]: 'secnods' is not a key of the report; did you mean "
                      "'seconds'?",
                      0),
              0u)
        << e;
    // An objective that names nothing recorded.
    e = errorOf(base + "grid: {workload.n: [1]}\nobjectives:\n  - minimize: secs\n");
    EXPECT_EQ(e.rfind("test.yaml:4:", 0), 0u) << e;
    EXPECT_NE(e.find("secs"), std::string::npos) << e;
    // Missing base.
    e = errorOf("grid: {workload.n: [1]}\n");
    EXPECT_EQ(e.rfind("test.yaml:", 0), 0u) << e;
    EXPECT_NE(e.find("base"), std::string::npos) << e;
    // Nothing to sweep.
    e = errorOf(base);
    EXPECT_NE(e.find("grid"), std::string::npos) << e;
    // YAML syntax.
    e = errorOf(base + "grid: {workload.n: [1, 2}\n");
    EXPECT_EQ(e.rfind("test.yaml:2:", 0), 0u) << e;
    // An empty list and a nested list.
    EXPECT_EQ(errorOf(base + "grid:\n  workload.n: []\n").rfind("test.yaml:3:", 0), 0u);
    EXPECT_EQ(errorOf(base + "grid:\n  workload.n: [[1]]\n").rfind("test.yaml:3:", 0), 0u);
    // A key swept twice.
    e = errorOf(base + "grid: {workload.n: [1]}\nzip: {workload.n: [2]}\n");
    EXPECT_EQ(e.rfind("test.yaml:3:", 0), 0u) << e;
    // Unknown plot kind.
    e = errorOf(base + "grid: {workload.n: [1]}\nplots:\n  - {kind: pie, x: workload.n, y: seconds}\n");
    EXPECT_EQ(e.rfind("test.yaml:4:", 0), 0u) << e;
}

TEST(SweepSpec, ExampleSweepsParse) {
    for (const char* name : {"minimal-axpy", "npu-sram-tiling", "minimal-8core-scaling", "k1-fc-threads",
                             "k1-l2-threads", "k1-ddr-ranks-threads"}) {
        std::string path = std::string(TESSIM_SOURCE_DIR) + "/configs/sweeps/" + name + ".yaml";
        SweepSpec spec;
        ASSERT_NO_THROW(spec = loadSweepSpec(path)) << path;
        EXPECT_EQ(spec.name, name);
        EXPECT_FALSE(spec.objectives.empty());
        EXPECT_FALSE(spec.plots.empty());
    }
    SweepSpec npu = loadSweepSpec(std::string(TESSIM_SOURCE_DIR) + "/configs/sweeps/npu-sram-tiling.yaml");
    std::vector<Point> points = generatePoints(npu);
    EXPECT_EQ(points.size(), 7u * 3u);
    EXPECT_EQ(valuesOf(points, "target.sram.size"),
              (std::vector<std::string>{"256 KiB", "512 KiB", "1 MiB", "2 MiB", "4 MiB", "8 MiB", "16 MiB"}));
    EXPECT_EQ(valuesOf(points, "plan"),
              (std::vector<std::string>{"naive", "static-single", "double-buffer"}));
}

TEST(ValueText, NumbersAndQuantities) {
    EXPECT_EQ(formatSize(262144), "256 KiB");
    EXPECT_EQ(formatSize(1536), "1536 B");
    EXPECT_EQ(formatSize(4u << 20), "4 MiB");
    EXPECT_EQ(formatNumber(3.0), "3");
    EXPECT_EQ(formatNumber(0.25), "0.25");
    EXPECT_DOUBLE_EQ(*numericValue("512 KiB"), 524288.0);
    EXPECT_LT(*numericValue("512 KiB"), *numericValue("1 MiB"));
    EXPECT_DOUBLE_EQ(*numericValue("1.6 GHz"), 1.6e9);
    EXPECT_DOUBLE_EQ(*numericValue("-2.5"), -2.5);
    EXPECT_FALSE(numericValue("naive"));
}

}  // namespace
}  // namespace tessim::sweep
