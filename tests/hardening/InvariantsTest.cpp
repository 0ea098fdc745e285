// Invariants of every report, on every target and library workload, over seeded random shapes:
// each engine's cycles attributed to stall reasons are its clock cycles (to its finish, to the
// kernel's end); seconds never beat a bound (compute, each level's bandwidth); each
// level moves at least its compulsory bytes; energy is non-negative and the sum of its parts;
// no utilisation above 1; `emit` → `--schedule` replays to the same times, traffic and energy.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "hardening/CliRun.h"

namespace {

using Json = nlohmann::json;
using tessim::test::runTessim;

// Relative slack for values summed in a different order than the report summed them.
constexpr double kSlack = 1e-9;

struct Family {
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
        {"minimal", "axpy", "",
         [](std::mt19937& r) { return " --set workload.n=" + std::to_string(pick(r, 1, 20000)); }, true},
        {"minimal", "dot", "",
         [](std::mt19937& r) { return " --set workload.n=" + std::to_string(pick(r, 1, 20000)); }, true},
        {"minimal-8core", "axpy", "",
         [](std::mt19937& r) {
             return " --set workload.n=" + std::to_string(pick(r, 64, 40000)) +
                    " --set plan.cores=" + std::to_string(pick(r, 1, 8));
         },
         false},
        {"npu", "conv1080p", "naive", [](std::mt19937& r) { return convShape(r, 40); }, false},
        {"npu", "conv1080p", "static-single", [](std::mt19937& r) { return convShape(r, 40); }, false},
        {"npu", "conv1080p", "double-buffer", [](std::mt19937& r) { return convShape(r, 40); }, true},
        {"k1", "memcpy", "all-cores", bytesShape, false},
        {"k1", "memset", "single-thread", bytesShape, true},
        {"k1", "memread", "cluster", bytesShape, false},
        {"k1", "pointer_chase", "", bytesShape, false},
        {"k1", "fc", "",
         [](std::mt19937& r) {
             return " --set workload.in=" + std::to_string(16 * pick(r, 1, 32)) +
                    " --set workload.out=" + std::to_string(8 * pick(r, 1, 32)) +
                    " --set workload.batch=" + std::to_string(pick(r, 1, 4));
         },
         false},
        {"ftm2000", "conv-ftm", "shuffle",
         [](std::mt19937& r) {
             return " --set workload.h=" + std::to_string(pick(r, 8, 48)) +
                    " --set workload.w=" + std::to_string(pick(r, 8, 48));
         },
         false},
        {"ftm2000-l1d-cache", "conv-ftm", "im2col",
         [](std::mt19937& r) {
             return " --set workload.h=" + std::to_string(pick(r, 8, 48)) +
                    " --set workload.w=" + std::to_string(pick(r, 8, 48));
         },
         false},
    };
    return all;
}

// The library workloads at their own shape, each on the target it is written for.
struct Fixed {
    const char* target;
    const char* workload;
};
const Fixed kLibrary[] = {
    {"npu", "resnet18-layer1"}, {"npu", "resnet18-layer2"}, {"npu", "resnet18-layer2-down"},
    {"npu", "resnet18-layer3"}, {"npu", "resnet18-layer4"}, {"npu", "resnet18-conv1"},
    {"k1", "tt-lenet300"},
};

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

void checkInvariants(const Json& r, const std::string& run) {
    SCOPED_TRACE(run);
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
    EXPECT_GE(r["power_w"].get<double>(), 0.0);
    checkUtilisation(r["stats"], "stats");
}

Json runJson(const std::string& args, int* status) {
    const auto r = runTessim("run " + args + " --format json");
    *status = r.status;
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.status == 0 ? Json::parse(r.out) : Json();
}

TEST(Invariants, HoldOnEveryTargetOverSeededRandomShapes) {
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
    for (const Fixed& f : kLibrary) {
        const std::string args = std::string("--target ") + f.target + " --workload " + f.workload;
        int status = 0;
        const Json r = runJson(args, &status);
        if (status == 0)
            checkInvariants(r, args);
    }
}

TEST(Invariants, AnEmptyOrSmallerScheduleIsNotTimedAgainstTheWorkloadsBounds) {
    const std::string dir = "/tmp/tessim-invariants-" + std::to_string(::getpid());
    const std::string empty = dir + "-empty.jsonl", small = dir + "-small.jsonl";
    std::ofstream(empty) << "{\"schema\":\"tessim.schedule/1\",\"target\":\"minimal\"}\n";
    ASSERT_EQ(runTessim("emit --target minimal --workload axpy --set workload.n=64 > " + small).status, 0);
    // A header alone is refused by the reader; a schedule of 64 elements for a workload of 4096
    // moves too few bytes to be timed against the workload's bounds.
    const std::pair<std::string, std::string> cases[] = {
        {empty, ":1:1: error: the schedule has no op"},
        {small, ": error: the schedule moves 768 B at ddr, less than the 49152 B"}};
    for (const auto& [schedule, message] : cases) {
        const auto r =
            runTessim("run --target minimal --workload axpy --set workload.n=4096 --schedule " + schedule);
        EXPECT_EQ(r.status, 2) << r.output;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_NE(r.err.find(schedule + message), std::string::npos) << r.err;
    }
    std::remove(empty.c_str());
    std::remove(small.c_str());
}

}  // namespace
