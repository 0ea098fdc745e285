#include "workloads/common/MemoryLayout.h"

#include <fmt/format.h>

namespace tessim {

std::uint64_t alignUp(std::uint64_t value, std::uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

MemoryLayout::MemoryLayout(const MemorySpaceInfo& space, std::uint64_t alignment, std::uint64_t base)
    : space_(&space), alignment_(alignment), end_(alignUp(base, alignment)) {}

std::uint64_t MemoryLayout::allocate(const std::string& what, std::uint64_t bytes) {
    const std::uint64_t offset = end_;
    end_ = offset + alignUp(bytes, alignment_);
    regions_.push_back(Region{what, offset, bytes});
    return offset;
}

MemoryLayout MemoryLayout::placedIn(const MemorySpaceInfo& space) const {
    MemoryLayout copy = *this;
    copy.space_ = &space;
    return copy;
}

std::string MemoryLayout::describe() const {
    std::string s;
    for (const auto& r : regions_)
        s += fmt::format("{}{} {} B @{}", s.empty() ? "" : ", ", r.what, r.bytes, r.offset);
    return s;
}

void MemoryLayout::requireFits(const config::Reader& reader, const std::string& key,
                               const std::string& subject) const {
    if (fits())
        return;
    reader.fail(key,
                fmt::format("{}: {} B needed in memory '{}', which holds {} B ({})", subject, end_,
                            space_->name, space_->size, describe()),
                config::Shortfall::Capacity);
}

}  // namespace tessim
