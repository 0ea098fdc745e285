// `tessim run --target k1 --program`: real static programs print what they print under
// qemu-riscv64, byte for byte, and exit with its status; bad programs get exit 2 and a message
// that names what is wrong; the same program and arguments give the same report.
#include <cstddef>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <elf.h>

#include "common/DocsBuild.h"
#include "riscv/RiscvPrograms.h"

namespace tessim::test {
namespace {

void expectSameAsQemu(const std::string& source, const std::string& args = "") {
    const std::string program = buildProgram(source);
    const ProcessResult want = runQemu(program, args);
    const ProcessResult got = runProgram(program, args);
    EXPECT_EQ(got.exitCode, want.exitCode) << got.err;
    EXPECT_EQ(got.out, want.out) << source;
    EXPECT_FALSE(want.out.empty());
}

TEST(ProgramRun, PrintfOfIntegersAndDoublesIsQemus) {
    expectSameAsQemu("printf_numbers.c");
}
TEST(ProgramRun, QuicksortIsQemus) {
    expectSameAsQemu("quicksort.c", "3000");
}
TEST(ProgramRun, MatrixMultiplyIsQemus) {
    expectSameAsQemu("matmul.c");
}

TEST(ProgramRun, StringFunctionsAndInputFilesAreQemus) {
    // The input file is read from under the working directory, as a user's program would.
    const std::string program = buildProgram("strings.c");
    const std::string dir = scratchDirectory() + "/work";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/input.txt") << "the quick brown fox\njumps over the lazy dog\n";
    const std::string cd = "cd " + dir + " && ";
    const ProcessResult want = runCommand(cd + kQemu + " " + program + " input.txt missing.txt");
    const ProcessResult got = runCommand(cd + TESSIM_BINARY + " run --target k1 --program " + program +
                                         " --report report.json -- input.txt missing.txt");
    EXPECT_EQ(got.exitCode, want.exitCode) << got.err;
    EXPECT_EQ(got.out, want.out);
    EXPECT_EQ(got.err, "done\n");  // the program's stderr passes through too
    EXPECT_NE(got.out.find("input.txt: 44 bytes"), std::string::npos) << got.out;
}

TEST(ProgramRun, FreestandingProgramExitsWithItsStatus) {
    const std::string program = buildProgram("freestanding.S", "-nostdlib -static");
    const ProcessResult got = runProgram(program);
    EXPECT_EQ(got.exitCode, 7) << got.err;
    EXPECT_EQ(got.out, "freestanding\n");
}

TEST(ProgramRun, ReportCountsInstructionsAndIsDeterministic) {
    const std::string program = buildProgram("quicksort.c");
    const std::string a = scratchDirectory() + "/a.json", b = scratchDirectory() + "/b.json";
    ASSERT_EQ(runProgram(program, "500", a).exitCode, 0);
    // stdout to a file rather than a pipe: the program must not see the difference.
    ASSERT_EQ(runCommand(std::string(TESSIM_BINARY) + " run --target k1 --program " + program + " --report " +
                         b + " -- 500 > " + scratchDirectory() + "/stdout.txt")
                  .exitCode,
              0);
    const std::string ra = readWholeFile(a), rb = readWholeFile(b);
    EXPECT_EQ(ra, rb);
    const auto report = nlohmann::json::parse(ra);
    const auto& w = report["stats"]["workload"];
    const double instructions = w["instructions"]["value"].get<double>();
    EXPECT_GT(instructions, 50000);  // 500 elements sorted, glibc's start-up and printf
    EXPECT_NEAR(w["ipc"]["value"].get<double>(), instructions / report["cycles"].get<double>(), 1e-9);
    EXPECT_LE(w["ipc"]["value"].get<double>(), 2.0);  // a dual-issue core
    double mixed = 0;
    for (const auto& [name, v] : w["instruction_mix"].items())
        mixed += v["value"].get<double>();
    EXPECT_EQ(mixed, instructions);
    EXPECT_GT(w["instruction_mix"]["load"]["value"].get<double>(), 0);
    EXPECT_EQ(report["workload"]["config"]["kernel"], "program");
}

// ---- refusals and faults: exit 2, a message naming what is wrong, no report on stdout ----

ProcessResult refused(const std::string& program, const std::string& args = "",
                      const std::string& options = "") {
    ProcessResult r = runProgram(program, args, "", options);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    return r;
}

std::string patchedCopy(const std::string& program, std::size_t offset, char byte, const std::string& name) {
    const std::string copy = scratchDirectory() + "/" + name;
    std::filesystem::copy_file(program, copy, std::filesystem::copy_options::overwrite_existing);
    std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset));
    f.put(byte);
    return copy;
}

TEST(ProgramRefused, NotAnElf) {
    const std::string path = scratchDirectory() + "/text.txt";
    std::ofstream(path) << "not a program\n";
    EXPECT_NE(refused(path).err.find("not an ELF file"), std::string::npos);
}

TEST(ProgramRefused, HostExecutable) {
    const std::string host = scratchDirectory() + "/host";
    ASSERT_EQ(runCommand("printf 'int main(void){return 0;}' | cc -x c -o " + host + " -").exitCode, 0);
    EXPECT_NE(refused(host).err.find("x86-64"), std::string::npos);
}

TEST(ProgramRefused, ThirtyTwoBitAndBigEndian) {
    const std::string program = buildProgram("freestanding.S", "-nostdlib -static");
    EXPECT_NE(refused(patchedCopy(program, 4, 1, "elf32")).err.find("32-bit"), std::string::npos);
    EXPECT_NE(refused(patchedCopy(program, 5, 2, "elfbe")).err.find("big-endian"), std::string::npos);
}

TEST(ProgramRefused, DynamicallyLinkedSaysHowToLink) {
    const std::string program = buildProgram("quicksort.c", "-O2");
    const std::string err = refused(program).err;
    EXPECT_NE(err.find("static executables only"), std::string::npos) << err;
    EXPECT_NE(err.find("-static"), std::string::npos) << err;
}

TEST(ProgramRefused, TruncatedSegment) {
    const std::string program = buildProgram("quicksort.c");
    const std::string cut = scratchDirectory() + "/truncated";
    std::filesystem::copy_file(program, cut, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(cut, std::filesystem::file_size(program) / 3);
    const std::string err = refused(cut).err;
    EXPECT_TRUE(err.find("truncated") != std::string::npos || err.find("unreadable") != std::string::npos)
        << err;
}

TEST(ProgramFault, IllegalInstructionNamesPcEncodingFunctionCoreAndCycle) {
    const std::string program = buildProgram("faults.S", "-nostdlib -static");
    const std::string err = refused(program, "i").err;
    EXPECT_NE(err.find("encoding 0xffffffff"), std::string::npos) << err;
    EXPECT_NE(err.find("in illegal"), std::string::npos) << err;
    EXPECT_NE(err.find("on core0"), std::string::npos) << err;
    EXPECT_NE(err.find("cycle "), std::string::npos) << err;
    EXPECT_NE(err.find("at pc 0x"), std::string::npos) << err;
}

// A vector instruction before any vsetvl (vtype invalid) stops the run naming the instruction as
// the assembler spells it; a reserved vector encoding names its bits.
TEST(ProgramFault, VectorInstructionsThatCannotRunAreNamed) {
    const std::string program = buildProgram("faults.S", "-nostdlib -static");
    std::string err = refused(program, "v").err;
    EXPECT_NE(err.find("vtype is invalid"), std::string::npos) << err;
    EXPECT_NE(err.find("vadd.vv"), std::string::npos) << err;
    EXPECT_NE(err.find("in novtype"), std::string::npos) << err;
    err = refused(program, "r").err;
    EXPECT_NE(err.find("a reserved VFUNARY1 encoding"), std::string::npos) << err;
    EXPECT_NE(err.find("encoding 0x4f039457"), std::string::npos) << err;
}

TEST(ProgramFault, WildLoadNamesTheAddress) {
    const std::string err = refused(buildProgram("faults.S", "-nostdlib -static"), "w").err;
    EXPECT_NE(err.find("a load at 0x10"), std::string::npos) << err;
    EXPECT_NE(err.find("ld"), std::string::npos) << err;
}

TEST(ProgramFault, UnsupportedSystemCallIsNamed) {
    const std::string err = refused(buildProgram("faults.S", "-nostdlib -static"), "s").err;
    EXPECT_NE(err.find("system call 999"), std::string::npos) << err;
    EXPECT_NE(err.find("in syscall"), std::string::npos) << err;
}

TEST(ProgramFault, NeverEndingProgramStopsAtMaxCyclesOrTimeout) {
    const std::string program = buildProgram("faults.S", "-nostdlib -static");
    std::string err = refused(program, "l", "--max-cycles 100000").err;
    EXPECT_NE(err.find("--max-cycles 100000"), std::string::npos) << err;
    EXPECT_NE(err.find("in forever"), std::string::npos) << err;
    err = refused(program, "l", "--timeout 0.5").err;
    EXPECT_NE(err.find("--timeout 0.5"), std::string::npos) << err;
}

// x0–x31 and f0–f31 are the engine's scalar registers s0–s63: a core with fewer is refused before
// the program runs, naming the keys.
TEST(ProgramRefused, CoreWithoutRegistersForXAndF) {
    const std::string program = buildProgram("freestanding.S", "-nostdlib -static");
    const std::string err = refused(program, "", "--set target.cluster.core.scalar_registers=32").err;
    EXPECT_NE(err.find("needs 64 scalar"), std::string::npos) << err;
    EXPECT_NE(err.find("scalar_registers"), std::string::npos) << err;
}

TEST(ProgramRefused, ProgramAndWorkloadTogether) {
    const std::string program = buildProgram("freestanding.S", "-nostdlib -static");
    const std::string err = refused(program, "", "--workload axpy").err;
    EXPECT_NE(err.find("drop --workload"), std::string::npos) << err;
}

}  // namespace
}  // namespace tessim::test

// ---- timing seen by the program (rdcycle) and the per-function profile ----

namespace tessim::test {
namespace {

std::map<std::string, double> cyclesByPart(const std::string& out) {
    std::map<std::string, double> parts;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string name;
        double value;
        if (fields >> name >> value)
            parts[name] = value;
    }
    return parts;
}

TEST(ProgramTiming, RdcycleSeesTheModelsClosedForms) {
    const std::string program = buildProgram("timing.c");
    const ProcessResult got = runProgram(program);
    ASSERT_EQ(got.exitCode, 0) << got.err;
    const auto parts = cyclesByPart(got.out);
    // Dual issue, two ALUs: 20 000 independent adds in 10 000 cycles (±5 %).
    EXPECT_NEAR(parts.at("adds"), 10000, 500) << got.out;
    // Chains of dependent ops: n × the latency of configs/targets/k1.yaml (LLVM's X60 model),
    // ±5 %: mul 5, mulw 3, div 20, divw 12, fadd.d 5, fmadd.s 5, fdiv.d 22, fsqrt.s 15.
    const std::pair<const char*, double> chains[] = {{"muls", 5000 * 5.0},     {"mulws", 1000 * 3.0},
                                                     {"divs", 1000 * 20.0},    {"divws", 1000 * 12.0},
                                                     {"fadds_d", 1000 * 5.0},  {"fmadds_s", 1000 * 5.0},
                                                     {"fdivs_d", 1000 * 22.0}, {"fsqrts_s", 1000 * 15.0}};
    for (const auto& [part, cycles] : chains)
        EXPECT_NEAR(parts.at(part), cycles, cycles * 0.05) << part << "\n" << got.out;
    // Independent multiplies issue one every 3 cycles (the board: 3.0–3.5, x60-instructions-vl1.csv).
    EXPECT_NEAR(parts.at("independent_muls"), 1000 * 3.0, 1000 * 3.0 * 0.05) << got.out;
}

// RVV timing as the program sees it (tests/riscv/programs/vector_timing.c, 800 instructions a
// part, ±10 %): independent vfmacc.vv at e32 take n × the reciprocal throughput (1/2/4/8 cycles at
// m1…m8), dependent chains n × the latency (5/5/6/9), and L1-resident vle32.v the load unit's
// rate (the board: 2.45/4.35/8.6/16.5 cycles, docs/sources/k1-board/x60-instructions-vlmax.csv).
TEST(ProgramTiming, VectorInstructionsTakeTheirReciprocalAndLatency) {
    const std::string program = buildProgram("vector_timing.c", "-march=rv64gcv -O2 -static");
    const ProcessResult got = runProgram(program);
    ASSERT_EQ(got.exitCode, 0) << got.err;
    const auto parts = cyclesByPart(got.out);
    const char* lmuls[] = {"m1", "m2", "m4", "m8"};
    const double reciprocal[] = {1, 2, 4, 8}, latency[] = {5, 5, 6, 9}, load[] = {2.45, 4.35, 8.6, 16.5};
    for (int k = 0; k < 4; ++k) {
        const std::string m = lmuls[k];
        EXPECT_NEAR(parts.at("fmacc_independent_" + m), 800 * reciprocal[k], 80 * reciprocal[k]) << m;
        EXPECT_NEAR(parts.at("fmacc_chain_" + m), 800 * latency[k], 80 * latency[k]) << m;
        EXPECT_NEAR(parts.at("vle32_" + m), 800 * load[k], 80 * load[k]) << m;
    }
}

// The loops a program writes for memcpy and memset (tests/riscv/programs/memory_rvv.c: `vsetvli
// e8,m8; vle8.v; vse8.v`) take what the generated kernels take for the same bytes, within 5 %,
// once the buffers are warm (the kernels' passes after the first: cycles at repeat 3 less those
// at repeat 1, halved): from the L1, the L2 and the DDR (8 MiB, 16 × the L2; a memset from the
// DDR only because the core's store buffer holds stores the memory has not accepted). The scalar loops are
// slower. Long timing runs: in CI they use the release build (common/DocsBuild.h), whose figures are the
// sanitized build's; the program path runs sanitized in the other Program* tests.
TEST(ProgramMemory, RvvMemcpyAndMemsetLoopsAgreeWithTheGeneratedKernels) {
    const std::string program = buildProgram("memory_rvv.c", "-march=rv64gcv -O2 -static");
    auto kernelCycles = [](const std::string& kind, const std::string& bytes, int repeat) {
        const std::string report = scratchDirectory() + "/kernel.json";
        const ProcessResult r = runCommand(
            docsTessim() + " run --target k1 --workload " + kind + " --set workload.bytes=" + bytes +
            " --set workload.repeat=" + std::to_string(repeat) + " --report " + report);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return nlohmann::json::parse(readWholeFile(report))["cycles"].get<double>();
    };
    auto programCycles = [&](const std::string& kind, const std::string& bytes) {
        const ProcessResult got = runProgram(program, kind + " " + bytes + " 3", "", "", docsTessim());
        EXPECT_EQ(got.exitCode, 0) << got.err;
        return cyclesByPart(got.out).at("warm_pass");
    };
    for (const char* kind : {"memcpy", "memset"})
        for (const auto& [bytes, text] :
             {std::pair{"8192", "8KiB"}, {"131072", "128KiB"}, {"8388608", "8MiB"}}) {
            const double kernel = (kernelCycles(kind, text, 3) - kernelCycles(kind, text, 1)) / 2;
            const double loop = programCycles(kind, bytes);
            EXPECT_NEAR(loop, kernel, 0.05 * kernel) << kind << " " << text;
            if (std::string(bytes) == "8192") {
                EXPECT_LT(loop, programCycles(std::string(kind) + "_scalar", bytes)) << kind;
            }
        }
}

// The branch predictor (configs/targets/k1.yaml: gshare, an assumption) and the mispredict
// penalty (LLVM's 9): a branch on a pseudo-random bit is mispredicted about every other time, one
// on a fixed bit almost never, and each misprediction costs the penalty.
TEST(ProgramTiming, MispredictedBranchesPayThePenalty) {
    const std::string program = buildProgram("branches.c");
    struct Run {
        double cycles, loop, mispredictions, branchStalls;
    };
    auto run = [&](const std::string& mode, unsigned penalty) {
        const std::string report = scratchDirectory() + "/branches.json";
        const ProcessResult got = runProgram(
            program, mode, report, "--set target.cluster.core.mispredict_penalty=" + std::to_string(penalty));
        EXPECT_EQ(got.exitCode, 0) << got.err;
        const auto r = nlohmann::json::parse(readWholeFile(report));
        const auto& w = r["stats"]["workload"];
        EXPECT_EQ(w["mispredict_penalty"]["value"].get<unsigned>(), penalty);
        return Run{r["cycles"].get<double>(), cyclesByPart(got.out).at("loop"),
                   w["conditional_mispredictions"]["value"].get<double>() +
                       w["jump_mispredictions"]["value"].get<double>(),
                   r["engines"]["core0"]["cycles"]["branch"].get<double>()};
    };
    const Run random = run("random", 9), cheaper = run("random", 5), regular = run("regular", 9);
    // 20 000 iterations, one data-dependent branch each: about half mispredicted.
    const double loopMisses = random.mispredictions - regular.mispredictions;
    EXPECT_NEAR(loopMisses / 20000, 0.5, 0.05);
    // The fixed branch: the start-up code's few hundred and the loop's first ones only.
    EXPECT_LT(regular.mispredictions, 1000);
    EXPECT_EQ(cheaper.mispredictions, random.mispredictions);
    // Four cycles less per misprediction, in the run and in the loop rdcycle timed.
    // The whole run within 5 %: outside the loop, later issue shifts cache and DRAM timing as well.
    EXPECT_NEAR(random.cycles - cheaper.cycles, 4 * random.mispredictions, 0.05 * 4 * random.mispredictions);
    EXPECT_NEAR(random.loop - cheaper.loop, 4 * loopMisses, 0.02 * 4 * loopMisses);
    // The refills are the stall breakdown's `branch` cycles (not `dependency`): the penalty's
    // four cycles per misprediction show there.
    EXPECT_NEAR(random.branchStalls - cheaper.branchStalls, 4 * random.mispredictions,
                0.05 * 4 * random.mispredictions);
    EXPECT_GT(random.branchStalls, 5 * random.mispredictions);
}

// Loads go through the k1's caches and DDR at the program's own addresses: a dependent chain of
// loads takes the load-to-use latency that `tessim probe cache --curves` measures for a buffer of
// that size (L1-resident, and DDR-sized: 16 MiB, 32 × the L2 — at 8 × the L2's dynamic insertion
// keeps part of a buffer walked again and again, as the probe does: 140 cycles there against the
// program's 150 after its one warm walk; 151 at 32 ×), independent loads from an L1-resident buffer
// issue at the L1's rate of one per cycle (64 per iteration: the loop's own instructions add ~5 %),
// and from a DDR-sized one at the rate the L1's MSHRs and the DDR allow. In CI: the release build.
TEST(ProgramMemory, LoadsSeeTheLatencyAndRateOfTheLevelTheyHit) {
    const std::string program = buildProgram("memory.c");
    auto perLoad = [&](const std::string& args) {
        const ProcessResult got = runProgram(program, args, "", "", docsTessim());
        EXPECT_EQ(got.exitCode, 0) << got.err;
        return cyclesByPart(got.out).at("cycles_per_load");
    };
    const ProcessResult probe =
        runCommand(docsTessim() + " probe cache --target k1 --curves --min 16KiB --max 16MiB");
    ASSERT_EQ(probe.exitCode, 0) << probe.err;
    std::map<double, double> latency;
    const nlohmann::json curves = nlohmann::json::parse(probe.out);
    for (const auto& point : curves["latency"])
        latency[point["bytes"].get<double>()] = point["cycles"].get<double>();
    const double l1 = latency.at(16384), ddr = latency.at(16777216);
    EXPECT_NEAR(l1, 3.0, 0.01);  // the L1's hit latency (k1.yaml)
    EXPECT_GT(ddr, 100.0);
    EXPECT_NEAR(perLoad("chase 16384"), l1, 0.02 * l1);
    EXPECT_NEAR(perLoad("chase 16777216"), ddr, 0.03 * ddr);
    EXPECT_NEAR(perLoad("stream 16384"), 1.0, 0.08);
    // A DDR-sized stream is held by the L1's 8 MSHRs: below the DDR's peak (10.66 GB/s at 1.6 GHz)
    // and near the read bandwidth the probe measures for that size.
    const ProcessResult rate =
        runCommand(docsTessim() + " probe cache --target k1 --curves --min 4MiB --max 4MiB");
    ASSERT_EQ(rate.exitCode, 0) << rate.err;
    const double probeRead =
        nlohmann::json::parse(rate.out)["bandwidth"][0]["read"]["bytes_per_cycle"].get<double>();
    const double streamRead = 8.0 / perLoad("stream 4194304");
    EXPECT_LT(streamRead, 10.66e9 / 1.6e9);
    EXPECT_NEAR(streamRead, probeRead, 0.3 * probeRead);
}

// --trace puts each stay in a function on the track "core0 functions": per function, the spans
// add up to the profile's cycles, and all of them to the run.
TEST(ProgramProfile, TraceShowsFunctionSpansThatAddUpToTheProfile) {
    const std::string program = buildProgram("timing.c");
    const std::string report = scratchDirectory() + "/traced.json",
                      trace = scratchDirectory() + "/trace.json";
    ASSERT_EQ(runProgram(program, "2000", report, "--trace " + trace).exitCode, 0);
    const auto r = nlohmann::json::parse(readWholeFile(report));
    const auto t = nlohmann::json::parse(readWholeFile(trace));
    int track = -1;
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "M" && e["args"]["name"] == "core0 functions")
            track = e["tid"].get<int>();
    ASSERT_GE(track, 0) << "no function track";
    std::map<std::string, double> micros;
    double total = 0;
    for (const auto& e : t["traceEvents"])
        if (e["ph"] == "X" && e["tid"].get<int>() == track) {
            micros[e["name"].get<std::string>()] += e["dur"].get<double>();
            total += e["dur"].get<double>();
        }
    EXPECT_NEAR(total, r["seconds"].get<double>() * 1e6, 1e-6);
    for (const auto& f : r["profile"]) {
        const double want = f["cycles"].get<double>() / 1.6e3;  // µs at the core's 1.6 GHz
        EXPECT_NEAR(micros[f["function"].get<std::string>()], want, 1e-6 + 1e-9 * want) << f["function"];
    }
}

// `tessim validate --program`: the run under the schedule checks (registers, bounds, alignment,
// hazards on every access); stdout is validate's JSON, the program's output goes to stderr, and
// the program sees the same clock as under `run`.
TEST(ProgramValidate, AProgramRunsUnderTheChecksWithItsOutputOnStderr) {
    const std::string program = buildProgram("timing.c");
    const ProcessResult run = runProgram(program, "300");
    const ProcessResult checked =
        runCommand(std::string(TESSIM_BINARY) + " validate --target k1 --program " + program + " -- 300");
    ASSERT_EQ(checked.exitCode, 0) << checked.err;
    const auto v = nlohmann::json::parse(checked.out);
    EXPECT_TRUE(v["valid"].get<bool>());
    EXPECT_EQ(v["checked"]["program_exit_status"], 0);
    EXPECT_GT(v["checked"]["hazard_windows"].get<double>(), 1000);
    const auto seen = cyclesByPart(checked.err), want = cyclesByPart(run.out);
    for (const char* part : {"adds", "muls", "kernel", "divs"})
        EXPECT_EQ(seen.at(part), want.at(part)) << part << "\n" << checked.err;
}

TEST(ProgramProfile, FunctionsAddUpToTheRunAndRdcycleAgrees) {
    const std::string program = buildProgram("timing.c");
    const std::string report = scratchDirectory() + "/profile.json";
    const ProcessResult got = runProgram(program, "50000", report);
    ASSERT_EQ(got.exitCode, 0) << got.err;
    const auto r = nlohmann::json::parse(readWholeFile(report));
    double cycles = 0, instructions = 0, kernel = -1;
    for (const auto& f : r["profile"]) {
        cycles += f["cycles"].get<double>();
        instructions += f["instructions"].get<double>();
        // Each function's cycles, by where they went, add up to its cycles.
        double byReason = 0;
        for (const auto& [reason, n] : f["cycles_by_reason"].items())
            byReason += n.get<double>();
        EXPECT_EQ(byReason, f["cycles"].get<double>()) << f["function"];
        if (f["function"] == "kernel")
            kernel = f["cycles"].get<double>();
    }
    EXPECT_EQ(cycles, r["cycles"].get<double>());
    EXPECT_EQ(instructions, r["stats"]["workload"]["instructions"]["value"].get<double>());
    // rdcycle around the call against the profile's cycles for the function: the call and the
    // return are all that lie between them.
    const double measured = cyclesByPart(got.out).at("kernel");
    EXPECT_GT(kernel, 100000);
    EXPECT_NEAR(measured, kernel, 0.01 * kernel) << got.out;
    // The markdown report lists the functions.
    ASSERT_EQ(runProgram(program, "500", scratchDirectory() + "/profile.md", "--format md").exitCode, 0);
    EXPECT_NE(readWholeFile(scratchDirectory() + "/profile.md").find("| kernel |"), std::string::npos);
}

}  // namespace
}  // namespace tessim::test

// ---- the target's memory bounds the program; damaged ELF files are refused, never crash ----

namespace tessim::test {
namespace {

// The program headers of an ELF64 file: the offset of each in the file, and its contents.
std::vector<std::pair<std::size_t, Elf64_Phdr>> programHeaders(const std::string& bytes) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.data(), sizeof eh);
    std::vector<std::pair<std::size_t, Elf64_Phdr>> out;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        const std::size_t at = eh.e_phoff + i * sizeof ph;
        std::memcpy(&ph, bytes.data() + at, sizeof ph);
        out.emplace_back(at, ph);
    }
    return out;
}

TEST(ProgramMemory, ASegmentLargerThanTheTargetsMemoryIsRefused) {
    const std::string program = buildProgram("freestanding.S", "-nostdlib -static");
    std::string bytes = readWholeFile(program);
    std::size_t at = 0;
    for (const auto& [offset, ph] : programHeaders(bytes))
        if (ph.p_type == PT_LOAD)
            at = offset;
    ASSERT_NE(at, 0u);
    const std::uint64_t huge = std::uint64_t{8} << 30;  // 8 GiB of .bss; the K1 model has 4 GiB
    std::memcpy(bytes.data() + at + offsetof(Elf64_Phdr, p_memsz), &huge, 8);
    const std::string patched = scratchDirectory() + "/huge-bss";
    std::ofstream(patched, std::ios::binary) << bytes;
    const std::string err = refused(patched).err;
    EXPECT_NE(err.find("need more than the 4294967296 B of memory"), std::string::npos) << err;
}

TEST(ProgramMemory, AnAllocationLargerThanTheTargetsMemoryFailsInTheProgram) {
    const std::string source = scratchDirectory() + "/bigalloc.c";
    std::ofstream(source)
        << "#include <stdio.h>\n#include <stdlib.h>\n"
           "int main(void) { void* p = malloc(6UL << 30); void* q = malloc(1 << 20);\n"
           "  printf(\"%s %s\\n\", p ? \"big\" : \"null\", q ? \"small\" : \"null\"); return 0; }\n";
    const ProcessResult got = runProgram(buildProgram(source));
    EXPECT_EQ(got.exitCode, 0) << got.err;
    EXPECT_EQ(got.out, "null small\n");  // mmap of 6 GiB: ENOMEM, as on a 4 GiB board
}

// Random bytes of the ELF and program headers changed, 60 times: each run ends (the program's own
// status or exit 2 with a message), none is killed by a signal or runs past its limits.
TEST(ProgramRefused, DamagedHeadersNeverCrashOrHang) {
    const std::string program = buildProgram("freestanding.S", "-nostdlib -static");
    const std::string original = readWholeFile(program);
    const std::size_t headerBytes = std::min<std::size_t>(original.size(), 64 + 8 * sizeof(Elf64_Phdr));
    std::mt19937 rng(38);
    for (int k = 0; k < 60; ++k) {
        std::string bytes = original;
        for (int m = 0; m < 1 + k % 4; ++m)
            bytes[rng() % headerBytes] = static_cast<char>(rng());
        const std::string path = scratchDirectory() + "/damaged";
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        const ProcessResult r = runProgram(path, "", "", "--max-cycles 2000000 --timeout 20");
        EXPECT_GE(r.exitCode, 0) << "mutation " << k << ": killed by a signal\n" << r.err;
        if (r.exitCode == 2) {
            EXPECT_NE(r.err.find("error: "), std::string::npos)
                << "mutation " << k << ": exit 2 without a message";
        }
        EXPECT_EQ(r.err.find("AddressSanitizer"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace tessim::test
