#include "workloads/memory/PointerChaseKernel.h"

#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/stats/StatsTree.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/MemoryLayout.h"

namespace tessim {
namespace {

constexpr std::uint64_t kChasePage = 4096;
// The pointer register: each load reads it (its address) and writes it (the next address).
constexpr std::uint8_t kPointer = kScalarRegBase + 1;

struct PointerChaseParams {
    std::uint64_t bytes = 0;
    std::uint64_t stride = 64;
    unsigned repeat = 1;
    std::string engine;
    const MemorySpaceInfo* memory = nullptr;
    std::uint64_t base = 0;
    std::vector<std::uint32_t> order;  // the lines in visiting order (one cycle through all)

    std::uint64_t loadsPerPass() const { return order.size(); }
};

// One random cycle through n lines (Sattolo's algorithm), from a fixed-seed generator so that
// runs are reproducible.
std::vector<std::uint32_t> randomCycle(std::uint64_t n) {
    std::vector<std::uint32_t> next(n);
    std::iota(next.begin(), next.end(), 0u);
    std::uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (std::uint64_t i = n; i > 1; --i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const std::uint64_t j = (state >> 17) % (i - 1);
        std::swap(next[i - 1], next[j]);
    }
    // Follow the cycle from line 0: the visiting order.
    std::vector<std::uint32_t> order(n);
    std::uint32_t at = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        order[i] = at;
        at = next[at];
    }
    return order;
}

class PointerChaseStream : public ChunkedOpStream {
public:
    explicit PointerChaseStream(const PointerChaseParams& p) : p_(p) {
        load_.kind = OpKind::ScalarLoad;
        load_.dtype = DType::I32;
        load_.space = p_.memory->id;
        load_.dst = kPointer;
        load_.src[0] = kPointer;
    }

protected:
    bool refill(std::vector<Op>& out) override {
        if (pass_ == p_.repeat)
            return false;
        for (unsigned i = 0; i < 256 && pass_ < p_.repeat; ++i) {
            out.push_back(load_);
            out.back().addr = p_.base + std::uint64_t{p_.order[next_]} * p_.stride;
            if (++next_ == p_.order.size()) {
                next_ = 0;
                ++pass_;
            }
        }
        return true;
    }

private:
    const PointerChaseParams p_;
    Op load_;
    unsigned pass_ = 0;
    std::uint64_t next_ = 0;
};

class PointerChaseKernel : public ConfiguredWorkload {
public:
    explicit PointerChaseKernel(PointerChaseParams p) : p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        j["engines"] = nlohmann::ordered_json::array({p_.engine});
        j["memory"] = p_.memory->name;
        j["base"] = p_.base;
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        s.push_back(EngineStream{p_.engine, std::make_unique<PointerChaseStream>(p_)});
        return s;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        return {{p_.memory->level, p_.loadsPerPass() * 4}};
    }
    // Timing only: the chain's addresses are in the ops, the loaded values are not used.
    void initialise(FunctionalMemory&) override {}
    FunctionalCheck check(FunctionalMemory&) override { return {}; }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        auto& node = stats.child("workload");
        const std::uint64_t loads = p_.loadsPerPass() * p_.repeat;
        node.add("loads", loads, "", "dependent loads, all passes");
        node.add("cycles_per_load", loads ? static_cast<double>(cycles) / static_cast<double>(loads) : 0.0,
                 "cycles", "main-clock cycles per load, all passes");
        node.add("ns_per_load", loads ? seconds * 1e9 / static_cast<double>(loads) : 0.0, "ns",
                 "nanoseconds per load, all passes");
    }

private:
    PointerChaseParams p_;
};

}  // namespace

std::unique_ptr<Workload> makePointerChaseKernel(const std::string&, const config::Node& workload,
                                                 const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    PointerChaseParams p;
    Reader w = workloadReader(workload);
    p.stride = w.get<Bytes>("stride", Bytes{64}, Range<Bytes>{Bytes{4}, Bytes{1u << 20}}).value;
    if (p.stride % 4 != 0)
        w.fail("stride", fmt::format("{} B is not a multiple of the 4 B loaded", p.stride));
    p.bytes = w.get<Bytes>("bytes", Range<Bytes>{Bytes{p.stride}, Bytes{std::uint64_t{1} << 30}}).value;
    p.repeat = w.get<unsigned>("repeat", 1u, Range<unsigned>{1, 1u << 20});
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    const std::vector<const EngineInfo*> engines = planEngines(pl, target, "threads");
    if (engines.size() != 1)
        pl.fail("threads", fmt::format("a pointer chase runs on one core, not {}", engines.size()));
    p.engine = engines[0]->name;
    if (engines[0]->memories.empty())
        pl.fail("threads", "engine '" + p.engine + "' reaches no memory");
    for (const auto& s : target.spaces)
        if (s.id == engines[0]->memories[0])
            p.memory = &s;
    pl.finish();
    MemoryLayout layout(*p.memory, kChasePage);
    p.base = layout.allocate("chain", p.bytes);
    layout.requireFits(w, "bytes", fmt::format("pointer chase over {} B", p.bytes));
    p.order = randomCycle(p.bytes / p.stride);
    auto k = std::make_unique<PointerChaseKernel>(std::move(p));
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
