// One op stream per slice of a kernel's work, each on the engine its slice names.
#pragma once

#include <memory>
#include <vector>

#include "sim/ir/OpStream.h"

namespace tessim {

// `Stream` is built from the kernel's parameters and the slice's index; every slice has an `engine`.
template <typename Stream, typename Params, typename Slice>
std::vector<EngineStream> streamPerSlice(const Params& params, const std::vector<Slice>& slices) {
    std::vector<EngineStream> s;
    for (unsigned i = 0; i < slices.size(); ++i)
        s.push_back(EngineStream{slices[i].engine, std::make_unique<Stream>(params, i)});
    return s;
}

}  // namespace tessim
