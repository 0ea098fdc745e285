#pragma once

#include <cstdint>

#include "sim/config/Reader.h"
#include "sim/target/TargetInfo.h"

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

}  // namespace tessim
