// Kernel `onnx`: the workload tree of an ONNX model (OnnxLayers) run as conv2d layers, with the
// model's operators that the MAC array does not run reported under `not_simulated`.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeOnnxKernel(const std::string& kernel, const config::Node& workload,
                                         const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
