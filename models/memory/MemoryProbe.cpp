#include "models/memory/MemoryProbe.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace tessim {
namespace {

double gbps(std::uint64_t bytes, Tick ticks) {
    return ticks ? static_cast<double>(bytes) / ticksToSeconds(ticks) / 1e9 : 0.0;
}
double ns(Tick ticks) {
    return static_cast<double>(ticks) / 1e3;
}
// Rounded for stable, readable output.
double round3(double v) {
    return std::round(v * 1000.0) / 1000.0;
}

// A fixed-seed generator, so probe output is reproducible.
struct Lcg {
    std::uint64_t state = 0x9E3779B97F4A7C15ULL;
    Lcg() = default;
    explicit Lcg(std::uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ULL + 1) {}
    std::uint64_t next() {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 17;
    }
};

}  // namespace

MemoryProbe::MemoryProbe(sc_core::sc_module_name name, std::function<void()> reset, ProbeOptions options)
    : sc_core::sc_module(name), socket("socket"), reset_(std::move(reset)), options_(options) {
    gp_.set_extension(&ext_);
    gp_.set_byte_enable_ptr(nullptr);
    gp_.set_dmi_allowed(false);
}

MemoryProbe::~MemoryProbe() {
    gp_.clear_extension(&ext_);
}

Tick MemoryProbe::request(bool write, std::uint64_t addr, std::uint64_t bytes, Tick at,
                          const AccessExtension* shape) {
    ext_ = shape ? *shape : AccessExtension{};
    ext_.conflictTicks = 0;
    gp_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp_.set_address(addr);
    gp_.set_data_length(static_cast<unsigned>(bytes));
    gp_.set_streaming_width(static_cast<unsigned>(bytes));
    gp_.set_data_ptr(nullptr);
    gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = delayUntil(at);
    socket->b_transport(gp_, delay);
    if (gp_.is_response_error())
        throw std::runtime_error(fmt::format("probe: {} of {} B at {:#x} failed: {}",
                                             write ? "write" : "read", bytes, addr,
                                             gp_.get_response_string()));
    return absoluteAfter(delay);
}

Tick MemoryProbe::stream(bool write, std::uint64_t count,
                         const std::function<std::uint64_t(std::uint64_t)>& addr, Tick start) {
    std::vector<Tick> inflight(options_.outstanding, start);
    Tick last = start;
    for (std::uint64_t i = 0; i < count; ++i) {
        Tick& slot = inflight[i % inflight.size()];
        slot = request(write, addr(i), options_.requestBytes, slot);
        last = std::max(last, slot);
    }
    return last;
}

nlohmann::ordered_json MemoryProbe::probeDdr(Ddr& ddr) {
    const DdrConfig& c = ddr.config();
    const DdrAddressMap& map = ddr.addressMap();
    const Tick period = c.clock.period;
    const std::uint64_t req = options_.requestBytes;
    nlohmann::ordered_json out;
    out["standard"] = c.standard;
    out["peak_GBps"] = round3(c.peakBandwidth() / 1e9);

    // Latencies: an idle bank, its open row, then another row of the same bank.
    reset_();
    std::uint64_t a0 = map.encode(DdrLocation{0, 0, 0, 1, 0});
    std::uint64_t a1 = map.encode(DdrLocation{0, 0, 0, 2, 0});
    Tick done0 = request(false, a0, req, 0);
    Tick t1 = alignUp(done0 + 100'000, period);
    Tick done1 = request(false, a0, req, t1);
    Tick t2 = alignUp(done1 + 100'000, period);
    Tick done2 = request(false, a1, req, t2);
    out["row_hit_ns"] = round3(ns(done1 - t1));
    out["row_miss_ns"] = round3(ns(done2 - t2));
    out["row_empty_ns"] = round3(ns(done0));

    const std::uint64_t count = options_.streamBytes / req;
    const std::uint64_t bytes = count * req;
    reset_();
    Tick seqRead = stream(false, count, [&](std::uint64_t i) { return i * req; });
    double seqHitRate =
        static_cast<double>(ddr.rowHits()) /
        static_cast<double>(std::max<std::uint64_t>(1, ddr.rowHits() + ddr.rowMisses() + ddr.rowEmpty()));
    reset_();
    // The window closes once the writes still posted in the controller's queue reached the DRAM:
    // an accepted write is not yet written, and a window without them would beat the peak.
    Tick seqWrite = stream(true, count, [&](std::uint64_t i) { return i * req; });
    seqWrite = std::max(seqWrite, ddr.completePostedWrites());
    reset_();
    Lcg rng;
    const std::uint64_t slots = c.size / req;
    Tick randRead = stream(false, count, [&](std::uint64_t) { return rng.next() % slots * req; });
    double randHitRate =
        static_cast<double>(ddr.rowHits()) /
        static_cast<double>(std::max<std::uint64_t>(1, ddr.rowHits() + ddr.rowMisses() + ddr.rowEmpty()));
    out["seq_read_GBps"] = round3(gbps(bytes, seqRead));
    out["seq_write_GBps"] = round3(gbps(bytes, seqWrite));
    out["random_read_GBps"] = round3(gbps(bytes, randRead));
    out["seq_row_hit_rate"] = round3(seqHitRate);
    out["random_row_hit_rate"] = round3(randHitRate);
    out["refresh_overhead"] = round3(c.refreshOverhead());
    out["request_bytes"] = req;
    out["outstanding"] = options_.outstanding;
    out["stream_bytes"] = bytes;
    out["clock_MHz"] = round3(c.clock.hz() / 1e6);
    out["timing_cycles"] = {{"tCL", c.t.tCL},     {"tCWL", c.t.tCWL},        {"tRCD", c.t.tRCD},
                            {"tRP", c.t.tRP},     {"tRAS", c.t.tRAS},        {"tRFC", c.t.tRFC},
                            {"tREFI", c.t.tREFI}, {"burst", c.burstCycles()}};
    out["timings"] = ddrTimings(c);
    return out;
}

const char* DdrStreamSpec::name(Pattern p) {
    switch (p) {
    case Pattern::Sequential: return "seq";
    case Pattern::Random: return "random";
    case Pattern::Strided: return "strided";
    }
    return "?";
}

nlohmann::ordered_json MemoryProbe::ddrTimings(const DdrConfig& c) {
    const double tck = static_cast<double>(c.clock.period) / 1e3;
    nlohmann::ordered_json out;
    auto put = [&](const char* key, std::uint64_t cycles) {
        out[key] = {{"cycles", cycles}, {"ns", round3(static_cast<double>(cycles) * tck)}};
    };
    const DdrTiming& t = c.t;
    put("tCK", 1);
    put("tCL", t.tCL);
    put("tCWL", t.tCWL);
    put("tRCD", t.tRCD);
    put("tRP", t.tRP);
    put("tRAS", t.tRAS);
    put("tRTP", t.tRTP);
    put("tWR", t.tWR);
    put("burst", c.burstCycles());
    put("tCCD_S", t.tCCD_S);
    put("tCCD_L", t.tCCD_L);
    put("tRRD_S", t.tRRD_S);
    put("tRRD_L", t.tRRD_L);
    put("tFAW", t.tFAW);
    put("tWTR_S", t.tWTR_S);
    put("tWTR_L", t.tWTR_L);
    put("tRTW", t.tRTW);
    put("tDQSCK", t.tDQSCK);
    put("column_cycles", c.columnCycles);
    if (c.perBankRefresh) {
        put("tRFCpb", t.tRFCpb);
        put("tREFIpb", t.tREFIpb);
    } else {
        put("tRPab", t.tRPab);
        put("tRFC", t.tRFC);
        put("tREFI", t.tREFI);
    }
    return out;
}

nlohmann::ordered_json MemoryProbe::probeDdrStream(Ddr& ddr, const DdrStreamSpec& spec) {
    const DdrConfig& c = ddr.config();
    const std::uint64_t req = spec.requestBytes;
    const std::uint64_t slots = std::max<std::uint64_t>(1, c.size / req);
    Lcg addresses(spec.seed), mix(spec.seed + 1);
    auto addressOf = [&](std::uint64_t i) -> std::uint64_t {
        switch (spec.pattern) {
        case DdrStreamSpec::Pattern::Sequential: return i % slots * req;
        case DdrStreamSpec::Pattern::Random: return addresses.next() % slots * req;
        case DdrStreamSpec::Pattern::Strided: return (i * spec.stride) % (slots * req);
        }
        return 0;
    };
    // Reads with probability readRatio, drawn in 1/2^20 steps.
    const std::uint64_t readShare = static_cast<std::uint64_t>(std::llround(spec.readRatio * (1 << 20)));
    const Tick interval = spec.rate > 0 ? secondsToTicks(1.0 / spec.rate) : 0;

    reset_();
    std::vector<Tick> latencies;
    latencies.reserve(spec.requests);
    std::vector<Tick> inflight(spec.rate > 0 ? 0 : spec.outstanding, 0);
    Tick presented = 0, last = 0, stalls = 0;
    for (std::uint64_t i = 0; i < spec.requests; ++i) {
        const bool write = (mix.next() & ((1 << 20) - 1)) >= readShare;
        const std::uint64_t addr = addressOf(i);
        Tick arrival;
        if (spec.rate > 0) {
            // Open loop: the requester's schedule, unless the memory still holds back the last one.
            arrival = i * interval;
            const Tick at = std::max(arrival, presented);
            stalls += at - arrival;
            presented = at;
            const Tick done = request(write, addr, req, at);
            presented = std::max(presented, ddr.lastAcceptance());
            latencies.push_back(done - arrival);
            last = std::max(last, done);
        } else {
            Tick& slot = inflight[i % inflight.size()];
            arrival = slot;
            slot = request(write, addr, req, arrival);
            latencies.push_back(slot - arrival);
            last = std::max(last, slot);
        }
    }
    // Writes still posted count once they reach the DRAM.
    last = std::max(last, ddr.completePostedWrites());
    std::sort(latencies.begin(), latencies.end());
    auto percentile = [&](double q) {
        if (latencies.empty())
            return 0.0;
        // Nearest rank: the smallest latency with at least q of all at or below it.
        const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(latencies.size())));
        return ns(latencies[std::max<std::size_t>(rank, 1) - 1]);
    };
    double sum = 0.0;
    for (Tick l : latencies)
        sum += static_cast<double>(l);
    const std::uint64_t rowAccesses = ddr.rowHits() + ddr.rowMisses() + ddr.rowEmpty();
    const std::uint64_t busBytes = ddr.busBytesRead() + ddr.busBytesWritten();

    nlohmann::ordered_json out;
    out["pattern"] = DdrStreamSpec::name(spec.pattern);
    if (spec.pattern == DdrStreamSpec::Pattern::Strided)
        out["stride_bytes"] = spec.stride;
    if (spec.pattern == DdrStreamSpec::Pattern::Random)
        out["seed"] = spec.seed;
    out["read_ratio"] = round3(spec.readRatio);
    out["requests"] = spec.requests;
    out["request_bytes"] = req;
    if (spec.rate > 0) {
        out["arrival"] = "open-loop";
        out["rate_per_s"] = spec.rate;
        out["interval_ns"] = round3(ns(interval));
        out["back_pressure_ns"] = round3(ns(stalls));
    } else {
        out["arrival"] = "closed-loop";
        out["outstanding"] = spec.outstanding;
    }
    out["reads"] = ddr.reads();
    out["writes"] = ddr.writes();
    out["duration_ns"] = round3(ns(last));
    out["bandwidth_GBps"] = round3(gbps(spec.requests * req, last));
    out["bus_bandwidth_GBps"] = round3(gbps(busBytes, last));
    out["latency_ns"] = {
        {"mean", round3(latencies.empty() ? 0.0 : sum / 1e3 / static_cast<double>(latencies.size()))},
        {"p50", round3(percentile(0.50))},
        {"p99", round3(percentile(0.99))},
        {"max", round3(latencies.empty() ? 0.0 : ns(latencies.back()))}};
    out["row_hit_rate"] = round3(static_cast<double>(ddr.rowHits()) /
                                 static_cast<double>(std::max<std::uint64_t>(1, rowAccesses)));
    out["row_hits"] = ddr.rowHits();
    out["row_misses"] = ddr.rowMisses();
    out["row_empty"] = ddr.rowEmpty();
    out["activates"] = ddr.activates();
    out["precharges"] = ddr.precharges();
    out["refreshes"] = ddr.refreshesBy(last);
    out["bus_utilisation"] = round3(
        last ? static_cast<double>(ddr.busBusyTicks()) / (static_cast<double>(last) * c.channels) : 0.0);
    return out;
}

nlohmann::ordered_json MemoryProbe::probeCache(Cache& cache) {
    const CacheConfig& c = cache.config();
    const std::uint64_t line = c.lineBytes, req = options_.requestBytes;
    nlohmann::ordered_json out;
    out["size_bytes"] = c.size;
    out["ways"] = c.ways;
    out["line_bytes"] = line;

    reset_();
    Tick miss = request(false, 0, std::min(req, line), 0);
    Tick t1 = alignUp(miss + 100'000, c.clock.period);
    Tick hit = request(false, 0, std::min(req, line), t1) - t1;
    out["hit_ns"] = round3(ns(hit));
    out["miss_ns"] = round3(ns(miss));

    // A stream that fits (half the cache): a cold pass, then a warm pass that only hits.
    const std::uint64_t fitting = std::max<std::uint64_t>(1, c.size / 2 / req);
    auto sequential = [&](std::uint64_t i) { return i * req; };
    reset_();
    Tick cold = stream(false, fitting, sequential);
    std::uint64_t hitsBefore = cache.hits(), missesBefore = cache.misses();
    Tick start = alignUp(cold + 100'000, c.clock.period);
    Tick warm = stream(false, fitting, sequential, start);
    out["hit_read_GBps"] = round3(gbps(fitting * req, warm - start));
    std::uint64_t warmHits = cache.hits() - hitsBefore, warmMisses = cache.misses() - missesBefore;
    out["warm_hit_rate"] = round3(static_cast<double>(warmHits) /
                                  static_cast<double>(std::max<std::uint64_t>(1, warmHits + warmMisses)));

    // Streams of --stream-kib (at least one request) from a cold cache.
    const std::uint64_t big = std::max<std::uint64_t>(1, options_.streamBytes / req);
    reset_();
    Tick seq = stream(false, big, [&](std::uint64_t i) { return i * req; });
    out["seq_read_GBps"] = round3(gbps(big * req, seq));
    out["seq_hit_rate"] =
        round3(static_cast<double>(cache.hits()) /
               static_cast<double>(std::max<std::uint64_t>(1, cache.hits() + cache.misses())));
    out["mshr_full_stalls"] = cache.mshrStalls();
    reset_();
    Tick wr = stream(true, big, [&](std::uint64_t i) { return i * req; });
    // The lines the stream left dirty are written, not yet in memory: the window includes
    // writing them back (and the posted writes below draining), or it would beat the memory.
    const std::uint64_t writebacksInStream = cache.writebacks();
    wr = std::max(wr, drain_ ? drain_(wr) : cache.writeBackDirtyLines(wr));
    out["seq_write_GBps"] = round3(gbps(big * req, wr));
    out["writebacks"] = writebacksInStream;
    out["written_back_at_end"] = cache.writebacks() - writebacksInStream;
    out["request_bytes"] = req;
    out["outstanding"] = options_.outstanding;
    out["stream_bytes"] = big * req;
    return out;
}

nlohmann::ordered_json MemoryProbe::probeScratchpad(Scratchpad& spm) {
    const ScratchpadConfig& c = spm.config();
    nlohmann::ordered_json out;
    out["size_bytes"] = c.size;
    out["banks"] = c.banks;
    out["bank_width_bytes"] = c.bankWidth;
    out["ports"] = c.ports;
    out["peak_GBps"] = round3(c.peakBandwidth() / 1e9);
    reset_();
    out["latency_ns"] = round3(ns(request(false, 0, c.bankWidth, 0)));
    // Full-width accesses (one word per bank) streamed back to back.
    const std::uint64_t width = std::uint64_t{c.banks} * c.bankWidth;
    const std::uint64_t count = std::max<std::uint64_t>(1, std::min(options_.streamBytes, c.size) / width);
    reset_();
    Tick seq = 0;
    for (std::uint64_t i = 0; i < count; ++i)
        seq = std::max(seq, request(false, i * width % c.size, width, 0));
    out["seq_read_GBps"] = round3(gbps(count * width, seq));
    // Strided accesses of `banks` bank-wide elements: extra cycles from bank conflicts.
    nlohmann::ordered_json conflicts;
    for (std::uint64_t s :
         {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{c.banks}, std::uint64_t{c.banks} + 1}) {
        AccessExtension shape;
        shape.elementBytes = c.bankWidth;
        shape.elements = c.banks;
        shape.stride = static_cast<std::int64_t>(s * c.bankWidth);
        conflicts[std::to_string(s)] = spm.footprint(0, 0, &shape).conflictCycles();
    }
    out["conflict_cycles_by_stride"] = conflicts;
    out["stride_unit"] = "bank words; each access has one element per bank";
    return out;
}

}  // namespace tessim
