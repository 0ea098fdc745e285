// libFuzzer harness: the ONNX workload reader (protobuf parse, checker, shape inference, layer
// extraction and the not-simulated list). The input is the model file, written into a scratch
// folder that also holds `weights.bin` (OnnxFuzzWeights.h), so external-data references resolve
// there or try to leave it. Bad input must end in config::ConfigError; every layer the reader
// emits must be one the conv2d kernel accepts, so that a model it takes never fails later.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "sim/config/ConfigError.h"
#include "sim/config/Node.h"
#include "tests/fuzz/OnnxFuzzWeights.h"
#include "workloads/onnx/OnnxLayers.h"

namespace {

const std::filesystem::path& scratchFolder() {
    static const std::filesystem::path dir = [] {
        std::filesystem::path d =
            std::filesystem::temp_directory_path() / ("tessim-fuzz-onnx-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        const std::string weights = tessim::fuzz::onnxFuzzWeights();
        std::ofstream(d / "weights.bin", std::ios::binary)
            .write(weights.data(), static_cast<std::streamsize>(weights.size()));
        return d;
    }();
    // Registered once the folder's path exists, so it runs before that path is destroyed.
    static const bool removedAtExit = std::atexit([] {
                                          std::error_code ignored;
                                          std::filesystem::remove_all(scratchFolder(), ignored);
                                      }) == 0;
    (void)removedAtExit;
    return dir;
}

std::uint64_t number(const tessim::config::Node& layer, const char* key, std::uint64_t fallback) {
    const tessim::config::Node* v = layer.find(key);
    return v ? std::stoull(v->scalar()) : fallback;
}

// A vector layer's ranges (workloads/conv/RvvVectorLayers: readVectorLayer): an image of 1..65536
// rows and columns, 1..65535 channels; a pool's window 1..255 within the padded input, its padding
// below the window.
bool runnableVector(const tessim::config::Node& layer, const std::string& op) {
    const std::uint64_t h = number(layer, "h", 0), w = number(layer, "w", 0),
                        c = number(layer, "channels", 0);
    if (h < 1 || h > 65536 || w < 1 || w > 65536 || c < 1 || c > 65535)
        return false;
    if (op != "MaxPool" && op != "AveragePool")
        return true;
    const std::uint64_t k = number(layer, "k", 0), kh = number(layer, "kh", k), kw = number(layer, "kw", k),
                        s = number(layer, "stride", 1), p = number(layer, "pad", 0),
                        ph = number(layer, "pad_h", p), pw = number(layer, "pad_w", p);
    return kh >= 1 && kh <= 255 && kw >= 1 && kw <= 255 && s >= 1 && s <= 255 && ph < kh && pw < kw &&
           h + 2 * ph >= kh && w + 2 * pw >= kw;
}

// The conv2d kernel's ranges (workloads/conv: readShape), checked independently of the reader.
bool runnable(const tessim::config::Node& layer) {
    if (const tessim::config::Node* op = layer.find("op"); op && tessim::vectorNodeOps().count(op->scalar()))
        return runnableVector(layer, op->scalar());
    // A rectangular kernel or padding comes as kh/kw and pad_h/pad_w (readWindow).
    const std::uint64_t h = number(layer, "h", 0), w = number(layer, "w", 0),
                        c = number(layer, "channels", 0), f = number(layer, "filters", 0),
                        k = number(layer, "k", 0), kh = number(layer, "kh", k), kw = number(layer, "kw", k),
                        s = number(layer, "stride", 1), p = number(layer, "pad", 0),
                        ph = number(layer, "pad_h", p), pw = number(layer, "pad_w", p),
                        g = number(layer, "groups", 1);
    return h >= 1 && h <= 65536 && w >= 1 && w <= 65536 && c >= 1 && c <= 65535 && f >= 1 && f <= 65535 &&
           kh >= 1 && kh <= 255 && kw >= 1 && kw <= 255 && s >= 1 && s <= 255 && ph <= 255 && pw <= 255 &&
           g >= 1 && c % g == 0 && f % g == 0 && h + 2 * ph >= kh && w + 2 * pw >= kw;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool verbose = std::getenv("TESSIM_FUZZ_VERBOSE") != nullptr;  // each input's outcome
    const std::string path = (scratchFolder() / "model.onnx").string();
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    try {
        const tessim::config::Node tree = tessim::loadOnnxModel(path);
        if (verbose)
            std::cerr << "  " << tree.find("layers")->items().size() << " layers, "
                      << tree.find("not_simulated")->items().size() << " not simulated\n";
        for (const tessim::config::Node& layer : tree.find("layers")->items())
            if (!runnable(layer))
                std::abort();  // a layer the conv2d kernel would refuse
    } catch (const tessim::config::ConfigError& e) {
        // The expected outcome for bad input.
        if (verbose)
            std::cerr << "  " << e.what() << '\n';
    }
    return 0;
}
