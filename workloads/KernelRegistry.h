// The closed set of kernels: one row per kernel variant in KernelRegistry.cpp, naming its factory,
// the folder of its plans (configs/plans/<planDirectory>/) and what selects it among the rows of
// its kernel (a workload key, plan strategies). A new kernel is a folder under workloads/ plus one
// row; a table, not self-registration, so the linker cannot drop a kernel. No factory dispatches
// further: the registry picks the row.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

// Builds the kernel's schedule generator from the workload and plan trees (plan may be a Null
// node: defaults apply). `kernel` is the registry name, so one factory may serve several rows.
using KernelFactory = std::unique_ptr<Workload> (*)(const std::string& kernel, const config::Node& workload,
                                                    const config::Node& plan, const TargetInfo& target);

// What a row needs of the target, checked before a run so that a kernel a chip cannot run is
// refused with the reason (not failed inside the simulation): one main engine with all of it.
struct KernelNeeds {
    KernelNeeds(std::vector<std::string> ops_ = {}, bool dma_ = false, bool macArray_ = false,
                std::vector<std::string> levels_ = {}, bool layerLists_ = false)
        : ops(std::move(ops_)), dma(dma_), macArray(macArray_), levels(std::move(levels_)),
          layerLists(layerLists_) {}
    std::vector<std::string> ops;     // ops (by name) that some unit of the engine executes
    bool dma = false;                 // the engine starts DMA transfers (its `dma:` key)
    bool macArray = false;            // the engine has a MAC array
    std::vector<std::string> levels;  // memory levels the target has ("sram", "ddr")
    bool layerLists = false;  // it takes a `layers` list itself (else: LayerSequence runs one at a time)
};

// "" when `target` has what `needs` names; else why not ("no engine of target 'k1' has a MAC
// array" …), naming what the closest engine lacks.
std::string unmetNeeds(const KernelNeeds& needs, const TargetInfo& target);

struct KernelEntry {
    std::string name;         // the workload YAML's `kernel`
    std::string variant;      // tells the rows of one kernel apart; "" for a kernel of one row
    std::string description;  // one line, for `tessim list kernels`
    KernelFactory make;
    std::string planDirectory;  // configs/plans/<planDirectory>/ holds its plans; empty: takes none
    // Which row of a kernel serves a run (selectKernel): a row with `workloadKeys` when the
    // workload has one of them; else the row whose `strategies` hold the plan's `strategy`; when
    // the plan names none, the first row whose `needs` the target meets (so a vector DSP's
    // convolution defaults to the shuffle kernel, an NPU's to the tiled one).
    std::vector<std::string> workloadKeys;
    std::vector<std::string> strategies;
    KernelNeeds needs;
    // Its layer lists may hold element-wise and pooling layers (`op: Relu`, `op: MaxPool` …) beside
    // convolutions: why it does not run such a layer row under the plan (empty: it does); null: it
    // runs none. An ONNX model's nodes that the row does not run are listed as not simulated.
    std::string (*vectorLayerGap)(const config::Node& layer, const config::Node& plan,
                                  const TargetInfo& target) = nullptr;
    // A row that runs one layer at a time (LayerSequence): the factory of those layers.
    std::unique_ptr<Workload> (*makeVectorLayer)(const config::Node& layer, const config::Node& plan,
                                                 const TargetInfo& target) = nullptr;
    bool runsVectorLayer(const config::Node& layer, const config::Node& plan,
                         const TargetInfo& target) const {
        return vectorLayerGap && vectorLayerGap(layer, plan, target).empty();
    }
    // "conv2d/shuffle", or the name for a kernel of one row.
    std::string rowName() const { return variant.empty() ? name : name + "/" + variant; }
};

const std::vector<KernelEntry>& kernelRegistry();
// Adds a row before the run (a kernel kept outside workloads/, or a test's): after the rows of its
// kernel, if any. std::invalid_argument for a row without a factory or a row name already taken.
void registerKernel(KernelEntry row);
// The first row named `name`; nullptr when no kernel has that name.
const KernelEntry* findKernel(const std::string& name);
// The rows a workload can be served by, whatever the plan: its kernel's row for a key the
// workload has, else the kernel's rows without keys. Empty for a workload naming no known kernel.
std::vector<const KernelEntry*> kernelRowsFor(const config::Node& workload);
// The row that serves `workload` under `plan` (a Null plan: defaults). nullptr for an unknown
// kernel; a plan `strategy` that none of the kernel's rows takes is a ConfigError at that key.
// Given the target, a plan without a strategy takes the first row the target can run, and a row
// it cannot run is a ConfigError at the plan's `strategy` (or the workload's `kernel`) saying why.
const KernelEntry* selectKernel(const config::Node& workload, const config::Node& plan,
                                const TargetInfo* target = nullptr);

}  // namespace tessim
