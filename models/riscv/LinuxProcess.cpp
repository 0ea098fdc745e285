#include "models/riscv/LinuxProcess.h"

#include "models/riscv/LinuxAbi.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace tessim::riscv {

using namespace linux_abi;

namespace {

constexpr std::uint64_t kPage = GuestMemory::kPageSize;
constexpr std::uint64_t pageDown(std::uint64_t a) {
    return a & ~(kPage - 1);
}
constexpr std::uint64_t pageUp(std::uint64_t a) {
    return (a + kPage - 1) & ~(kPage - 1);
}

constexpr std::int64_t kAtFdCwd = -100;
constexpr std::int64_t kAtEmptyPath = 0x1000;
// A fixed wall-clock origin, so CLOCK_REALTIME is deterministic: 2026-01-01T00:00:00Z.
constexpr std::uint64_t kEpochSeconds = 1767225600;

constexpr std::uint64_t kPid = 1000;  // the process and its main thread (thread n: kPid + n)

std::uint8_t permissionsOf(std::int64_t protection) {
    return static_cast<std::uint8_t>((protection & 1 ? GuestMemory::kRead : 0) |
                                     (protection & 2 ? GuestMemory::kWrite : 0) |
                                     (protection & 4 ? GuestMemory::kExecute : 0));
}

}  // namespace

LinuxProcess::LinuxProcess(const ElfProgram& program, std::vector<std::string> arguments,
                           std::vector<std::string> environment, std::uint64_t memoryBytes,
                           const std::string& argv0)
    : program_(program) {
    threads_.push_back(std::make_unique<GuestThread>());
    threads_[0]->tid = kPid;
    threads_[0]->hart = std::make_unique<Hart>(memory_, *this);
    memory_.setCapacity(memoryBytes / kPage);
    auto tooBig = [&] {
        return ProgramError(
            fmt::format("{}: its segments and its {} MiB stack need more than the {} B of memory the "
                        "target has",
                        program.path, kStackBytes >> 20, memoryBytes));
    };
    // Segments: a page shared by two segments gets the permissions of both. Their sizes are
    // checked first: a damaged header may claim any size, or wrap around the address space.
    std::uint64_t pagesNeeded = 0;
    for (const auto& s : program.segments) {
        if (s.memBytes > memoryBytes || s.address + s.memBytes < s.address)
            throw tooBig();
        pagesNeeded += (pageUp(s.address + s.memBytes) - pageDown(s.address)) / kPage;
    }
    if (pagesNeeded > memoryBytes / kPage)
        throw tooBig();
    std::map<std::uint64_t, std::uint8_t> pagePermissions;
    for (const auto& s : program.segments) {
        if (s.memBytes == 0)
            continue;
        const std::uint8_t p = static_cast<std::uint8_t>((s.read ? GuestMemory::kRead : 0) |
                                                         (s.write ? GuestMemory::kWrite : 0) |
                                                         (s.execute ? GuestMemory::kExecute : 0));
        for (std::uint64_t a = pageDown(s.address); a < s.address + s.memBytes; a += kPage)
            pagePermissions[a] |= p;
    }
    for (const auto& [address, p] : pagePermissions)
        if (!memory_.map(address, kPage, p))
            throw tooBig();
    for (const auto& s : program.segments)
        if (!s.fileBytes.empty())
            memory_.initialise(s.address, s.fileBytes.data(), s.fileBytes.size());
    brkStart_ = brk_ = pageUp(program.imageEnd());

    if (!memory_.map(kStackTop - kStackBytes, kStackBytes, GuestMemory::kRead | GuestMemory::kWrite))
        throw tooBig();
    std::vector<std::string> argv{argv0.empty() ? program.path : argv0};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    hart().setX(2, buildStack(argv, environment));
    hart().setPc(program.entry);
}

std::uint64_t LinuxProcess::buildStack(const std::vector<std::string>& argv,
                                       const std::vector<std::string>& envp) {
    std::uint64_t sp = kStackTop;
    auto pushBytes = [&](const void* data, std::uint64_t bytes) {
        sp -= bytes;
        memory_.initialise(sp, data, bytes);
        return sp;
    };
    auto pushString = [&](const std::string& s) { return pushBytes(s.c_str(), s.size() + 1); };
    const std::uint64_t execfn = pushString(argv[0]);
    std::vector<std::uint64_t> envAddresses, argAddresses;
    for (auto it = envp.rbegin(); it != envp.rend(); ++it)
        envAddresses.insert(envAddresses.begin(), pushString(*it));
    for (auto it = argv.rbegin(); it != argv.rend(); ++it)
        argAddresses.insert(argAddresses.begin(), pushString(*it));
    const std::uint64_t platform = pushString("riscv64");
    std::uint8_t randomBytes[16];
    for (unsigned i = 0; i < 16; ++i)
        randomBytes[i] = static_cast<std::uint8_t>(0x5a + 37 * i);  // AT_RANDOM: fixed, deterministic
    const std::uint64_t random = pushBytes(randomBytes, 16);

    // rv64imafdc: one bit per extension letter.
    const std::uint64_t hwcap = (1u << ('i' - 'a')) | (1u << ('m' - 'a')) | (1u << ('a' - 'a')) |
                                (1u << ('f' - 'a')) | (1u << ('d' - 'a')) | (1u << ('c' - 'a'));
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> auxv = {
        {3, program_.programHeaders},      // AT_PHDR
        {4, program_.programHeaderSize},   // AT_PHENT
        {5, program_.programHeaderCount},  // AT_PHNUM
        {6, kPage},                        // AT_PAGESZ
        {7, 0},                            // AT_BASE: no interpreter
        {8, 0},                            // AT_FLAGS
        {9, program_.entry},               // AT_ENTRY
        {11, 0},
        {12, 0},
        {13, 0},
        {14, 0},         // AT_UID, AT_EUID, AT_GID, AT_EGID
        {16, hwcap},     // AT_HWCAP
        {17, 100},       // AT_CLKTCK
        {15, platform},  // AT_PLATFORM
        {23, 0},         // AT_SECURE
        {25, random},    // AT_RANDOM
        {31, execfn},    // AT_EXECFN
        {0, 0},          // AT_NULL
    };
    std::vector<std::uint64_t> words;
    words.push_back(argv.size());
    words.insert(words.end(), argAddresses.begin(), argAddresses.end());
    words.push_back(0);
    words.insert(words.end(), envAddresses.begin(), envAddresses.end());
    words.push_back(0);
    for (const auto& [key, value] : auxv) {
        words.push_back(key);
        words.push_back(value);
    }
    sp = (sp - words.size() * 8) & ~std::uint64_t{15};
    memory_.initialise(sp, words.data(), words.size() * 8);
    return sp;
}

std::int64_t LinuxProcess::writeTo(int fd, std::uint64_t buffer, std::uint64_t bytes) {
    if (fd != 1 && fd != 2)
        return -kEBADF;  // stdout and stderr only: input files are read-only
    std::vector<char> data(bytes);
    memory_.copyIn(buffer, data.data(), bytes, GuestMemory::kRead, "load");
    std::uint64_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::write(fd == 1 ? stdoutFd_ : fd, data.data() + done, bytes - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        done += static_cast<std::uint64_t>(n);
    }
    bytesWritten_ += bytes;
    return static_cast<std::int64_t>(bytes);
}

std::int64_t LinuxProcess::openAt(std::int64_t dirfd, std::uint64_t pathAddress, std::int64_t flags) {
    const std::string path = memory_.readString(pathAddress, 4096);
    // Input files under the working directory, read-only: a program cannot reach the host's files.
    if (dirfd != kAtFdCwd || path.empty() || path[0] == '/' || path.find("..") != std::string::npos)
        return -kEACCES;
    if ((flags & 3) != 0 || (flags & (O_CREAT | O_TRUNC)))
        return -kEACCES;
    const int host = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (host < 0)
        return -errno;
    files_[nextFd_] = host;
    return nextFd_++;
}

std::int64_t LinuxProcess::statOf(int hostFd, std::uint64_t buffer) {
    struct stat st = {};
    if (hostFd <= 2) {
        // stdin, stdout and stderr are pipes whatever the host's are (a terminal, a file): glibc
        // sizes and flushes its buffers by them, and the program must run the same either way.
        st.st_mode = S_IFIFO | 0600;
        st.st_nlink = 1;
        st.st_blksize = 4096;
        st.st_ino = static_cast<ino_t>(hostFd + 1);
    } else if (::fstat(hostFd, &st) != 0) {
        return -errno;
    }
    // struct stat of asm-generic (riscv64), 128 bytes.
    std::uint8_t out[128] = {};
    auto put = [&](unsigned offset, auto value) { std::memcpy(out + offset, &value, sizeof(value)); };
    put(0, static_cast<std::uint64_t>(st.st_dev));
    put(8, static_cast<std::uint64_t>(st.st_ino));
    put(16, static_cast<std::uint32_t>(st.st_mode));
    put(20, static_cast<std::uint32_t>(st.st_nlink));
    put(24, static_cast<std::uint32_t>(0));  // uid
    put(28, static_cast<std::uint32_t>(0));  // gid
    put(32, static_cast<std::uint64_t>(st.st_rdev));
    put(48, static_cast<std::int64_t>(st.st_size));
    put(56, static_cast<std::int32_t>(st.st_blksize));
    put(64, static_cast<std::int64_t>(st.st_blocks));
    // Times: the fixed epoch, so that a report never depends on when the input file was written.
    put(72, static_cast<std::int64_t>(kEpochSeconds));
    put(88, static_cast<std::int64_t>(kEpochSeconds));
    put(104, static_cast<std::int64_t>(kEpochSeconds));
    memory_.copyOut(buffer, out, sizeof out, GuestMemory::kWrite, "store");
    return 0;
}

std::int64_t LinuxProcess::mmap(std::uint64_t address, std::uint64_t bytes, std::int64_t protection,
                                std::int64_t flags, std::int64_t fd) {
    constexpr std::int64_t kFixed = 0x10, kAnonymous = 0x20;
    if (bytes == 0)
        return -kEINVAL;
    if (!(flags & kAnonymous) || fd != -1)
        throw UnsupportedSystemCall{kMmap, hart().pc()};  // file mappings: not provided
    const std::uint64_t length = pageUp(bytes);
    if (flags & kFixed) {
        if (address % kPage)
            return -kEINVAL;
        memory_.unmap(address, length);
    } else {
        address = memory_.findFree(address && address >= kMmapBase ? address : kMmapBase, length,
                                   kStackTop - kStackBytes);
        if (!address)
            return -kENOMEM;
    }
    if (!memory_.map(address, length, permissionsOf(protection)))
        return -kENOMEM;  // more than the target's memory
    return static_cast<std::int64_t>(address);
}

GuestThread& LinuxProcess::caller(const Hart& hart) {
    for (auto& t : threads_)
        if (t->hart.get() == &hart)
            return *t;
    return *threads_[0];
}

void LinuxProcess::systemCall(Hart& h) {
    ++systemCalls_;
    GuestThread& self = caller(h);
    self.woke.clear();
    self.started.clear();
    const std::uint64_t number = h.x(17);
    const std::uint64_t a0 = h.x(10), a1 = h.x(11), a2 = h.x(12), a3 = h.x(13), a4 = h.x(14), a5 = h.x(15);
    const auto s0 = static_cast<std::int64_t>(a0);
    std::int64_t result = 0;
    try {
        switch (number) {
        case kExit: exitThread(self, static_cast<int>(a0 & 0xff)); return;
        case kExitGroup:
            exited_ = true;
            exitStatus_ = static_cast<int>(a0 & 0xff);
            return;
        case kTgkill:  // abort(): the program dies of the signal, as the shell reports it
            exited_ = true;
            exitStatus_ = 128 + static_cast<int>(a2 & 0x7f);
            return;
        case kWrite: result = writeTo(static_cast<int>(s0), a1, a2); break;
        case kWritev: {
            result = 0;
            for (std::uint64_t k = 0; k < a2; ++k) {
                const std::uint64_t base = memory_.load<std::uint64_t>(a1 + 16 * k);
                const std::uint64_t length = memory_.load<std::uint64_t>(a1 + 16 * k + 8);
                const std::int64_t n = writeTo(static_cast<int>(s0), base, length);
                if (n < 0) {
                    result = result ? result : n;
                    break;
                }
                result += n;
            }
            break;
        }
        case kRead: {
            int host = -1;
            if (s0 == 0)
                host = 0;
            else if (files_.count(static_cast<int>(s0)))
                host = files_[static_cast<int>(s0)];
            if (host < 0) {
                result = -kEBADF;
                break;
            }
            std::vector<char> data(a2);
            const ssize_t n = ::read(host, data.data(), a2);
            if (n < 0) {
                result = -errno;
                break;
            }
            memory_.copyOut(a1, data.data(), static_cast<std::uint64_t>(n), GuestMemory::kWrite, "store");
            result = n;
            break;
        }
        case kOpenat: result = openAt(s0, a1, static_cast<std::int64_t>(a2)); break;
        case kClose:
            if (files_.count(static_cast<int>(s0))) {
                ::close(files_[static_cast<int>(s0)]);
                files_.erase(static_cast<int>(s0));
            } else if (s0 < 0 || s0 > 2) {
                result = -kEBADF;
            }
            break;
        case kLseek: {
            const int host = s0 <= 2
                                 ? static_cast<int>(s0)
                                 : (files_.count(static_cast<int>(s0)) ? files_[static_cast<int>(s0)] : -1);
            if (host < 0) {
                result = -kEBADF;
                break;
            }
            const off_t r = ::lseek(host, static_cast<off_t>(a1), static_cast<int>(a2));
            result = r < 0 ? -errno : r;
            break;
        }
        case kFstat:
        case kNewfstatat: {
            int fd = static_cast<int>(s0);
            std::uint64_t buffer = a1;
            if (number == kNewfstatat) {
                buffer = a2;
                const std::string path = memory_.readString(a1, 4096);
                if (!path.empty() || !(static_cast<std::int64_t>(a3) & kAtEmptyPath)) {
                    result = -kENOENT;  // paths: only what openat can open is visible, through its fd
                    break;
                }
            }
            const int host = fd >= 0 && fd <= 2 ? fd : (files_.count(fd) ? files_[fd] : -1);
            result = host < 0 ? -kEBADF : statOf(host, buffer);
            break;
        }
        case kReadlinkat: {  // /proc/self/exe (glibc's _dl_get_origin): the program; nothing else exists
            const std::string path = memory_.readString(a1, 4096);
            if (path != "/proc/self/exe") {
                result = -kENOENT;
                break;
            }
            std::error_code error;
            const std::string exe = std::filesystem::weakly_canonical(program_.path, error).string();
            const std::uint64_t n = std::min<std::uint64_t>(exe.size(), a3);
            memory_.copyOut(a2, exe.data(), n, GuestMemory::kWrite, "store");
            result = static_cast<std::int64_t>(n);
            break;
        }
        case kIoctl: result = -kENOTTY; break;
        case kSetTidAddress:
            self.clearChildTid = a0;
            result = static_cast<std::int64_t>(self.tid);
            break;
        case kSetRobustList: result = 0; break;
        case kFutex: result = futex(self, a0, a1, a2, a3, a5); break;
        case kClone: result = clone(self, a0, a1, a2, a3, a4); break;
        case kSchedGetaffinity: result = affinity(a1, a2); break;
        case kSchedYield: result = 0; break;
        case kClone3:
        case kRseq:
        case kRiscvHwprobe: result = -kENOSYS; break;
        case kRtSigaction:
            if (a2)
                memory_.copyOut(a2, std::vector<std::uint8_t>(32).data(), 32, GuestMemory::kWrite, "store");
            break;
        case kRtSigprocmask:
            if (a2)
                memory_.store<std::uint64_t>(a2, 0);
            break;
        case kUname: {
            char u[6 * 65] = {};
            const char* fields[6] = {"Linux", "tessim", "6.1.0", "#1 tessim", "riscv64", ""};
            for (unsigned k = 0; k < 6; ++k)
                std::strncpy(u + 65 * k, fields[k], 64);
            memory_.copyOut(a0, u, sizeof u, GuestMemory::kWrite, "store");
            break;
        }
        case kClockGettime: {
            const std::uint64_t ns = nanoseconds_ ? nanoseconds_(self.index) : 0;
            const std::uint64_t seconds =
                ns / 1000000000 + (a0 == 0 ? kEpochSeconds : 0);  // 0: CLOCK_REALTIME
            memory_.store<std::uint64_t>(a1, seconds);
            memory_.store<std::uint64_t>(a1 + 8, ns % 1000000000);
            break;
        }
        case kGettimeofday:
            if (a0) {
                const std::uint64_t ns = nanoseconds_ ? nanoseconds_(self.index) : 0;
                memory_.store<std::uint64_t>(a0, ns / 1000000000 + kEpochSeconds);
                memory_.store<std::uint64_t>(a0 + 8, ns % 1000000000 / 1000);
            }
            break;
        case kGetpid: result = kPid; break;
        case kGettid: result = static_cast<std::int64_t>(self.tid); break;
        case kGetppid: result = 1; break;
        case kGetuid:
        case kGeteuid:
        case kGetgid:
        case kGetegid: result = 0; break;
        case kBrk:
            if (a0 >= brkStart_ && a0 < LinuxProcess::kMmapBase) {
                bool moved = true;
                if (pageUp(a0) > pageUp(brk_))
                    moved = memory_.map(pageUp(brk_), pageUp(a0) - pageUp(brk_),
                                        GuestMemory::kRead | GuestMemory::kWrite);
                else if (pageUp(a0) < pageUp(brk_))
                    memory_.unmap(pageUp(a0), pageUp(brk_) - pageUp(a0));
                if (moved)  // else the break stays where it was: glibc falls back to mmap
                    brk_ = a0;
            }
            result = static_cast<std::int64_t>(brk_);
            break;
        case kMmap:
            result = mmap(a0, a1, static_cast<std::int64_t>(a2), static_cast<std::int64_t>(a3),
                          static_cast<std::int64_t>(a4));
            break;
        case kMunmap:
            if (a0 % kPage)
                result = -kEINVAL;
            else
                memory_.unmap(a0, pageUp(a1));
            break;
        case kMprotect:
            result =
                memory_.protect(a0, pageUp(a1), permissionsOf(static_cast<std::int64_t>(a2))) ? 0 : -kENOMEM;
            break;
        case kMadvise: result = 0; break;
        case kPrlimit64:
            if (a3) {
                const std::uint64_t infinity = ~std::uint64_t{0};
                const bool stack = a1 == 3;  // RLIMIT_STACK
                memory_.store<std::uint64_t>(a3, stack ? kStackBytes : infinity);
                memory_.store<std::uint64_t>(a3 + 8, infinity);
            }
            break;
        case kGetrandom:
            for (std::uint64_t k = 0; k < a1; ++k) {
                random_ += 0x9e3779b97f4a7c15ull;  // splitmix64
                std::uint64_t z = random_;
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
                z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                memory_.store<std::uint8_t>(a0 + k, static_cast<std::uint8_t>(z ^ (z >> 31)));
            }
            result = static_cast<std::int64_t>(a1);
            break;
        default: throw UnsupportedSystemCall{number, h.pc() - 4};
        }
    } catch (const GuestAccessFault&) {
        result = -kEFAULT;  // a bad pointer handed to the kernel is the program's EFAULT, not a crash
    }
    h.setX(10, static_cast<std::uint64_t>(result));
}

}  // namespace tessim::riscv
