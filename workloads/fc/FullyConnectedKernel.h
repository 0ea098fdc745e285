// Dense fully connected layer y[b][o] = Σ_i x[b][i] · W[o][i] as an RVV compiler emits it for an
// in-order core: vectorised over `in`, register-blocked over rb batch rows × ro outputs, the
// outputs split over threads (an OpenMP `parallel for` with a static schedule, fork/join).
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeFullyConnectedKernel(const std::string& kernel, const config::Node& workload,
                                                   const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
