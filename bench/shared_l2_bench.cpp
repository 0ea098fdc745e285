// Simulator speed of a multi-core memory system: eight engines stream axpy slices through
// private L1 caches into one shared L2 and one LPDDR4X. Prints one JSON object with the memory
// ops (vector loads and stores) simulated per wall-clock second, all cores together: L1 misses
// ordered in time (miss_lookahead 0) with a 1 µs and a 10 ns temporal-decoupling quantum, and
// unordered with 1 µs. Goal: ≥ 5 million memory ops/s in total.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>
#include <systemc>

#include "models/memory/Memory.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/core/SimulationSetup.h"
#include "sim/ir/OpStream.h"

namespace {

using namespace tessim;

const bool kBannerOff = [] { return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0; }();

constexpr unsigned kCores = 8, kVl = 8, kUnroll = 8;

std::string targetYaml(const std::string& quantum, const std::string& lookahead) {
    std::string y = std::string("name: bench-eight-cores\nclock: 1.6 GHz\nenergy_table: ") +
                    TESSIM_CONFIG_DIR +
                    "/energy/horowitz-45nm.yaml\n"
                    "ddr: {impl: ddr, preset: lpddr4x-2666-x32}\n"
                    "l2: {impl: cache, size: 512 KiB, ways: 8, line: 64 B, clock: 1.6 GHz, hit_latency: 12, "
                    "mshrs: 16, next: ddr}\n";
    for (unsigned c = 0; c < kCores; ++c)
        y += "l1_" + std::to_string(c) +
             ": {impl: cache, level: l1, size: 32 KiB, ways: 4, line: 64 B, clock: 1.6 GHz, hit_latency: 3, "
             "mshrs: 8, " +
             (lookahead.empty() ? "" : "miss_lookahead: " + lookahead + ", ") + "next: l2}\n";
    for (unsigned c = 0; c < kCores; ++c)
        y += "core" + std::to_string(c) + ":\n  impl: engine\n  quantum: " + quantum +
             "\n  register_size: 32 B\n  memories: [l1_" + std::to_string(c) +
             "]\n  units:\n"
             "    valu: {class: compute, dtypes: [f32], energy: vector_alu, ops: {fma: {latency: 5, "
             "reciprocal: 1}}}\n"
             "    lsu: {class: memory, dtypes: [f32], energy: load_store, bytes_per_cycle: 16, "
             "strided_elements_per_cycle: 1, ops: {vload: {latency: 1}, vstore: {latency: 1}}}\n";
    return y;
}

// y ← α·x + y over one core's slice, a block of kUnroll vectors per refill.
class AxpySlice : public ChunkedOpStream {
public:
    AxpySlice(std::uint8_t space, std::uint64_t base, std::uint64_t elements)
        : space_(space), base_(base), elements_(elements) {}

protected:
    bool refill(std::vector<Op>& out) override {
        if (next_ >= elements_)
            return false;
        for (unsigned u = 0; u < kUnroll; ++u) {
            out.push_back(access(OpKind::VLoad, static_cast<std::uint8_t>(u), xAddr(u)));
            out.push_back(access(OpKind::VLoad, static_cast<std::uint8_t>(8 + u), yAddr(u)));
        }
        for (unsigned u = 0; u < kUnroll; ++u) {
            Op fma = vector(OpKind::Fma, static_cast<std::uint8_t>(8 + u));
            fma.src[0] = static_cast<std::uint8_t>(u);
            fma.src[1] = 16;
            fma.src[2] = static_cast<std::uint8_t>(8 + u);
            out.push_back(fma);
        }
        for (unsigned u = 0; u < kUnroll; ++u) {
            Op st = access(OpKind::VStore, kNoReg, yAddr(u));
            st.src[0] = static_cast<std::uint8_t>(8 + u);
            out.push_back(st);
        }
        next_ += kVl * kUnroll;
        return true;
    }

private:
    static Op vector(OpKind kind, std::uint8_t dst) {
        Op op;
        op.kind = kind;
        op.vl = kVl;
        op.dst = dst;
        return op;
    }
    Op access(OpKind kind, std::uint8_t reg, std::uint64_t addr) const {
        Op op = vector(kind, reg);
        op.space = space_;
        op.addr = addr;
        return op;
    }
    std::uint64_t xAddr(unsigned u) const { return base_ + (next_ + u * kVl) * 4; }
    std::uint64_t yAddr(unsigned u) const { return (1ULL << 30) + xAddr(u); }

    std::uint8_t space_;
    std::uint64_t base_, elements_, next_ = 0;
};

// `lookahead`: the L1s' miss_lookahead ("" = misses never wait).
nlohmann::ordered_json run(const std::string& quantum, const std::string& lookahead,
                           std::uint64_t elementsPerCore) {
    initSystemC();
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    ConfiguredTarget target(config::loadYamlString(targetYaml(quantum, lookahead), "shared_l2_bench.yaml"));
    for (unsigned c = 0; c < kCores; ++c) {
        std::uint8_t space = target.info().space("l1_" + std::to_string(c)).id;
        target.findEngine("core" + std::to_string(c))
            ->setStream(std::make_unique<AxpySlice>(space, c * elementsPerCore * 4, elementsPerCore));
    }
    auto start = std::chrono::steady_clock::now();
    sc_core::sc_start();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Two loads and a store per vector.
    const std::uint64_t memoryOps = kCores * elementsPerCore / kVl * 3;
    nlohmann::ordered_json j;
    j["quantum"] = quantum;
    j["l1_miss_lookahead"] = lookahead.empty() ? "none" : lookahead;
    j["memory_ops"] = memoryOps;
    j["simulated_s"] = ticksToSeconds(target.kernelEnd());
    j["wall_s"] = wall;
    j["memory_ops_per_s"] = static_cast<double>(memoryOps) / wall;
    j["ddr_bytes"] = target.findMemory("ddr")->bytesRead() + target.findMemory("ddr")->bytesWritten();
    return j;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
    const std::uint64_t elementsPerCore = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1ULL << 20);
    nlohmann::ordered_json out;
    out["schema"] = "tessim.bench.shared-l2/1";
    out["cores"] = kCores;
    out["elements_per_core"] = elementsPerCore;
    const std::string ordered = "0 ns";
    out["runs"] = nlohmann::ordered_json::array({run("1 us", ordered, elementsPerCore),
                                                 run("10 ns", ordered, elementsPerCore),
                                                 run("1 us", "", elementsPerCore)});
    out["goal_memory_ops_per_s"] = 5e6;
    std::cout << out.dump(2) << std::endl;
    return 0;
}
