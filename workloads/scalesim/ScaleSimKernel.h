// Kernel `scalesim`: a SCALE-Sim topology (workloads/scalesim/ScaleSimTopology.h) run fold by fold
// on a systolic target made from a SCALE-Sim .cfg (ScaleSimConfig.h). Timing only.
//
// Each layer is mapped as SCALE-Sim v2 maps it (OS: Sr=E, Sc=N, T=K; WS: Sr=K, Sc=N, T=E; IS:
// Sr=K, Sc=E, T=N) and run as folds (column folds outer, row folds inner). Per fold: one MacTile
// of one fold (so the array's cycles are exactly SCALE-Sim's 2·rows + cols + T − 2, or
// rows + cols + T − 2 for OS), the fold's operands DMA'd from DRAM into the ping-pong half of the
// ifmap and filter SRAMs while the previous fold computes, and the fold's outputs (partial sums
// for WS and IS, as SCALE-Sim writes them) DMA'd from the ofmap SRAM to DRAM while the next
// computes. DRAM bytes per fold: filter = the fold's weights; ifmap = the distinct SCALE-Sim
// ifmap addresses the fold's operand matrix touches; ofmap = the fold's output words. A word is
// 1 B, as in SCALE-Sim. DMA channels: 0 ifmap, 1 filter, 2 ofmap; layer i uses DMA tags 4i+1…4i+4.
//
// Workload key `interface: memory | ideal` (a .cfg's InterfaceBandwidth USER | CALC sets it):
// `ideal` is SCALE-Sim's CALC mode, an interface that never makes the array wait: the folds run
// back to back with no DMA, and the DRAM traffic and SRAM access windows are the ones that
// interface carries (ScaleSimIdealInterface.h), reported per layer under `ideal_interface`.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeScaleSimKernel(const std::string& kernel, const config::Node& workload,
                                             const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
