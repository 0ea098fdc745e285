// Told of each span of time a track (an engine, a DMA channel) spends on one thing: an op that
// keeps a unit busy, a stall, a DMA transfer. The trace writer (sim/report/TraceSink.h) is one;
// engines and DMA engines know only this interface, as they know AccessObserver.
#pragma once

#include <string>

#include "sim/core/Time.h"

namespace tessim {

class SpanObserver {
public:
    virtual ~SpanObserver() = default;
    virtual void span(const std::string& track, const std::string& name, Tick begin, Tick end) = 0;
};

}  // namespace tessim
