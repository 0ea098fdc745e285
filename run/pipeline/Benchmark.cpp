#include "run/pipeline/Benchmark.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <elf.h>
#include <unistd.h>

#include "models/targets/ConfiguredTarget.h"
#include "run/pipeline/ConfigLibrary.h"
#include "run/pipeline/Simulation.h"
#include "sim/config/Loader.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"

namespace tessim {
namespace {

enum class Pattern { Independent, Dependent, LoadStore, Loads, Stores };

// The L1-hit cases walk a 16 KiB buffer, half of k1's 32 KiB L1: only the first pass misses.
constexpr std::uint64_t kL1HitBuffer = 16 * 1024;
// The scratchpad case walks 128 KiB of the minimal target's SRAM.
constexpr std::uint64_t kSpmBuffer = 128 * 1024;

// Generates `total` ops of one pattern without storing them.
class SyntheticStream : public ChunkedOpStream {
public:
    // `lmul`: registers per load or store of the Loads and Stores patterns.
    SyntheticStream(Pattern pattern, std::uint64_t total, std::uint8_t space, unsigned lmul = 1)
        : pattern_(pattern), total_(total), space_(space),
          buffer_(pattern == Pattern::LoadStore ? kSpmBuffer : kL1HitBuffer), lmul_(lmul) {}

protected:
    bool refill(std::vector<Op>& out) override {
        if (done_ >= total_)
            return false;
        std::uint64_t n = std::min<std::uint64_t>(4096, total_ - done_);
        for (std::uint64_t i = 0; i < n; ++i, ++done_) {
            Op& op = out.emplace_back();
            op.dtype = DType::F32;
            op.vl = 8;
            if (pattern_ == Pattern::Independent) {
                op.kind = OpKind::Fma;
                op.dst = static_cast<std::uint8_t>(8 + done_ % 24);
                op.src[0] = 0;
                op.src[1] = 1;
                op.src[2] = 2;
            } else if (pattern_ == Pattern::Dependent) {
                op.kind = OpKind::Fma;
                op.dst = 3;
                op.src[0] = 0;
                op.src[1] = 1;
                op.src[2] = 3;
            } else if (pattern_ != Pattern::LoadStore) {
                // 8 × f32 = 32 B per register; register groups 8, 8 + lmul, ... below 32.
                op.kind = pattern_ == Pattern::Stores ? OpKind::VStore : OpKind::VLoad;
                op.space = space_;
                op.vl = 8 * lmul_;
                op.addr = (done_ * 32 * lmul_) % buffer_;
                const auto reg = static_cast<std::uint8_t>(8 + done_ % (24 / lmul_) * lmul_);
                (pattern_ == Pattern::Stores ? op.src[0] : op.dst) = reg;
            } else {
                bool store = done_ % 2 == 1;
                op.kind = store ? OpKind::VStore : OpKind::VLoad;
                op.space = space_;
                op.addr = (done_ * 32) % buffer_;
                if (store)
                    op.src[0] = static_cast<std::uint8_t>(8 + (done_ / 2) % 24);
                else
                    op.dst = static_cast<std::uint8_t>(8 + (done_ / 2) % 24);
            }
        }
        return true;
    }

private:
    Pattern pattern_;
    std::uint64_t total_;
    std::uint8_t space_;
    std::uint64_t buffer_;
    unsigned lmul_;
    std::uint64_t done_ = 0;
};

// A whole run of 64 MiB memcpy on k1, as `tessim run` does it.
BenchFigure runMemcpy64MiB(const std::string& name) {
    RunRequest request;
    request.target = "k1";
    request.workload = "memcpy";
    request.sets = {"workload.bytes=64MiB"};
    auto start = std::chrono::steady_clock::now();
    const nlohmann::ordered_json report = runSimulation(request);
    auto stop = std::chrono::steady_clock::now();
    BenchFigure f;
    f.name = name;
    f.ops = report.at("stats").at("k1").at("core0").at("memory_ops").at("value").get<std::uint64_t>();
    f.wallSeconds = std::chrono::duration<double>(stop - start).count();
    f.simulatedCycles = report.at("cycles").get<double>();
    return f;
}

// The scalar loop program of "k1-program-loop" (rv64g, no compressed forms), built in memory so
// that the bench needs no cross compiler: 7 instructions per iteration (a load, an add, a store,
// a xor, a shift, the counter and the back branch), the iteration count at _start + 56.
//   _start: auipc t1, 0; ld t0, 56(t1); addi sp, sp, -16
//   loop:   ld a1, 0(sp); add a1, a1, t0; sd a1, 0(sp); xor a2, a1, t0; slli a3, a2, 3;
//           addi t0, t0, -1; bnez t0, loop
//           li a0, 0; li a7, 93; ecall
constexpr std::uint32_t kLoopProgram[] = {0x00000317, 0x03833283, 0xff010113, 0x00013583, 0x005585b3,
                                          0x00b13023, 0x0055c633, 0x00361693, 0xfff28293, 0xfe0294e3,
                                          0x00000513, 0x05d00893, 0x00000073, 0x00000000};
// "k1-program-threads": the same loop on 4 threads. The main thread starts three with clone
// (CLONE_VM | CLONE_SIGHAND | CLONE_THREAD, each a 1 KiB stack below the last), then all four run
// the loop and exit (the process ends with the last); the iteration count at _start + 112.
//   _start: auipc t1, 0; ld t0, 112(t1); li s1, 3; mv s2, sp
//   spawn:  addi s2, s2, -1024; li a0, 0x10900; mv a1, s2; li a2, 0; li a3, 0; li a4, 0;
//           li a7, 220; ecall; beqz a0, start; addi s1, s1, -1; bnez s1, spawn
//   start:  addi sp, sp, -16; loop: (as above); li a0, 0; li a7, 93; ecall; nop
constexpr std::uint32_t kThreadsProgram[] = {
    0x00000317, 0x07033283, 0x00300493, 0x00010913, 0xc0090913, 0x00011537, 0x9005051b, 0x00090593,
    0x00000613, 0x00000693, 0x00000713, 0x0dc00893, 0x00000073, 0x00050663, 0xfff48493, 0xfc049ae3,
    0xff010113, 0x00013583, 0x005585b3, 0x00b13023, 0x0055c633, 0x00361693, 0xfff28293, 0xfe0294e3,
    0x00000513, 0x05d00893, 0x00000073, 0x00000013, 0x00000000, 0x00000000};
constexpr unsigned kLoopInstructionsPerIteration = 7;
constexpr unsigned kLoopThreads = 4;

// Writes `code` as a static RV64 ELF executable whose loop runs `iterations` iterations (the
// count at byte `countOffset` of the code).
void writeLoopProgram(const std::string& path, const std::uint32_t* code, std::size_t codeBytes,
                      std::size_t countOffset, std::uint64_t iterations) {
    constexpr std::uint64_t base = 0x10000, codeOffset = 128;
    std::vector<unsigned char> image(codeOffset + codeBytes + 8, 0);
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = EM_RISCV;
    eh.e_version = EV_CURRENT;
    eh.e_entry = base + codeOffset;
    eh.e_phoff = sizeof(Elf64_Ehdr);
    eh.e_ehsize = sizeof(Elf64_Ehdr);
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = PF_R | PF_X;
    ph.p_vaddr = ph.p_paddr = base;
    ph.p_filesz = ph.p_memsz = image.size();
    ph.p_align = 0x1000;
    std::memcpy(image.data(), &eh, sizeof eh);
    std::memcpy(image.data() + sizeof eh, &ph, sizeof ph);
    std::memcpy(image.data() + codeOffset, code, codeBytes);
    std::memcpy(image.data() + codeOffset + countOffset, &iterations, 8);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
    if (!out)
        throw std::runtime_error("cannot write the benchmark program '" + path + "'");
}

// A whole `tessim run --target k1 --program` of the scalar loop (on one thread, or on four):
// instructions retired, all threads together, per second of the run, elaboration and report
// included.
BenchFigure runProgramLoop(const std::string& name, std::uint64_t ops, bool threads) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("tessim-bench-loop-" + std::to_string(::getpid())))
            .string();
    const std::uint64_t iterations =
        std::max<std::uint64_t>(1, ops / kLoopInstructionsPerIteration / (threads ? kLoopThreads : 1));
    if (threads)
        writeLoopProgram(path, kThreadsProgram, sizeof kThreadsProgram, 112, iterations);
    else
        writeLoopProgram(path, kLoopProgram, sizeof kLoopProgram, 56, iterations);
    RunRequest request;
    request.target = "k1";
    request.program = path;
    auto start = std::chrono::steady_clock::now();
    nlohmann::ordered_json report;
    try {
        report = runSimulation(request);
    } catch (...) {
        std::filesystem::remove(path);
        throw;
    }
    auto stop = std::chrono::steady_clock::now();
    std::filesystem::remove(path);
    BenchFigure f;
    f.name = name;
    f.ops = report.at("stats").at("workload").at("instructions").at("value").get<std::uint64_t>();
    f.wallSeconds = std::chrono::duration<double>(stop - start).count();
    f.simulatedCycles = report.at("cycles").get<double>();
    return f;
}

}  // namespace

const std::vector<std::string>& benchCases() {
    static const std::vector<std::string> cases{"fma-independent",    "fma-dependent",   "spm-load-store",
                                                "k1-l1-hit-load",     "k1-l1-hit-store", "k1-l1-hit-load-m8",
                                                "k1-l1-hit-store-m8", "k1-memcpy-64mib", "k1-program-loop",
                                                "k1-program-threads"};
    return cases;
}

BenchFigure runBenchCase(const std::string& name, std::uint64_t ops) {
    bool known = false;
    for (const auto& c : benchCases())
        known |= c == name;
    if (!known)
        throw std::runtime_error("unknown benchmark case '" + name + "'");
    if (name == "k1-memcpy-64mib")
        return runMemcpy64MiB(name);
    if (name == "k1-program-loop" || name == "k1-program-threads")
        return runProgramLoop(name, ops, name == "k1-program-threads");
    const Pattern pattern = name == "fma-independent"              ? Pattern::Independent
                            : name == "fma-dependent"              ? Pattern::Dependent
                            : name == "spm-load-store"             ? Pattern::LoadStore
                            : name.rfind("k1-l1-hit-load", 0) == 0 ? Pattern::Loads
                                                                   : Pattern::Stores;
    const unsigned lmul = name.size() > 3 && name.compare(name.size() - 3, 3, "-m8") == 0 ? 8 : 1;
    const bool onK1 = pattern == Pattern::Loads || pattern == Pattern::Stores;
    initSystemC();
    ConfiguredTarget target(
        config::loadYamlFile(resolveLibraryPath(LibraryKind::Target, onK1 ? "k1" : "minimal")));
    Engine* engine = target.findEngine(onK1 ? "core0" : "core");
    // k1's core0 reaches its own L1 first.
    const std::uint8_t space =
        onK1 ? target.info().findEngine("core0")->memories.at(0) : target.info().space("spm").id;
    engine->setStream(std::make_unique<SyntheticStream>(pattern, ops, space, lmul));
    auto start = std::chrono::steady_clock::now();
    sc_core::sc_start();
    rethrowProcessFailure();
    auto stop = std::chrono::steady_clock::now();
    BenchFigure f;
    f.name = name;
    f.ops = engine->opsIssued();
    f.wallSeconds = std::chrono::duration<double>(stop - start).count();
    f.simulatedCycles = static_cast<double>(engine->finishCycle());
    return f;
}

}  // namespace tessim
