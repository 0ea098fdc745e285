// The broken-input corpus (tests/hardening/broken-inputs/), one file per case, run as a user
// would: `*.target.yaml` as --target, `*.workload.yaml` as --workload, `*.plan.yaml` as --plan,
// `*.schedule.jsonl` as --schedule, `*.sweep.yaml` with `tessim sweep`, `*.cfg` (SCALE-Sim
// architecture) as --target, `*.csv` (SCALE-Sim topology) as --workload, and `*.cli` holding the
// arguments of a command line. A YAML case whose first line is `# tessim: ARGS` runs ARGS instead,
// {file} replaced by its path (a conv workload on k1, a plan for another kernel). Each must exit 2
// with an error that names the file with line and column (or the command-line argument) and the
// key, says what was wrong, and leaves no output: nothing on stdout and no --out directory.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
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
    // Every component kind: out-of-range and inconsistent parameters, on the targets they belong to
    {"ddr-zero-channels.target.yaml", "3:13: error: ddr.channels",
     "0 is out of range: it must be between 1 and 64"},
    {"ddr-65-channels.target.yaml", "3:13: error: ddr.channels",
     "65 is out of range: it must be between 1 and 64"},
    {"ddr-zero-ranks.target.yaml", "3:10: error: ddr.ranks",
     "0 is out of range: it must be between 1 and 16"},
    {"ddr-zero-banks.target.yaml", "3:10: error: ddr.banks",
     "0 is out of range: it must be between 1 and 256"},
    {"ddr-tiny-row.target.yaml", "3:13: error: ddr.row_size",
     "32 B is out of range: it must be between 64 B and 1 MiB"},
    {"ddr-bus-width-7.target.yaml", "3:14: error: ddr.bus_width",
     "7 is out of range: it must be between 8 and 1024"},
    {"ddr-bus-width-12.target.yaml", "3:3: error: ddr.bus_width",
     "the bus width (bits) must be a multiple of 8"},
    {"ddr-burst-1.target.yaml", "3:17: error: ddr.burst_length",
     "1 is out of range: it must be between 2 and 64"},
    {"ddr-burst-3.target.yaml", "3:3: error: ddr.burst_length", "the burst length must be even"},
    {"ddr-zero-trcd.target.yaml", "3:3: error: ddr.tRCD",
     "tRCD must be at least one command clock (750 ps): a DRAM cannot answer in no time"},
    {"ddr-zero-trp.target.yaml", "3:3: error: ddr.tRP",
     "tRP must be at least one command clock (750 ps): a DRAM cannot answer in no time"},
    {"ddr-zero-tras.target.yaml", "3:3: error: ddr.tRAS",
     "tRAS must be at least one command clock (750 ps): a DRAM cannot answer in no time"},
    {"ddr-tras-below-trcd.target.yaml", "3:3: error: ddr.tRAS",
     "tRAS (7 clocks) must not be shorter than tRCD (24 clocks): a row stays open at least until its"},
    {"ddr-huge-trfc.target.yaml", "3:3: error: ddr.tRFC", "a timing parameter is at most 1 ms, not 2 ms"},
    {"ddr-trfc-over-trefi.target.yaml", "3:3: error: ddr.tRFC", "tRPab + tRFC must be shorter than tREFI"},
    {"ddr-tccdl-below-tccds.target.yaml", "5:3: error: ddr.tCCD_L", "tCCD_L must not be shorter than tCCD_S"},
    {"ddr-refresh-sometimes.target.yaml", "3:12: error: ddr.refresh",
     "expected one of 'all-bank', 'per-bank', 'none', got 'sometimes'"},
    {"ddr-half-open.target.yaml", "3:16: error: ddr.page_policy",
     "expected one of 'open', 'closed', got 'half-open'"},
    {"ddr-lifo.target.yaml", "3:14: error: ddr.scheduler", "expected one of 'fr-fcfs', 'fcfs', got 'lifo'"},
    {"ddr-huge-write-queue.target.yaml", "3:16: error: ddr.write_queue",
     "5000 is out of range: it must be at most 4096"},
    {"ddr-zero-row-history.target.yaml", "3:16: error: ddr.row_history",
     "0 is out of range: it must be between 1 and 256"},
    {"ddr-xor-col.target.yaml", "3:14: error: ddr.bank_hash",
     "expected one of 'none', 'xor-row', got 'xor-col'; did you mean 'xor-row'?"},
    {"ddr-bad-mapping.target.yaml", "3:3: error: ddr.mapping",
     "unknown address field 'lane' (expected row, rank, bank, column, channel)"},
    {"ddr-unknown-preset.target.yaml", "3:3: error: ddr.preset",
     "no DDR parameter set 'lpddr9-9999' (looked for "},
    {"ddr-slow-clock.target.yaml", "3:10: error: ddr.clock",
     "500 kHz is out of range: it must be between 1 MHz and 100 GHz"},
    {"ddr-huge-interleave.target.yaml", "3:15: error: ddr.interleave",
     "4 KiB is out of range: it must be between 1 B and 2 KiB"},
    {"ddr-negative-activate.target.yaml", "4:15: error: ddr.energy.activate",
     "expected an energy that is not negative, got '-1 pJ'"},
    {"ddr-megawatt-background.target.yaml", "4:23: error: ddr.energy.background_power",
     "unknown unit 'MW' in '1 MW': expected a power with a unit (uW, mW, W), like 250 mW; did you"},
    {"ddr-bank-groups-3.target.yaml", "3:3: error: ddr.bank_groups",
     "the banks per rank must be a multiple of bank_groups"},
    {"ddr-zero-column-cycles.target.yaml", "3:18: error: ddr.column_cycles",
     "0 is out of range: it must be between 1 and 16"},
    {"ddr-zero-tck.target.yaml", "3:3: error: ddr.tCK", "tCK must lie between 10 ps and 1 us"},
    {"ddr-tfaw-below-trrd.target.yaml", "4:3: error: ddr.tFAW",
     "tFAW (14 clocks) is shorter than tRRD_S (27 clocks): a window of four activates is at least"},
    {"ddr-rows-overflow.target.yaml", "3:3: error: ddr.size",
     "size must be a multiple of channels × ranks × banks × row_size (65536 B)"},
    {"l2-zero-ways.target.yaml", "3:9: error: l2.ways", "0 is out of range: it must be between 1 and 64"},
    {"l2-65-ways.target.yaml", "3:9: error: l2.ways", "65 is out of range: it must be between 1 and 64"},
    {"l2-line-48.target.yaml", "3:3: error: l2.line", "the line size must be a power of two"},
    {"l2-line-8k.target.yaml", "3:9: error: l2.line",
     "8 KiB is out of range: it must be between 4 B and 4 KiB"},
    {"l2-size-below-line.target.yaml", "3:3: error: l2.size",
     "size must be a multiple of ways × line (512 B)"},
    {"l2-fifo.target.yaml", "3:11: error: l2.policy",
     "expected one of 'lru', 'plru', 'random', 'bip', 'dip', got 'fifo'"},
    {"l2-zero-mshrs.target.yaml", "3:10: error: l2.mshrs",
     "0 is out of range: it must be between 1 and 1024"},
    {"l2-zero-wb-buffer.target.yaml", "3:21: error: l2.writeback_buffer",
     "0 is out of range: it must be between 1 and 1024"},
    {"l2-zero-ports.target.yaml", "3:10: error: l2.ports", "0 is out of range: it must be between 1 and 64"},
    {"l2-slow-port.target.yaml", "3:3: error: l2.port_occupancy",
     "a timing parameter is at most 1 ms, not 2 ms"},
    {"l2-granule-128.target.yaml", "3:18: error: l2.write_granule",
     "128 B is out of range: it must be between 1 B and 64 B"},
    {"l2-granule-3.target.yaml", "3:3: error: l2.write_granule", "the write granule must be a power of two"},
    {"l2-next-nowhere.target.yaml", "3:9: error: l2.next", "no other memory named 'nowhere'"},
    {"l2-next-itself.target.yaml", "3:9: error: l2.next", "no other memory named 'l2'"},
    {"l1-next-l1.target.yaml", "3:9: error: l1.next", "no other memory named 'l1_0'"},
    {"l2-magic-prefetcher.target.yaml", "3:22: error: l2.prefetcher.kind",
     "expected one of 'none', 'next-line', 'stride', got 'magic'"},
    {"l2-zero-degree.target.yaml", "3:41: error: l2.prefetcher.degree",
     "0 is out of range: it must be between 1 and 16"},
    {"l1-negative-lookahead.target.yaml", "3:19: error: l1.miss_lookahead",
     "expected a duration that is not negative, got '-1 ns'"},
    {"l2-negative-static.target.yaml", "3:17: error: l2.static_power",
     "expected a power that is not negative, got '-1 W'"},
    {"l2-second-latency.target.yaml", "3:3: error: l2.hit_latency",
     "a timing parameter is at most 1 ms, not 1 s"},
    {"l2-zero-clock.target.yaml", "3:10: error: l2.clock",
     "0 Hz is out of range: it must be between 1 kHz and 100 GHz"},
    {"l2-seed-negative.target.yaml", "3:9: error: l2.seed", "expected a non-negative integer, got '-1'"},
    {"core-zero-vregs.target.yaml", "3:21: error: core.vector_registers",
     "0 is out of range: it must be between 1 and 64"},
    {"core-65-vregs.target.yaml", "3:21: error: core.vector_registers",
     "65 is out of range: it must be between 1 and 64"},
    {"core-zero-sregs.target.yaml", "3:21: error: core.scalar_registers",
     "0 is out of range: it must be between 1 and 64"},
    {"core-word-alignment.target.yaml", "3:21: error: core.vector_alignment",
     "expected one of 'none', 'element', 'register', got 'word'"},
    {"core-branch-penalty.target.yaml", "3:19: error: core.branch_penalty",
     "1001 is out of range: it must be at most 1000"},
    {"core-store-buffer.target.yaml", "3:17: error: core.store_buffer",
     "5000 is out of range: it must be at most 4096"},
    {"core-store-merge.target.yaml", "3:3: error: core.store_merge",
     "store_merge must be a power of two, not 24 B"},
    {"cache-same-time-turns.target.yaml", "4:3: error: l1.same_time_turns",
     "requests take turns only in exact time order: set miss_lookahead: 0 ns"},
    {"core-zero-quantum.target.yaml", "3:12: error: core.quantum",
     "0 s is out of range: it must be between 1 ps and 1 s"},
    {"core-no-memories.target.yaml", "3:13: error: core.memories",
     "the list is empty: an engine or DMA moves data only to and from the memories it reaches"},
    {"core-unknown-memory.target.yaml", "3:13: error: core.memories", "no memory named 'l3'"},
    {"core-zero-instances.target.yaml", "5:18: error: core.units.valu.instances",
     "0 is out of range: it must be between 1 and 64"},
    {"core-graphics-class.target.yaml", "5:14: error: core.units.valu.class",
     "expected one of 'compute', 'memory', got 'graphics'"},
    {"core-f8-dtype.target.yaml", "5:7: error: core.units.valu.dtypes",
     "unknown datatype 'f8' (expected i8, i16, i32, f16, f32, f64)"},
    {"core-negative-op-latency.target.yaml", "6:24: error: core.units.valu.ops.fma.latency",
     "-1 is out of range: it must be between 0 and 1000000"},
    {"core-zero-reciprocal.target.yaml", "6:39: error: core.units.valu.ops.fma.reciprocal",
     "0 is out of range: it must be between 0.001 and 1000000"},
    {"core-unknown-op.target.yaml", "6:9: error: core.units.valu.ops.warp", "unknown op 'warp'"},
    {"core-zero-bytes-per-cycle.target.yaml", "5:24: error: core.units.lsu.bytes_per_cycle",
     "0 is out of range: it must be between 0.001 and 1000000"},
    {"core-unknown-dma.target.yaml", "3:8: error: core.dma", "no DMA engine named 'dma9'"},
    {"core-zero-count.target.yaml", "3:10: error: core.count",
     "expected a whole number of instances from 1 to 4096, got '0'"},
    {"core-zero-clock.target.yaml", "3:10: error: core.clock",
     "0 Hz is out of range: it must be between 1 kHz and 100 GHz"},
    {"core-vliw-maybe.target.yaml", "3:9: error: core.vliw", "expected true or false, got 'maybe'"},
    {"core-fma-op-string.target.yaml", "6:14: error: core.units.valu.ops.fma", "expected a map, got a value"},
    {"core-issue-width-17.target.yaml", "3:16: error: core.issue_width",
     "17 is out of range: it must be between 1 and 16"},
    {"core-fork-latency.target.yaml", "3:17: error: core.fork_latency",
     "2000000 is out of range: it must be at most 1000000"},
    {"top-zero-quantum.target.yaml", "2:10: error: quantum",
     "0 s is out of range: it must be between 1 ps and 1 s"},
    {"top-unknown-energy-table.target.yaml", "2:15: error: energy_table",
     "energy table 'nosuch-7nm' does not exist (looked for"},
    {"top-empty-name.target.yaml", "2:1: error: name",
     "a target's name is not empty: reports and comparisons tell targets apart by it"},
    {"top-list-description.target.yaml", "2:14: error: description", "expected a string, got a list"},
    {"top-clock-list.target.yaml", "2:8: error: clock",
     "expected a frequency with a unit, like 1 GHz, got a list"},
    {"spm-zero-size.target.yaml", "3:9: error: spm.size", "0 B is out of range: it must be at least 1 B"},
    {"spm-huge-latency-unit.target.yaml", "3:12: error: spm.latency",
     "unknown unit 'lightyears' in '2 lightyears': expected a duration with a unit (ps, ns, us, ms,"},
    {"spm-negative-bandwidth.target.yaml", "3:14: error: spm.bandwidth",
     "expected a bandwidth that is not negative, got '-5 GB/s'"},
    {"spm-read-energy-negative.target.yaml", "4:27: error: spm.energy.read_energy_per_byte",
     "expected an energy that is not negative, got '-1 pJ'"},
    {"spm-energy-table-key.target.yaml", "3:11: error: spm.energy",
     "energy table has no section 'components.no_such_entry'"},
    {"ddr-simple-bandwidth-huge.target.yaml", "3:14: error: ddr.bandwidth",
     "1e9 GB/s is out of range: it must be between 1 B/s and 1e+06 GB/s"},
    {"l1-count-not-cores.target.yaml", "5:14: error: core.memories[0]",
     "'l1' has 4 instances and 'core' has 8: an engine reaches one instance of a cache, its own"},
    {"l2-ways-not-dividing.target.yaml", "3:3: error: l2.size",
     "size must be a multiple of ways × line (192 B)"},
    {"npu-zero-rows.target.yaml", "6:13: error: npu.units.mac.rows",
     "0 is out of range: it must be between 1 and 4096"},
    {"npu-huge-cols.target.yaml", "6:13: error: npu.units.mac.cols",
     "5000 is out of range: it must be between 1 and 4096"},
    {"npu-rs-dataflow.target.yaml", "6:17: error: npu.units.mac.dataflow",
     "expected one of 'os', 'ws', 'is', got 'rs'; did you mean 'os'?"},
    {"npu-f32-array.target.yaml", "6:14: error: npu.units.mac.dtype", "expected one of 'i8', got 'f32'"},
    {"npu-negative-mac-energy.target.yaml", "7:17: error: npu.units.mac.energy.mac_i8",
     "expected an energy that is not negative, got '-0.2 pJ'"},
    {"sram-zero-banks.target.yaml", "4:10: error: sram.banks",
     "0 is out of range: it must be between 1 and 4096"},
    {"sram-wide-banks.target.yaml", "4:15: error: sram.bank_width",
     "8 KiB is out of range: it must be between 1 B and 4 KiB"},
    {"sram-zero-ports.target.yaml", "4:10: error: sram.ports",
     "0 is out of range: it must be between 1 and 64"},
    {"sram-slow.target.yaml", "4:3: error: sram.latency", "a timing parameter is at most 1 ms, not 2 ms"},
    {"dma-zero-channels.target.yaml", "4:13: error: dma.channels",
     "0 is out of range: it must be between 1 and 256"},
    {"dma-zero-burst.target.yaml", "4:10: error: dma.burst",
     "0 B is out of range: it must be between 1 B and 1 MiB"},
    {"dma-zero-outstanding.target.yaml", "4:16: error: dma.outstanding",
     "0 is out of range: it must be between 1 and 4096"},
    {"dma-huge-alignment.target.yaml", "4:14: error: dma.alignment",
     "2 MiB is out of range: it must be between 1 B and 1 MiB"},
    {"dma-zero-queue.target.yaml", "4:16: error: dma.queue_depth",
     "0 is out of range: it must be between 1 and 1048576"},
    {"dma-unknown-memory.target.yaml", "4:13: error: dma.memories", "no memory named 'hbm'"},
    {"dma-no-memories.target.yaml", "4:13: error: dma.memories",
     "the list is empty: an engine or DMA moves data only to and from the memories it reaches"},
    {"dma-slow-setup.target.yaml", "4:3: error: dma.setup", "a timing parameter is at most 1 ms, not 2 ms"},
    {"dma-zero-clock.target.yaml", "4:10: error: dma.clock",
     "0 Hz is out of range: it must be between 1 kHz and 100 GHz"},
    {"dma-negative-lookahead.target.yaml", "4:14: error: dma.lookahead",
     "expected a duration that is not negative, got '-5 ns'"},
    {"npu-unknown-dma.target.yaml", "4:8: error: npu.dma", "no DMA engine named 'dma2'"},
    {"npu-ddr-preset-typo.target.yaml", "4:3: error: ddr.preset",
     "no DDR parameter set 'lpddr4x-4266-x46' (looked for"},
    {"npu-ddr-bank-queue.target.yaml", "4:15: error: ddr.bank_queue",
     "5000 is out of range: it must be at most 4096"},
    {"k1-zero-slots.target.yaml", "5:5: error: cluster.core.slots", "slot classes need vliw: true"},
    {"k1-predictor-kind.target.yaml", "6:13: error: cluster.core.branch_predictor.kind",
     "expected one of 'gshare', 'bimodal', 'none', got 'perceptron'"},
    {"k1-predictor-history.target.yaml", "7:21: error: cluster.core.branch_predictor.history_bits",
     "31 is out of range: it must be at most 30"},
    {"k1-predictor-entries.target.yaml", "7:16: error: cluster.core.branch_predictor.entries",
     "0 is out of range: it must be between 1 and 1048576"},
    {"k1-l2-zero-ports.target.yaml", "5:12: error: cluster.l2.ports",
     "0 is out of range: it must be between 1 and 64"},
    {"k1-l1-stride-degree.target.yaml", "5:40: error: cluster.l1.prefetcher.degree",
     "17 is out of range: it must be between 1 and 16"},
    {"k1-cluster-count-zero.target.yaml", "4:10: error: cluster.count",
     "expected a whole number of instances from 1 to 4096, got '0'"},
    {"k1-cluster-unknown-key.target.yaml", "4:11: error: cluster.colour",
     "a cluster holds components (maps with an impl), count and description"},
    {"k1-bus-zero-width.target.yaml", "4:10: error: memory_bus.width",
     "0 B is out of range: it must be between 1 B and 64 KiB"},
    {"k1-bus-arbitration.target.yaml", "4:16: error: memory_bus.arbitration",
     "expected one of 'fcfs', got 'lottery'"},
    {"k1-bus-channels.target.yaml", "4:13: error: memory_bus.channels",
     "expected one of 'shared', 'split', got 'triple'"},
    {"k1-bus-latency.target.yaml", "4:3: error: memory_bus.latency",
     "a timing parameter is at most 1 ms, not 5 ms"},
    {"ftm-zero-vector-slots.target.yaml", "4:30: error: core.slots.vector",
     "0 is out of range: it must be between 1 and 64"},
    {"ftm-unknown-slot.target.yaml", "6:7: error: core.units.vfmac.slot",
     "the engine has no slot class 'matrix'"},
    {"ftm-fmac-instances.target.yaml", "6:18: error: core.units.vfmac.instances",
     "65 is out of range: it must be between 1 and 64"},
    {"ftm-am-zero-banks.target.yaml", "4:10: error: am.banks",
     "0 is out of range: it must be between 1 and 4096"},
    {"ftm-group-unknown.target.yaml", "4:11: error: groups.all_am", "group 'all_am': no memory named 'hbm'"},
    {"ftm-gc-mshrs.target.yaml", "4:10: error: gc.mshrs",
     "2000 is out of range: it must be between 1 and 1024"},
    {"k1-lmul-latency-negative.target.yaml", "9:48: error: cluster.core.units.vlsu.ops.vload.latency.m8",
     "-13 is out of range: it must be between 0 and 1000000"},
    {"ftm-vliw-word.target.yaml", "4:9: error: core.vliw", "expected true or false, got 'sometimes'"},
    {"absurd-energy.target.yaml", "4:27: error: spm.energy.read_energy_per_byte",
     "'1e30 pJ' is above 1 mJ, more than any single event of a chip or its DRAM costs"},
    {"absurd-static-power.target.yaml", "3:17: error: l2.static_power", "'5000 W' is above 1 kW"},
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
    // Workloads of every kernel (a `# tessim:` line runs them on their chip)
    {"memcpy-zero-bytes.workload.yaml", "3:8: error: bytes",
     "0 B is out of range: it must be between 1 B and 512 MiB"},
    {"memcpy-beyond-ddr.workload.yaml", "3:8: error: bytes",
     "3 GiB is out of range: it must be between 1 B and 512 MiB"},
    {"memcpy-zero-repeat.workload.yaml", "4:9: error: repeat",
     "0 is out of range: it must be between 1 and 1048576"},
    {"memset-value-300.workload.yaml", "4:8: error: value", "300 is out of range: it must be at most 255"},
    {"memcpy-bytes-word.workload.yaml", "3:8: error: bytes",
     "expected a size with a unit, like 512 KiB, got 'lots'"},
    {"pointer-chase-zero-stride.workload.yaml", "4:9: error: stride",
     "0 B is out of range: it must be between 4 B and 1 MiB"},
    {"pointer-chase-stride-over-bytes.workload.yaml", "3:8: error: bytes",
     "4 KiB is out of range: it must be between 8 KiB and 1 GiB"},
    {"fc-zero-in.workload.yaml", "3:5: error: in", "0 is out of range: it must be between 1 and 1048576"},
    {"fc-negative-batch.workload.yaml", "5:8: error: batch", "expected a non-negative integer, got '-1'"},
    {"fc-tt-product.workload.yaml", "3:1: error: in",
     "in = 784 but the product of tt.in [2,2,2,7,13] is 728"},
    {"fc-tt-ranks-count.workload.yaml", "9:3: error: tt.ranks",
     "5 cores need 4 inner ranks (or 6 with the outer 1s), not 3"},
    {"fc-tt-modes-differ.workload.yaml", "8:3: error: tt.out",
     "4 output factors for 5 input factors: give one per core"},
    {"fc-tt-zero-rank.workload.yaml", "9:14: error: tt.ranks",
     "expected a positive integer up to 2^20 in the list"},
    {"conv-zero-k.workload.yaml", "7:4: error: k", "0 is out of range: it must be between 1 and 255"},
    {"conv-zero-stride.workload.yaml", "8:9: error: stride",
     "0 is out of range: it must be between 1 and 255"},
    {"conv-kernel-over-map.workload.yaml", "7:1: error: k", "a 7×7 kernel does not fit the padded 4×4 input"},
    {"conv-zero-channels.workload.yaml", "5:11: error: channels",
     "0 is out of range: it must be between 1 and 65535"},
    {"conv-zero-filters.workload.yaml", "6:10: error: filters",
     "0 is out of range: it must be between 1 and 65535"},
    {"conv-group-not-dividing.workload.yaml", "10:1: error: groups",
     "groups 3 must divide both channels (64) and filters (64)"},
    {"conv-f16-output-on-npu.workload.yaml", "11:15: error: output_dtype",
     "expected one of 'i8', 'i32', got 'f16'"},
    {"conv-layers-empty.workload.yaml", "3:1: error: layers", "the layer list is empty"},
    {"conv-layer-missing-filters.workload.yaml", "4:5: error: layers[0].filters", "missing required key"},
    {"conv-layer-duplicate-name.workload.yaml", "5:6: error: layers[1].name",
     "layer name 'a' is given twice (first at layers[0]): reports key layers by name"},
    {"pool-window-over-map.workload.yaml", "4:54: error: layers[0].k",
     "a 7×7 window does not fit the padded 4×4 input"},
    {"add-unknown-broadcast.workload.yaml", "4:61: error: layers[0].broadcast",
     "expected one of 'none', 'channel', 'constant', got 'row'"},
    {"k1-int8-add.workload.yaml", "6:21: error: layers[1].op",
     "Add in i8 (plan.dtype i8): its result depends on the tensors' quantisation scales"},
    {"hardsigmoid-alpha-word.workload.yaml", "4:65: error: layers[0].alpha",
     "expected a number, got 'steep'"},
    {"relu-f64-on-npu.workload.yaml", "5:51: error: layers[1].dtype",
     "a Relu layer in f64 cannot run on engine 'vpu': its vector unit executes i8, i16, i32, f16"},
    {"axpy-f16-on-minimal.workload.yaml", "3:8: error: dtype",
     "expected one of 'i8', 'i16', 'i32', 'f32', 'f64', got 'f16'; did you mean 'i16'?"},
    {"axpy-nan-alpha.workload.yaml", "3:8: error: alpha", "expected a number, got '.nan'"},
    {"axpy-zero-n.workload.yaml", "2:4: error: n", "0 is out of range: it must be between 1 and 17179869184"},
    {"dot-on-npu.workload.yaml", "2:1: error: kernel",
     "dot cannot run on target 'npu': engine 'npu' of target 'npu' has no unit for ops 'vload',"},
    {"axpy-name-list.workload.yaml", "1:7: error: name", "expected a string, got a list"},
    {"axpy-unknown-key.workload.yaml", "3:1: error: beta", "unknown key 'beta'"},
    {"scalesim-kernel-in-yaml.workload.yaml", "1:1: error: kernel",
     "scalesim cannot run on target 'minimal': engine 'core' of target 'minimal' has no MAC array"},
    // Plans
    {"odd-lmul.plan.yaml", "2:1: error: lmul", "LMUL is 1, 2, 4 or 8, not 3"},
    {"unknown-key.plan.yaml", "3:1: error: split", "unknown key 'split'"},
    {"zero-cores.plan.yaml", "2:8: error: cores", "must be between 1 and 4096"},
    {"cores-vs-engines.plan.yaml", "1:1: error: cores", "'cores' is 2 but 'engines' names 1"},
    {"unknown-engine.plan.yaml", "1:1: error: engine", "target 'minimal' has no engine 'gpu'"},
    {"unknown-memory.plan.yaml", "1:1: error: memory", "target 'minimal' has no memory 'hbm'"},
    {"zero-unroll.plan.yaml", "1:9: error: unroll", "must be between 1 and 16"},
    // Plans of every kernel directory
    {"rvv-zero-rb.plan.yaml", "3:5: error: rb", "0 is out of range: it must be between 1 and 16"},
    {"rvv-lmul-16.plan.yaml", "3:7: error: lmul", "16 is out of range: it must be between 1 and 8"},
    {"rvv-depthwise-sideways.plan.yaml", "3:12: error: depthwise",
     "expected one of 'direct', 'im2col', got 'sideways'"},
    {"rvv-f8.plan.yaml", "3:8: error: dtype",
     "expected one of 'f32', 'f16', 'f64', 'i8', got 'f8'; did you mean 'i8'?"},
    {"npu-tile-zero.plan.yaml", "3:1: error: tile_h",
     "expected a positive tile size, 'auto' or 'full', got '0'"},
    {"npu-tile-word.plan.yaml", "3:1: error: tile_h",
     "expected a positive tile size, 'auto' or 'full', got 'tall'"},
    {"npu-strategy-magic.plan.yaml", "2:11: error: strategy",
     "expected one of 'double-buffer', 'naive', 'static-single', 'shuffle', 'im2col', 'rvv-im2col',"},
    {"npu-tile-over-sram.plan.yaml", "3:1: error: tile_h",
     "no tiling fits the SRAM: the smallest allowed tile (tile_h 56, tile_w 56, tile_c 64, tile_f"},
    {"fc-nine-threads.plan.yaml", "2:1: error: threads",
     "the plan asks for 9 threads but target 'k1' has 8 main compute engines"},
    {"fc-zero-threads.plan.yaml", "2:10: error: threads", "0 is out of range: it must be between 1 and 4096"},
    {"memory-hundred-threads.plan.yaml", "2:1: error: threads",
     "the plan asks for 100 threads but target 'k1' has 8 main compute engines"},
    {"memory-sew-24.plan.yaml", "2:1: error: sew", "SEW is 8, 16 or 32 bits, not 24"},
    {"tt-tiling-l3.plan.yaml", "2:9: error: tiling",
     "expected one of 'none', 'l2', got 'l3'; did you mean 'l2'?"},
    {"tt-zero-rm.plan.yaml", "2:5: error: rm", "0 is out of range: it must be between 1 and 16"},
    {"tt-zero-assoc.plan.yaml", "4:11: error: l2_assoc", "0 is out of range: it must be between 1 and 64"},
    {"shuffle-negative-rows.plan.yaml", "3:13: error: block_rows",
     "expected a non-negative integer, got '-4'"},
    {"shuffle-implicit.plan.yaml", "3:12: error: broadcast",
     "expected one of 'operand', 'explicit', got 'implicit'; did you mean 'explicit'?"},
    {"shuffle-triple.plan.yaml", "3:12: error: buffering",
     "expected one of 'auto', 'single', 'double', got 'triple'"},
    {"shuffle-huge-unroll.plan.yaml", "3:9: error: unroll", "1000 is out of range: it must be at most 8"},
    {"shuffle-five-cores.plan.yaml", "3:1: error: cores",
     "the plan asks for 5 cores but target 'ftm2000' has 4 main compute engines"},
    {"two-cores-on-minimal.plan.yaml", "1:1: error: cores",
     "the plan asks for 2 cores but target 'minimal' has 1 main compute engine"},
    {"plan-list-root.plan.yaml", "1:1: error:", "expected a map, got a list"},
    {"plan-vector-length-zero.plan.yaml", "1:1: error: vector_length",
     "not an input but what the run derives, and it derives 8 here (leave the key out, or give that"},
    {"plan-memory-ddr-typo.plan.yaml", "1:1: error: memory", "target 'minimal' has no memory 'dram'"},
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
    // Ops that cannot execute, malformed lines
    {"duplicate-field.schedule.jsonl", "2:52: error: vd",
     "field 'vd' is given twice on this line: which value was meant?"},
    {"header-twice.schedule.jsonl", "2:1: error: engine", "missing required field 'engine'"},
    {"op-as-number.schedule.jsonl", "2:18: error: op", "wrong type for field 'op'"},
    {"engine-as-list.schedule.jsonl", "2:2: error: engine", "wrong type for field 'engine'"},
    {"dma-wait-never-started.schedule.jsonl", "2:18: error: op", "engine core has no DMA engine to wait for"},
    {"join-zero-count.schedule.jsonl", "2:37: error: count",
     "a join waits for at least one engine (count ≥ 1)"},
    {"reduce-ordered-string.schedule.jsonl", "2:54: error: ordered",
     "field 'ordered' expects true or false, not \"yes\""},
    {"negative-stride-word.schedule.jsonl", "2:66: error: stride",
     "field 'stride' expects an integer in -9223372036854775808..9223372036854775807, not \"wide\""},
    {"slide-imm-huge.schedule.jsonl", "2:53: error: imm",
     "a slide moves by a whole number of elements up to 2^24 either way, not 1e+30"},
    {"branch-without-taken.schedule.jsonl", "2:1: error: taken", "missing required field 'taken'"},
    {"vsetvl-lmul-3.schedule.jsonl", "2:46: error: lmul", "lmul must be 1, 2, 4 or 8"},
    {"vlseg-nf-zero.schedule.jsonl", "2:66: error: nf", "a segment has 1 to 8 fields, not 0"},
    {"trailing-garbage.schedule.jsonl", "2:30: error: invalid JSON",
     "syntax error while parsing value - invalid literal; last read: '\"nop\"} e'; expected end of"},
    {"schema-missing.schedule.jsonl", "1:1: error:",
     "a schedule starts with its header ({\"schema\":\"tessim.schedule/1\",\"target\":\"<name>\"}), not "
     "with"},
    {"load-past-memory-end.schedule.jsonl",
     "2: error: engine core:", "vload of 32 B at spm+0x3fffc was refused"},
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
    // Axes, ranges, objectives and plots
    {"grid-unknown-root.sweep.yaml", "4:3: error: grid.chip.n",
     "'chip.n' is not a config path; parameters use the --set paths, which start with target.,"},
    {"grid-duplicate-axis.sweep.yaml", "5:3: error: grid.workload.n",
     "duplicate key 'workload.n' (first given at line 4)"},
    {"zip-unequal-lengths.sweep.yaml", "5:3: error: zip.workload.alpha",
     "zipped parameters need lists of equal length: 'workload.n' has 2 values, 'workload.alpha' has 1"},
    {"sample-zero-count.sweep.yaml", "4:3: error: sample.count", "must be between 1 and 1000000"},
    {"grid-log-from-zero.sweep.yaml", "4:22: error: grid.workload.n.from",
     "a log range needs positive bounds"},
    {"grid-count-zero.sweep.yaml", "4:36: error: grid.workload.n.count", "must be between 1 and 1000000"},
    {"grid-from-over-to.sweep.yaml", "4:32: error: grid.workload.n.to",
     "with 'step', 'to' must not be below 'from'"},
    {"objective-unknown.sweep.yaml", "6:15: error: objectives[0].maximize",
     "objective 'nothing' is neither a swept parameter nor a metric of this sweep (known:"},
    {"plot-kind-unknown.sweep.yaml", "6:12: error: plots[0].kind",
     "expected one of 'heatmap', 'pareto', 'lines', got 'pie'"},
    {"plot-axis-unknown.sweep.yaml", "6:22: error: plots[0].x",
     "x 'workload.m' is neither a swept parameter nor a metric of this sweep (known: workload.n,"},
    {"base-missing-workload.sweep.yaml", "2:7: error: base.workload", "missing required key"},
    {"grid-target-key-typo.sweep.yaml", "4:3: error: grid.target.spm.sise",
     "unknown key 'sise'; did you mean 'size'? (in every point of the sweep; no point was run)"},
    {"sweep-unknown-top-key.sweep.yaml", "5:1: error: repeat", "unknown key 'repeat'"},
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
    // Every subcommand: names, flags, files it cannot open or write
    {"run-unknown-target.cli", "<command line>: error: no target named 'nosuch'",
     "(known: ftm2000, ftm2000-l1d-cache, k1"},
    {"run-unknown-workload.cli", "<command line>: error: no workload named 'axpx'", "did you mean 'axpy'?"},
    {"run-unknown-plan.cli", "<command line>: error: no plan named 'clustre'",
     "did you mean 'cluster'? (its plans: cluster, single-thread, wide)"},
    {"run-set-unknown-workload-key.cli", "<command line>:1:1: error: nn",
     "unknown key 'nn'; did you mean 'n'?"},
    {"run-set-plan-bad-value.cli", "<command line>:1:1: error: threads", "expected an integer, got 'many'"},
    {"run-set-target-range.cli", "<command line>:1:1: error: spm.latency",
     "5ms is out of range: it must be between 0 s and 1 ms"},
    {"run-schedule-missing.cli", "/nonexistent/a.jsonl: error:", "schedule file does not exist"},
    {"run-trace-dir-missing.cli", "error: --trace: cannot write trace file '/nonexistent/dir/t.json'",
     "No such file or directory"},
    {"run-access-trace-dir.cli", "error: --access-trace: cannot write the access trace '/tmp'",
     "Is a directory"},
    {"run-timeout-negative.cli", "--timeout:", "expected a positive, finite number of seconds, not '-5'"},
    {"emit-unknown-target.cli", "<command line>: error: no target named 'nosuch'", "(known: ftm2000"},
    {"validate-without-schedule.cli",
     "<command line>: error:", "a run needs --workload (or --schedule, or --program)"},
    {"probe-unknown-pattern.cli", "error: --pattern 'zigzag'", "expected seq, random or strided"},
    {"probe-negative-stream.cli", "--stream-kib:", "Value -5 not in range 1 to 16777216"},
    {"probe-unknown-memory.cli", "error: target 'minimal'", "has no memory with impl: cache"},
    {"bench-unknown-case.cli", "error: unknown benchmark case", "'warp-drive'"},
    {"sweep-unknown-name.cli", "<command line>: error: no sweep named 'no-such-sweep'",
     "(known: ftm2000-kernels"},
    {"reproduce-unknown-paper.cli", "<command line>: error: no paper named 'no-such-paper'",
     "(known: ftm2000-conv, k1-ttd, npu-tiling, tt-tr)"},
    {"list-unknown-kind.cli", "what: colours not in",
     "{targets,workloads,kernels,plans,papers,sweeps,ops,config}"},
    {"plot-missing-csv.cli", "results: File does not exist:", "/nonexistent/results.csv"},
    {"explain-unknown-target.cli", "<command line>: error: no target named 'nosuch'", "(known: ftm2000"},
    {"diff-missing-file.cli", "/nonexistent/a.json: error:", "no such file"},
    {"compare-unknown-chip.cli", "<command line>: error: no target named 'gpu'", "did you mean 'npu'?"},
    {"max-memory-zero.cli", "<command line>:1:1: error: --max-memory",
     "0B is below 64 MiB, less than the simulator itself needs"},
    {"dse-zero-ranks.cli", "--ranks:", "Value 0 not in range 1 to 4096"},
};

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The command that feeds `path` to tessim; run commands write into `out` if they get that far.
std::string commandFor(const std::string& path, const std::string& out) {
    const std::string to = " --out " + out;
    const std::string directive = "# tessim: ";
    if (endsWith(path, ".yaml")) {
        std::string first = tessim::test::readFile(path);
        first = first.substr(0, first.find('\n'));
        if (first.compare(0, directive.size(), directive) == 0) {
            std::string args = first.substr(directive.size());
            const std::string placeholder = "{file}";
            for (std::size_t at; (at = args.find(placeholder)) != std::string::npos;)
                args.replace(at, placeholder.size(), path);
            return args + to;
        }
    }
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
        // Only the commands that write files take --out.
        const std::string command = args.substr(0, args.find(' '));
        for (const char* writes : {"run", "emit", "sweep", "reproduce", "dse", "plot"})
            if (command == writes)
                return args + to;
        return args;
    }
    return "sweep " + path + to;
}

const char* const kFormats[] = {".target.yaml", ".workload.yaml", ".plan.yaml", ".schedule.jsonl",
                                ".sweep.yaml",  ".cfg",           ".csv",       ".cli"};

// One ctest test per input format, so the ~300 cases run in parallel.
class BrokenInputs : public ::testing::TestWithParam<const char*> {};

TEST_P(BrokenInputs, EachCaseExitsTwoNamingFileLineColumnAndKeyAndWritesNothing) {
    const std::string dir = std::string(TESSIM_SOURCE_DIR) + "/tests/hardening/broken-inputs/";
    const std::string out = "/tmp/tessim-broken-input-out-" + std::to_string(::getpid());
    std::size_t ran = 0;
    for (const Case& c : kCases) {
        if (!endsWith(c.file, GetParam()))
            continue;
        ++ran;
        SCOPED_TRACE(c.file);
        const std::string path = dir + c.file;
        const auto r = tessim::test::runTessim(commandFor(path, out));
        EXPECT_EQ(r.status, 2) << r.output;
        // A command line's case names its argument or flag as it is ("<command line>…", "--jobs: …",
        // the file it names); a file's case starts at the file.
        const bool asIs = endsWith(c.file, ".cli") || c.where[0] == '<' || c.where[0] == '-';
        const std::string where = asIs ? std::string(c.where) : path + ":" + c.where;
        EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_FALSE(std::filesystem::exists(out)) << "partial output in " << out;
        std::filesystem::remove_all(out);
    }
    EXPECT_GE(ran, 2u);
}

INSTANTIATE_TEST_SUITE_P(Corpus, BrokenInputs, ::testing::ValuesIn(kFormats),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                             std::string name;
                             for (const char* p = info.param; *p; ++p)
                                 if (std::isalnum(static_cast<unsigned char>(*p)))
                                     name += *p;
                             return name;
                         });

TEST(BrokenInputsCorpus, CoversEveryInputFormatWithThreeHundredCasesOrMore) {
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
    EXPECT_GE(files, 300u);
    for (const char* format : kFormats) {
        std::size_t n = 0;
        for (const Case& c : kCases)
            n += endsWith(c.file, format) ? 1 : 0;
        EXPECT_GE(n, 2u) << format;
    }
}

}  // namespace
