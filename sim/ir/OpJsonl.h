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

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/ir/OpStream.h"
#include "sim/target/TargetInfo.h"

namespace tessim {

// Writes every stream to `out`, interleaved round-robin in chunks; returns ops written.
std::uint64_t writeSchedule(std::ostream& out, std::vector<EngineStream>& streams, const TargetInfo& target);

// Reads a schedule file into one in-memory stream per engine. Errors (ConfigError) name the
// file, line and column of the offending field.
std::vector<EngineStream> readSchedule(const std::string& path, const TargetInfo& target);

}  // namespace tessim
