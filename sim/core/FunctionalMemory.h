// Byte-level access to the memories an engine is connected to, by memory space id, for
// functional execution (values, not time): the engine's executor, a MAC array's tiles and a
// workload's data set-up and checks use it.
#pragma once

#include <cstdint>

namespace tessim {

class FunctionalMemory {
public:
    virtual ~FunctionalMemory() = default;
    virtual void read(std::uint8_t space, std::uint64_t addr, void* data, std::uint64_t bytes) = 0;
    virtual void write(std::uint8_t space, std::uint64_t addr, const void* data, std::uint64_t bytes) = 0;
};

}  // namespace tessim
