// Who can issue a memory transaction: engines and DMA channels, each with a small id that
// travels in AccessExtension::initiator. Memories keep per-initiator counters in plain arrays
// indexed by that id; the registry gives the ids their names for statistics and reports.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessim {

class InitiatorRegistry {
public:
    // Id 0 is reserved for requests that name no initiator (tests, probes).
    static constexpr std::uint16_t kUnnamed = 0;

    InitiatorRegistry() : names_{"unnamed"} {}

    std::uint16_t add(const std::string& name) {
        if (names_.size() > 0xFFFF)
            throw std::runtime_error("too many initiators (at most 65535)");
        names_.push_back(name);
        return static_cast<std::uint16_t>(names_.size() - 1);
    }
    // Consecutive ids for `count` initiators named `<prefix><i>` (the channels of a DMA engine).
    std::uint16_t addRange(const std::string& prefix, unsigned count) {
        std::uint16_t first = static_cast<std::uint16_t>(names_.size());
        for (unsigned i = 0; i < count; ++i)
            add(prefix + std::to_string(i));
        return first;
    }
    const std::string& name(std::uint16_t id) const {
        static const std::string unknown = "unknown";
        return id < names_.size() ? names_[id] : unknown;
    }
    std::size_t size() const { return names_.size(); }

private:
    std::vector<std::string> names_;
};

}  // namespace tessim
