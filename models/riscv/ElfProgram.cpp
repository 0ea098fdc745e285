#include "models/riscv/ElfProgram.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <string_view>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <fmt/format.h>

namespace tessim::riscv {

namespace {

constexpr const char* kHowToLink = "link it statically: riscv64-linux-gnu-gcc -static …, or clang-14 "
                                   "--target=riscv64-linux-gnu -static -fuse-ld=lld …";

struct ElfFile {
    int fd = -1;
    Elf* elf = nullptr;
    ~ElfFile() {
        if (elf)
            elf_end(elf);
        if (fd >= 0)
            ::close(fd);
    }
};

std::string machineName(GElf_Half machine) {
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "x86";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_RISCV: return "RISC-V";
    default: return fmt::format("machine {}", machine);
    }
}

}  // namespace

std::string ElfProgram::symbolize(std::uint64_t address) const {
    auto it = symbols.upper_bound(address);
    if (it == symbols.begin())
        return "";
    --it;
    const std::uint64_t offset = address - it->first;
    if (it->second.second && offset >= it->second.second)
        return "";  // past the symbol's end (a symbol of no size, an assembly label, has none)
    return offset ? fmt::format("{}+{:#x}", it->second.first, offset) : it->second.first;
}

ElfProgram::Function ElfProgram::functionAt(std::uint64_t address) const {
    auto next = symbols.upper_bound(address);
    const std::uint64_t nextStart = next == symbols.end() ? ~std::uint64_t{0} : next->first;
    if (next != symbols.begin()) {
        auto it = std::prev(next);
        const std::uint64_t size = it->second.second;
        const std::uint64_t end = size ? it->first + size : nextStart;
        if (address < end)
            return {it->first, std::min(end, nextStart), it->second.first};
        return {end, nextStart, "[unknown]"};
    }
    return {0, nextStart, "[unknown]"};
}

std::uint64_t ElfProgram::imageEnd() const {
    std::uint64_t end = 0;
    for (const auto& s : segments)
        end = std::max(end, s.address + s.memBytes);
    return end;
}

ElfProgram loadElfProgram(const std::string& path) {
    if (elf_version(EV_CURRENT) == EV_NONE)
        throw ProgramError("libelf is out of date");
    ElfFile file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file.fd < 0)
        throw ProgramError(fmt::format("{}: cannot open the program", path));
    file.elf = elf_begin(file.fd, ELF_C_READ, nullptr);
    if (!file.elf || elf_kind(file.elf) != ELF_K_ELF)
        throw ProgramError(
            fmt::format("{}: not an ELF file (a RISC-V program is a static RV64 ELF executable)", path));
    const char* ident = elf_getident(file.elf, nullptr);
    if (!ident)
        throw ProgramError(fmt::format("{}: truncated ELF header", path));
    if (ident[EI_CLASS] != ELFCLASS64)
        throw ProgramError(fmt::format("{}: a 32-bit ELF; the K1 runs RV64 programs (ELFCLASS64)", path));
    if (ident[EI_DATA] != ELFDATA2LSB)
        throw ProgramError(fmt::format("{}: a big-endian ELF; RISC-V programs are little-endian", path));
    GElf_Ehdr eh;
    if (!gelf_getehdr(file.elf, &eh))
        throw ProgramError(fmt::format("{}: truncated ELF header: {}", path, elf_errmsg(-1)));
    if (eh.e_machine != EM_RISCV)
        throw ProgramError(fmt::format("{}: an {} executable; the K1 runs RISC-V (EM_RISCV) programs", path,
                                       machineName(eh.e_machine)));
    if (eh.e_type == ET_DYN)
        throw ProgramError(
            fmt::format("{}: a position-independent or dynamically linked executable (ET_DYN); "
                        "tessim runs static executables only: {}",
                        path, kHowToLink));
    if (eh.e_type != ET_EXEC)
        throw ProgramError(fmt::format("{}: not an executable (ELF type {}); tessim runs static executables",
                                       path, eh.e_type));

    std::size_t phnum = 0;
    if (elf_getphdrnum(file.elf, &phnum) != 0)
        throw ProgramError(fmt::format("{}: unreadable program headers: {}", path, elf_errmsg(-1)));
    const off_t fileSize = ::lseek(file.fd, 0, SEEK_END);
    ElfProgram p;
    p.path = path;
    p.entry = eh.e_entry;
    p.programHeaderSize = eh.e_phentsize;
    p.programHeaderCount = static_cast<std::uint16_t>(phnum);
    for (std::size_t i = 0; i < phnum; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(file.elf, static_cast<int>(i), &ph))
            throw ProgramError(fmt::format("{}: program header {} unreadable: {}", path, i, elf_errmsg(-1)));
        if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC)
            throw ProgramError(fmt::format("{}: a dynamically linked executable (it names an interpreter); "
                                           "tessim runs static executables only: {}",
                                           path, kHowToLink));
        if (ph.p_type == PT_TLS)
            p.tlsAlignment = ph.p_align;
        if (ph.p_type != PT_LOAD)
            continue;
        if (ph.p_filesz > ph.p_memsz)
            throw ProgramError(fmt::format("{}: segment {} has more file bytes ({}) than memory bytes ({})",
                                           path, i, ph.p_filesz, ph.p_memsz));
        if (static_cast<std::uint64_t>(fileSize) < ph.p_offset ||
            static_cast<std::uint64_t>(fileSize) - ph.p_offset < ph.p_filesz)
            throw ProgramError(fmt::format("{}: truncated: segment {} needs bytes {}..{} of a {}-byte file",
                                           path, i, ph.p_offset, ph.p_offset + ph.p_filesz, fileSize));
        ElfSegment s;
        s.address = ph.p_vaddr;
        s.memBytes = ph.p_memsz;
        s.fileBytes.resize(ph.p_filesz);
        if (ph.p_filesz && ::pread(file.fd, s.fileBytes.data(), ph.p_filesz,
                                   static_cast<off_t>(ph.p_offset)) != static_cast<ssize_t>(ph.p_filesz))
            throw ProgramError(fmt::format("{}: cannot read segment {}", path, i));
        s.read = ph.p_flags & PF_R;
        s.write = ph.p_flags & PF_W;
        s.execute = ph.p_flags & PF_X;
        if (eh.e_phoff >= ph.p_offset && eh.e_phoff < ph.p_offset + ph.p_filesz)
            p.programHeaders = ph.p_vaddr + (eh.e_phoff - ph.p_offset);
        p.segments.push_back(std::move(s));
    }
    if (p.segments.empty())
        throw ProgramError(fmt::format("{}: no loadable segment", path));

    for (Elf_Scn* scn = elf_nextscn(file.elf, nullptr); scn; scn = elf_nextscn(file.elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
            continue;
        Elf_Data* data = elf_getdata(scn, nullptr);
        if (!data || sh.sh_entsize == 0)
            continue;
        for (std::size_t i = 0, n = sh.sh_size / sh.sh_entsize; i < n; ++i) {
            GElf_Sym sym;
            if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_value == 0)
                continue;
            const int type = GELF_ST_TYPE(sym.st_info);
            if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
                continue;
            const char* name = elf_strptr(file.elf, sh.sh_link, sym.st_name);
            // Assembler-local labels and the $x/$d mapping symbols name no function.
            if (name && *name && *name != '$' && std::string_view(name).rfind(".L", 0) != 0)
                p.symbols.emplace(sym.st_value, std::make_pair(std::string(name), sym.st_size));
        }
    }
    return p;
}

}  // namespace tessim::riscv
