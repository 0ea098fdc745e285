// A static RV64 ELF executable as the loader needs it: its loadable segments, entry point,
// program headers (for the auxiliary vector) and function symbols (to name a faulting PC).
// Read with libelf; anything but a little-endian 64-bit RISC-V static executable is refused
// with a message that says what the file is and what tessim needs.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessim::riscv {

// A program tessim cannot load or run; the command exits 2 with its message.
class ProgramError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ElfSegment {
    std::uint64_t address;   // p_vaddr
    std::uint64_t memBytes;  // p_memsz (the rest past fileBytes is zero: .bss)
    std::vector<std::uint8_t> fileBytes;
    bool read, write, execute;
};

struct ElfProgram {
    std::string path;
    std::uint64_t entry = 0;
    std::uint64_t programHeaders = 0;  // where the program headers lie in memory (AT_PHDR)
    std::uint16_t programHeaderSize = 0, programHeaderCount = 0;
    std::vector<ElfSegment> segments;
    std::uint64_t tlsAlignment = 0;
    // Function and object symbols by address: name and size.
    std::map<std::uint64_t, std::pair<std::string, std::uint64_t>> symbols;

    // "main+0x1c", or "" when no symbol covers the address.
    std::string symbolize(std::uint64_t address) const;
    // The symbol covering `address` and the range it covers ([start, end): its size, or up to the
    // next symbol for one of no size); "[unknown]" over the gap around an address no symbol covers.
    struct Function {
        std::uint64_t start = 0, end = 0;
        std::string name;
    };
    Function functionAt(std::uint64_t address) const;
    // The end of the highest segment (the initial program break).
    std::uint64_t imageEnd() const;
};

ElfProgram loadElfProgram(const std::string& path);

}  // namespace tessim::riscv
