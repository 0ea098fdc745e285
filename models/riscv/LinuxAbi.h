// The Linux user-mode ABI of riscv64 that LinuxProcess provides: errno values (asm-generic
// errno-base.h, errno.h; a system call returns them negated) and system call numbers
// (asm-generic unistd.h).
#pragma once

#include <cstdint>

namespace tessim::riscv::linux_abi {

constexpr std::int64_t kENOENT = 2, kEBADF = 9, kEAGAIN = 11, kENOMEM = 12, kEACCES = 13, kEFAULT = 14,
                       kEINVAL = 22, kENOTTY = 25, kENOSYS = 38;

enum : std::uint64_t {
    kIoctl = 29,
    kOpenat = 56,
    kClose = 57,
    kLseek = 62,
    kRead = 63,
    kWrite = 64,
    kWritev = 66,
    kReadlinkat = 78,
    kNewfstatat = 79,
    kFstat = 80,
    kExit = 93,
    kExitGroup = 94,
    kSetTidAddress = 96,
    kFutex = 98,
    kSetRobustList = 99,
    kClockGettime = 113,
    kSchedGetaffinity = 123,
    kSchedYield = 124,
    kTgkill = 131,
    kRtSigaction = 134,
    kRtSigprocmask = 135,
    kUname = 160,
    kGettimeofday = 169,
    kGetpid = 172,
    kGetppid = 173,
    kGetuid = 174,
    kGeteuid = 175,
    kGetgid = 176,
    kGetegid = 177,
    kGettid = 178,
    kBrk = 214,
    kMunmap = 215,
    kClone = 220,
    kMmap = 222,
    kMprotect = 226,
    kMadvise = 233,
    kRiscvHwprobe = 258,
    kPrlimit64 = 261,
    kGetrandom = 278,
    kRseq = 293,
    kClone3 = 435,
};

}  // namespace tessim::riscv::linux_abi
