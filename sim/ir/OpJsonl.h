// The text form of a schedule: JSON Lines, one op per line, so schedules can be dumped, edited
// and replayed, or written by another tool's compiler. Header line:
//   {"schema":"tessim.schedule/1","target":"npu","spaces":{"sram":0,"ddr":1}}
// then ops: {"engine":"core","op":"vload","dtype":"f32","vd":17,"vl":8,"mem":"ddr","addr":0}
// Registers: "vd"/"vs0".. name vector registers 0..63; "sd"/"ss0".. scalar registers 0..63 (a
// vector op may take a scalar source: {"op":"fma","vd":8,"ss0":3,"vs1":1,"vs2":8} is vfmacc.vf).
// Op-specific fields: "imm" (broadcast, slide; sadd/smul/scmp/sshift without ss1), "ordered"
// (reduce: vfredosum), "taken" (branch), "lmul" (vsetvl), "mem"/"addr"/"stride" (vload, vstore,
// sload, sstore).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/ir/OpStream.h"
#include "sim/machine/TargetInfo.h"

namespace tessim {

// What a generated schedule was made for, carried in its header as `made_for` (`tessim emit`
// writes it): the workload's name and resolved configuration, the plan's name and resolved
// configuration. A replay that names a workload is checked against it; a hand-written schedule
// has none.
struct ScheduleOrigin {
    std::string workload;                   // empty: the header does not say
    nlohmann::ordered_json workloadConfig;  // the report's workload.config
    std::string plan;
    nlohmann::ordered_json planConfig;  // the report's plan.config
};

// Writes every stream to `out`, one engine after another; returns ops written. The header
// carries `origin` when it names a workload.
std::uint64_t writeSchedule(std::ostream& out, std::vector<EngineStream>& streams, const TargetInfo& target,
                            const ScheduleOrigin& origin = {});

// Reads a schedule file as one stream per engine (in the order engines first appear), each read
// from the file a chunk at a time as its engine pulls it (ScheduleFileStream), so memory does not
// grow with the schedule. Every line is checked before this returns: errors (ConfigError) name the
// file, line and column of the offending field, and a file without an op is refused.
// `origin`, when given, receives the header's `made_for` (left empty without one).
std::vector<EngineStream> readSchedule(const std::string& path, const TargetInfo& target,
                                       ScheduleOrigin* origin = nullptr);

// Reading a schedule line by line. A line of a schedule is a few hundred bytes; a longer one is
// not a schedule (and reading stops there rather than holding a whole binary file in one string).
constexpr std::size_t kMaxScheduleLineBytes = 1 << 20;

// The next line of `in` without its '\n' (at most kMaxScheduleLineBytes + 1 bytes); false at the end.
bool readScheduleLine(std::istream& in, std::string& text);

// The op on line `line` (text `text`) of schedule `file`, checked against the target and its
// engine, whose name goes to `engine`. Errors (ConfigError) name file:line:column and the field.
Op parseScheduleOp(const std::string& file, int line, const std::string& text, const TargetInfo& target,
                   std::string& engine);

}  // namespace tessim
