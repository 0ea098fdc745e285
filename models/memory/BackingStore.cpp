#include "models/memory/BackingStore.h"

#include <algorithm>
#include <cstring>

namespace tessim {

void BackingStore::read(std::uint64_t addr, void* data, std::uint64_t bytes) const {
    auto* out = static_cast<std::uint8_t*>(data);
    while (bytes > 0) {
        std::uint64_t page = addr / kPageBytes, offset = addr % kPageBytes;
        std::uint64_t n = std::min(bytes, kPageBytes - offset);
        auto it = pages_.find(page);
        if (it == pages_.end())
            std::memset(out, 0, n);
        else
            std::memcpy(out, it->second.get() + offset, n);
        out += n;
        addr += n;
        bytes -= n;
    }
}

void BackingStore::write(std::uint64_t addr, const void* data, std::uint64_t bytes) {
    const auto* in = static_cast<const std::uint8_t*>(data);
    while (bytes > 0) {
        std::uint64_t page = addr / kPageBytes, offset = addr % kPageBytes;
        std::uint64_t n = std::min(bytes, kPageBytes - offset);
        auto& p = pages_[page];
        if (!p) {
            p = std::make_unique<std::uint8_t[]>(kPageBytes);
            std::memset(p.get(), 0, kPageBytes);
        }
        std::memcpy(p.get() + offset, in, n);
        in += n;
        addr += n;
        bytes -= n;
    }
}

void BackingStore::readStrided(std::uint64_t addr, std::int64_t stride, std::uint32_t elementBytes,
                               std::uint32_t elements, void* data) const {
    auto* out = static_cast<std::uint8_t*>(data);
    for (std::uint32_t i = 0; i < elements; ++i)
        read(addr + static_cast<std::uint64_t>(stride * i), out + std::size_t{i} * elementBytes,
             elementBytes);
}

void BackingStore::writeStrided(std::uint64_t addr, std::int64_t stride, std::uint32_t elementBytes,
                                std::uint32_t elements, const void* data) {
    const auto* in = static_cast<const std::uint8_t*>(data);
    for (std::uint32_t i = 0; i < elements; ++i)
        write(addr + static_cast<std::uint64_t>(stride * i), in + std::size_t{i} * elementBytes,
              elementBytes);
}

}  // namespace tessim
