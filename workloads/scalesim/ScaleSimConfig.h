// SCALE-Sim v2 architecture config (.cfg, INI) → a tessim target tree.
//
// The target is the `npu` target (configs/targets/npu.yaml) with SCALE-Sim's architecture put in:
// the systolic array is ArrayHeight × ArrayWidth with the given Dataflow, the three SRAM buffers
// (IfmapSramSzkB, FilterSramSzkB, OfmapSramSzkB, ×1024 B) are three scratchpads `ifmap_sram`,
// `filter_sram`, `ofmap_sram`, and DRAM is a bandwidth/latency memory (`impl: simple`):
// InterfaceBandwidth USER → Bandwidth words (1 B) per cycle; CALC → (ArrayHeight + ArrayWidth)
// B/cycle, enough for every fold's operands (SCALE-Sim computes the bandwidth it needs in that
// mode, so it never stalls). Errors are ConfigErrors at file:line:column (exit 2).
#pragma once

#include <cstdint>
#include <string>

#include "sim/config/Node.h"

namespace tessim {

// True for a path ending in ".cfg".
bool isScaleSimConfigPath(const std::string& path);

// Parsed keys, with where each was written.
struct ScaleSimArch {
    std::string runName;
    unsigned rows = 0, cols = 0;
    unsigned ifmapKiB = 0, filterKiB = 0, ofmapKiB = 0;
    std::uint64_t ifmapOffset = 0, filterOffset = 10000000, ofmapOffset = 20000000;
    double bandwidth = 10;  // words per cycle (USER mode)
    std::string dataflow;   // os | ws | is
    std::string interfaceBandwidth = "CALC";
};

ScaleSimArch parseScaleSimConfig(const std::string& path);

// The target tree (see the file comment). `path` names the .cfg file; `npuTarget` is the loaded
// configs/targets/npu.yaml (clock, energy table and the rest come from it).
config::Node loadScaleSimTarget(const std::string& path, const config::Node& npuTarget);

// A `scalesim` workload run on the .cfg at `path` gets the config's interface: `interface: ideal`
// for InterfaceBandwidth CALC (SCALE-Sim's ideal interface), `memory` for USER (tessim's DMA and
// DRAM models), unless the workload sets `interface` itself. Other workloads are left alone.
void applyScaleSimInterface(const std::string& path, config::Node& workload);

}  // namespace tessim
