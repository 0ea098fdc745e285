// SCALE-Sim v2's reports (COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv)
// from a tessim run of a SCALE-Sim topology (kernel `scalesim`).
//
// Per layer, from the run's trace: the array's folds are the engine's mac_tile spans (partitioned
// by each layer's fold count); with the workload's `interface: memory`, DRAM traffic per operand
// is the DMA spans of channel 0 (ifmap), 1 (filter), 2 (ofmap) with tags 4i+1…4i+4 for layer i.
// Cycle 0 is the start of the layer's first fold (SCALE-Sim's convention: DRAM prefetch before it
// has negative cycles).
//   Total Cycles = folds · per-fold − 1 + Stall Cycles (SCALE-Sim's definition)
//   Stall Cycles = cycles the array waited between folds (with `memory`, the one-cycle fence that
//                  orders each write-back after its fold is not a stall)
//   Overall Util % = MACs / (Total Cycles · rows · cols)
//   Mapping Efficiency % = mean over folds of used rows · used cols / (rows · cols)
//   Compute Util % = mean over folds of the fold's MACs / (rows · cols · its cycles), its cycles
//                  being the simulated fold (os) or the fold + cols − 1 (ws, is): SCALE-Sim's
//                  per-fold windows; means summed in fold order, as SCALE-Sim sums them
// SRAM access counts are SCALE-Sim's (operand-matrix sizes per fold). With `interface: ideal`
// (SCALE-Sim's CALC) the SRAM and DRAM windows and DRAM counts are the ideal interface's
// (workloads/scalesim/ScaleSimIdealInterface.h) and DRAM bandwidth = count / (stop − start + 1),
// as SCALE-Sim's; with `memory` the DRAM figures are tessim's (distinct ifmap addresses per fold,
// DMA timing from its memory models) and the SRAM windows the first and last cycle the array asks
// for each operand: the back-to-back windows with the last fold where the run started it.
// Floats are printed as Python prints them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tessim {

// The per-layer results (`layers` array of the JSON report) of a run whose workload kernel is
// `scalesim`; `traceFile` is the Chrome trace the run wrote. Throws std::runtime_error when the
// trace does not match the workload.
nlohmann::ordered_json scaleSimLayers(const nlohmann::ordered_json& report, const std::string& traceFile);

std::string scaleSimComputeCsv(const nlohmann::ordered_json& layers);
std::string scaleSimBandwidthCsv(const nlohmann::ordered_json& layers);
std::string scaleSimDetailedCsv(const nlohmann::ordered_json& layers);

// Writes the three CSV files into `dir` (created when missing).
void writeScaleSimReports(const std::string& dir, const nlohmann::ordered_json& layers);

}  // namespace tessim
