// Schedules (JSON Lines) given to `tessim run --schedule`: every bad value is an error that names
// the file, line and field (exit 2), never a truncated, wrapped or silently accepted value, and
// a schedule that deadlocks ends the run with an error naming the engines that wait, and an error
// that an op raises as it runs names the op's line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hardening/CliRun.h"

namespace {

using tessim::test::CliResult;
using tessim::test::runTessim;

struct ScheduleFile {
    std::string path;
    explicit ScheduleFile(const std::string& text)
        : path((std::filesystem::temp_directory_path() / ("tessim-hardening-" + std::to_string(::getpid()) +
                                                          "-" + std::to_string(counter()++) + ".jsonl"))
                   .string()) {
        std::ofstream(path, std::ios::binary) << text;
    }
    ~ScheduleFile() { std::filesystem::remove(path); }
    static int& counter() {
        static int n = 0;
        return n;
    }
};

// A schedule's text: each line ended by a newline ("" gives an empty line).
std::string jsonLines(std::initializer_list<std::string> lines) {
    std::string text;
    for (const auto& line : lines)
        text += line + "\n";
    return text;
}

const std::string kMinimalHeader = jsonLines({R"({"schema":"tessim.schedule/1","target":"minimal"})"});
const std::string kNpuHeader = jsonLines({R"({"schema":"tessim.schedule/1","target":"npu"})"});

CliResult replay(const std::string& target, const ScheduleFile& file) {
    return runTessim("run --target " + target + " --schedule " + file.path + " --format json");
}

CliResult replay(const std::string& target, const std::string& text) {
    return replay(target, ScheduleFile(text));
}

// Exit 2 and every fragment in the message.
void expectScheduleRefused(const CliResult& r, std::initializer_list<std::string> fragments) {
    EXPECT_EQ(r.status, 2) << r.output;
    for (const auto& f : fragments)
        EXPECT_NE(r.output.find(f), std::string::npos) << "missing '" << f << "' in: " << r.output;
}

const std::string kMacTile =
    R"({"engine":"npu","op":"mac_tile","dtype":"i8","mem":"sram","in":0,"weights":4096,"out":8192,)"
    R"("channels":1,"filters":1,"in_h":4,"in_w":4,"out_h":4,"out_w":4,"kh":KH,"kw":1})";

std::string macTile(const std::string& kh) {
    std::string s = kMacTile;
    return s.replace(s.find("KH"), 2, kh) + "\n";
}

TEST(ScheduleInput, AValidLineRuns) {
    auto r = replay("npu", kNpuHeader + macTile("1"));
    EXPECT_EQ(r.status, 0) << r.output;
}

TEST(ScheduleInput, IntegersOutOfTheirFieldsRangeAreErrors) {
    expectScheduleRefused(
        replay("minimal",
               kMinimalHeader +
                   jsonLines({R"({"engine":"core","op":"add","vd":4294967301,"vs0":1,"vs1":2,"vl":4})"})),
        {":2:", "vd", "vector register 4294967301 out of range: engine core has v0..v63"});
    expectScheduleRefused(replay("npu", kNpuHeader + macTile("259")), {":2:", "kh", "out of range 0..255"});
    expectScheduleRefused(
        replay("npu", kNpuHeader +
                          jsonLines({R"({"engine":"npu","op":"dma_start","tag":1,"channel":259,)"
                                     R"("src_mem":"ddr","src":0,"dst_mem":"sram","dst":0,"row_bytes":64})"})),
        {":2:", "channel", "out of range 0..255"});
    expectScheduleRefused(
        replay("npu", kNpuHeader + jsonLines({R"({"engine":"npu","op":"dma_wait","tag":-1})"})),
        {":2:", "tag", "out of range 0..4294967295"});
}

TEST(ScheduleInput, OpsBeyondTheEnginesResourcesNameTheLine) {
    // The npu has a 4-channel DMA; minimal's core has none and 32 vector registers at most 64.
    expectScheduleRefused(
        replay("npu", kNpuHeader +
                          jsonLines({R"({"engine":"npu","op":"dma_start","tag":1,"channel":4,)"
                                     R"("src_mem":"ddr","src":0,"dst_mem":"sram","dst":0,"row_bytes":64})"})),
        {":2:", "channel", "DMA channel 4 out of range", "0..3"});
    expectScheduleRefused(
        replay("minimal", kMinimalHeader + jsonLines({R"({"engine":"core","op":"dma_wait","tag":1})"})),
        {":2:", "no DMA engine"});
}

TEST(ScheduleInput, FloatsAndBooleansAreNotIntegers) {
    expectScheduleRefused(replay("npu", kNpuHeader + macTile("3.0")), {":2:", "kh", "expects an integer"});
    expectScheduleRefused(replay("npu", kNpuHeader + macTile("true")), {":2:", "kh", "expects an integer"});
    expectScheduleRefused(
        replay("npu", kNpuHeader + jsonLines({R"({"engine":"npu","op":"dma_wait","tag":"1"})"})),
        {":2:", "tag", "expects an integer"});
    // And a boolean field takes only true or false.
    expectScheduleRefused(
        replay("minimal",
               kMinimalHeader + jsonLines({R"({"engine":"core","op":"branch","ss0":1,"taken":1})"})),
        {":2:", "taken", "true or false"});
}

TEST(ScheduleInput, HeaderTargetMustBeTheRunsTarget) {
    expectScheduleRefused(replay("minimal", kNpuHeader + jsonLines({R"({"engine":"core","op":"nop"})"})),
                          {":1:", "target", "written for target 'npu'", "'minimal'"});
}

TEST(ScheduleInput, DevicesDirectoriesAndBinaryFilesAreRefused) {
    expectScheduleRefused(runTessim("run --target minimal --schedule /dev/zero"),
                          {"/dev/zero", "regular file"});
    expectScheduleRefused(
        runTessim("run --target minimal --schedule " + std::filesystem::temp_directory_path().string()),
        {"regular file"});
    expectScheduleRefused(replay("minimal", std::string("\x7f"
                                                        "ELF\x02\x01\x01\0\0\0",
                                                        10)),
                          {":1:", "binary byte 0x02"});
    // A file without a line break: one over-long line, refused without reading it all.
    expectScheduleRefused(replay("minimal", std::string(3 << 20, 'x')), {":1:", "line longer than"});
}

TEST(ScheduleInput, ABarrierNeverReachedIsADeadlockNamingTheEngine) {
    auto r = replay("minimal",
                    kMinimalHeader + jsonLines({R"({"engine":"core","op":"barrier","id":7,"count":2})"}));
    expectScheduleRefused(r, {"deadlock", "core", "barrier 7", "count 2", "1 arrived"});
    EXPECT_EQ(r.output.find("\"cycles\""), std::string::npos) << "no report for a deadlocked run";
}

TEST(ScheduleInput, AJoinWithoutForkIsADeadlockNamingTheEngine) {
    expectScheduleRefused(
        replay("minimal", kMinimalHeader + jsonLines({R"({"engine":"core","op":"join","id":3,"count":1})"})),
        {"deadlock", "core", "join 3", "0 fork signals"});
}

// A run that stops with engines waiting names the line of each waiting op: the error's place is
// the first, and each engine's wait is followed by its own.
TEST(ScheduleInput, ADeadlockNamesEachWaitingOpsLine) {
    ScheduleFile file(kMinimalHeader +
                      jsonLines({R"({"engine":"core","op":"nop"})", R"({"engine":"core","op":"nop"})", "",
                                 R"({"engine":"core","op":"barrier","id":7,"count":2})",
                                 R"({"engine":"core","op":"nop"})"}));
    auto r = replay("minimal", file);
    expectScheduleRefused(
        r, {file.path + ":5: error: deadlock", "barrier 7 (count 2, 1 arrived) at " + file.path + ":5"});
    EXPECT_TRUE(r.out.empty()) << "no report for a deadlocked run";
}

TEST(ScheduleInput, ADeadlockOfInterleavedEnginesNamesEachWaitingOpsLine) {
    // core0 waits at a barrier of three on line 4, core1 joins an event never forked on line 6;
    // core2 finishes. The lines of the engines alternate.
    ScheduleFile file(jsonLines(
        {R"({"schema":"tessim.schedule/1","target":"minimal-8core"})", R"({"engine":"core0","op":"nop"})",
         R"({"engine":"core1","op":"nop"})", R"({"engine":"core0","op":"barrier","id":1,"count":3})",
         R"({"engine":"core2","op":"nop"})", R"({"engine":"core1","op":"join","id":2,"count":1})",
         R"({"engine":"core2","op":"nop"})"}));
    auto r = replay("minimal-8core", file);
    expectScheduleRefused(r, {file.path + ":4: error: deadlock",
                              "barrier 1 (count 3, 1 arrived) at " + file.path + ":4",
                              "join 2 (count 1, 0 fork signals) at " + file.path + ":6"});
    EXPECT_EQ(r.output.find(":5"), std::string::npos) << r.output;
}

TEST(ScheduleInput, AnAccessOutOfRangeNamesItsLine) {
    // The vload of core1 (its second op, line 5) reads past the end of its 32 KiB L1's space.
    ScheduleFile file(jsonLines(
        {R"({"schema":"tessim.schedule/1","target":"minimal-8core"})",
         R"({"engine":"core0","op":"vload","dtype":"f32","vd":1,"vl":8,"mem":"l1","addr":0})",
         R"({"engine":"core1","op":"nop"})", R"({"engine":"core0","op":"nop"})",
         R"({"engine":"core1","op":"vload","dtype":"f32","vd":1,"vl":8,"mem":"l1","addr":4294967296})",
         R"({"engine":"core0","op":"vload","dtype":"f32","vd":2,"vl":8,"mem":"l1","addr":64})"}));
    auto r = replay("minimal-8core", file);
    expectScheduleRefused(r, {file.path + ":5: error:", "core1", "vload"});
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(ScheduleInput, ADmaTransferOutOfRangeNamesItsDmaStartLine) {
    // The transfer fails when the DMA moves its bytes, after the engine has gone on to line 4;
    // the error names the dma_start that asked for it (line 3).
    ScheduleFile file(
        kNpuHeader +
        jsonLines({R"({"engine":"npu","op":"nop"})",
                   R"({"engine":"npu","op":"dma_start","tag":1,"src_mem":"ddr","src":0,)"
                   R"("dst_mem":"sram","dst":1048512,"row_bytes":128})",
                   R"({"engine":"npu","op":"nop"})", R"({"engine":"npu","op":"dma_wait","tag":1})"}));
    auto r = replay("npu", file);
    expectScheduleRefused(r, {file.path + ":3: error:", "dma_start", "tag 1"});
    EXPECT_TRUE(r.out.empty()) << r.out;
}

// `tessim emit` says in the header what the schedule was made for; a replay naming another
// workload or shape is refused, and --functional without a workload would check nothing.
TEST(ScheduleInput, AReplayMustNameTheWorkloadAndShapeItWasMadeFor) {
    const ScheduleFile file("");
    const auto emitted =
        runTessim("emit --target minimal --workload axpy --set workload.n=5000 > " + file.path);
    ASSERT_EQ(emitted.status, 0) << emitted.output;
    std::string header;
    std::getline(std::ifstream(file.path) >> std::ws, header);
    EXPECT_NE(header.find(R"("made_for":{"workload":"axpy","workload_config":{)"), std::string::npos)
        << header;
    EXPECT_NE(header.find(R"("n":5000)"), std::string::npos) << header;

    const std::string run = "run --target minimal --schedule " + file.path;
    EXPECT_EQ(runTessim(run + " --workload axpy --set workload.n=5000").status, 0);
    EXPECT_EQ(runTessim(run).status, 0) << "the ops alone replay as they are";
    const std::string at = file.path + ":1:1: error: ";
    expectScheduleRefused(runTessim(run + " --workload dot --set workload.n=5000"),
                          {at + "made_for.workload: the schedule was made for workload 'axpy', this run's is "
                                "'dot'"});
    expectScheduleRefused(runTessim(run + " --workload axpy --set workload.n=4096"),
                          {at +
                           "made_for.workload_config.n: the schedule was made for workload.n = 5000, this "
                           "run's workload has 4096"});
    expectScheduleRefused(runTessim(run + " --functional"),
                          {"error: --functional: checks a workload's results: add --workload axpy"});
    const auto r = runTessim(run + " --workload axpy --set workload.n=4096 --format json");
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(ScheduleInput, AMadeForThatNamesNoWorkloadIsRefused) {
    for (const std::string madeFor : {"3", R"({"plan":"default"})", R"({"workload":""})"}) {
        const auto r = replay(
            "minimal",
            jsonLines({R"({"schema":"tessim.schedule/1","target":"minimal","made_for":)" + madeFor + "}",
                       R"({"engine":"core","op":"nop"})"}));
        expectScheduleRefused(r, {":1:50: error: made_for: expected an object naming the workload"});
    }
}

// Ops that could not execute on the target as written are refused where they are read.
TEST(ScheduleInput, OpsTheTargetCannotExecuteAreRefusedAtTheirField) {
    expectScheduleRefused(replay("minimal", jsonLines({R"({"engine":"core","op":"nop"})"})),
                          {":1:1: error: a schedule starts with its header"});
    expectScheduleRefused(
        replay("minimal",
               jsonLines({R"({"schema":"tessim.schedule/1","target":"minimal","spaces":{"spm":1,"ddr":0}})",
                          R"({"engine":"core","op":"nop"})"})),
        {":1:50: error: spaces: memory 'ddr' is 1 here, not 0"});
    expectScheduleRefused(
        replay("minimal",
               jsonLines({R"({"schema":"tessim.schedule/1","target":"minimal","spaces":{"sram":0}})",
                          R"({"engine":"core","op":"nop"})"})),
        {"error: spaces: target 'minimal' has no memory 'sram'"});
    // minimal's 32 B registers hold 8 f32 and it has no register groups.
    expectScheduleRefused(
        replay(
            "minimal",
            kMinimalHeader +
                jsonLines(
                    {R"({"engine":"core","op":"vload","dtype":"f32","vd":1,"vl":9,"mem":"spm","addr":0})"})),
        {":2:52: error: vl: vl 9 of f32 exceeds what engine core holds: 32 B registers, no register groups"});
    EXPECT_EQ(
        replay("minimal", kMinimalHeader + jsonLines({R"({"engine":"core","op":"vload","dtype":"f32","vd":1,)"
                                                      R"("vl":8,"mem":"spm","addr":0})"}))
            .status,
        0);
    expectScheduleRefused(
        replay("minimal",
               kMinimalHeader + jsonLines({R"({"engine":"core","op":"barrier","id":1,"count":0})"})),
        {":2:40: error: count: a barrier waits for at least one engine"});
    expectScheduleRefused(replay("npu", kNpuHeader + macTile("0")),
                          {":2:", "error: kh: a kernel and its stride"});
    // Three input rows cannot feed eight output rows of a 3-row kernel.
    std::string tall = macTile("3");
    tall.replace(tall.find(R"("in_h":4)"), 8, R"("in_h":3)");
    tall.replace(tall.find(R"("out_h":4)"), 9, R"("out_h":8)");
    expectScheduleRefused(
        replay("npu", kNpuHeader + tall),
        {"error: out_h: 8 outputs of a 3-wide kernel at stride 1 need 10 inputs with pad 0, the "
         "tile has 3"});
}

}  // namespace
