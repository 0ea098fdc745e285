// The functional reference of a conv2d layer: a direct convolution of the deterministic test
// data (testInt8), requantised as MacTileArgs specifies but written out independently, compared
// element by element with the layer's output in DDR.
#pragma once

#include "sim/workload/Workload.h"
#include "workloads/conv/ConvLayer.h"

namespace tessim {

// Adds the layer's outputs to `c`; `listed`: name the layer in the first mismatch.
void checkConvLayer(const ConvParams& p, FunctionalMemory& memory, bool listed, FunctionalCheck& c);

}  // namespace tessim
