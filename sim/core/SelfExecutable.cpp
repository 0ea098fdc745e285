#include "sim/core/SelfExecutable.h"

#include <filesystem>
#include <stdexcept>

namespace tessim {

std::string selfExecutable() {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw std::runtime_error("cannot resolve /proc/self/exe: " + ec.message());
    return p.string();
}

}  // namespace tessim
