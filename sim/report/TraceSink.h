// Chrome trace-event JSON (opens in the Perfetto UI): one track per engine and DMA channel.
// Spans are buffered and written once at the end, sorted, so traces are deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/SpanObserver.h"
#include "sim/core/Time.h"

namespace tessim {

class TraceSink : public SpanObserver {
public:
    void span(const std::string& track, const std::string& name, Tick begin, Tick end) override;
    std::size_t size() const { return spans_.size(); }
    // Throws std::runtime_error when the file cannot be written.
    void write(const std::string& path) const;

private:
    struct Span {
        std::string track;
        std::string name;
        Tick begin;
        Tick end;
    };
    std::vector<Span> spans_;
};

}  // namespace tessim
