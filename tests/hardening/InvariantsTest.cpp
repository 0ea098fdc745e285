// Invariants of every report, on every target and library workload, over seeded random shapes:
// each engine's cycles attributed to stall reasons are its clock cycles (to its finish, to the
// kernel's end); seconds never beat a bound (compute, each level's bandwidth); each
// level moves at least its compulsory bytes; energy is non-negative, and each component's equals
// its reported event counts × the energies of the resolved configuration (recomputed here);
// no utilisation above 1; `emit` → `--schedule` replays to the same times, traffic and energy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "common/DocsBuild.h"
#include "hardening/CliRun.h"
#include "run/report/Report.h"
#include "sim/ir/OpTable.h"

namespace {

using Json = nlohmann::json;
using tessim::test::runTessim;

// Relative slack for values summed in a different order than the report summed them.
constexpr double kSlack = 1e-9;

struct Family {
    const char* row;  // the registry row that serves it (`tessim list kernels`), checked per run
    const char* target;
    const char* workload;
    const char* plan;  // "" for the default
    // --set arguments of one random shape.
    std::function<std::string(std::mt19937&)> shape;
    bool replay;  // also check emit → --schedule
};

int pick(std::mt19937& rng, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
}

std::string convShape(std::mt19937& rng, int maxSide) {
    const int k = 2 * pick(rng, 0, 2) + 1;
    return " --set workload.h=" + std::to_string(pick(rng, k, maxSide)) +
           " --set workload.w=" + std::to_string(pick(rng, k, maxSide)) +
           " --set workload.channels=" + std::to_string(pick(rng, 1, 24)) +
           " --set workload.filters=" + std::to_string(pick(rng, 1, 40)) +
           " --set workload.k=" + std::to_string(k) +
           " --set workload.stride=" + std::to_string(pick(rng, 1, 2)) +
           " --set workload.pad=" + std::to_string(k / 2);
}

std::string bytesShape(std::mt19937& rng) {
    return " --set 'workload.bytes=" + std::to_string(64 * pick(rng, 1, 2048)) + " B'";
}

const std::vector<Family>& families() {
    static const std::vector<Family> all = {
        {"axpy", "minimal", "axpy", "",
         [](std::mt19937& r) { return " --set workload.n=" + std::to_string(pick(r, 1, 20000)); }, true},
        {"dot", "minimal", "dot", "",
         [](std::mt19937& r) { return " --set workload.n=" + std::to_string(pick(r, 1, 20000)); }, true},
        {"axpy", "minimal-8core", "axpy", "",
         [](std::mt19937& r) {
             return " --set workload.n=" + std::to_string(pick(r, 64, 40000)) +
                    " --set plan.cores=" + std::to_string(pick(r, 1, 8));
         },
         false},
        {"conv2d/tiled", "npu", "conv1080p", "naive", [](std::mt19937& r) { return convShape(r, 40); },
         false},
        {"conv2d/tiled", "npu", "conv1080p", "static-single",
         [](std::mt19937& r) { return convShape(r, 40); }, false},
        {"conv2d/tiled", "npu", "conv1080p", "double-buffer",
         [](std::mt19937& r) { return convShape(r, 40); }, true},
        {"memcpy", "k1", "memcpy", "all-cores", bytesShape, false},
        {"memset", "k1", "memset", "single-thread", bytesShape, true},
        {"memread", "k1", "memread", "cluster", bytesShape, false},
        {"pointer_chase", "k1", "pointer_chase", "", bytesShape, false},
        {"fc/dense", "k1", "fc", "",
         [](std::mt19937& r) {
             return " --set workload.in=" + std::to_string(16 * pick(r, 1, 32)) +
                    " --set workload.out=" + std::to_string(8 * pick(r, 1, 32)) +
                    " --set workload.batch=" + std::to_string(pick(r, 1, 4));
         },
         false},
        {"conv2d/shuffle", "ftm2000", "conv-ftm", "shuffle",
         [](std::mt19937& r) {
             return " --set workload.h=" + std::to_string(pick(r, 8, 48)) +
                    " --set workload.w=" + std::to_string(pick(r, 8, 48));
         },
         false},
        {"conv2d/im2col", "ftm2000-l1d-cache", "conv-ftm", "im2col",
         [](std::mt19937& r) {
             return " --set workload.h=" + std::to_string(pick(r, 8, 48)) +
                    " --set workload.w=" + std::to_string(pick(r, 8, 48));
         },
         false},
    };
    return all;
}

// The library workloads at their own shape, each on the target it is written for, and the
// kernels whose workloads are files (a SCALE-Sim topology, an ONNX model).
struct Fixed {
    const char* row;
    std::string target;
    std::string workload;
};
const std::vector<Fixed>& fixedCases() {
    static const std::string data = std::string(TESSIM_SOURCE_DIR) + "/tests/scalesim/data/";
    static const std::vector<Fixed> all = {
        {"conv2d/tiled", "npu", "resnet18-layer1"},
        {"conv2d/rvv", "k1", "resnet18-layer1"},
        {"conv2d/tiled", "npu", "resnet18-layer2"},
        {"conv2d/tiled", "npu", "resnet18-layer2-down"},
        {"conv2d/tiled", "npu", "resnet18-layer3"},
        {"conv2d/tiled", "npu", "resnet18-layer4"},
        {"conv2d/tiled", "npu", "resnet18-conv1"},
        {"conv2d/tiled", "npu", "resnet18"},
        {"conv2d/tiled", "npu", "alexnet"},
        {"conv2d/tiled", "npu", "mobilenetv2"},
        {"conv2d/rvv", "k1", "lenet5"},
        {"conv2d/rvv", "k1", "lenet300"},
        {"fc/tt", "k1", "tt-lenet300"},
        {"fc/tt", "k1", "tt-gpt2-fc"},
        {"scalesim", data + "calc_16x8_ws.cfg", data + "gemm_small.csv"},
        {"scalesim", data + "calc_32x32_os.cfg", data + "inception_3x3.csv"},
        {"onnx", "npu", std::string(TESSIM_ONNX_MODELS) + "/small.onnx"},
    };
    return all;
}

// The rows of `tessim list kernels`: name, the workload keys and plan strategies that select it.
struct Row {
    std::string kernel, name;
    std::vector<std::string> workloadKeys, strategies;
};

std::vector<std::string> splitList(const std::string& text, const std::string& trim) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t end = text.find(", ", from);
        std::string item = text.substr(from, end == std::string::npos ? std::string::npos : end - from);
        while (!item.empty() && trim.find(item.back()) != std::string::npos)
            item.pop_back();
        out.push_back(item);
        from = end == std::string::npos ? text.size() : end + 2;
    }
    return out;
}

std::vector<Row> registryRows() {
    const auto r = runTessim("list kernels");
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<Row> rows;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        Row row;
        row.name = line.substr(0, line.find(' '));
        row.kernel = row.name.substr(0, row.name.find('/'));
        const std::size_t open = line.find('['), close = line.find(']');
        if (open != std::string::npos && close != std::string::npos) {
            const std::string selector = line.substr(open + 1, close - open - 1);
            const std::string byStrategy = "plan strategy ", byKey = "workload with ";
            if (selector.rfind(byStrategy, 0) == 0)
                row.strategies = splitList(selector.substr(byStrategy.size()), "");
            else if (selector.rfind(byKey, 0) == 0)
                row.workloadKeys = splitList(selector.substr(byKey.size()), ":");
        }
        rows.push_back(row);
    }
    return rows;
}

// The row that served a report, chosen from its resolved workload and plan as the registry
// chooses (a row whose workload key the workload has; else the row taking the plan's strategy;
// else the kernel's first row without keys).
std::string servedRow(const std::vector<Row>& rows, const Json& r) {
    const std::string kernel = r["workload"]["config"].value("kernel", std::string());
    const Json& plan = r["plan"]["config"];
    const std::string strategy = plan.is_object() ? plan.value("strategy", std::string()) : std::string();
    const Row* keyless = nullptr;
    const Row* byStrategy = nullptr;
    for (const Row& row : rows) {
        if (row.kernel != kernel)
            continue;
        for (const std::string& key : row.workloadKeys)
            if (r["workload"]["config"].contains(key))
                return row.name;
        if (!row.workloadKeys.empty())
            continue;
        if (!keyless)
            keyless = &row;
        if (!strategy.empty() &&
            std::find(row.strategies.begin(), row.strategies.end(), strategy) != row.strategies.end())
            byStrategy = &row;
    }
    return byStrategy ? byStrategy->name
           : keyless  ? keyless->name
                      : "(no row serves kernel '" + kernel + "')";
}

// Every stat named *utilisation in the stats tree.
void checkUtilisation(const Json& node, const std::string& path) {
    if (!node.is_object())
        return;
    for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string key = it.key();
        if (key.size() >= 11 && key.compare(key.size() - 11, 11, "utilisation") == 0 && it->is_object() &&
            it->contains("value"))
            EXPECT_LE((*it)["value"].get<double>(), 1.0 + kSlack) << path << "." << key;
        else
            checkUtilisation(*it, path + "." + key);
    }
}

// A configuration quantity ("4.6 pJ", "10 mW", "1.0 nJ") in joules or watts.
double quantity(const Json& q) {
    if (q.is_number())
        return q.get<double>();
    const std::string text = q.get<std::string>();
    std::size_t end = 0;
    const double value = std::stod(text, &end);
    const std::string unit = text.substr(text.find_first_not_of(' ', end));
    static const std::map<std::string, double> scale = {{"fJ", 1e-15}, {"pJ", 1e-12}, {"nJ", 1e-9},
                                                        {"uJ", 1e-6},  {"mJ", 1e-3},  {"J", 1.0},
                                                        {"uW", 1e-6},  {"mW", 1e-3},  {"W", 1.0}};
    const auto it = scale.find(unit);
    EXPECT_NE(it, scale.end()) << text;
    return it == scale.end() ? 0.0 : value * it->second;
}

Json yamlToJson(const YAML::Node& n) {
    if (n.IsMap()) {
        Json j = Json::object();
        for (const auto& kv : n)
            j[kv.first.as<std::string>()] = yamlToJson(kv.second);
        return j;
    }
    if (n.IsSequence()) {
        Json j = Json::array();
        for (const auto& e : n)
            j.push_back(yamlToJson(e));
        return j;
    }
    return n.IsScalar() ? Json(n.as<std::string>()) : Json();
}

// A component's configuration in the report's resolved target ("core3.alu" is the unit `alu` of
// the engine group `core`, wherever it sits; "l1_2" the third instance of `l1`), with a DDR
// preset's keys under the target's own.
Json componentConfig(const Json& target, const std::string& component) {
    // "l1_2" → "l1", "core3" → "core", "l2" stays when the configuration has an `l2`.
    auto base = [](std::string part, const Json& within) {
        if (within.contains(part))
            return part;
        const std::size_t underscore = part.rfind('_');
        if (underscore != std::string::npos &&
            part.find_first_not_of("0123456789", underscore + 1) == std::string::npos)
            return part.substr(0, underscore);
        while (!part.empty() && std::isdigit(static_cast<unsigned char>(part.back())))
            part.pop_back();
        return part;
    };
    std::function<bool(const Json&, const std::string&)> holds = [&](const Json& node,
                                                                     const std::string& key) {
        if (!node.is_object())
            return false;
        if (node.contains(key))
            return true;
        for (auto& [k, child] : node.items())
            if (k != "energy_table_resolved" && k != "units" && holds(child, key))
                return true;
        return false;
    };
    const std::string head = component.substr(0, component.find('.'));
    const std::string first = holds(target, head) ? head : base(head, Json::object());
    std::function<const Json*(const Json&)> find = [&](const Json& node) -> const Json* {
        if (!node.is_object())
            return nullptr;
        if (node.contains(first) && node[first].is_object())
            return &node[first];
        for (auto& [key, child] : node.items())
            if (key != "energy_table_resolved" && key != "units")
                if (const Json* hit = find(child))
                    return hit;
        return nullptr;
    };
    const Json* node = find(target);
    if (!node)
        return Json();
    Json config = *node;
    for (std::size_t dot = component.find('.'); dot != std::string::npos;) {
        const std::size_t next = component.find('.', dot + 1);
        const std::string unit = base(
            component.substr(dot + 1, next == std::string::npos ? next : next - dot - 1), config["units"]);
        if (!config.contains("units") || !config["units"].contains(unit))
            return Json();
        config = Json(config["units"][unit]);
        dot = next;
    }
    if (config.contains("preset")) {
        const Json preset = yamlToJson(YAML::LoadFile(std::string(TESSIM_SOURCE_DIR) + "/configs/memory/" +
                                                      config["preset"].get<std::string>() + ".yaml"));
        for (auto& [key, value] : preset.items())
            if (!config.contains(key))
                config[key] = value;
    }
    return config;
}

// Energy recomputed apart from the energy ledger: each component's reported event counts × the
// per-event energies of its configuration as the report resolves it, plus its static power ×
// seconds (× instances for a unit of several). Memories whose per-word energy comes from an SRAM
// array model (`energy.array`) are the only components left out; `checked` counts the others.
void checkEnergyFromTheConfiguration(const Json& r, int* checked) {
    const Json& target = r["target"]["config"];
    // Static power over the whole run: the kernel and the write-back after it.
    const double seconds = r["seconds"].get<double>() + r.value("writeback_after_end_s", 0.0);
    static const std::map<std::string, std::string> alias = {
        {"read_byte", "read_energy_per_byte"}, {"write_byte", "write_energy_per_byte"},
        {"line_fill_or_writeback", "fill"},    {"byte", "per_byte"},
        {"descriptor", "per_descriptor"},      {"operand_read", "operand_read_per_byte"},
        {"psum_write", "psum_write_per_byte"}};
    for (auto& [component, reported] : r["energy_j"]["by_component"].items()) {
        const Json config = componentConfig(target, component);
        ASSERT_TRUE(config.is_object()) << component << " is not in the resolved target";
        ASSERT_TRUE(config.contains("energy")) << component;
        const Json& energy = config["energy"];
        // A memory whose resolved energy names no per-event energy takes it from its SRAM array
        // model (sim/energy/SramArrayModel.h): left out.
        auto priced = [&](const std::string& event) {
            if (energy.contains(event))
                return event;
            const auto it = alias.find(event);
            if (it != alias.end() && energy.contains(it->second))
                return it->second;
            // An op priced as its timing class (max_i8 as add_i8).
            const auto cut = event.rfind('_');
            if (const tessim::OpDescriptor* d =
                    cut == std::string::npos ? nullptr : tessim::findOpKind(event.substr(0, cut))) {
                const std::string key =
                    std::string(tessim::timingClassName(d->timingClass)) + event.substr(cut);
                if (energy.contains(key))
                    return key;
            }
            return std::string();
        };
        // Energies stated for an array of another size follow the array model's curve to this one.
        bool arrayModelled = energy.contains("reference_size") && energy["reference_size"] != config["size"];
        for (auto& [event, count] : reported["events"].items())
            arrayModelled |= priced(event).empty() && energy.contains("array");
        if (arrayModelled)
            continue;
        double dynamic = 0.0;
        for (auto& [event, count] : reported["events"].items()) {
            const std::string key = priced(event);
            if (key.empty()) {
                // A unit charges nothing for an op its table does not price.
                EXPECT_TRUE(config.contains("ops")) << component << ": no energy for " << event;
                continue;
            }
            double joules = quantity(energy[key]);
            if (event == "refresh" && config.value("refresh", std::string()) == "per-bank")
                joules /= std::stod(config["banks"].is_string() ? config["banks"].get<std::string>()
                                                                : std::to_string(config["banks"].get<int>()));
            dynamic += count.get<double>() * joules;
        }
        double watts = 0.0;
        for (const char* key : {"static_power", "background_power"}) {
            if (energy.contains(key))
                watts += quantity(energy[key]);
            if (config.contains(key))
                watts += quantity(config[key]);
        }
        if (config.contains("instances"))
            watts *= config["instances"].get<double>();
        EXPECT_NEAR(reported["dynamic"].get<double>(), dynamic, 1e-9 * dynamic + 1e-21) << component;
        EXPECT_NEAR(reported["static"].get<double>(), watts * seconds, 1e-9 * watts * seconds + 1e-21)
            << component;
        ++*checked;
    }
}

void checkInvariants(const Json& r, const std::string& run) {
    SCOPED_TRACE(run);
    // Sweeps check a metric's first key against this list, so no report may have another.
    const auto& keys = tessim::reportTopLevelKeys();
    for (auto& [key, value] : r.items())
        EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end())
            << "report key missing from the list: " << key;
    const double seconds = r["seconds"].get<double>();
    EXPECT_GT(seconds, 0.0);
    // Each engine's accounted cycles against its own clock: the cycles it attributed to a reason
    // other than idle are the cycles its stream ran (the engine's finish cycle, counted apart
    // from the accounting), and with the idle tail they span the kernel (every shipped target
    // clocks its engines at the target's clock, the clock of "cycles").
    const Json& engineStats = r["stats"][r["target"]["name"].get<std::string>()];
    for (auto& [name, engine] : r["engines"].items()) {
        std::uint64_t busy = 0, idle = 0;
        for (auto& [reason, cycles] : engine["cycles"].items())
            (reason == "idle" ? idle : busy) += cycles.get<std::uint64_t>();
        EXPECT_EQ(busy + idle, r["cycles"].get<std::uint64_t>()) << name;
        const Json* stats = &engineStats;
        for (std::size_t from = 0, dot = 0; dot != std::string::npos; from = dot + 1) {
            dot = name.find('.', from);
            stats = &(*stats)[name.substr(from, dot == std::string::npos ? dot : dot - from)];
        }
        ASSERT_TRUE(stats->contains("finish_cycle")) << name;
        EXPECT_EQ(busy, (*stats)["finish_cycle"]["value"].get<std::uint64_t>()) << name;
        for (auto& [reason, fraction] : engine["stall"].items())
            EXPECT_GE(fraction.get<double>(), 0.0) << name << " " << reason;
    }
    EXPECT_GE(seconds * (1 + kSlack), r["bounds"]["compute_s"].get<double>());
    for (auto& [level, bound] : r["bounds"]["bandwidth_s"].items())
        EXPECT_GE(seconds * (1 + kSlack), bound.get<double>()) << level;
    for (auto& [level, bytes] : r["bounds"]["compulsory_bytes"].items()) {
        ASSERT_TRUE(r["traffic_bytes"].contains(level)) << level;
        const auto& t = r["traffic_bytes"][level];
        EXPECT_GE(t["read"].get<double>() + t["write"].get<double>(), bytes.get<double>()) << level;
    }
    const Json& energy = r["energy_j"];
    double parts = 0.0;
    for (auto& [component, e] : energy["by_component"].items())
        for (auto& [kind, joules] : e.items())
            if (kind == "dynamic" || kind == "static") {
                EXPECT_GE(joules.get<double>(), 0.0) << component << " " << kind;
                parts += joules.get<double>();
            }
    EXPECT_GE(energy["total"].get<double>(), 0.0);
    EXPECT_NEAR(energy["total"].get<double>(), parts, kSlack * parts + 1e-18);
    int checked = 0;
    checkEnergyFromTheConfiguration(r, &checked);
    EXPECT_GT(checked, 0) << "no component's energy could be recomputed";
    EXPECT_GE(r["power_w"].get<double>(), 0.0);
    // Power is the whole run's energy over its whole time; the kernel window's is apart, and no
    // more than the whole run's energy.
    const double wholeSeconds = r["seconds"].get<double>() + r.value("writeback_after_end_s", 0.0);
    EXPECT_NEAR(r["power_w"].get<double>() * wholeSeconds, r["energy_j"]["total"].get<double>(),
                1e-9 * r["energy_j"]["total"].get<double>());
    // The roofline at every level the bounds name: what the run achieved never beats what the
    // level's bandwidth and the compute peak allow at the work's compulsory intensity.
    if (r.contains("roofline")) {
        const Json& rf = r["roofline"];
        EXPECT_LE(rf["achieved_work_per_s"].get<double>(), rf["peak_work_per_s"].get<double>() * (1 + 1e-9));
        for (auto& [level, l] : rf["levels"].items()) {
            EXPECT_TRUE(r["bounds"]["bandwidth_s"].contains(level)) << level;
            EXPECT_LE(l["attainable_work_per_s"].get<double>(),
                      rf["peak_work_per_s"].get<double>() * (1 + 1e-12))
                << level;
            EXPECT_LE(l["fraction_of_attainable"].get<double>(), 1 + 1e-9) << level;
            EXPECT_GT(l["fraction_of_attainable"].get<double>(), 0.0) << level;
        }
    }
    if (r.contains("kernel_window")) {
        const Json& k = r["kernel_window"];
        EXPECT_EQ(k["seconds"].get<double>(), r["seconds"].get<double>());
        EXPECT_LE(k["energy_j"].get<double>(), r["energy_j"]["total"].get<double>() * (1 + 1e-12));
        EXPECT_NEAR(k["power_w"].get<double>() * k["seconds"].get<double>(), k["energy_j"].get<double>(),
                    1e-9 * k["energy_j"].get<double>());
    }
    checkUtilisation(r["stats"], "stats");
}

// `binary`: another build's tessim (empty: this build's, sanitized in CI).
Json runJson(const std::string& args, int* status, const std::string& binary = "") {
    const auto r = runTessim("run " + args + " --format json", binary);
    *status = r.status;
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.status == 0 ? Json::parse(r.out) : Json();
}

TEST(Invariants, HoldOnEveryTargetOverSeededRandomShapes) {
    const std::vector<Row> rows = registryRows();
    std::mt19937 rng(20261201);
    for (const Family& f : families()) {
        for (int i = 0; i < 3; ++i) {
            std::string args = std::string("--target ") + f.target + " --workload " + f.workload +
                               (*f.plan ? std::string(" --plan ") + f.plan : std::string()) + f.shape(rng);
            int status = 0;
            const Json r = runJson(args, &status);
            if (status != 0)
                continue;
            checkInvariants(r, args);
            EXPECT_EQ(servedRow(rows, r), f.row) << args;
            if (!f.replay || i > 0)
                continue;
            // The emitted schedule, replayed, is the same run.
            const std::string schedule = "/tmp/tessim-invariants-" + std::to_string(::getpid()) + ".jsonl";
            const auto e = runTessim("emit " + args + " > " + schedule);
            ASSERT_EQ(e.status, 0) << e.err;
            const Json replayed = runJson(args + " --schedule " + schedule, &status);
            std::remove(schedule.c_str());
            if (status != 0)
                continue;
            for (const char* key : {"cycles", "seconds", "traffic_bytes", "energy_j", "bounds"})
                EXPECT_EQ(r[key], replayed[key]) << args << ": " << key;
        }
    }
}

TEST(Invariants, HoldOnTheLibraryWorkloadsAtTheirOwnShape) {
    const std::vector<Row> rows = registryRows();
    for (const Fixed& f : fixedCases()) {
        const std::string args = "--target " + f.target + " --workload " + f.workload;
        int status = 0;
        // Full-size runs from the release build (tests/common/DocsBuild.h: the same reports, many
        // times faster); the random shapes above take the same paths sanitized.
        const Json r = runJson(args, &status, tessim::test::docsTessim());
        if (status != 0)
            continue;
        checkInvariants(r, args);
        EXPECT_EQ(servedRow(rows, r), f.row) << args;
    }
}

// The suites above cover what the registry and the library hold: a new kernel row or library
// workload fails here until a case runs it.
TEST(Invariants, CoverEveryKernelRowAndLibraryWorkload) {
    std::set<std::string> rowsRun, workloadsRun;
    for (const Family& f : families()) {
        rowsRun.insert(f.row);
        workloadsRun.insert(f.workload);
    }
    for (const Fixed& f : fixedCases()) {
        rowsRun.insert(f.row);
        workloadsRun.insert(f.workload);
    }
    const std::vector<Row> rows = registryRows();
    EXPECT_GE(rows.size(), 13u);
    for (const Row& row : rows)
        EXPECT_TRUE(rowsRun.count(row.name)) << "kernel row " << row.name << " has no invariants case";
    // The names only (the release build lists them four times faster; KernelTargetsTest runs the
    // sanitized `list workloads`).
    const auto list = runTessim("list workloads", tessim::test::docsTessim());
    ASSERT_EQ(list.status, 0) << list.err;
    std::istringstream lines(list.out);
    int workloads = 0;
    for (std::string line; std::getline(lines, line); ++workloads) {
        const std::string name = line.substr(0, line.find(' '));
        EXPECT_TRUE(workloadsRun.count(name)) << "library workload " << name << " has no invariants case";
    }
    EXPECT_GE(workloads, 20);
}

TEST(Invariants, AnEmptyOrSmallerScheduleIsNotTimedAgainstTheWorkloadsBounds) {
    const std::string dir = "/tmp/tessim-invariants-" + std::to_string(::getpid());
    const std::string empty = dir + "-empty.jsonl", small = dir + "-small.jsonl";
    std::ofstream(empty) << "{\"schema\":\"tessim.schedule/1\",\"target\":\"minimal\"}\n";
    const std::string emitted = dir + "-emitted.jsonl";
    ASSERT_EQ(runTessim("emit --target minimal --workload axpy --set workload.n=64 > " + emitted).status, 0);
    // The same ops under a header that does not say what they were made for (hand-written, or
    // from another tool): only the bytes they move can give them away.
    ASSERT_EQ(std::system(("sed '1s/.*/{\"schema\":\"tessim.schedule\\/1\",\"target\":\"minimal\"}/' " +
                           emitted + " > " + small)
                              .c_str()),
              0);
    // A header alone is refused by the reader; a schedule of 64 elements for a workload of 4096
    // says so in its header, or moves too few bytes to be timed against the workload's bounds.
    const std::pair<std::string, std::string> cases[] = {
        {empty, ":1:1: error: the schedule has no op"},
        {emitted, ":1:1: error: made_for.workload_config.n: the schedule was made for workload.n = 64, "
                  "this run's workload has 4096"},
        {small, ": error: the schedule moves 768 B at ddr, less than the 49152 B"}};
    for (const auto& [schedule, message] : cases) {
        const auto r =
            runTessim("run --target minimal --workload axpy --set workload.n=4096 --schedule " + schedule);
        EXPECT_EQ(r.status, 2) << r.output;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_NE(r.err.find(schedule + message), std::string::npos) << r.err;
    }
    std::remove(empty.c_str());
    std::remove(emitted.c_str());
    std::remove(small.c_str());
    // Reads cannot stand in for the writes a workload must make: a read of 8 KiB replayed as a
    // copy of 4 KiB moves the copy's 8 KiB at the L1 but writes none of it (its L1 bound takes the
    // written bytes at the cache's store rate).
    const std::string reads = dir + "-reads.jsonl", readsEmitted = dir + "-reads-emitted.jsonl";
    ASSERT_EQ(
        runTessim("emit --target k1 --workload memread --set workload.bytes=8KiB > " + readsEmitted).status,
        0);
    ASSERT_EQ(std::system(("sed '1s/.*/{\"schema\":\"tessim.schedule\\/1\",\"target\":\"k1\"}/' " +
                           readsEmitted + " > " + reads)
                              .c_str()),
              0);
    const auto r =
        runTessim("run --target k1 --workload memcpy --set workload.bytes=4KiB --schedule " + reads);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(reads + ": error: the schedule writes 0 B at l1, less than the 4096 B"),
              std::string::npos)
        << r.err;
    std::remove(reads.c_str());
    std::remove(readsEmitted.c_str());
}

}  // namespace
