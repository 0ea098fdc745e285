// How an engine drives a DMA engine: start a descriptor, ask when a tag completes.
#pragma once

#include <cstdint>

#include <systemc>

#include "sim/core/MemoryAccess.h"
#include "sim/core/Time.h"
#include "sim/ir/Op.h"

namespace tessim {

class DmaControlIf : public virtual sc_core::sc_interface {
public:
    // Queue a transfer issued by an engine at absolute time `issue` (by the op `origin`).
    virtual void start(const DmaArgs& desc, std::uint32_t tag, Tick issue, const OpOrigin& origin = {}) = 0;
    // Absolute time at which every transfer started so far with `tag` has completed
    // (`issue` of the asker: a tag with nothing outstanding completes immediately).
    virtual Tick completion(std::uint32_t tag, Tick asker) = 0;
};

}  // namespace tessim
