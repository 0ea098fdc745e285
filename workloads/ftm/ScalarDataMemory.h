#pragma once

#include <cstdint>
#include <vector>

#include "sim/config/Reader.h"
#include "sim/ir/Op.h"
#include "sim/machine/TargetInfo.h"
#include "workloads/ftm/DspConvProblem.h"

namespace tessim {

// Where the SPU's scalar loads of the kernel coefficients go. The L1D is either SRAM (the SM:
// the coefficients are DMAed in first, the loads address the SM) or a cache (the loads address the
// coefficients in DDR through the core's L1D cache, the shared GC and DDR; no DMA). Plan key
// `l1d: sram|cache`; its default is cache on a target with an `l1d` memory, else sram.
struct ScalarDataMemory {
    bool cache = false;
    std::uint8_t space = 0;  // the SM role (sram) or the L1D role (cache)
};

ScalarDataMemory readScalarDataMemory(config::Reader& plan, const TargetInfo& target);

// The filters a core owns brought into the SM by one DMA on `tag`; none when the L1D is a cache,
// which fetches on demand. Returns the filters fetched (0: no DMA to wait for).
unsigned fetchCoefficients(const ScalarDataMemory& m, const DspConvProblem& p, unsigned core,
                           std::uint32_t tag, std::vector<Op>& out);

// A scalar load of coefficient `element` of the core's `filter`-th own filter into register dst:
// SRAM holds this core's filters one after the other; a cache reaches every filter where DDR holds it.
Op coefficientLoad(const ScalarDataMemory& m, const DspConvProblem& p, unsigned core, unsigned filter,
                   std::uint64_t element, std::uint8_t dst);

}  // namespace tessim
