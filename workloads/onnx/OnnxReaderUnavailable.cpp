// readOnnxGraph in a tessim built without the ONNX library: every .onnx workload is refused.
#include "sim/config/ConfigError.h"
#include "workloads/onnx/OnnxGraph.h"

namespace tessim {

bool onnxReaderAvailable() {
    return false;
}

OnnxGraph readOnnxGraph(const std::string& path) {
    throw config::ConfigError(config::Location{path, 0, 0}, "",
                              "this tessim was built without ONNX support: install libonnx-dev and "
                              "libprotobuf-dev (bash .ci/setup does) and configure the build again");
}

}  // namespace tessim
