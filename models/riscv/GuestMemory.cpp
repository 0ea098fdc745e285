#include "models/riscv/GuestMemory.h"

#include <algorithm>

namespace tessim::riscv {

namespace {
constexpr std::uint64_t pageOf(std::uint64_t address) {
    return address >> GuestMemory::kPageBits;
}
}  // namespace

bool GuestMemory::map(std::uint64_t address, std::uint64_t bytes, std::uint8_t permissions) {
    if (bytes == 0)
        return true;
    const std::uint64_t first = pageOf(address), last = pageOf(address + bytes - 1);
    if (last < first ||
        last - first + 1 > capacityPages_ - std::min(capacityPages_, std::uint64_t(pages_.size())))
        return false;
    for (std::uint64_t n = pageOf(address), last = pageOf(address + bytes - 1); n <= last; ++n)
        pages_[n].permissions = permissions;
    lastNumber_ = ~std::uint64_t{0};
    return true;
}

void GuestMemory::unmap(std::uint64_t address, std::uint64_t bytes) {
    if (bytes == 0)
        return;
    for (std::uint64_t n = pageOf(address), last = pageOf(address + bytes - 1); n <= last; ++n)
        pages_.erase(n);
    lastNumber_ = ~std::uint64_t{0};
}

bool GuestMemory::protect(std::uint64_t address, std::uint64_t bytes, std::uint8_t permissions) {
    if (!isMapped(address, bytes))
        return false;
    map(address, bytes, permissions);
    return true;
}

bool GuestMemory::isMapped(std::uint64_t address, std::uint64_t bytes) const {
    if (bytes == 0)
        return true;
    for (std::uint64_t n = pageOf(address), last = pageOf(address + bytes - 1); n <= last; ++n)
        if (!pages_.count(n))
            return false;
    return true;
}

std::uint64_t GuestMemory::findFree(std::uint64_t hint, std::uint64_t bytes, std::uint64_t limit) const {
    const std::uint64_t pages = (bytes + kPageSize - 1) >> kPageBits;
    std::uint64_t start = pageOf(hint + kPageSize - 1);
    while ((start + pages) << kPageBits <= limit) {
        std::uint64_t n = start;
        while (n < start + pages && !pages_.count(n))
            ++n;
        if (n == start + pages)
            return start << kPageBits;
        start = n + 1;  // past the mapped page that was in the way
    }
    return 0;
}

GuestMemory::Page& GuestMemory::touch(std::uint64_t address) {
    auto it = pages_.find(pageOf(address));
    if (it == pages_.end())
        throw GuestAccessFault{address, "access"};
    Page& page = it->second;
    if (!page.data) {
        if (nextFrame_ >= capacityPages_)
            throw GuestMemoryExhausted{capacityBytes()};
        page.data = std::make_unique<std::uint8_t[]>(kPageSize);  // zero-filled
        page.frame = nextFrame_++;
    }
    lastNumber_ = it->first;
    lastData_ = page.data.get();
    lastPermissions_ = page.permissions;
    lastFrame_ = page.frame;
    return page;
}

std::uint8_t* GuestMemory::slowPage(std::uint64_t address, std::uint8_t need, const char* access) {
    auto it = pages_.find(pageOf(address));
    if (it == pages_.end() || (it->second.permissions & need) != need)
        throw GuestAccessFault{address, access};
    return touch(address).data.get();
}

void GuestMemory::copyIn(std::uint64_t address, void* to, std::uint64_t bytes, std::uint8_t need,
                         const char* access) {
    auto* out = static_cast<std::uint8_t*>(to);
    while (bytes > 0) {
        const std::uint64_t offset = address & (kPageSize - 1);
        const std::uint64_t n = std::min(bytes, kPageSize - offset);
        std::memcpy(out, slowPage(address, need, access) + offset, n);
        out += n;
        address += n;
        bytes -= n;
    }
}

void GuestMemory::copyOut(std::uint64_t address, const void* from, std::uint64_t bytes, std::uint8_t need,
                          const char* access) {
    const auto* in = static_cast<const std::uint8_t*>(from);
    while (bytes > 0) {
        const std::uint64_t offset = address & (kPageSize - 1);
        const std::uint64_t n = std::min(bytes, kPageSize - offset);
        std::memcpy(slowPage(address, need, access) + offset, in, n);
        in += n;
        address += n;
        bytes -= n;
    }
}

std::string GuestMemory::readString(std::uint64_t address, std::uint64_t limit) {
    std::string s;
    for (std::uint64_t i = 0; i < limit; ++i) {
        const char c = static_cast<char>(load<std::uint8_t>(address + i));
        if (c == '\0')
            return s;
        s.push_back(c);
    }
    throw GuestAccessFault{address, "string longer than the limit at"};
}

}  // namespace tessim::riscv
