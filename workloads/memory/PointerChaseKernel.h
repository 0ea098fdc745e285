// Load-to-use latency by pointer chasing, as lmbench's lat_mem_rd measures it: a chain of
// dependent scalar loads over one line of each 64 B of a working set, visited in a fixed
// pseudo-random cyclic order so that no locality between successive lines helps. Each load names
// the previous load's destination as its source, so it issues only when that load's data has
// arrived. The chain is fully unrolled (lat_mem_rd unrolls it 100 times), so loop ops add nothing.
// `repeat` walks the same cycle again: the first pass warms the caches.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makePointerChaseKernel(const std::string& kernel, const config::Node& workload,
                                                 const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
