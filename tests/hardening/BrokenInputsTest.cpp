// The broken-input corpus (tests/hardening/broken-inputs/), one file per case, run as a user
// would: `*.target.yaml` as --target, `*.workload.yaml` as --workload, `*.plan.yaml` as --plan,
// `*.schedule.jsonl` as --schedule, `*.sweep.yaml` with `tessim sweep`, `*.cfg` (SCALE-Sim
// architecture) as --target, `*.csv` (SCALE-Sim topology) as --workload, and `*.cli` holding the
// arguments of a command line. Each must exit 2 with an error that names the file with line and
// column (or the command-line argument) and the key, says what was wrong, and leaves no output:
// nothing on stdout and no --out directory.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hardening/CliRun.h"

namespace {

struct Case {
    const char* file;
    const char* where;    // "line:column: error: key", after the file's path (or "<command line>:…")
    const char* message;  // what was expected or wrong
};

const std::vector<Case> kCases = {
    // Targets
    {"absurd-latency.target.yaml", "3:12: error: spm.latency", "between 0 s and 1 ms"},
    {"unclosed-double-quote.target.yaml",
     "3:8: error:", "runs on over 'energy_table:' at line 4: is its closing \" missing?"},
    {"alias-cycle.target.yaml", "3:16: error: spm.latency[1]", "alias inside its own anchor"},
    {"beyond-time.target.yaml", "3:12: error: spm.latency", "64-bit picoseconds"},
    {"binary-garbage.target.yaml", "1:5: error:", "byte 0x02 is not UTF-8 text"},
    {"deep-nesting.target.yaml", "1:40006: error:", "nested more than 256 levels deep"},
    {"duplicate-key.target.yaml", "4:3: error: spm.size", "duplicate key 'size' (first given at line 3)"},
    {"misspelt-setting.target.yaml", "2:1: error: clok",
     "unknown target setting 'clok' (settings: name, description, clock, energy_table, quantum, groups; a "
     "component is a map with `impl`); did you mean 'clock'?"},
    {"missing-include.target.yaml", "1:50: error: include", "cannot open included file 'no-such-part.yaml'"},
    {"negative-size.target.yaml", "3:9: error: spm.size", "not negative, got '-1 KiB'"},
    {"self-include.target.yaml", "1:10: error: include", "include cycle"},
    {"size-without-unit.target.yaml", "3:9: error: spm.size", "a size with a unit"},
    {"tab-indent.target.yaml", "4:1: error:", "illegal tab when looking for indentation"},
    {"truncated.target.yaml", "4:12: error: spm.latency", "expected a duration with a unit"},
    {"unclosed-flow.target.yaml", "3:1: error:", "end of sequence flow not found"},
    {"unknown-key.target.yaml", "3:3: error: spm.colour", "unknown key 'colour'"},
    {"wrong-type.target.yaml", "3:14: error: ddr.bandwidth", "a bandwidth with a unit"},
    {"zero-clock.target.yaml", "2:8: error: clock", "between 1 kHz and 100 GHz"},
    {"negative-latency.target.yaml", "3:12: error: spm.latency",
     "a duration that is not negative, got '-2 ns'"},
    {"unknown-impl.target.yaml", "3:3: error: spm.impl", "unknown component model 'warp-drive'"},
    {"word-clock.target.yaml", "2:8: error: clock", "a frequency with a unit, like 1 GHz, got 'fast'"},
    {"zero-bandwidth.target.yaml", "3:14: error: ddr.bandwidth", "must be between 1 B/s and 1e+06 GB/s"},
    {"zero-issue-width.target.yaml", "3:16: error: core.issue_width", "must be between 1 and 16"},
    // Impossible hardware (each included minimal-8core and changed one parameter)
    {"huge-ddr.target.yaml", "3:9: error: ddr.size", "between 1 B and 1024 GiB"},
    {"no-dtypes.target.yaml", "5:7: error: core.units.valu.dtypes", "at least one datatype"},
    {"odd-register.target.yaml", "3:3: error: core.register_size", "must be a power of two"},
    {"three-byte-register.target.yaml", "3:18: error: core.register_size", "between 4 B and 1 MiB"},
    {"zero-tcl.target.yaml", "3:3: error: ddr.tCL", "at least one command clock"},
    {"zero-trefi.target.yaml", "3:3: error: ddr.tREFI", "would turn refresh off"},
    // Workloads
    {"absurd-count.workload.yaml", "3:4: error: n", "expected an integer, got '1e30'"},
    {"unclosed-single-quote.workload.yaml", "3:4: error:",
     "the quoted value opened here does not close on its line and runs on over 'alpha:' at line 4: is its "
     "closing ' missing?"},
    {"empty.workload.yaml", "1:1: error:", "the workload file is empty"},
    {"fractional-count.workload.yaml", "3:4: error: n", "expected an integer, got '1.5'"},
    {"list-for-count.workload.yaml", "3:4: error: n", "expected an integer, got a list"},
    {"missing-kernel.workload.yaml", "1:1: error: kernel", "missing required key"},
    {"negative-count.workload.yaml", "3:4: error: n", "non-negative integer, got '-4'"},
    {"not-utf8.workload.yaml", "1:8: error:", "byte 0xff is not UTF-8 text"},
    {"unknown-kernel.workload.yaml", "2:9: error: kernel", "did you mean 'axpy'?"},
    {"duplicate-key.workload.yaml", "3:1: error: n", "duplicate key 'n' (first given at line 2)"},
    {"list-root.workload.yaml", "1:1: error:", "expected a map, got a list"},
    {"unknown-dtype.workload.yaml", "3:8: error: dtype", "got 'f8'; did you mean 'i8'?"},
    {"word-alpha.workload.yaml", "3:8: error: alpha", "expected a number, got 'many'"},
    // Plans
    {"odd-lmul.plan.yaml", "2:1: error: lmul", "LMUL is 1, 2, 4 or 8, not 3"},
    {"unknown-key.plan.yaml", "3:1: error: split", "unknown key 'split'"},
    {"zero-cores.plan.yaml", "2:8: error: cores", "must be between 1 and 4096"},
    {"cores-vs-engines.plan.yaml", "1:1: error: cores", "'cores' is 2 but 'engines' names 1"},
    {"unknown-engine.plan.yaml", "1:1: error: engine", "target 'minimal' has no engine 'gpu'"},
    {"unknown-memory.plan.yaml", "1:1: error: memory", "target 'minimal' has no memory 'hbm'"},
    {"zero-unroll.plan.yaml", "1:9: error: unroll", "must be between 1 and 16"},
    // Schedules (JSON Lines)
    {"barrier-count-zero.schedule.jsonl", "2:40: error: count", "waits for at least one engine"},
    {"bool-imm.schedule.jsonl", "2:45: error: imm", "expects a number, not true"},
    {"deadlock.schedule.jsonl",
     "2: error:", "deadlock: the simulation stopped with engines still waiting (core: barrier 1"},
    {"empty.schedule.jsonl", "1:1: error:", "the schedule has no op"},
    {"float-vl.schedule.jsonl", "2:52: error: vl", "expects an integer in 0..4294967295, not 1.5"},
    {"made-for-number.schedule.jsonl", "1:50: error: made_for", "an object naming the workload"},
    {"negative-addr.schedule.jsonl", "2:71: error: addr", "-64 is out of range"},
    {"no-header.schedule.jsonl", "1:1: error:", "a schedule starts with its header"},
    {"other-target.schedule.jsonl", "1:31: error: target", "written for target 'npu'"},
    {"renumbered-spaces.schedule.jsonl", "1:50: error: spaces", "memory 'ddr' is 1 here, not 0"},
    {"truncated.schedule.jsonl", "2:35: error:", "invalid JSON"},
    {"f16-on-f32-unit.schedule.jsonl", "2:35: error: dtype",
     "no unit of engine core executes broadcast in f16 (its units for it: i8, i32, f32, f64)"},
    {"number-overflow.schedule.jsonl", "2:54: error: vd", "the number 1e400 is beyond a double's range"},
    {"unknown-field.schedule.jsonl", "2:29: error: colour", "unknown field 'colour'"},
    {"unknown-memory.schedule.jsonl", "2:59: error: mem", "has no memory 'hbm'"},
    {"vl-over-register.schedule.jsonl", "2:52: error: vl", "exceeds what engine core holds: 32 B registers"},
    {"array-line.schedule.jsonl", "2:1: error:", "expected a JSON object"},
    {"future-schema.schedule.jsonl", "1:2: error: schema", "unsupported schema (expected tessim.schedule/1)"},
    {"load-without-addr.schedule.jsonl", "2:1: error: addr", "missing required field 'addr'"},
    {"fma-without-sources.schedule.jsonl", "2:1: error: vs0",
     "fma reads 3 source registers: vs0 (or ss0) is missing (vd ← vs0 · vs1 + vs2 (one rounding))"},
    {"fma-without-accumulator.schedule.jsonl", "2:1: error: vs2", "fma reads 3 source registers: vs2"},
    {"store-without-source.schedule.jsonl", "2:1: error: vs0", "vstore reads 1 source register: vs0"},
    {"add-without-destination.schedule.jsonl", "2:1: error: vd",
     "add writes a register: vd (or sd) is required"},
    {"register-out-of-range.schedule.jsonl", "2:49: error: vd",
     "vector register 99 out of range: engine core has v0..v63"},
    {"unknown-dtype.schedule.jsonl", "2:35: error: dtype", "unknown dtype 'f8'"},
    {"unknown-engine.schedule.jsonl", "2:2: error: engine", "target 'minimal' has no engine 'gpu'"},
    {"unknown-op.schedule.jsonl", "2:18: error: op", "unknown op 'warp'"},
    // Sweeps
    {"huge-grid.sweep.yaml", "1:1: error:", "1000000000000 points; at most 10000000"},
    {"misspelt-key.sweep.yaml", "4:3: error: grid.workload.nn", "did you mean 'n'? (in every point"},
    {"truncated.sweep.yaml", "5:1: error:", "end of map flow not found"},
    {"zero-step.sweep.yaml", "4:39: error: grid.workload.n.step", "must be positive"},
    {"empty-axis.sweep.yaml", "4:15: error: grid.workload.n", "needs at least one value"},
    {"misspelt-metric.sweep.yaml", "5:11: error: metrics[0]",
     "'secnods' is not a key of the report; did you mean 'seconds'?"},
    {"no-grid.sweep.yaml", "1:1: error:", "a sweep needs at least one of 'grid', 'zip' or 'sample'"},
    {"unknown-base-target.sweep.yaml", "2:16: error: base.target", "no target named 'nosuch'"},
    // SCALE-Sim architecture configs and topologies
    {"no-architecture.cfg", "1:1: error:", "no [architecture_presets] section"},
    {"not-utf8.cfg", "2:12: error:", "byte 0xc3 is not UTF-8 text"},
    {"repeated-key.cfg", "7:1: error: ArrayWidth", "given twice in [architecture_presets] (first at line 6)"},
    {"repeated-section.cfg", "18:1: error:", "section [general] given twice (first at line 1)"},
    {"unknown-dataflow.cfg", "10:12: error: Dataflow", "expected os, ws or is, got 'rs'"},
    {"zero-array.cfg", "5:17: error: ArrayHeight", "expected an integer in [1, 4096], got '0'"},
    {"filter-larger.csv", "2:14: error: Filter Height", "filter height 11 exceeds the IFMAP height 8"},
    {"negative-gemm.csv", "2:12: error: N", "expected a positive integer N, got '-8'"},
    {"no-rows.csv", "1:1: error:", "the topology has no layer rows"},
    {"short-row.csv", "2:1: error:", "a conv row has 8 fields"},
    {"zero-channels.csv", "2:26: error: Channels", "got '0'"},
    {"word-height.csv", "2:5: error: IFMAP Height", "expected a positive integer IFMAP Height, got 'eight'"},
    {"zero-stride.csv", "2:23: error: Strides", "expected a positive integer Strides, got '0'"},
    // Command lines
    {"device-as-workload.cli", "<command line>: error: workload file '/dev/zero'", "is not a regular file"},
    {"dot-directory-as-target.cli", "<command line>: error: no target named '.'",
     "'.' here is a directory, not a configuration file"},
    {"directory-as-target.cli", "<command line>: error: target file '/tmp'", "is a directory"},
    {"max-memory-without-unit.cli", "<command line>:1:1: error: --max-memory", "a size with a unit (8GiB)"},
    {"set-infeasible-plan.cli", "<command line>: error: rb",
     "a block of rb 2 × ro 4 at lmul 4 needs 8 accumulators"},
    {"set-misspelt-component.cli", "<command line>:1:1: error: srm", "did you mean 'spm'?"},
    {"set-negative-cycles.cli", "<command line>:1:1: error: l1.hit_latency",
     "a cycle count is not negative, got '-3'"},
    {"set-negative-size.cli", "<command line>:1:1: error: spm.size", "not negative, got '-1KiB'"},
    {"set-unclosed-flow.cli", "<command line>:1:1: error: n", "end of sequence flow not found"},
    {"set-unknown-root.cli", "<command line>:1:1: error: chip.spm.size", "--set keys start with target."},
    {"set-without-value.cli", "<command line>:1:1: error:", "--set expects key=value"},
    {"bench-zero-ops.cli", "--ops: Value 0 not in range", "1 to 1099511627776"},
    {"probe-nan-rate.cli", "--rate: requests per second between 1e-06 and 1e+12", "got 'nan'"},
    {"run-without-target.cli", "--target is required", "Run with --help"},
    {"set-missing-equals.cli", "<command line>:1:1: error:", "--set expects key=value"},
    {"sweep-zero-jobs.cli", "--jobs: Value 0 not in range", "1 to 4096"},
    {"unknown-format.cli", "--format: xml not in", "{json,md,csv,scalesim}"},
};

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The command that feeds `path` to tessim; run commands write into `out` if they get that far.
std::string commandFor(const std::string& path, const std::string& out) {
    const std::string to = " --out " + out;
    if (endsWith(path, ".target.yaml") || endsWith(path, ".cfg"))
        return "run --target " + path + " --workload axpy" + to;
    if (endsWith(path, ".workload.yaml"))
        return "run --target minimal --workload " + path + to;
    if (endsWith(path, ".plan.yaml"))
        return "run --target minimal --workload axpy --plan " + path + to;
    if (endsWith(path, ".schedule.jsonl"))
        return "run --target minimal --schedule " + path + to;
    if (endsWith(path, ".csv"))
        return "run --target npu --workload " + path + to;
    if (endsWith(path, ".cli")) {
        std::string args = tessim::test::readFile(path);
        while (!args.empty() && args.back() == '\n')
            args.pop_back();
        return args + to;
    }
    return "sweep " + path + to;
}

TEST(BrokenInputs, EachCaseExitsTwoNamingFileLineColumnAndKeyAndWritesNothing) {
    const std::string dir = std::string(TESSIM_SOURCE_DIR) + "/tests/hardening/broken-inputs/";
    const std::string out = "/tmp/tessim-broken-input-out-" + std::to_string(::getpid());
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.file);
        const std::string path = dir + c.file;
        const auto r = tessim::test::runTessim(commandFor(path, out));
        EXPECT_EQ(r.status, 2) << r.output;
        // "<command line>…" and a flag's own error ("--jobs: …") are named as they are.
        const bool asIs = c.where[0] == '<' || c.where[0] == '-';
        const std::string where = asIs ? std::string(c.where) : path + ":" + c.where;
        EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_FALSE(std::filesystem::exists(out)) << "partial output in " << out;
        std::filesystem::remove_all(out);
    }
}

TEST(BrokenInputs, TheCorpusCoversEveryInputFormatWithFortyCasesOrMore) {
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
    EXPECT_GE(files, 40u);
    for (const char* format : {".target.yaml", ".workload.yaml", ".plan.yaml", ".schedule.jsonl",
                               ".sweep.yaml", ".cfg", ".csv", ".cli"}) {
        std::size_t n = 0;
        for (const Case& c : kCases)
            n += endsWith(c.file, format) ? 1 : 0;
        EXPECT_GE(n, 2u) << format;
    }
}

}  // namespace
