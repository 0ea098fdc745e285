// Partial sums in the MAC array's own accumulators (plan `accumulate: array`, a systolic unit's
// `accumulators`): the same cycles' work with no INT32 buffer in the SRAM and no partial-sum SRAM
// traffic, the outputs leaving once; a planner that keeps each tile's partial sums within the
// accumulators; refusals that say why; the ops' fields through a JSONL replay. Functional
// bit-exactness: ConvFunctionalTest's array_* cases.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/ProcessRunner.h"
#include "models/compute/SystolicArray.h"
#include "sim/config/Loader.h"

namespace tessim {
namespace {

// A 24-channel 3×3 layer split into 8-channel chunks, so that every tile accumulates twice.
const std::string kLayer =
    "--target npu --workload conv1080p --set workload.h=20 --set workload.w=24 --set workload.channels=24 "
    "--set workload.filters=16 --set plan.tile_h=8 --set plan.tile_w=8 --set plan.tile_c=8 --set "
    "plan.tile_f=16 "
    "--set target.npu.units.mac.accumulators=4KiB";

nlohmann::json runLayer(const std::string& more) {
    const test::ProcessResult r = test::runTessim("run --format json " + kLayer + " " + more);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

TEST(ArrayAccumulators, KeepThePartialSumsOffTheSram) {
    const nlohmann::json sram = runLayer("--set plan.accumulate=sram");
    const nlohmann::json array = runLayer("--set plan.accumulate=array");
    EXPECT_EQ(sram["plan"]["config"]["accumulate"], "sram");
    EXPECT_EQ(array["plan"]["config"]["accumulate"], "array");
    // The same tiles: 3 × 3 spatial tiles × 3 channel chunks, the same MACs.
    EXPECT_EQ(array["plan"]["config"]["steps"], 27);
    const auto& macS = sram["stats"]["npu"]["npu"]["mac"];
    const auto& macA = array["stats"]["npu"]["npu"]["mac"];
    EXPECT_EQ(macA["macs"], macS["macs"]);
    // No INT32 buffer: 16 filters × 8 × 8 outputs × 4 B (64-aligned) fewer SRAM bytes.
    EXPECT_EQ(sram["plan"]["config"]["sram_bytes_used"].get<std::uint64_t>() -
                  array["plan"]["config"]["sram_bytes_used"].get<std::uint64_t>(),
              16u * 8 * 8 * 4);
    // The array writes only the INT8 outputs (20 × 24 × 16), once each; in SRAM mode it also
    // writes every chunk's partial sums (per row fold) and reads them back.
    const std::uint64_t outputs = 20 * 24 * 16;
    EXPECT_EQ(macA["sram_write_bytes"]["value"].get<std::uint64_t>(), outputs);
    EXPECT_GT(macS["sram_write_bytes"]["value"].get<std::uint64_t>(), 4 * 3 * outputs);
    EXPECT_EQ(macS["sram_read_bytes"]["value"].get<std::uint64_t>() -
                  macA["sram_read_bytes"]["value"].get<std::uint64_t>(),
              2 * outputs * 4);  // chunks 2 and 3 read the partial sums back
    // Those partial sums are the accumulators' own traffic now, priced per byte.
    EXPECT_EQ(macA["in_array_accumulator_bytes"]["value"].get<std::uint64_t>(),
              macS["sram_write_bytes"]["value"].get<std::uint64_t>() - outputs + 2 * outputs * 4);
    EXPECT_GT(array["energy_j"]["by_component"]["npu.mac"]["events"]["accumulator"].get<double>(), 0.0);
    EXPECT_LT(array["traffic_bytes"]["sram"]["write"].get<std::uint64_t>(),
              sram["traffic_bytes"]["sram"]["write"].get<std::uint64_t>());
    EXPECT_EQ(array["traffic_bytes"]["ddr"], sram["traffic_bytes"]["ddr"]);
    EXPECT_GE(array["seconds"].get<double>(), array["bounds"]["compute_s"].get<double>());
}

// The accumulators are priced by their size (the SRAM array model of the npu's energy table, a bank
// per column): the same tiles and partial-sum bytes cost more per byte, leak more and take more
// area in a larger accumulator memory; `accumulator_per_byte` sets the price outright.
TEST(ArrayAccumulators, ArePricedByTheirSize) {
    auto mac = [](const nlohmann::json& r) { return r["energy_j"]["by_component"]["npu.mac"]; };
    const nlohmann::json small = runLayer("--set plan.accumulate=array");
    const nlohmann::json large =
        runLayer("--set plan.accumulate=array --set target.npu.units.mac.accumulators=64KiB");
    EXPECT_EQ(small["plan"]["config"]["tile_f"], large["plan"]["config"]["tile_f"]);
    EXPECT_EQ(mac(small)["events"], mac(large)["events"]);  // the same MACs, requantisations and bytes
    EXPECT_GT(mac(large)["dynamic"].get<double>(), mac(small)["dynamic"].get<double>());
    const double smallArea = small["area_mm2"]["by_component"]["npu.mac"].get<double>();
    const double largeArea = large["area_mm2"]["by_component"]["npu.mac"].get<double>();
    EXPECT_GT(smallArea, 0.0);
    EXPECT_NEAR(largeArea / smallArea, 16.0, 1e-9);  // area ∝ bits
    // A set price: both sizes pay it per byte; without an array model, the SRAM's psum price.
    auto perByte = [](const std::string& unit) {
        const config::Node n = config::loadYamlString(unit, "unit.yaml");
        config::Reader r(n);
        return SystolicConfig::fromYaml(r, "mac").joulesPerAccumulatorByte;
    };
    const std::string array =
        "  array: {read_64bit: {8 KiB: 10 pJ, 1 MiB: 100 pJ}, energy_scaling: 0.5, bitcell_area_um2: 0.1}\n";
    const std::string unit = "rows: 4\ncols: 8\nenergy:\n  psum_write_per_byte: 2 pJ\n";
    EXPECT_LT(perByte("accumulators: 1KiB\n" + unit + array),
              perByte("accumulators: 64KiB\n" + unit + array));
    EXPECT_DOUBLE_EQ(perByte("accumulators: 64KiB\n" + unit + "  accumulator_per_byte: 1 pJ\n" + array),
                     1e-12);
    EXPECT_DOUBLE_EQ(perByte("accumulators: 64KiB\n" + unit), 2e-12);
}

// The planner keeps a tile's tile_f·tile_h·tile_w INT32 partial sums within the accumulators:
// 1 KiB holds 256, so 8 × 8 tiles take 4 filters at a time.
TEST(ArrayAccumulators, ThePlannerSizesTilesToTheAccumulators) {
    const test::ProcessResult r = test::runTessim(
        "run --format json --target npu --workload conv1080p --set workload.h=20 --set workload.w=24 "
        "--set workload.channels=24 --set workload.filters=16 --set plan.tile_h=8 --set plan.tile_w=8 "
        "--set plan.tile_c=8 --set plan.accumulate=array --set target.npu.units.mac.accumulators=1KiB");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto plan = nlohmann::json::parse(r.out)["plan"]["config"];
    EXPECT_LE(plan["tile_f"].get<std::uint64_t>() * 8 * 8 * 4, 1024u);
    EXPECT_EQ(plan["tile_f"], 4);
}

TEST(ArrayAccumulators, AreRefusedWhereTheArrayHasNoneOrTooFew) {
    // The npu's array has none unless the target gives them.
    test::ProcessResult r =
        test::runTessim("run --target npu --workload conv1080p --set plan.accumulate=array --format json");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(
        r.err.find("accumulate: the partial sums cannot stay in the array: engine 'npu' of target 'npu' "
                   "has a MAC array without accumulators"),
        std::string::npos)
        << r.err;
    r = test::runTessim("run --format json " + kLayer +
                        " --set plan.accumulate=array --set "
                        "target.npu.units.mac.accumulators=1KiB");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("keeps more partial sums than the array's 1024 B of accumulators hold (256 INT32 "
                         "outputs: tile_f × tile_h × tile_w)"),
              std::string::npos)
        << r.err;
    r = test::runTessim("run --format json " + kLayer + " --set plan.accumulate=registers");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("accumulate"), std::string::npos) << r.err;
}

// in_array and drain survive the JSONL schedule: a replay times and moves what the run did.
TEST(ArrayAccumulators, TilesRoundTripThroughJsonl) {
    const std::string args = kLayer + " --set plan.accumulate=array --set workload.output_dtype=i32";
    const test::ProcessResult emitted = test::runTessim("emit " + args);
    ASSERT_EQ(emitted.exitCode, 0) << emitted.err;
    EXPECT_NE(emitted.out.find("\"in_array\":true"), std::string::npos);
    EXPECT_NE(emitted.out.find("\"drain\":true"), std::string::npos);
    const auto path =
        std::filesystem::temp_directory_path() / ("tessim-in-array-" + std::to_string(::getpid()) + ".jsonl");
    std::ofstream(path) << emitted.out;
    const nlohmann::json direct = runLayer("--set plan.accumulate=array --set workload.output_dtype=i32");
    const test::ProcessResult replay = test::runTessim(
        "run --format json --target npu --set target.npu.units.mac.accumulators=4KiB --schedule " +
        path.string());
    std::filesystem::remove(path);
    ASSERT_EQ(replay.exitCode, 0) << replay.err;
    const nlohmann::json replayed = nlohmann::json::parse(replay.out);
    EXPECT_EQ(replayed["cycles"], direct["cycles"]);
    EXPECT_EQ(replayed["traffic_bytes"], direct["traffic_bytes"]);
}

// The unit refuses a tile whose partial sums exceed its accumulators, or one that adds to partial
// sums it does not hold.
TEST(ArrayAccumulators, TheUnitRefusesTilesItCannotHold) {
    SystolicConfig c;
    c.name = "mac";
    c.rows = 4;
    c.cols = 4;
    c.accumulatorBytes = 256;  // 64 outputs
    SystolicArray array(c);
    Op op;
    op.kind = OpKind::MacTile;
    op.dtype = DType::I8;
    op.mac = MacTileArgs{};
    op.mac.kh = op.mac.kw = op.mac.strideH = op.mac.strideW = 1;
    op.mac.channels = 2;
    op.mac.filters = 4;
    op.mac.inH = op.mac.outH = 4;
    op.mac.inW = op.mac.outW = 4;  // 64 outputs: fits
    op.mac.inArray = 1;
    EXPECT_NO_THROW(array.account(op));
    op.mac.accumulate = 1;
    EXPECT_NO_THROW(array.account(op));
    op.mac.outW = op.mac.inW = 2;  // 32 outputs added to the 64 it holds
    EXPECT_THROW(array.account(op), std::runtime_error);
    op.mac.accumulate = 0;
    op.mac.outW = op.mac.inW = 5;  // 80 outputs: 320 B
    EXPECT_THROW(array.account(op), std::runtime_error);
}

}  // namespace
}  // namespace tessim
