#include "sim/app/Benchmark.h"

#include <chrono>
#include <stdexcept>

#include "models/targets/ConfiguredTarget.h"
#include "sim/app/ConfigLibrary.h"
#include "sim/config/Loader.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"

namespace tessim {
namespace {

// Generates `total` ops of one pattern without storing them.
class SyntheticStream : public ChunkedOpStream {
public:
    SyntheticStream(const std::string& pattern, std::uint64_t total, std::uint8_t space)
        : pattern_(pattern == "fma-independent" ? Pattern::Independent
                   : pattern == "fma-dependent" ? Pattern::Dependent
                                                : Pattern::LoadStore),
          total_(total), space_(space) {}

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
            } else {
                bool store = done_ % 2 == 1;
                op.kind = store ? OpKind::VStore : OpKind::VLoad;
                op.space = space_;
                op.addr = (done_ * 32) % (128 * 1024);
                if (store)
                    op.src[0] = static_cast<std::uint8_t>(8 + (done_ / 2) % 24);
                else
                    op.dst = static_cast<std::uint8_t>(8 + (done_ / 2) % 24);
            }
        }
        return true;
    }

private:
    enum class Pattern { Independent, Dependent, LoadStore };
    Pattern pattern_;
    std::uint64_t total_;
    std::uint8_t space_;
    std::uint64_t done_ = 0;
};

}  // namespace

const std::vector<std::string>& benchCases() {
    static const std::vector<std::string> cases{"fma-independent", "fma-dependent", "spm-load-store"};
    return cases;
}

BenchFigure runBenchCase(const std::string& name, std::uint64_t ops) {
    bool known = false;
    for (const auto& c : benchCases())
        known |= c == name;
    if (!known)
        throw std::runtime_error("unknown benchmark case '" + name + "'");
    initSystemC();
    ConfiguredTarget target(config::loadYamlFile(resolveLibraryPath(LibraryKind::Target, "minimal")));
    Engine* engine = target.findEngine("core");
    engine->setStream(std::make_unique<SyntheticStream>(name, ops, target.info().space("spm").id));
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
