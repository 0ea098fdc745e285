// The npu target without the vector processor beside its array (its `vpu:` section cut off), written
// to a file of its own: a chip whose array runs no element-wise or pooling layer.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace tessim::test {

// The file's path (under /tmp, unique to the process); "" when npu.yaml has no `vpu:` section.
inline std::string writeArrayOnlyNpu(const std::string& tag) {
    std::ifstream in(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/npu.yaml");
    std::stringstream text;
    text << in.rdbuf();
    const std::string yaml = text.str();
    const auto vpu = yaml.find("\nvpu:");
    if (vpu == std::string::npos)
        return "";
    const std::string path = "/tmp/tessim-" + tag + "-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << yaml.substr(0, vpu + 1);
    return path;
}

}  // namespace tessim::test
