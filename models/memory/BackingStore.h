// Real bytes for functional runs, allocated lazily in pages so a 4 GiB DDR costs only what a
// run touches. Untouched memory reads as zero.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tessim {

class BackingStore {
public:
    void read(std::uint64_t addr, void* data, std::uint64_t bytes) const;
    void write(std::uint64_t addr, const void* data, std::uint64_t bytes);
    // Strided element access: `elements` elements of `elementBytes`, `stride` bytes apart,
    // packed densely in `data`.
    void readStrided(std::uint64_t addr, std::int64_t stride, std::uint32_t elementBytes,
                     std::uint32_t elements, void* data) const;
    void writeStrided(std::uint64_t addr, std::int64_t stride, std::uint32_t elementBytes,
                      std::uint32_t elements, const void* data);
    std::size_t pagesTouched() const { return pages_.size(); }

private:
    static constexpr std::uint64_t kPageBytes = 64 * 1024;
    std::unordered_map<std::uint64_t, std::unique_ptr<std::uint8_t[]>> pages_;
};

}  // namespace tessim
