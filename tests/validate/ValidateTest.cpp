// `tessim validate`: shipped schedules validate clean on reduced shapes, and a corpus of seeded
// schedule bugs (edits of an emitted JSON Lines schedule, or plans that cannot fit) is caught,
// each with the right kind.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using Json = nlohmann::json;
using test::runTessim;

struct Verdict {
    int exitCode = -1;
    Json out;
    std::string err;
    std::set<std::string> kinds() const {
        std::set<std::string> k;
        for (const auto& e : out["errors"])
            k.insert(e["kind"].get<std::string>());
        return k;
    }
};

Verdict validate(const std::string& args) {
    auto r = runTessim("validate " + args);
    Verdict v;
    v.exitCode = r.exitCode;
    v.err = r.err;
    if (!r.out.empty())
        v.out = Json::parse(r.out);
    return v;
}

std::vector<Json> emitted(const std::string& args) {
    auto r = runTessim("emit " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::vector<Json> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            lines.push_back(Json::parse(line));
    return lines;
}

std::string writeSchedule(const std::vector<Json>& lines, const std::string& name) {
    std::string path = "/tmp/tessim_validate_" + std::to_string(::getpid()) + "_" + name + ".jsonl";
    std::ofstream out(path);
    for (const auto& l : lines)
        out << l.dump() << '\n';
    return path;
}

// Index of the n-th line (0-based) that matches.
std::size_t find(const std::vector<Json>& lines, const std::function<bool(const Json&)>& match, int n = 0) {
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (lines[i].contains("op") && match(lines[i]) && n-- == 0)
            return i;
    ADD_FAILURE() << "no such op in the schedule";
    return 0;
}

bool isOp(const Json& l, const char* op) {
    return l.contains("op") && l["op"] == op;  // the header line has none
}

// The op at `index` of `engine`'s stream (its index-th line of the schedule, from 0).
Json opOf(const std::vector<Json>& lines, const std::string& engine, std::uint64_t index) {
    for (const auto& l : lines)
        if (l.contains("op") && l["engine"] == engine && index-- == 0)
            return l;
    ADD_FAILURE() << engine << " has no such op";
    return Json();
}

// A reduced conv1080p on the NPU, double-buffered, four row tiles: ping-pong buffers in use.
const std::string kConv = "--target npu --workload conv1080p --plan double-buffer --set workload.h=32 "
                          "--set workload.w=32 --set workload.channels=16 --set workload.filters=16 "
                          "--set plan.tile_h=8";

// ---- every shipped kernel and plan validates clean (functionally where the kernel checks) ----

class CleanSchedule : public ::testing::TestWithParam<std::string> {};

TEST_P(CleanSchedule, ValidatesWithNoErrors) {
    Verdict v = validate(GetParam());
    ASSERT_EQ(v.exitCode, 0) << v.err;
    EXPECT_TRUE(v.out["valid"].get<bool>());
    EXPECT_TRUE(v.out["errors"].empty());
}

// A reduced seed-003 convolution on the vector DSP (f64, 5×5): 64×64 stays resident in the AM.
const std::string kFtm = "--target ftm2000 --workload conv-ftm --set workload.h=64 --set workload.w=64";

const std::string kSmallConv = "--workload conv1080p --set workload.h=24 --set workload.w=24 "
                               "--set workload.channels=8 --set workload.filters=8 --functional";
// The clean cases; every plan that `tessim list plans` shows must appear in one of them
// (EveryShippedPlanHasACleanCase), so a new plan cannot ship without being validated.
const std::vector<std::string>& cleanCases() {
    static const std::vector<std::string> cases = {
        // minimal
        "--target minimal --workload axpy --set workload.n=4096 --functional",
        "--target minimal --workload dot --set workload.n=4096 --functional",
        "--target minimal --workload pointer_chase --set workload.bytes=16KiB",
        // npu
        "--target npu --plan double-buffer " + kSmallConv, "--target npu --plan naive " + kSmallConv,
        "--target npu --plan static-single " + kSmallConv,
        "--target npu --plan seed-bands --set plan.band_bytes=2KiB " + kSmallConv, kConv + " --functional",
        kConv + " --set plan.tile_c=8 --functional",
        // k1
        "--target k1 --workload axpy --set workload.n=4096 --functional",
        "--target k1 --workload dot --plan two-cores --set workload.n=4096 --functional",
        "--target k1 --workload axpy --plan two-cores --set workload.n=4096 --functional",
        "--target k1 --workload fc --plan fc/single-thread --set workload.in=64 --set workload.out=32 "
        "--functional",
        "--target k1 --workload fc --plan fc/cluster --set workload.in=64 --set workload.out=32 --functional",
        "--target k1 --workload fc --plan fc/wide --set workload.in=64 --set workload.out=32 --functional",
        "--target k1 --workload memcpy --plan memory/all-cores --set workload.bytes=64KiB",
        "--target k1 --workload memset --plan memory/cluster --set workload.bytes=64KiB",
        "--target k1 --workload memread --plan memory/single-thread --set workload.bytes=64KiB",
        "--target k1 --workload tt-lenet300 --plan tt/naive --functional",
        "--target k1 --workload tt-lenet300 --plan tt/packed --functional",
        "--target k1 --workload tt-lenet300 --plan tt/vectorised --functional",
        "--target k1 --workload tt-lenet300 --plan tt/blocked --functional",
        "--target k1 --workload tt-lenet300 --plan tt/tiled --functional",
        "--target k1 --workload tt-lenet300 --plan tt/threaded --functional",
        "--target k1 --workload resnet18-layer1 --plan rvv-im2col --set workload.h=9 --set workload.w=7 "
        "--set "
        "workload.channels=6 --set workload.filters=6 --set workload.groups=3 --functional",
        // ftm2000: resident and double-buffered shuffle, padding, four cores, im2col; functional
        kFtm + " --plan shuffle --functional",
        kFtm + " --plan shuffle --set plan.buffering=double --functional",
        kFtm + " --plan shuffle --set workload.pad=2 --functional",
        kFtm + " --plan shuffle --set workload.filters=4 --set plan.cores=4 --functional",
        kFtm + " --plan im2col --functional",
        kFtm + " --plan im2col --set plan.buffering=double --functional",
        // three input channels: more expansion descriptors than the DMA queue holds at once
        "--target ftm2000 --workload conv-ftm --plan im2col --set workload.h=40 --set workload.w=40 "
        "--set workload.channels=3 --functional",
        // memory kernels with a reference (pointer_chase has none: it computes nothing)
        "--target k1 --workload memcpy --plan memory/all-cores --set workload.bytes=16KiB --functional",
        "--target k1 --workload memset --plan memory/cluster --set workload.bytes=16KiB --functional",
        // a replayed schedule, unedited
        "--target minimal-8core --workload dot --plan two-cores --set workload.n=4096 --functional"};
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Shipped, CleanSchedule, ::testing::ValuesIn(cleanCases()));

// The registry's plans, as `tessim list plans` prints them: each is named by a clean case, by its
// full name or by its name within its folder.
TEST(CleanScheduleCoverage, EveryShippedPlanHasACleanCase) {
    auto r = runTessim("list plans");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::istringstream in(r.out);
    int plans = 0;
    for (std::string line; std::getline(in, line);) {
        const std::string plan = line.substr(0, line.find(' '));
        if (plan.empty())
            continue;
        ++plans;
        const std::string shortName = plan.substr(plan.find('/') + 1);
        const bool covered = std::any_of(cleanCases().begin(), cleanCases().end(), [&](const std::string& c) {
            for (const std::string& name : {plan, shortName}) {
                const std::string flag = "--plan " + name;
                const auto at = c.find(flag);
                if (at != std::string::npos && (at + flag.size() == c.size() || c[at + flag.size()] == ' '))
                    return true;
            }
            return false;
        });
        EXPECT_TRUE(covered) << plan << " has no clean case in ValidateTest's cleanCases()";
    }
    EXPECT_GT(plans, 10);
}

TEST(Validate, ReplayedScheduleUneditedIsClean) {
    const std::string path = writeSchedule(emitted(kConv), "clean");
    Verdict v = validate(kConv + " --schedule " + path + " --functional");
    EXPECT_EQ(v.exitCode, 0) << v.err;
    std::remove(path.c_str());
}

// Core 0 loads the input and multicasts it to every core's AM, waits for it, then a barrier hands
// it over: the other cores' reads are ordered by that wait and the barrier, not by their own wait.
TEST(ValidateOrdering, AWaitThenABarrierOrdersOtherCoresAfterAMulticast) {
    Verdict v = validate("--target ftm2000 --workload conv-ftm --plan shuffle --set workload.h=512 "
                         "--set workload.w=512 --set workload.filters=4 --set plan.cores=4");
    ASSERT_NE(v.exitCode, 2) << v.err;
    for (const auto& e : v.out["errors"])
        EXPECT_EQ(e["message"].get<std::string>().find(" reads them after dma"), std::string::npos)
            << e["message"];
}

// ---- seeded bugs ----

// Edits the emitted kConv schedule, validates the result and returns the verdict.
Verdict seeded(const std::string& name, const std::function<void(std::vector<Json>&)>& edit,
               const std::string& emitArgs = kConv, const std::string& extra = "") {
    std::vector<Json> lines = emitted(emitArgs);
    edit(lines);
    const std::string path = writeSchedule(lines, name);
    Verdict v = validate(emitArgs + " --schedule " + path + " " + extra);
    std::remove(path.c_str());
    EXPECT_EQ(v.exitCode, 1) << v.err;
    EXPECT_FALSE(v.out["valid"].get<bool>());
    return v;
}

TEST(ValidateSeeded, MissingDmaWaitIsReadAfterWrite) {
    std::vector<Json> edited;
    Verdict v = seeded("nowait", [&](std::vector<Json>& l) {
        l.erase(l.begin() + static_cast<long>(
                                find(l, [](const Json& o) { return isOp(o, "dma_wait") && o["tag"] == 1; })));
        edited = l;
    });
    ASSERT_EQ(v.kinds(), std::set<std::string>{"raw-hazard"});
    const Json& e = v.out["errors"][0];
    EXPECT_EQ(e["engine"], "npu");  // the MAC array reads bytes the DMA is still writing
    EXPECT_EQ(e["memory"], "sram");
    EXPECT_GT(e["bytes"].get<std::uint64_t>(), 0u);
    EXPECT_TRUE(e["time_ns"].is_number());
    EXPECT_NE(e["other"].get<std::string>().find("DMA tag 1"), std::string::npos);
    // Both parties name their op: the reading MAC tile, and the dma_start of the transfer.
    ASSERT_TRUE(e["op_index"].is_number()) << e.dump();
    EXPECT_EQ(e["op_engine"], "npu");
    EXPECT_EQ(opOf(edited, "npu", e["op_index"].get<std::uint64_t>())["op"], "mac_tile");
    ASSERT_TRUE(e["other_op_index"].is_number()) << e.dump();
    const Json start = opOf(edited, e["other_op_engine"], e["other_op_index"].get<std::uint64_t>());
    EXPECT_EQ(start["op"], "dma_start");
    EXPECT_EQ(start["tag"], 1);
    EXPECT_NE(e["message"].get<std::string>().find(fmt::format("npu (op {})", e["op_index"].get<int>())),
              std::string::npos)
        << e["message"];
    // And the schedule lines of both ops (one op a line, the header first).
    ASSERT_TRUE(e["line"].is_number() && e["other_line"].is_number()) << e.dump();
    EXPECT_EQ(edited.at(e["line"].get<std::size_t>() - 1),
              opOf(edited, "npu", e["op_index"].get<std::uint64_t>()));
    EXPECT_EQ(edited.at(e["other_line"].get<std::size_t>() - 1), start);
}

TEST(ValidateSeeded, EditedScheduleWithALaterWaitRemovedIsReadAfterWrite) {
    Verdict v = seeded("nowait2", [](std::vector<Json>& l) {
        l.erase(l.begin() + static_cast<long>(
                                find(l, [](const Json& o) { return isOp(o, "dma_wait") && o["tag"] == 2; })));
    });
    EXPECT_EQ(v.kinds(), std::set<std::string>{"raw-hazard"});
}

// A wait on a tag no transfer carries (a mistyped tag) orders nothing: reported, not valid.
TEST(ValidateSeeded, AWaitOnATagNoTransferCarriesIsDmaWait) {
    Verdict v = seeded("wrongtag", [](std::vector<Json>& l) {
        l[find(l, [](const Json& o) { return isOp(o, "dma_wait") && o["tag"] == 1; })]["tag"] = 77;
    });
    EXPECT_EQ(v.exitCode, 1) << v.err;
    ASSERT_TRUE(v.kinds().count("dma-wait")) << v.out.dump();
    for (const auto& e : v.out["errors"]) {
        if (e["kind"] == "dma-wait") {
            EXPECT_NE(e["message"].get<std::string>().find("npu waits for DMA tag 77"), std::string::npos)
                << e["message"];
        }
    }
}

TEST(ValidateSeeded, PingPongBuffersSwappedIsWriteAfterRead) {
    // The prefetch of the second tile lands in the buffer the first tile is computing from.
    Verdict v = seeded("swap", [](std::vector<Json>& l) {
        const long base = l[find(l, [](const Json& o) { return isOp(o, "mac_tile") && o["in"] != 0; })]["in"];
        for (auto& o : l)
            if (isOp(o, "dma_start") && o["tag"] == 2 && o["dst_mem"] == "sram" && o["src_mem"] == "ddr")
                o["dst"] = o["dst"].get<long>() - base;
    });
    EXPECT_TRUE(v.kinds().count("war-hazard")) << v.out.dump(1);
}

TEST(ValidateSeeded, WriteBackBeforeComputeFinishedIsReadAfterWrite) {
    // Without the fence, the output DMA of the last tile reads what the MAC array still writes.
    std::vector<Json> edited;
    Verdict v = seeded("nofence", [&](std::vector<Json>& l) {
        const std::size_t fence = find(
            l, [](const Json& o) { return isOp(o, "mac_tile") && o["channels"] == 0; }, 3);
        l.erase(l.begin() + static_cast<long>(fence));
        edited = l;
    });
    ASSERT_TRUE(v.kinds().count("raw-hazard")) << v.out.dump(1);
    bool dmaReads = false;
    for (const auto& e : v.out["errors"]) {
        if (e["kind"] != "raw-hazard" || e["engine"].get<std::string>().find("DMA") == std::string::npos)
            continue;
        dmaReads = true;
        // The transfer's op is the dma_start of the write-back, in the stream of the engine that
        // started it; the writer's is a MAC tile.
        EXPECT_EQ(e["op_engine"], "npu");
        EXPECT_EQ(opOf(edited, "npu", e["op_index"].get<std::uint64_t>())["op"], "dma_start");
        EXPECT_EQ(opOf(edited, "npu", e["other_op_index"].get<std::uint64_t>())["op"], "mac_tile");
    }
    EXPECT_TRUE(dmaReads);
}

// The vector DSP's write-back DMA reads the outputs its last pass stored: the core fences its
// stores first. Without the fence the DMA window opens before the last vector store completes.
TEST(ValidateSeeded, DspWriteBackWithoutItsStoreFenceIsReadAfterWrite) {
    std::vector<Json> edited;
    Verdict v = seeded(
        "dspfence",
        [&](std::vector<Json>& l) {
            l.erase(std::remove_if(l.begin(), l.end(),
                                   [](const Json& o) { return o.value("op", "") == "fence"; }),
                    l.end());
            edited = l;
        },
        kFtm + " --plan shuffle");
    ASSERT_EQ(v.kinds(), std::set<std::string>{"raw-hazard"}) << v.out.dump(1);
    const Json& e = v.out["errors"][0];
    EXPECT_EQ(e["engine"].get<std::string>().rfind("dma", 0), 0u) << e.dump();
    EXPECT_EQ(e["other"], "core0");  // still storing
    EXPECT_EQ(opOf(edited, "core0", e["op_index"].get<std::uint64_t>())["op"], "dma_start");
    EXPECT_EQ(opOf(edited, "core0", e["other_op_index"].get<std::uint64_t>())["op"], "vstore");
}

TEST(Validate, ShippedDspKernelsFenceTheirStoresBeforeEachWriteBack) {
    const std::vector<Json> lines = emitted(kFtm + " --plan shuffle --set workload.filters=2");
    std::size_t writeBacks = 0;
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (lines[i].contains("op") && isOp(lines[i], "dma_start") && lines[i]["src_mem"] != "ddr") {
            ++writeBacks;
            ASSERT_GT(i, 0u);
            EXPECT_EQ(lines[i - 1]["op"], "fence") << "write-back " << writeBacks;
        }
    EXPECT_EQ(writeBacks, 6u);  // per filter (2) and block of rows (3: 60 output rows, 20 a block)
}

TEST(ValidateSeeded, DmaPastTheEndOfTheSramIsBounds) {
    Verdict v = seeded("past", [](std::vector<Json>& l) {
        l[find(l, [](const Json& o) { return isOp(o, "dma_start") && o["channel"] == 0; })]["dst"] =
            1048576 - 100;
    });
    ASSERT_TRUE(v.kinds().count("bounds"));
    const Json& e = v.out["errors"][0];
    EXPECT_EQ(e["memory"], "sram");
    EXPECT_EQ(e["engine"], "npu");
    EXPECT_TRUE(e["op_index"].is_number());
}

TEST(ValidateSeeded, DestinationStrideShorterThanARowIsDmaDescriptor) {
    Verdict v = seeded("stride", [](std::vector<Json>& l) {
        l[find(l, [](const Json& o) { return isOp(o, "dma_start") && o["channel"] == 0; })]
         ["dst_row_stride"] = 16;
    });
    EXPECT_TRUE(v.kinds().count("dma-descriptor"));
}

TEST(ValidateSeeded, EmptyDmaIsDmaDescriptor) {
    Verdict v = seeded("empty", [](std::vector<Json>& l) {
        l[find(l, [](const Json& o) { return isOp(o, "dma_start") && o["channel"] == 0; })]["rows"] = 0;
    });
    EXPECT_TRUE(v.kinds().count("dma-descriptor"));
}

TEST(ValidateSeeded, HaloOneRowShortIsAFunctionalMismatch) {
    Verdict v = seeded(
        "halo",
        [](std::vector<Json>& l) {
            auto& o = l[find(
                l, [](const Json& o) { return isOp(o, "dma_start") && o["tag"] == 2 && o["channel"] == 0; })];
            o["rows"] = o["rows"].get<int>() - 1;
        },
        kConv, "--functional");
    ASSERT_EQ(v.kinds(), std::set<std::string>{"functional-mismatch"});
    EXPECT_NE(v.out["errors"][0]["message"].get<std::string>().find("output ["), std::string::npos);
}

TEST(ValidateSeeded, OverlappingOutputTilesAreAFunctionalMismatch) {
    std::vector<Json> edited;
    Json moved;
    Verdict v = seeded(
        "overlap",
        [&](std::vector<Json>& l) {
            auto& o = l[find(
                l, [](const Json& o) { return isOp(o, "dma_start") && o["channel"] == 2; }, 1)];
            o["dst"] = o["dst"].get<long>() - 256;  // onto the first tile's rows
            moved = o;
            edited = l;
        },
        kConv, "--functional");
    ASSERT_EQ(v.kinds(), std::set<std::string>{"functional-mismatch"});
    // The first wrong output names its DDR byte and the transfer that last wrote it: the moved
    // write-back, by the op that started it.
    const std::string message = v.out["errors"][0]["message"].get<std::string>();
    const std::string by = "last written by ";
    ASSERT_NE(message.find(by), std::string::npos) << message;
    const std::string starter = "started by npu op ";
    const auto at = message.find(starter);
    ASSERT_NE(at, std::string::npos) << message;
    const std::uint64_t op = std::stoull(message.substr(at + starter.size()));
    EXPECT_EQ(opOf(edited, "npu", op), moved) << message;
}

TEST(ValidateSeeded, MissingPartialSumAccumulationIsAFunctionalMismatch) {
    const std::string split = kConv + " --set plan.tile_c=8";
    Verdict v = seeded(
        "accumulate",
        [](std::vector<Json>& l) {
            l[find(l, [](const Json& o) { return isOp(o, "mac_tile") && o["accumulate"] == true; })]
             ["accumulate"] = false;
        },
        split, "--functional");
    EXPECT_EQ(v.kinds(), std::set<std::string>{"functional-mismatch"});
}

TEST(ValidateSeeded, RegisterBlockingOverBudgetIsRegisterBudget) {
    const std::string fc = "--target k1 --workload fc --plan fc/single-thread --set workload.in=64 "
                           "--set workload.out=32";
    Verdict v = seeded(
        "regs",
        [](std::vector<Json>& l) {
            auto& o = l[find(l, [](const Json& o) { return isOp(o, "fma"); })];
            o["vd"] = 40;  // K1 cores have v0..v31
            o["vs2"] = 40;
        },
        fc);
    ASSERT_EQ(v.kinds(), std::set<std::string>{"register-budget"});
    EXPECT_EQ(v.out["errors"][0]["engine"], "core0");
    EXPECT_NE(v.out["errors"][0]["message"].get<std::string>().find("vector register 40"), std::string::npos);
}

TEST(ValidateSeeded, TwoCoresWritingOneBufferIsWriteAfterWrite) {
    const std::string memset =
        "--target k1 --workload memset --plan memory/cluster --set workload.bytes=4KiB";
    Verdict v = seeded(
        "race",
        [](std::vector<Json>& l) {
            for (auto& o : l)
                if (isOp(o, "vstore") && o["engine"] == "core1")
                    o["addr"] = o["addr"].get<long>() - 1024;  // onto core0's slice
        },
        memset);
    ASSERT_EQ(v.kinds(), std::set<std::string>{"waw-hazard"});
    const Json& e = v.out["errors"][0];
    EXPECT_EQ(e["engine"], "core1");
    EXPECT_EQ(e["other"], "core0");
}

// Alignment: the ftm2000 cores need element-aligned vector accesses, its DMA 8-byte aligned
// addresses and strides (configs/targets/ftm2000.yaml, assumptions).
TEST(ValidateSeeded, VectorLoadOffItsElementIsAlignment) {
    std::vector<Json> edited;
    Verdict v = seeded(
        "vload",
        [&](std::vector<Json>& l) {
            l[find(l, [](const Json& o) { return isOp(o, "vload"); })]["addr"] =
                l[find(l, [](const Json& o) { return isOp(o, "vload"); })]["addr"].get<long>() + 4;
            edited = l;
        },
        kFtm + " --plan shuffle");
    ASSERT_TRUE(v.kinds().count("alignment")) << v.out.dump(1);
    for (const auto& e : v.out["errors"]) {
        if (e["kind"] != "alignment")
            continue;
        EXPECT_EQ(e["engine"], "core0");
        EXPECT_EQ(e["memory"], "am");  // the core's own AM, by its role
        EXPECT_EQ(opOf(edited, "core0", e["op_index"].get<std::uint64_t>())["op"], "vload");
        EXPECT_NE(e["message"].get<std::string>().find("not a multiple of 8 B"), std::string::npos)
            << e["message"];
    }
}

// The rule is the target's: asking the same kernel for register-aligned vector accesses (128 B
// on ftm2000) finds the loads that start between registers, in the core's own AM.
TEST(ValidateSeeded, RegisterAlignedTargetRefusesTheShuffleKernelsElementOffsets) {
    Verdict v = validate(kFtm + " --plan shuffle --set target.core.vector_alignment=register");
    ASSERT_EQ(v.exitCode, 1) << v.err;
    EXPECT_EQ(v.kinds(), std::set<std::string>{"alignment"});
    EXPECT_NE(v.out["errors"][0]["message"].get<std::string>().find("not a multiple of 128 B"),
              std::string::npos);
}

TEST(ValidateSeeded, DmaSourceOffTheDmaAlignmentIsAlignment) {
    Verdict v = seeded(
        "dmaalign",
        [](std::vector<Json>& l) {
            auto& o = l[find(l, [](const Json& o) { return isOp(o, "dma_start") && o["src_mem"] == "ddr"; })];
            o["src"] = o["src"].get<long>() + 2;
        },
        kFtm + " --plan shuffle");
    ASSERT_TRUE(v.kinds().count("alignment")) << v.out.dump(1);
    EXPECT_NE(v.out["errors"][0]["message"].get<std::string>().find("source address"), std::string::npos);
}

TEST(ValidateSeeded, DspOutputStoredOneRowOffIsAFunctionalMismatch) {
    Verdict v = seeded(
        "dspstore",
        [](std::vector<Json>& l) {
            for (auto& o : l)
                if (isOp(o, "dma_start") && o["src_mem"] != "ddr")
                    o["dst"] = o["dst"].get<long>() + 8 * 60;  // each write-back one output row down
        },
        kFtm + " --plan shuffle", "--functional");
    EXPECT_EQ(v.kinds(), std::set<std::string>{"functional-mismatch"}) << v.out.dump(1);
    // The first output row of the first filter is written by nobody now.
    const std::string message = v.out["errors"][0]["message"].get<std::string>();
    EXPECT_NE(message.find("out[0][0][0]"), std::string::npos) << message;
    EXPECT_NE(message.find("nothing wrote it"), std::string::npos) << message;
}

TEST(ValidateSeeded, TileExceedingTheSramIsCapacity) {
    Verdict v = validate("--target npu --workload conv1080p --plan static-single --set plan.tile_h=64 "
                         "--set plan.tile_c=full --set plan.tile_f=full");
    EXPECT_EQ(v.exitCode, 1) << v.err;
    EXPECT_EQ(v.kinds(), std::set<std::string>{"capacity"});
}

// Refusals are told apart by what the kernel says falls short, not by their wording: a plan
// whose register blocking exceeds the register file is register-budget, and bad input that
// happens to say "does not fit" stays a configuration error.
TEST(ValidateSeeded, UnrollBeyondTheVectorRegistersIsRegisterBudget) {
    Verdict v = validate(kFtm + " --plan shuffle --set workload.k=11 --set plan.unroll=8");
    EXPECT_EQ(v.exitCode, 1) << v.err;
    EXPECT_EQ(v.kinds(), std::set<std::string>{"register-budget"});
}

TEST(Validate, AKernelLargerThanItsInputIsAConfigurationError) {
    auto r = runTessim("validate --target npu --workload conv1080p --set workload.h=2 --set workload.w=2 "
                       "--set workload.k=7");
    EXPECT_EQ(r.exitCode, 2) << r.out;
    EXPECT_NE(r.err.find("does not fit"), std::string::npos) << r.err;
}

TEST(Validate, UsageAndConfigurationErrorsExitTwo) {
    EXPECT_EQ(runTessim("validate --workload axpy").exitCode, 2);  // no --target
    EXPECT_EQ(runTessim("validate --target nosuchtarget --workload axpy").exitCode, 2);
    EXPECT_EQ(runTessim("validate --target npu --schedule /nonexistent.jsonl").exitCode, 2);
    // Alignment rules are target keys, checked as any other.
    EXPECT_EQ(runTessim("validate " + kFtm + " --set target.core.vector_alignment=sideways").exitCode, 2);
    EXPECT_EQ(runTessim("validate " + kFtm + " --set target.dma.alignment=3B").exitCode, 2);
}

}  // namespace
}  // namespace tessim
