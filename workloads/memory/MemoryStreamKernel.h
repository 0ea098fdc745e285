// memcpy, memset and memread (a read-only stream, as lmbench's bw_mem rd) as an RVV compiler emits them for
// an in-order core: a strip-mined loop of unit-stride vector loads and stores at LMUL 8 (vle32/vse32 of a
// group of 8 registers) with the loop's scalar ops (two pointer increments for memcpy, one for memset, a
// compare and a taken back-edge per iteration, vsetvl when the tail is short). `repeat` processes the same
// buffers again, so the caches are warm after the first pass. `threads` splits the bytes into contiguous
// slices over the target's first N cores, as an OpenMP `parallel for` with a static schedule:
// thread 0 forks the others, each copies its slice, all meet at a closing barrier.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeMemoryStreamKernel(const std::string& kernel, const config::Node& workload,
                                                 const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
