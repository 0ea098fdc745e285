// The geometry of a MAC array, as schedule planners need it (tile costs follow from it).
#pragma once

#include <string>

namespace tessim {

struct MacArrayInfo {
    unsigned rows = 0;
    unsigned cols = 0;
    std::string dataflow;  // "os", "ws" or "is"
    // INT32 partial sums the array holds itself (0: none; tiles accumulate in the SRAM).
    std::uint64_t accumulatorBytes = 0;
};

}  // namespace tessim
