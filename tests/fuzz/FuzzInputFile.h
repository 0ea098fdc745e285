// Harnesses whose reader takes a path: the input goes to a scratch file of this process, named
// with the extension the reader dispatches on.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace tessim::fuzz {

inline const std::string& writeInputFile(const std::uint8_t* data, std::size_t size, const char* extension) {
    static const std::string path = "/tmp/tessim-fuzz-" + std::to_string(::getpid()) + extension;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

}  // namespace tessim::fuzz
