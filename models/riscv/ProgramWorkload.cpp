#include "models/riscv/ProgramWorkload.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "models/riscv/ProgramRun.h"
#include "sim/config/ConfigError.h"
#include "sim/core/Time.h"

namespace tessim {

namespace {

using riscv::CoreRun;
using riscv::ProgramState;

class ProgramWorkload : public Workload {
public:
    explicit ProgramWorkload(std::unique_ptr<ProgramState> s) : s_(std::move(s)) {}

    nlohmann::ordered_json resolvedWorkload() const override {
        nlohmann::ordered_json j;
        j["kernel"] = "program";
        j["program"] = s_->request.path;
        j["arguments"] = s_->request.arguments;
        j["entry"] = fmt::format("{:#x}", s_->elf.entry);
        return j;
    }
    nlohmann::ordered_json resolvedPlan() const override {
        nlohmann::ordered_json cores = nlohmann::ordered_json::array();
        for (const auto& c : s_->cores)
            cores.push_back(c->engine->name);
        return {
            {"engine", s_->cores[0]->engine->name}, {"memory", s_->cores[0]->memory->name}, {"cores", cores}};
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> v;
        for (auto& c : s_->cores)
            v.push_back(EngineStream{c->engine->name, riscv::makeCoreStream(*s_, *c)});
        return v;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override { return {}; }
    void setTrace(SpanObserver* trace) override { s_->trace = trace; }
    // The run's tail after a core's last chunk (its ops completing) belongs to the function that
    // issued them, so that a thread's cycles add up to its core's: the main core's up to the end of
    // the run, the others' up to where their engines finished.
    nlohmann::ordered_json profile(Tick kernelEnd) const override {
        const bool threaded = s_->process->threadCount() > 1;
        std::map<riscv::FunctionKey, riscv::FunctionCost> costs = s_->profile;
        for (std::size_t k = 0; k < s_->cores.size(); ++k) {
            CoreRun& core = *s_->cores[k];
            if (!core.profiling)
                continue;
            const std::uint64_t end = k == 0 ? core.engine->clock.cyclesCeil(kernelEnd) : core.cycle();
            s_->traceFunction(core, end);
            if (end > core.profiledCycles)
                costs[core.lastFunction].cycles += end - core.profiledCycles;
        }
        std::vector<std::pair<riscv::FunctionKey, riscv::FunctionCost>> rows(costs.begin(), costs.end());
        std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
            if (a.first.first != b.first.first)
                return a.first.first < b.first.first;
            return a.second.cycles != b.second.cycles ? a.second.cycles > b.second.cycles
                                                      : a.second.name < b.second.name;
        });
        const std::uint64_t end = s_->cores[0]->engine->clock.cyclesCeil(kernelEnd);  // the run's cycles
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& [key, r] : rows) {
            nlohmann::ordered_json f;
            if (threaded) {  // one profile per thread, each on the core that ran it
                f["thread"] = key.first;
                f["core"] = s_->coreOfThread(key.first).engine->name;
            }
            f["function"] = r.name;
            f["cycles"] = r.cycles;
            f["share"] = end ? static_cast<double>(r.cycles) / static_cast<double>(end) : 0.0;
            f["instructions"] = r.instructions;
            f["ipc"] = r.cycles ? static_cast<double>(r.instructions) / static_cast<double>(r.cycles) : 0.0;
            // Where its cycles went, as the engine's stall breakdown counts them; "drain": the
            // run's end waiting for the last ops in flight (in the function that issued them).
            nlohmann::ordered_json why;
            std::uint64_t counted = 0;
            for (std::size_t k = 0; k < kStallReasons; ++k)
                if (r.byReason[k] > 0 && static_cast<StallReason>(k) != StallReason::Idle) {
                    why[std::string(stallReasonName(static_cast<StallReason>(k)))] = r.byReason[k];
                    counted += r.byReason[k];
                }
            if (r.cycles > counted)
                why["drain"] = r.cycles - counted;
            f["cycles_by_reason"] = why;
            out.push_back(std::move(f));
        }
        return out;
    }
    // The harts are the functional model: the process's memory holds the program's values.
    void initialise(FunctionalMemory&) override {}
    FunctionalCheck check(FunctionalMemory&) override { return {}; }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double) const override {
        auto& node = stats.child("workload");
        const riscv::LinuxProcess& p = *s_->process;
        const std::uint64_t retired = s_->instructions();
        std::uint64_t taken = 0, conditionals = 0, conditionalMisses = 0, jumpMisses = 0;
        std::array<std::uint64_t, riscv::kInstructionClasses> byClass{};
        for (const auto& c : s_->cores) {
            taken += c->ops->takenBranches();
            conditionals += c->ops->predictor().conditionals();
            conditionalMisses += c->ops->predictor().conditionalMisses();
            jumpMisses += c->ops->predictor().jumpMisses();
            for (unsigned k = 0; k < riscv::kInstructionClasses; ++k)
                byClass[k] += c->ops->retired(k);
        }
        node.add("exit_status", static_cast<std::uint64_t>(p.exitStatus()), "", "the program's exit status");
        node.add("threads", static_cast<std::uint64_t>(p.threadCount()), "",
                 "threads that ran (the main thread and those it started)");
        node.add("instructions", retired, "", "instructions retired (all threads)");
        node.add("ipc", cycles ? static_cast<double>(retired) / static_cast<double>(cycles) : 0.0, "",
                 "instructions retired per main-clock cycle");
        node.add("taken_branches", taken, "", "branches and jumps taken");
        node.add("conditional_branches", conditionals, "", "conditional branches executed");
        node.add("conditional_mispredictions", conditionalMisses, "",
                 "conditional branches the predictor got wrong");
        node.add("jump_mispredictions", jumpMisses, "",
                 "jumps whose target the predictor got wrong (returns, other indirect jumps)");
        node.add("mispredict_penalty", std::uint64_t{s_->cores[0]->engine->predictor.mispredictPenalty},
                 "cycles", "front-end refill after each misprediction (the core's mispredict_penalty)");
        node.add("system_calls", p.systemCalls(), "", "system calls made");
        node.add("output_bytes", p.bytesWritten(), "B", "bytes written to stdout and stderr");
        node.add("pages_touched", p.memory().framesUsed(), "",
                 "4 KiB pages the program touched (each has a physical frame)");
        auto& mix = node.child("instruction_mix");
        for (unsigned c = 0; c < riscv::kInstructionClasses; ++c)
            mix.add(riscv::kInstructionClassNames[c], byClass[c], "", "instructions of this class");
    }

private:
    std::unique_ptr<ProgramState> s_;
};

// A core a program's thread can run on: x0–x31 and f0–f31 are its scalar registers s0–s63,
// v0–v31 its vector registers, and it reaches a memory.
std::string unfitCore(const EngineInfo& e) {
    if (e.scalarRegisters < 64 || e.vectorRegisters < 32)
        return fmt::format(
            "{} has {} scalar and {} vector registers; a RISC-V program needs 64 scalar (x0–x31 "
            "and f0–f31) and 32 vector registers (scalar_registers, vector_registers)",
            e.name, e.scalarRegisters, e.vectorRegisters);
    if (e.memories.empty())
        return fmt::format("{} reaches no memory to run a program from", e.name);
    return "";
}

const config::Location kCommandLine{"<command line>", 0, 0};

// The cores the threads run on, in order (thread placement takes the first free one): the ones
// named, or else the main engine and every other engine declared under its key (k1: core0…core7).
std::vector<const EngineInfo*> programCores(const ProgramRequest& request, const TargetInfo& target) {
    std::vector<const EngineInfo*> cores;
    if (request.cores.empty()) {
        const EngineInfo& main = target.mainEngine();
        if (const std::string why = unfitCore(main); !why.empty())
            throw riscv::ProgramError(fmt::format("target '{}': its main engine {}", target.name, why));
        cores.push_back(&main);
        for (const auto& e : target.engines)
            if (&e != &main && e.key == main.key && unfitCore(e).empty())
                cores.push_back(&e);
        return cores;
    }
    std::set<std::string> seen;
    for (const std::string& name : request.cores) {
        const auto e = std::find_if(target.engines.begin(), target.engines.end(),
                                    [&](const EngineInfo& x) { return x.name == name; });
        if (e == target.engines.end()) {
            std::vector<std::string> names;
            for (const auto& x : target.engines)
                names.push_back(x.name);
            throw config::ConfigError(kCommandLine, "cores",
                                      fmt::format("target '{}' has no engine '{}' (it has {})", target.name,
                                                  name, fmt::join(names, ", ")));
        }
        if (!seen.insert(name).second)
            throw config::ConfigError(
                kCommandLine, "cores",
                fmt::format("{} is named twice (a core runs one thread at a time)", name));
        if (const std::string why = unfitCore(*e); !why.empty())
            throw config::ConfigError(kCommandLine, "cores",
                                      fmt::format("target '{}': {}", target.name, why));
        cores.push_back(&*e);
    }
    return cores;
}

}  // namespace

std::unique_ptr<Workload> makeProgramWorkload(const ProgramRequest& request, const TargetInfo& target) {
    auto s = std::make_unique<ProgramState>();
    s->request = request;
    s->elf = riscv::loadElfProgram(request.path);
    for (const EngineInfo* engine : programCores(request, target)) {
        auto core = std::make_unique<CoreRun>();
        core->engine = engine;
        for (const auto& space : target.spaces)
            if (space.id == engine->memories[0])
                core->memory = &space;
        core->ops.emplace(core->memory->id, engine->predictor);
        s->cores.push_back(std::move(core));
    }
    s->process = std::make_unique<riscv::LinuxProcess>(s->elf, request.arguments, std::vector<std::string>{},
                                                       s->cores[0]->memory->size, request.name);
    s->process->setMaxThreads(static_cast<unsigned>(s->cores.size()));
    if (request.stdoutToStderr)
        s->process->setStdoutFd(2);
    s->threadsChanged = std::make_unique<sc_core::sc_event>();
    // The main thread runs on the first core. Each thread's clocks are its core's local time
    // (ps → ns; the time CSR at 10 MHz).
    CoreRun& main = *s->cores[0];
    main.placed.push_back(0);
    s->coreOf.push_back(0);
    ProgramState* state = s.get();
    s->process->setClock([state](unsigned thread) {
        const CoreRun& core = state->coreOfThread(thread);
        return core.engine->clock.at(core.cycle()) / 1000;
    });
    main.bindClocks(s->process->hart());
    return std::make_unique<ProgramWorkload>(std::move(s));
}

}  // namespace tessim
