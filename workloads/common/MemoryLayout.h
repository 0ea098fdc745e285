// Where a kernel's arrays sit in a memory space: regions placed one after another, each starting
// on an alignment boundary and rounded up to it, with a check that they fit that names the space,
// what was asked and what the space holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/Reader.h"
#include "sim/machine/TargetInfo.h"

namespace tessim {

std::uint64_t alignUp(std::uint64_t value, std::uint64_t alignment);

class MemoryLayout {
public:
    MemoryLayout(const MemorySpaceInfo& space, std::uint64_t alignment, std::uint64_t base = 0);

    // Places `bytes` for `what` after the previous region and returns its offset in the space.
    std::uint64_t allocate(const std::string& what, std::uint64_t bytes);
    // End of the last region (aligned): the bytes the layout needs from offset 0.
    std::uint64_t end() const { return end_; }
    bool fits() const { return end_ <= space_->size; }
    const MemorySpaceInfo& space() const { return *space_; }
    // The same regions at the same offsets in another space (each core's own memory).
    MemoryLayout placedIn(const MemorySpaceInfo& space) const;
    // "x 4096 B @0, y 4096 B @4096": the regions, for error messages.
    std::string describe() const;
    // Fails at `key` of `reader` unless the regions fit: "<subject>: N B needed in memory 'm',
    // which holds M B (regions)".
    void requireFits(const config::Reader& reader, const std::string& key, const std::string& subject) const;

private:
    struct Region {
        std::string what;
        std::uint64_t offset, bytes;
    };
    const MemorySpaceInfo* space_;
    std::uint64_t alignment_;
    std::uint64_t end_;
    std::vector<Region> regions_;
};

}  // namespace tessim
