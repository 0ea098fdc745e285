// A core's stream of a program run: it executes the instructions of the thread placed on the
// core on its hart, a chunk at a time, and hands them to the core's engine as ops. Threads meet
// only through memory and system calls; so that they meet in simulated-time order whatever the
// quantum, each chunk runs once SystemC time has caught up with the core's local time. A futex
// wait ends the chunk with a join on the thread's wake event, which the waking thread's core
// signals (a fork); a clone signals the new thread's start the same way.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "models/riscv/ProgramRun.h"
#include "models/riscv/RiscvVector.h"

namespace tessim::riscv {

namespace {

// Instructions executed per refill: enough to amortise the call, few enough that the program's
// output and the simulation stay close.
constexpr unsigned kChunk = 256;

// The SyncHub events of a program's threads: thread n's start, and its wakes (its k-th wait ends
// with the k-th signal).
constexpr std::uint32_t kThreadEvents = 0x40000000;
std::uint32_t startEvent(unsigned thread) {
    return kThreadEvents + 2 * thread;
}
std::uint32_t wakeEvent(unsigned thread) {
    return kThreadEvents + 2 * thread + 1;
}
Op signalOp(std::uint32_t event) {
    Op op;
    op.kind = OpKind::Fork;
    op.tag = event;
    return op;
}
Op waitOp(std::uint32_t event, std::uint64_t count) {
    Op op;
    op.kind = OpKind::Join;
    op.tag = event;
    op.count = static_cast<std::uint32_t>(count);
    return op;
}

class CoreStream : public ChunkedOpStream {
public:
    CoreStream(ProgramState& s, CoreRun& core)
        : s_(s), c_(core), started_(std::chrono::steady_clock::now()) {}

    void setEngineClock(EngineClock* clock) override { c_.engineClock = clock; }

protected:
    bool refill(std::vector<Op>& out) override {
        LinuxProcess& process = *s_.process;
        // A fault stops the run once the engine has timed the instructions before it, so that the
        // message gives the cycle at which the faulting one would have issued.
        if (faultPc_)
            fault(*faultPc_, faultWhat_);
        attributeCycles();
        // The next thread placed on the core, once the one it ran has exited.
        while (c_.current < 0 ||
               process.thread(static_cast<unsigned>(c_.current)).state == GuestThread::State::Exited) {
            if (process.exited())
                return false;
            if (c_.placed.empty()) {
                sc_core::wait(*s_.threadsChanged);
                continue;
            }
            c_.current = static_cast<int>(c_.placed.front());
            c_.placed.pop_front();
            if (c_.current > 0) {  // it starts when its creator's core gets past the clone
                out.push_back(waitOp(startEvent(static_cast<unsigned>(c_.current)), 1));
                return true;
            }
        }
        GuestThread& thread = process.thread(static_cast<unsigned>(c_.current));
        if (c_.engineClock && process.threadCount() > 1)
            c_.engineClock->synchronise();
        if (process.exited())
            return false;
        checkLimits();
        process.switchTo(thread);
        Hart& hart = *thread.hart;
        if (hart.pc() < function_.start || hart.pc() >= function_.end || functionThread_ != thread.index) {
            function_ = s_.elf.functionAt(hart.pc());
            functionThread_ = thread.index;
            auto& cost = s_.profile[{thread.index, function_.start}];
            if (cost.name.empty())
                cost.name = function_.name;
        }
        const FunctionKey key{thread.index, function_.start};
        if (c_.profiling && key != c_.lastFunction)
            s_.traceFunction(c_, c_.profiledCycles);  // the stay in the last one ended
        c_.lastFunction = key;
        c_.profiling = true;
        Retired r;
        unsigned n = 0;
        while (n < kChunk && !process.exited()) {
            // A chunk ends where the program enters another function (the profile), and before an
            // instruction that reads the clock, so that the engine has timed what came before it.
            if (n > 0 && (hart.pc() < function_.start || hart.pc() >= function_.end))
                break;
            try {
                if (!hart.step(r, n == 0))
                    break;
            } catch (const IllegalInstruction& e) {
                faultAt(e.pc, fmt::format("{} ({})", e.reason, describe(e.bits, e.length)));
                break;
            } catch (const GuestAccessFault& e) {
                faultAt(hart.pc(),
                        fmt::format("a {} at {:#x}, where nothing the program may {} is mapped ({})",
                                    e.access, e.address, e.access, describeAt(hart.pc())));
                break;
            } catch (const GuestMemoryExhausted& e) {
                faultAt(hart.pc(), fmt::format("more pages touched than the {} B of memory '{}' holds ({})",
                                               e.bytes, c_.memory->name, describeAt(hart.pc())));
                break;
            } catch (const UnsupportedSystemCall& e) {
                faultAt(e.pc,
                        e.what.empty()
                            ? fmt::format("system call {} (a7), which tessim does not provide", e.number)
                            : fmt::format("system call {} (a7) asks for {}", e.number, e.what));
                break;
            }
            c_.ops->append(r, hart, process.memory(), out);
            ++n;
            if (r.instruction->mnemonic == Mnemonic::Ecall && threadsMet(thread, out))
                break;
        }
        s_.profile[key].instructions += n;
        if (out.empty() && faultPc_)
            fault(*faultPc_, faultWhat_);
        return true;
    }

private:
    // After a system call: the threads it started or woke, a wait, an exit. True when the chunk
    // ends there (the engine must reach the signals before anyone may go on).
    bool threadsMet(GuestThread& self, std::vector<Op>& out) {
        LinuxProcess& process = *s_.process;
        bool met = false;
        for (unsigned started : self.started) {
            place(started);
            out.push_back(signalOp(startEvent(started)));
            met = true;
        }
        for (unsigned woken : self.woke) {
            out.push_back(signalOp(wakeEvent(woken)));
            met = true;
        }
        if (process.exited()) {  // the threads still waiting end with the process
            for (std::size_t t = 0; t < process.threadCount(); ++t)
                if (process.thread(t).state == GuestThread::State::Waiting)
                    out.push_back(signalOp(wakeEvent(static_cast<unsigned>(t))));
            s_.threadsChanged->notify(sc_core::SC_ZERO_TIME);
            return true;
        }
        if (self.state == GuestThread::State::Waiting)
            out.push_back(waitOp(wakeEvent(self.index), self.waits));
        if (self.state != GuestThread::State::Runnable) {
            if (process.runnableThreads() == 0)
                deadlock();
            return true;
        }
        return met;
    }

    // A new thread goes to the first core that holds none.
    void place(unsigned thread) {
        LinuxProcess& process = *s_.process;
        for (std::size_t k = 0; k < s_.cores.size(); ++k) {
            CoreRun& core = *s_.cores[k];
            const bool holds =
                !core.placed.empty() ||
                (core.current >= 0 &&
                 process.thread(static_cast<unsigned>(core.current)).state != GuestThread::State::Exited);
            if (holds)
                continue;
            core.placed.push_back(thread);
            s_.coreOf.resize(std::max<std::size_t>(s_.coreOf.size(), thread + 1));
            s_.coreOf[thread] = static_cast<unsigned>(k);
            core.bindClocks(*process.thread(thread).hart);
            s_.threadsChanged->notify(sc_core::SC_ZERO_TIME);
            return;
        }
        // LinuxProcess refuses more live threads than cores: there is always one.
        throw ProgramError(fmt::format("{}: no core left for thread {}", s_.request.path, thread));
    }

    [[noreturn]] void deadlock() {
        const LinuxProcess& process = *s_.process;
        std::vector<std::string> waits;
        for (std::size_t t = 0; t < process.threadCount(); ++t) {
            const GuestThread& w = process.thread(t);
            if (w.state == GuestThread::State::Waiting)
                waits.push_back(fmt::format(
                    "thread {} (tid {}, on {}) on the futex word at {:#x} from pc {:#x}{}", w.index, w.tid,
                    s_.coreOfThread(w.index).engine->name, w.futex, w.waitPc, function(w.waitPc)));
        }
        throw ProgramError(fmt::format(
            "{}: deadlock: every thread left waits on a futex that no running thread can wake ({}), at cycle "
            "{} of {}, after {} instructions",
            s_.request.path, fmt::join(waits, "; "), c_.cycle(), c_.engine->name, s_.instructions()));
    }

    // The cycles the engine took since the last chunk belong to the function that chunk ran in.
    void attributeCycles() {
        const std::uint64_t now = c_.cycle();
        if (now > c_.profiledCycles && c_.profiling) {
            auto& cost = s_.profile[c_.lastFunction];
            cost.cycles += now - c_.profiledCycles;
            for (std::size_t r = 0; r < kStallReasons && c_.engineClock; ++r) {
                const std::uint64_t so = c_.engineClock->cyclesFor(r);
                cost.byReason[r] += so - c_.profiledByReason[r];
                c_.profiledByReason[r] = so;
            }
        } else if (c_.engineClock) {
            for (std::size_t r = 0; r < kStallReasons; ++r)
                c_.profiledByReason[r] = c_.engineClock->cyclesFor(r);
        }
        c_.profiledCycles = std::max(now, c_.profiledCycles);
    }

    void checkLimits() {
        const Hart& hart = *s_.process->thread(static_cast<unsigned>(c_.current)).hart;
        if (s_.request.maxCycles && c_.cycle() > s_.request.maxCycles)
            throw ProgramError(fmt::format(
                "{}: the program did not end within --max-cycles {} ({} instructions retired, pc {:#x}{})",
                s_.request.path, s_.request.maxCycles, s_.instructions(), hart.pc(), function(hart.pc())));
        if (s_.request.timeoutSeconds > 0) {
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
            if (elapsed > s_.request.timeoutSeconds)
                throw ProgramError(fmt::format(
                    "{}: the program did not end within --timeout {} s of host time ({} instructions "
                    "retired, pc {:#x}{})",
                    s_.request.path, s_.request.timeoutSeconds, s_.instructions(), hart.pc(),
                    function(hart.pc())));
        }
    }

    std::string function(std::uint64_t pc) const {
        const std::string f = s_.elf.symbolize(pc);
        return f.empty() ? "" : " in " + f;
    }
    std::string describeAt(std::uint64_t pc) {
        std::uint32_t bits = 0;
        try {
            bits = s_.process->memory().fetch16(pc);
            if ((bits & 3) == 3)
                bits |= std::uint32_t{s_.process->memory().fetch16(pc + 2)} << 16;
        } catch (const GuestAccessFault&) {
            return "the pc itself is not executable";
        }
        return describe(bits, (bits & 3) == 3 ? 4 : 2);
    }
    std::string describe(std::uint32_t bits, unsigned length) const {
        const Instruction i = decode(bits);
        const std::string vector = vectorName(i);
        const std::string name = vector.empty() ? std::string(mnemonicName(i.mnemonic)) : vector;
        return length == 2 ? fmt::format("encoding {:#06x}, {} (compressed)", bits & 0xffff, name)
                           : fmt::format("encoding {:#010x}, {}", bits, name);
    }
    void faultAt(std::uint64_t pc, std::string what) {
        faultPc_ = pc;
        faultWhat_ = std::move(what);
    }
    [[noreturn]] void fault(std::uint64_t pc, const std::string& what) {
        const std::string thread =
            s_.process->threadCount() > 1 ? fmt::format(" (thread {})", c_.current) : "";
        throw ProgramError(fmt::format("{}: {} at pc {:#x}{}, on {}{}, cycle {}, after {} instructions",
                                       s_.request.path, what, pc, function(pc), c_.engine->name, thread,
                                       c_.cycle(), s_.instructions()));
    }

    ProgramState& s_;
    CoreRun& c_;
    std::chrono::steady_clock::time_point started_;
    std::optional<std::uint64_t> faultPc_;  // the pending fault's pc
    ElfProgram::Function function_;         // the function the current chunk runs in
    unsigned functionThread_ = 0;           // … of this thread
    std::string faultWhat_;
};

}  // namespace

std::unique_ptr<OpStream> makeCoreStream(ProgramState& state, CoreRun& core) {
    return std::make_unique<CoreStream>(state, core);
}

}  // namespace tessim::riscv
