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
    // Absolute time at which every transfer that engine `initiator` (OpOrigin::engine) started so
    // far with `tag` has completed (`asker`: the asker's time; a tag with nothing outstanding
    // completes immediately). Tags are the engine's own: engines sharing a DMA may use the same.
    virtual Tick completion(std::uint32_t tag, Tick asker, std::uint16_t initiator = 0) = 0;
};

}  // namespace tessim
