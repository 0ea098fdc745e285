// The memories a vector-DSP convolution runs in: the AM of each core for maps and outputs, the
// scalar data memory (SM or L1D cache) for the kernel elements, DDR for the tensors, and the
// multicast group that brings one DDR read into every core's AM.
#pragma once

#include <cstdint>

#include "sim/config/Reader.h"
#include "sim/machine/TargetInfo.h"
#include "workloads/ftm/DspConvProblem.h"
#include "workloads/ftm/ScalarDataMemory.h"

namespace tessim {

struct DspConvMemories {
    const MemorySpaceInfo* am = nullptr;
    std::uint64_t amSize = 0;  // bytes of one core's AM
    std::uint8_t group = 0;    // all_am, with more than one core
    ScalarDataMemory scalarMemory;
};

// Finds the memories on `target` (p.ddr set) and fails on the plan reader when one is missing or
// the SM cannot hold the filters of a core.
DspConvMemories findDspConvMemories(config::Reader& plan, const TargetInfo& target, DspConvProblem& p);

}  // namespace tessim
