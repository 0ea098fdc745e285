// Threads of the Linux user-mode process: clone as pthread_create calls it, futex wait and wake,
// a thread's exit, and the CPUs sched_getaffinity reports. The process only decides who waits
// and who is woken; each thread's record (GuestThread::woke, started, waits) tells the timing
// model, which makes a waiting core wait until the core that wakes it gets there.
#include <algorithm>

#include <fmt/format.h>

#include "models/riscv/LinuxAbi.h"
#include "models/riscv/LinuxProcess.h"

namespace tessim::riscv {

using namespace linux_abi;

namespace {

// clone flags (linux/sched.h).
constexpr std::uint64_t kCloneVm = 0x100, kCloneThread = 0x10000, kCloneSetTls = 0x80000,
                        kCloneParentSetTid = 0x100000, kCloneChildClearTid = 0x200000,
                        kCloneChildSetTid = 0x01000000;
// futex operations (linux/futex.h), after the private and clock flags are masked off.
constexpr std::uint64_t kFutexWait = 0, kFutexWake = 1, kFutexWaitBitset = 9, kFutexWakeBitset = 10;
constexpr std::uint64_t kFutexCommand = 127;

}  // namespace

std::size_t LinuxProcess::runnableThreads() const {
    return static_cast<std::size_t>(std::count_if(threads_.begin(), threads_.end(), [](const auto& t) {
        return t->state == GuestThread::State::Runnable;
    }));
}

void LinuxProcess::switchTo(GuestThread& thread) {
    // An LR's reservation lasts while no other hart could have written the word; the model does
    // not track the words other threads write, so a reservation does not outlive a switch (an SC
    // may fail spuriously, which the ISA allows; the LR/SC loop then retries).
    if (lastRan_ && lastRan_ != &thread)
        thread.hart->clearReservation();
    lastRan_ = &thread;
}

std::int64_t LinuxProcess::clone(GuestThread& parent, std::uint64_t flags, std::uint64_t stack,
                                 std::uint64_t parentTid, std::uint64_t tls, std::uint64_t childTid) {
    const std::uint64_t pc = parent.hart->pc() - 4;
    if ((flags & (kCloneVm | kCloneThread)) != (kCloneVm | kCloneThread))
        throw UnsupportedSystemCall{kClone, pc,
                                    fmt::format("clone with flags {:#x}: a new process (fork, vfork, "
                                                "posix_spawn); only threads (CLONE_VM | CLONE_THREAD) run",
                                                flags)};
    std::size_t live = 0;
    for (const auto& t : threads_)
        live += t->state != GuestThread::State::Exited;
    if (live >= maxThreads_)
        throw UnsupportedSystemCall{
            kClone, pc,
            fmt::format("clone of thread {} while all {} cores the run gives the program hold a thread "
                        "(a thread has a core of its own in this model; --cores gives more)",
                        threads_.size(), maxThreads_)};
    auto child = std::make_unique<GuestThread>();
    child->index = static_cast<unsigned>(threads_.size());
    child->tid = threads_[0]->tid + child->index;
    child->hart = std::make_unique<Hart>(memory_, *this);
    child->hart->copyStateFrom(*parent.hart);
    child->hart->setX(10, 0);  // clone returns 0 in the child
    if (stack)
        child->hart->setX(2, stack);
    if (flags & kCloneSetTls)
        child->hart->setX(4, tls);  // tp
    try {
        if (flags & kCloneParentSetTid)
            memory_.store<std::uint32_t>(parentTid, static_cast<std::uint32_t>(child->tid));
        if (flags & kCloneChildSetTid)
            memory_.store<std::uint32_t>(childTid, static_cast<std::uint32_t>(child->tid));
    } catch (const GuestAccessFault&) {
        return -kEFAULT;
    }
    if (flags & kCloneChildClearTid)
        child->clearChildTid = childTid;
    parent.started.push_back(child->index);
    const auto tid = static_cast<std::int64_t>(child->tid);
    threads_.push_back(std::move(child));
    return tid;
}

std::int64_t LinuxProcess::futex(GuestThread& self, std::uint64_t address, std::uint64_t op,
                                 std::uint64_t value, std::uint64_t timeout, std::uint64_t bitset) {
    const std::uint64_t command = op & kFutexCommand;
    const std::uint64_t pc = self.hart->pc() - 4;
    if (command == kFutexWake)
        return wake(self, address, value, ~0u);
    if (command == kFutexWakeBitset)
        return bitset ? wake(self, address, value, static_cast<std::uint32_t>(bitset)) : -kEINVAL;
    if (command != kFutexWait && command != kFutexWaitBitset)
        throw UnsupportedSystemCall{kFutex, pc,
                                    fmt::format("futex operation {} (FUTEX_WAIT, FUTEX_WAKE and "
                                                "their _BITSET forms run)",
                                                command)};
    if (timeout)
        throw UnsupportedSystemCall{kFutex, pc, "futex wait with a timeout (waits without one run)"};
    const std::uint32_t mask = command == kFutexWait ? ~0u : static_cast<std::uint32_t>(bitset);
    if (mask == 0 || address % 4)
        return -kEINVAL;
    if (memory_.load<std::uint32_t>(address) != static_cast<std::uint32_t>(value))
        return -kEAGAIN;
    self.state = GuestThread::State::Waiting;
    self.futex = address;
    self.futexMask = mask;
    self.waitPc = pc;
    ++self.waits;
    futexQueue_.push_back(self.index);
    return 0;
}

std::int64_t LinuxProcess::wake(GuestThread& self, std::uint64_t address, std::uint64_t count,
                                std::uint32_t bitset) {
    std::int64_t woken = 0;
    for (auto it = futexQueue_.begin();
         it != futexQueue_.end() && static_cast<std::uint64_t>(woken) < count;) {
        GuestThread& t = *threads_[*it];
        if (t.futex != address || !(t.futexMask & bitset)) {
            ++it;
            continue;
        }
        t.state = GuestThread::State::Runnable;
        self.woke.push_back(t.index);
        it = futexQueue_.erase(it);
        ++woken;
    }
    return woken;
}

void LinuxProcess::exitThread(GuestThread& self, int status) {
    // CLONE_CHILD_CLEARTID: the word pthread_join waits on is cleared and its waiter woken.
    if (self.clearChildTid) {
        try {
            memory_.store<std::uint32_t>(self.clearChildTid, 0);
            wake(self, self.clearChildTid, 1, ~0u);
        } catch (const GuestAccessFault&) {
        }
    }
    self.state = GuestThread::State::Exited;
    if (std::none_of(threads_.begin(), threads_.end(),
                     [](const auto& t) { return t->state != GuestThread::State::Exited; })) {
        exited_ = true;
        exitStatus_ = status;
    }
}

std::int64_t LinuxProcess::affinity(std::uint64_t bytes, std::uint64_t mask) {
    // As the kernel answers: a mask of 8 bytes (its cpumask), one bit per CPU the program has.
    if (bytes * 8 < maxThreads_ || bytes % 8)
        return -kEINVAL;
    const std::uint64_t cpus = maxThreads_ >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << maxThreads_) - 1;
    try {
        memory_.store<std::uint64_t>(mask, cpus);
    } catch (const GuestAccessFault&) {
        return -kEFAULT;
    }
    return 8;
}

}  // namespace tessim::riscv
