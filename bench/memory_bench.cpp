// Simulator speed of the memory models: 64-byte requests per wall-clock second through the DDR
// model (sequential and random addresses) and through a cache in front of it (hits, and a
// stream that misses to DDR), and through DDR4 with bank groups. Prints one JSON object (wall-clock
// and CPU-time rates). Goal: ≥ 10 million requests/s per core.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/memory/Cache.h"
#include "models/memory/Ddr.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"
#include "sim/core/SimulationSetup.h"

namespace {

using namespace tessim;

// Before the kernel prints its banner (stdout stays machine-readable).
const bool kBannerOff = [] { return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0; }();

template <class Config> Config configFrom(const std::string& yaml) {
    config::Node node = config::loadYamlString(yaml, "memory_bench.yaml");
    config::Reader r(node);
    Config c = Config::fromYaml(r, "bench");
    r.finish();
    return c;
}

// Issues 64-byte reads with a fixed number in flight, as a core's or a DMA's queue would.
struct Driver : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Driver> socket;
    tlm::tlm_generic_payload gp;
    AccessExtension ext;
    explicit Driver(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket") {
        gp.set_extension(&ext);
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_data_length(64);
        gp.set_streaming_width(64);
    }
    ~Driver() override { gp.clear_extension(&ext); }

    // Requests per second of this thread's CPU time in the last run(): on a shared machine the
    // wall-clock rate also counts time the thread waited for a core.
    double perCpuSecond = 0.0;
    // A hash of every completion time of the last run(): equal before and after a speed change
    // that must not change any result.
    std::uint64_t checksum = 0;
    static double cpuSeconds() {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
    }

    template <class AddressOf> double run(std::uint64_t count, AddressOf addressOf) {
        constexpr unsigned kInFlight = 32;
        // Kept as sc_time: the driver converts no tick count per request (a library call).
        sc_core::sc_time inflight[kInFlight] = {};
        auto start = std::chrono::steady_clock::now();
        const double cpuStart = cpuSeconds();
        checksum = 0;
        for (std::uint64_t i = 0; i < count; ++i) {
            sc_core::sc_time& delay = inflight[i % kInFlight];
            gp.set_address(addressOf(i));
            gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            socket->b_transport(gp, delay);
            checksum = (checksum ^ delay.value()) * 0x100000001b3ULL;
        }
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        perCpuSecond = static_cast<double>(count) / (cpuSeconds() - cpuStart);
        return static_cast<double>(count) / seconds;
    }
};

std::uint64_t lcg(std::uint64_t& s) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 17;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
    initSystemC();
    Ddr ddr("ddr", configFrom<DdrConfig>("preset: lpddr4x-2666-x32\n"));
    Ddr ddr2("ddr2", configFrom<DdrConfig>("preset: lpddr4x-2666-x32\n"));
    Ddr ddr4("ddr4", configFrom<DdrConfig>("preset: ddr4-2400-x64\n"));
    Cache cache("l2", configFrom<CacheConfig>("size: 512 KiB\nways: 8\nline: 64 B\nclock: 1.6 GHz\n"
                                              "hit_latency: 12\nmshrs: 16\nnext: ddr2\n"));
    Driver toDdr("to_ddr"), toCache("to_cache"), toDdr4("to_ddr4");
    toDdr.socket.bind(ddr.socket);
    toDdr4.socket.bind(ddr4.socket);
    cache.next.bind(ddr2.socket);
    cache.setNextLevel(0, ddr2.capacity());
    toCache.socket.bind(cache.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    // Requests per run: the first argument, 4 million by default.
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4'000'000;
    std::uint64_t seed = 1;
    const std::uint64_t ddrSlots = ddr.capacity() / 64;
    nlohmann::ordered_json out;
    out["schema"] = "tessim.bench.memory/1";
    out["requests"] = n;
    out["request_bytes"] = 64;
    out["ddr_sequential_per_s"] = toDdr.run(n, [](std::uint64_t i) { return i * 64; });
    ddr.resetTiming();
    out["ddr_sequential_per_cpu_s"] = toDdr.perCpuSecond;
    out["ddr_sequential_checksum"] = toDdr.checksum;
    out["ddr_random_per_s"] = toDdr.run(n, [&](std::uint64_t) { return lcg(seed) % ddrSlots * 64; });
    out["ddr_random_per_cpu_s"] = toDdr.perCpuSecond;
    out["ddr_random_checksum"] = toDdr.checksum;
    // DDR4 with bank groups, tFAW and turnarounds.
    const std::uint64_t ddr4Slots = ddr4.capacity() / 64;
    out["ddr4_sequential_per_s"] = toDdr4.run(n, [](std::uint64_t i) { return i * 64; });
    out["ddr4_sequential_per_cpu_s"] = toDdr4.perCpuSecond;
    out["ddr4_sequential_checksum"] = toDdr4.checksum;
    ddr4.resetTiming();
    out["ddr4_random_per_s"] = toDdr4.run(n, [&](std::uint64_t) { return lcg(seed) % ddr4Slots * 64; });
    out["ddr4_random_per_cpu_s"] = toDdr4.perCpuSecond;
    out["ddr4_random_checksum"] = toDdr4.checksum;
    // Cache hits: a 256 KiB working set in the 512 KiB cache (warm after its first pass).
    out["cache_hit_per_s"] = toCache.run(n, [](std::uint64_t i) { return (i % 4096) * 64; });
    out["cache_hit_rate"] =
        static_cast<double>(cache.hits()) / static_cast<double>(cache.hits() + cache.misses());
    cache.resetTiming();
    ddr2.resetTiming();
    // A stream 4× the cache: every request misses to DDR (and evicts).
    out["cache_miss_stream_per_s"] = toCache.run(n, [](std::uint64_t i) { return i * 64; });
    out["cache_miss_stream_checksum"] = toCache.checksum;
    cache.resetTiming();
    ddr2.resetTiming();
    // 90 % hits: a mix of both.
    out["cache_mixed_per_s"] = toCache.run(
        n, [&](std::uint64_t i) { return i % 10 == 0 ? (1ULL << 30) + i * 64 : (lcg(seed) % 4096) * 64; });
    out["cache_mixed_checksum"] = toCache.checksum;
    out["cache_mixed_hit_rate"] =
        static_cast<double>(cache.hits()) / static_cast<double>(cache.hits() + cache.misses());
    out["goal_per_s"] = 10e6;
    std::cout << out.dump(2) << std::endl;
    return 0;
}
