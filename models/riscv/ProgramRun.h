// The state of one program run, shared by the streams of the cores its threads run on and by the
// workload that reports it: the process, each core with the threads placed on it, the
// per-function profile of each thread.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "models/riscv/ElfProgram.h"
#include "models/riscv/LinuxProcess.h"
#include "models/riscv/ProgramOps.h"
#include "models/riscv/ProgramWorkload.h"
#include "sim/core/SpanObserver.h"
#include "sim/engine/StallBreakdown.h"
#include "sim/ir/OpStream.h"
#include "sim/machine/TargetInfo.h"

namespace tessim::riscv {

// A function of one thread: its profile row, keyed (thread, function start).
using FunctionKey = std::pair<unsigned, std::uint64_t>;
struct FunctionCost {
    std::string name;
    std::uint64_t cycles = 0, instructions = 0;
    std::array<std::uint64_t, kStallReasons> byReason{};  // where its cycles went
};

// One core the program may use. Its threads run one after another (a thread has the core to
// itself until it exits); its stream pulls the next one placed on it.
struct CoreRun {
    const EngineInfo* engine = nullptr;
    const MemorySpaceInfo* memory = nullptr;  // its loads and stores address this one (its L1)
    EngineClock* engineClock = nullptr;       // the core's local time, once its engine pulls the stream
    std::optional<InstructionOps> ops;
    std::deque<unsigned> placed;  // threads placed on it that have not begun
    int current = -1;             // the thread it runs (−1: none yet)

    // The profile: the cycles the engine took for a chunk belong to the function it ran in.
    bool profiling = false;  // lastFunction is set
    FunctionKey lastFunction{0, 0};
    std::uint64_t profiledCycles = 0;  // engine cycle up to which cycles are attributed
    std::array<std::uint64_t, kStallReasons> profiledByReason{};  // the engine's, at profiledCycles
    std::uint64_t spanStart = 0;  // --trace: cycle at which the current stay in a function began

    std::uint64_t cycle() const { return engineClock ? engineClock->localCycle() : 0; }
    // A thread placed here reads this core's clock: the cycle CSR its local cycle, the time CSR
    // its local time at 10 MHz (ps → 100 ns).
    void bindClocks(Hart& hart) {
        hart.setClock([this] { return cycle(); }, [this] { return engine->clock.at(cycle()) / 100000; });
    }
};

struct ProgramState {
    ProgramRequest request;
    ElfProgram elf;
    std::unique_ptr<LinuxProcess> process;
    std::vector<std::unique_ptr<CoreRun>> cores;  // cores[0] runs the main thread
    std::vector<unsigned> coreOf;                 // thread → index into cores
    std::map<FunctionKey, FunctionCost> profile;
    // A thread was placed on a core, or the process ended: the cores without a thread look again.
    std::unique_ptr<sc_core::sc_event> threadsChanged;
    SpanObserver* trace = nullptr;  // --trace: one span per stay in a function, per core

    CoreRun& coreOfThread(unsigned thread) { return *cores[coreOf[thread]]; }
    std::uint64_t instructions() const {
        std::uint64_t n = 0;
        for (std::size_t t = 0; t < process->threadCount(); ++t)
            n += process->thread(t).hart->instructionsRetired();
        return n;
    }
    void traceFunction(CoreRun& core, std::uint64_t untilCycle) {
        const auto visited = profile.find(core.lastFunction);
        if (!trace || !core.profiling || untilCycle <= core.spanStart || visited == profile.end())
            return;
        const std::string name =
            process->threadCount() > 1
                ? fmt::format("{} (thread {})", visited->second.name, core.lastFunction.first)
                : visited->second.name;
        trace->span(core.engine->name + " functions", name, core.engine->clock.at(core.spanStart),
                    core.engine->clock.at(untilCycle));
        core.spanStart = untilCycle;
    }
};

// The stream of one core: the instructions of the threads placed on it, as ops.
std::unique_ptr<OpStream> makeCoreStream(ProgramState& state, CoreRun& core);

}  // namespace tessim::riscv
