#include "run/pipeline/Benchmark.h"

#include <chrono>
#include <stdexcept>

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

}  // namespace

const std::vector<std::string>& benchCases() {
    static const std::vector<std::string> cases{"fma-independent",    "fma-dependent",   "spm-load-store",
                                                "k1-l1-hit-load",     "k1-l1-hit-store", "k1-l1-hit-load-m8",
                                                "k1-l1-hit-store-m8", "k1-memcpy-64mib"};
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
