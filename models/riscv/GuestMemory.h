// A program's virtual address space in Linux user mode: 4 KiB pages with read/write/execute
// permissions, allocated on first touch. Each touched page gets the next physical frame of the
// memory space the core's loads and stores are timed in, so the timing sees real, distinct
// addresses in the order the program first used them (deterministic, like a fresh boot).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>

namespace tessim::riscv {

// More pages touched than the target's memory holds: the run stops.
struct GuestMemoryExhausted {
    std::uint64_t bytes;  // the capacity
};

// An access the page permissions refuse, or to an address nothing is mapped at.
struct GuestAccessFault {
    std::uint64_t address;
    const char* access;  // "load", "store", "fetch"
};

class GuestMemory {
public:
    static constexpr unsigned kPageBits = 12;
    static constexpr std::uint64_t kPageSize = std::uint64_t{1} << kPageBits;
    enum Permission : std::uint8_t { kRead = 1, kWrite = 2, kExecute = 4 };

    // At most this many pages mapped, and as many touched (physical frames): the target's memory.
    void setCapacity(std::uint64_t pages) { capacityPages_ = pages; }
    std::uint64_t capacityBytes() const { return capacityPages_ << kPageBits; }
    // Maps [address, address + bytes) (page-rounded) with `permissions`, zero-filled; a page
    // already mapped keeps its bytes and takes the new permissions. False (nothing mapped) when
    // the mapping would exceed the capacity.
    bool map(std::uint64_t address, std::uint64_t bytes, std::uint8_t permissions);
    void unmap(std::uint64_t address, std::uint64_t bytes);
    // False when a page in the range is not mapped (mprotect's ENOMEM).
    bool protect(std::uint64_t address, std::uint64_t bytes, std::uint8_t permissions);
    bool isMapped(std::uint64_t address, std::uint64_t bytes) const;
    // The lowest page-aligned address at or above `hint` with `bytes` unmapped (mmap without a fixed
    // address); 0 when none below `limit`.
    std::uint64_t findFree(std::uint64_t hint, std::uint64_t bytes, std::uint64_t limit) const;

    // Guest accesses, little-endian, any alignment; GuestAccessFault when refused.
    template <typename T> T load(std::uint64_t address) {
        const std::uint64_t offset = address & (kPageSize - 1);
        if (offset + sizeof(T) <= kPageSize) {
            T v;
            std::memcpy(&v, pageData(address, kRead, "load") + offset, sizeof(T));
            return v;
        }
        T v;
        copyIn(address, &v, sizeof(T), kRead, "load");
        return v;
    }
    template <typename T> void store(std::uint64_t address, T value) {
        const std::uint64_t offset = address & (kPageSize - 1);
        if (offset + sizeof(T) <= kPageSize) {
            std::memcpy(pageData(address, kWrite, "store") + offset, &value, sizeof(T));
            return;
        }
        copyOut(address, &value, sizeof(T), kWrite, "store");
    }
    // Instruction fetch: 16 bits at a time (compressed instructions need no 32-bit alignment).
    std::uint16_t fetch16(std::uint64_t address) {
        std::uint16_t v;
        std::memcpy(&v, pageData(address, kExecute, "fetch") + (address & (kPageSize - 1)), 2);
        return v;
    }

    // Bulk copies for the loader and system calls, with the permission they need.
    void copyIn(std::uint64_t address, void* to, std::uint64_t bytes, std::uint8_t need, const char* access);
    void copyOut(std::uint64_t address, const void* from, std::uint64_t bytes, std::uint8_t need,
                 const char* access);
    // The loader writes read-only and text pages: no permission needed.
    void initialise(std::uint64_t address, const void* from, std::uint64_t bytes) {
        copyOut(address, from, bytes, 0, "store");
    }
    // A NUL-terminated string of at most `limit` bytes (system call paths).
    std::string readString(std::uint64_t address, std::uint64_t limit);

    // The physical address the timing model sees (the page's frame, allocated on first touch).
    // The access just made is normally to the page the last one used: no look-up then.
    std::uint64_t physical(std::uint64_t address) {
        if ((address >> kPageBits) != lastNumber_)
            touch(address);
        return (lastFrame_ << kPageBits) | (address & (kPageSize - 1));
    }
    std::uint64_t framesUsed() const { return nextFrame_; }
    std::uint64_t pagesMapped() const { return pages_.size(); }

private:
    struct Page {
        std::unique_ptr<std::uint8_t[]> data;  // null until touched
        std::uint64_t frame = 0;
        std::uint8_t permissions = 0;
    };
    std::uint8_t* pageData(std::uint64_t address, std::uint8_t need, const char* access) {
        const std::uint64_t number = address >> kPageBits;
        if (number == lastNumber_ && (lastPermissions_ & need) == need)
            return lastData_;
        return slowPage(address, need, access);
    }
    std::uint8_t* slowPage(std::uint64_t address, std::uint8_t need, const char* access);
    Page& touch(std::uint64_t address);

    std::unordered_map<std::uint64_t, Page> pages_;  // by page number
    std::uint64_t nextFrame_ = 0;
    std::uint64_t capacityPages_ = ~std::uint64_t{0} >> kPageBits;
    std::uint64_t lastNumber_ = ~std::uint64_t{0};
    std::uint8_t* lastData_ = nullptr;
    std::uint8_t lastPermissions_ = 0;
    std::uint64_t lastFrame_ = 0;
};

}  // namespace tessim::riscv
