#include "workloads/conv/ConvKernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {
namespace {

constexpr std::uint32_t kTagIn[2] = {1, 2};
constexpr std::uint32_t kTagOut[2] = {3, 4};
constexpr std::uint32_t kTagInit = 5;

struct ConvParams {
    std::string name;
    ConvShape s;
    ConvStrategy strategy = ConvStrategy::DoubleBuffer;
    std::string strategyName;
    ConvTiling t;
    SramLayout layout;
    std::string engine;
    const MemorySpaceInfo* sram = nullptr;
    const MemorySpaceInfo* ddr = nullptr;
    unsigned dmaChannels = 4;
    std::uint64_t ddrIn = 0, ddrW = 0, ddrOut = 0, ddrZero = 0;
    std::uint32_t nH = 0, nW = 0, nC = 0, nF = 0;
    std::uint64_t steps() const { return std::uint64_t{nH} * nW * nC * nF; }
};

std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
std::int8_t value(std::uint64_t i, std::uint64_t salt) {
    return static_cast<std::int8_t>(mix((i + 1) * 0x9E3779B97F4A7C15ULL ^ salt) & 0xFF);
}

// Decomposes step index i (loop order: filters, rows, columns, input channels).
struct Step {
    std::uint32_t f, h, w, c;
    bool firstC() const { return c == 0; }
};

class ConvStream : public ChunkedOpStream {
public:
    explicit ConvStream(const ConvParams& p) : p_(p) {}

protected:
    bool refill(std::vector<Op>& out) override {
        const std::uint64_t n = p_.steps();
        if (!started_) {
            started_ = true;
            if (p_.s.pad > 0) {
                out.push_back(dma(kTagInit, 3 % p_.dmaChannels, p_.ddr->id, p_.sram->id,
                                  static_cast<std::uint32_t>(p_.layout.zeroBytes), 1, 1, p_.ddrZero,
                                  p_.layout.zero, 0, 0, 0, 0));
                out.push_back(wait(kTagInit));
            }
            if (p_.strategy == ConvStrategy::DoubleBuffer) load(0, 0, out);
            return true;
        }
        if (i_ > n) return false;
        if (i_ == n) {
            ++i_;
            if (p_.strategy == ConvStrategy::DoubleBuffer && pendingOut_ >= 0) {
                store(static_cast<std::uint64_t>(pendingOut_), out);
                out.push_back(wait(kTagOut[0]));
                out.push_back(wait(kTagOut[1]));
            }
            return !out.empty() || false;
        }
        const std::uint64_t i = i_++;
        Step st = step(i);
        const std::uint64_t tile = i / p_.nC;  // output tile index
        const bool last = st.c + 1 == p_.nC;
        if (p_.strategy != ConvStrategy::DoubleBuffer) {
            load(i, 0, out);
            out.push_back(wait(kTagIn[0]));
            out.push_back(mac(st, 0, 0));
            out.push_back(fence());
            if (last) {
                store(tile, out);
                out.push_back(wait(kTagOut[0]));
            }
            return true;
        }
        const unsigned slot = i % 2, oslot = tile % 2;
        out.push_back(wait(kTagIn[slot]));
        if (st.firstC()) out.push_back(wait(kTagOut[oslot]));  // write-back of tile − 2 left this buffer
        out.push_back(mac(st, slot, oslot));
        if (i + 1 < p_.steps()) load(i + 1, (i + 1) % 2, out);
        if (pendingOut_ >= 0) {
            store(static_cast<std::uint64_t>(pendingOut_), out);
            pendingOut_ = -1;
        }
        out.push_back(fence());
        if (last) pendingOut_ = static_cast<std::int64_t>(tile);
        return true;
    }

private:
    Step step(std::uint64_t i) const {
        Step s;
        s.c = static_cast<std::uint32_t>(i % p_.nC);
        i /= p_.nC;
        s.w = static_cast<std::uint32_t>(i % p_.nW);
        i /= p_.nW;
        s.h = static_cast<std::uint32_t>(i % p_.nH);
        s.f = static_cast<std::uint32_t>(i / p_.nH);
        return s;
    }
    TileSpan spanH(const Step& st) const {
        return tileSpan(st.h * p_.t.th, p_.t.th, p_.s.outH(), p_.s.h, p_.s.k, p_.s.stride, p_.s.pad);
    }
    TileSpan spanW(const Step& st) const {
        return tileSpan(st.w * p_.t.tw, p_.t.tw, p_.s.outW(), p_.s.w, p_.s.k, p_.s.stride, p_.s.pad);
    }
    std::uint32_t chunk(std::uint32_t index, std::uint32_t tile, std::uint32_t total) const {
        return std::min(tile, total - index * tile);
    }

    Op dma(std::uint32_t tag, unsigned channel, std::uint8_t src, std::uint8_t dst, std::uint32_t rowBytes,
           std::uint32_t rows, std::uint32_t planes, std::uint64_t srcAddr, std::uint64_t dstAddr, std::int64_t srs,
           std::int64_t sps, std::int64_t drs, std::int64_t dps) const {
        Op op;
        op.kind = OpKind::DmaStart;
        op.tag = tag;
        op.dma = DmaArgs{};
        op.dma.srcSpace = src;
        op.dma.dstSpace = dst;
        op.dma.channel = static_cast<std::uint8_t>(channel);
        op.dma.rowBytes = rowBytes;
        op.dma.rows = rows;
        op.dma.planes = planes;
        op.dma.src = srcAddr;
        op.dma.dst = dstAddr;
        op.dma.srcRowStride = srs;
        op.dma.srcPlaneStride = sps;
        op.dma.dstRowStride = drs;
        op.dma.dstPlaneStride = dps;
        return op;
    }
    static Op wait(std::uint32_t tag) {
        Op op;
        op.kind = OpKind::DmaWait;
        op.tag = tag;
        return op;
    }
    Op fence() const {
        Op op;
        op.kind = OpKind::MacTile;
        op.dtype = DType::I8;
        op.mac = MacTileArgs{};
        op.mac.space = p_.sram->id;
        op.mac.stride = 1;
        return op;
    }
    Op mac(const Step& st, unsigned slot, unsigned oslot) const {
        TileSpan h = spanH(st), w = spanW(st);
        Op op;
        op.kind = OpKind::MacTile;
        op.dtype = DType::I8;
        op.mac = MacTileArgs{};
        op.mac.space = p_.sram->id;
        op.mac.accumulate = st.c > 0;
        op.mac.stride = static_cast<std::uint8_t>(p_.s.stride);
        op.mac.kh = op.mac.kw = static_cast<std::uint8_t>(p_.s.k);
        op.mac.pad = static_cast<std::uint8_t>(p_.s.pad);
        op.mac.channels = static_cast<std::uint16_t>(chunk(st.c, p_.t.tc, p_.s.channels));
        op.mac.filters = static_cast<std::uint16_t>(chunk(st.f, p_.t.tf, p_.s.filters));
        op.mac.inH = h.in;
        op.mac.inW = w.in;
        op.mac.outH = h.n;
        op.mac.outW = w.n;
        op.mac.in = p_.layout.slotIn[slot];
        op.mac.weights = p_.layout.slotW[slot];
        op.mac.out = p_.layout.slotOut[oslot];
        return op;
    }
    // DMA of step i's operands into buffer `slot`: weights when the slot holds other ones, the
    // valid input window, and zeros for the padding.
    void load(std::uint64_t i, unsigned slot, std::vector<Op>& out) {
        Step st = step(i);
        const auto& s = p_.s;
        const std::uint32_t tc = chunk(st.c, p_.t.tc, s.channels), tf = chunk(st.f, p_.t.tf, s.filters);
        const std::uint64_t kk = std::uint64_t{s.k} * s.k;
        std::int64_t key = static_cast<std::int64_t>(st.f) * p_.nC + st.c;
        if (slotWeights_[slot] != key) {
            slotWeights_[slot] = key;
            std::uint64_t src = p_.ddrW + (std::uint64_t{st.f} * p_.t.tf * s.channels + std::uint64_t{st.c} * p_.t.tc) * kk;
            out.push_back(dma(kTagIn[slot], 1 % p_.dmaChannels, p_.ddr->id, p_.sram->id,
                              static_cast<std::uint32_t>(tc * kk), tf, 1, src, p_.layout.slotW[slot],
                              static_cast<std::int64_t>(s.channels * kk), 0, static_cast<std::int64_t>(tc * kk), 0));
        }
        TileSpan h = spanH(st), w = spanW(st);
        const std::uint64_t base = p_.layout.slotIn[slot];
        const std::int64_t plane = std::int64_t{h.in} * w.in;
        if (h.valid > 0 && w.valid > 0) {
            std::uint64_t y0 = static_cast<std::uint64_t>(h.i0 + h.padBefore), x0 = static_cast<std::uint64_t>(w.i0 + w.padBefore);
            std::uint64_t src = p_.ddrIn + (std::uint64_t{st.c} * p_.t.tc * s.h + y0) * s.w + x0;
            std::uint64_t dst = base + std::uint64_t{h.padBefore} * w.in + w.padBefore;
            out.push_back(dma(kTagIn[slot], 0, p_.ddr->id, p_.sram->id, w.valid, h.valid, tc, src, dst, s.w,
                              std::int64_t{s.h} * s.w, w.in, plane));
        }
        // Zeros: whole padding rows, then the padding columns of the valid rows.
        auto zero = [&](std::uint64_t dst, std::uint32_t rowBytes, std::uint32_t rows) {
            if (rowBytes == 0 || rows == 0) return;
            out.push_back(dma(kTagIn[slot], 3 % p_.dmaChannels, p_.sram->id, p_.sram->id, rowBytes, rows, tc,
                              p_.layout.zero, dst, 0, 0, w.in, plane));
        };
        zero(base, w.in, h.padBefore);
        zero(base + std::uint64_t{h.padBefore + h.valid} * w.in, w.in, h.padAfter);
        zero(base + std::uint64_t{h.padBefore} * w.in, w.padBefore, h.valid);
        zero(base + std::uint64_t{h.padBefore} * w.in + w.padBefore + w.valid, w.padAfter, h.valid);
    }
    void store(std::uint64_t tile, std::vector<Op>& out) {
        Step st = step(tile * p_.nC);
        const unsigned oslot = p_.strategy == ConvStrategy::DoubleBuffer ? tile % 2 : 0;
        TileSpan h = spanH(st), w = spanW(st);
        const std::uint32_t tf = chunk(st.f, p_.t.tf, p_.s.filters);
        const std::uint64_t ho = p_.s.outH(), wo = p_.s.outW();
        std::uint64_t dst = p_.ddrOut + ((std::uint64_t{st.f} * p_.t.tf * ho + h.o0) * wo + w.o0) * 4;
        out.push_back(dma(kTagOut[oslot], 2 % p_.dmaChannels, p_.sram->id, p_.ddr->id, w.n * 4, h.n, tf,
                          p_.layout.slotOut[oslot], dst, std::int64_t{w.n} * 4, std::int64_t{w.n} * h.n * 4,
                          static_cast<std::int64_t>(wo * 4), static_cast<std::int64_t>(ho * wo * 4)));
    }

    ConvParams p_;
    bool started_ = false;
    std::uint64_t i_ = 0;
    std::int64_t pendingOut_ = -1;
    std::int64_t slotWeights_[2] = {-1, -1};
};

class ConvKernel : public Workload {
public:
    explicit ConvKernel(ConvParams p) : p_(std::move(p)) {}

    nlohmann::ordered_json resolvedWorkload() const override {
        nlohmann::ordered_json j;
        j["kernel"] = "conv2d";
        if (!p_.name.empty()) j["name"] = p_.name;
        j["h"] = p_.s.h;
        j["w"] = p_.s.w;
        j["channels"] = p_.s.channels;
        j["filters"] = p_.s.filters;
        j["k"] = p_.s.k;
        j["stride"] = p_.s.stride;
        j["pad"] = p_.s.pad;
        j["dtype"] = "i8";
        j["out_h"] = p_.s.outH();
        j["out_w"] = p_.s.outW();
        j["macs"] = p_.s.macs();
        return j;
    }
    nlohmann::ordered_json resolvedPlan() const override {
        nlohmann::ordered_json j;
        j["strategy"] = p_.strategyName;
        j["engine"] = p_.engine;
        j["sram"] = p_.sram->name;
        j["ddr"] = p_.ddr->name;
        j["tile_h"] = p_.t.th;
        j["tile_w"] = p_.t.tw;
        j["tile_c"] = p_.t.tc;
        j["tile_f"] = p_.t.tf;
        j["steps"] = p_.steps();
        j["sram_bytes_used"] = p_.layout.total;
        j["sram_bytes"] = p_.sram->size;
        std::uint64_t fetch = inputFetchBytes(p_.s, p_.t);
        j["input_fetch_bytes"] = fetch;
        j["halo_bytes"] = fetch - std::uint64_t{p_.s.channels} * p_.s.h * p_.s.w;
        j["weight_fetch_bytes"] = weightFetchBytes();
        j["zero_line_bytes"] = p_.layout.zeroBytes;
        j["output_bytes"] = outputBytes();
        return j;
    }
    std::uint64_t outputBytes() const { return std::uint64_t{p_.s.filters} * p_.s.outH() * p_.s.outW() * 4; }
    std::uint64_t weightBytes() const { return std::uint64_t{p_.s.filters} * p_.s.channels * p_.s.k * p_.s.k; }
    std::uint64_t weightFetchBytes() const {
        // Reloaded when a buffer's (filter, channel) chunk changes: every step when split, else once per buffer.
        if (p_.nC == 1 && p_.nF == 1) return weightBytes() * std::min<std::uint64_t>(p_.layout.slots, p_.steps());
        if (p_.nC == 1) {
            // Chunk changes only at filter boundaries: each buffer loads each filter chunk at most once per run of steps.
            std::uint64_t total = 0;
            std::int64_t held[2] = {-1, -1};
            for (std::uint64_t i = 0; i < p_.steps(); ++i) {
                unsigned slot = p_.layout.slots == 2 ? i % 2 : 0;
                std::int64_t f = static_cast<std::int64_t>(i / (std::uint64_t{p_.nH} * p_.nW));
                if (held[slot] != f) {
                    held[slot] = f;
                    total += std::uint64_t{std::min(p_.t.tf, p_.s.filters - static_cast<std::uint32_t>(f) * p_.t.tf)} *
                             p_.s.channels * p_.s.k * p_.s.k;
                }
            }
            return total;
        }
        return weightBytes() * std::uint64_t{p_.nH} * p_.nW;
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        s.push_back(EngineStream{p_.engine, std::make_unique<ConvStream>(p_)});
        return s;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        std::uint64_t in = std::uint64_t{p_.s.channels} * p_.s.h * p_.s.w;
        return {{p_.ddr->level, in + weightBytes() + outputBytes()}};
    }
    void initialise(FunctionalMemory& memory) override {
        std::vector<std::int8_t> buf(std::uint64_t{p_.s.channels} * p_.s.h * p_.s.w);
        for (std::uint64_t i = 0; i < buf.size(); ++i) buf[i] = value(i, 1);
        memory.write(p_.ddr->id, p_.ddrIn, buf.data(), buf.size());
        buf.resize(weightBytes());
        for (std::uint64_t i = 0; i < buf.size(); ++i) buf[i] = value(i, 2);
        memory.write(p_.ddr->id, p_.ddrW, buf.data(), buf.size());
        if (p_.layout.zeroBytes) {
            std::vector<std::uint8_t> z(p_.layout.zeroBytes, 0);
            memory.write(p_.ddr->id, p_.ddrZero, z.data(), z.size());
        }
        // Poison the output and the SRAM so that nothing passes by accident.
        std::vector<std::uint8_t> poison(outputBytes(), 0xA5);
        memory.write(p_.ddr->id, p_.ddrOut, poison.data(), poison.size());
        poison.assign(p_.layout.total, 0x5A);
        memory.write(p_.sram->id, 0, poison.data(), poison.size());
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        const auto& s = p_.s;
        const std::uint32_t ho = s.outH(), wo = s.outW();
        std::vector<std::int32_t> got(std::uint64_t{s.filters} * ho * wo);
        memory.read(p_.ddr->id, p_.ddrOut, got.data(), got.size() * 4);
        for (std::uint32_t f = 0; f < s.filters; ++f)
            for (std::uint32_t y = 0; y < ho; ++y)
                for (std::uint32_t x = 0; x < wo; ++x) {
                    std::int32_t acc = 0;
                    for (std::uint32_t ch = 0; ch < s.channels; ++ch)
                        for (std::uint32_t ky = 0; ky < s.k; ++ky)
                            for (std::uint32_t kx = 0; kx < s.k; ++kx) {
                                std::int64_t iy = std::int64_t{y} * s.stride + ky - s.pad;
                                std::int64_t ix = std::int64_t{x} * s.stride + kx - s.pad;
                                if (iy < 0 || ix < 0 || iy >= s.h || ix >= s.w) continue;
                                std::int32_t in = value((std::uint64_t{ch} * s.h + iy) * s.w + ix, 1);
                                std::int32_t wv = value(((std::uint64_t{f} * s.channels + ch) * s.k + ky) * s.k + kx, 2);
                                acc += in * wv;
                            }
                    std::uint64_t idx = (std::uint64_t{f} * ho + y) * wo + x;
                    ++c.elements;
                    double err = std::abs(double(got[idx]) - double(acc));
                    c.maxAbsError = std::max(c.maxAbsError, err);
                    if (got[idx] != acc && c.mismatches++ == 0)
                        c.firstMismatch = fmt::format("output [{}][{}][{}]: simulated {} reference {}", f, y, x, got[idx], acc);
                }
        return c;
    }

private:
    ConvParams p_;
};

std::uint32_t readTile(config::Reader& r, const std::string& key, std::uint32_t fallback) {
    if (!r.has(key)) return fallback;
    std::string v = r.get<std::string>(key);
    if (v == "auto") return 0;
    if (v == "full") return kFull;
    try {
        std::size_t pos = 0;
        long long n = std::stoll(v, &pos);
        if (pos == v.size() && n >= 1 && n <= 1 << 24) return static_cast<std::uint32_t>(n);
    } catch (...) {
    }
    r.fail(key, "expected a positive tile size, 'auto' or 'full', got '" + v + "'");
}

}  // namespace

std::unique_ptr<Workload> makeConvKernel(const config::Node& workload, const config::Node& plan,
                                         const TargetInfo& target) {
    using namespace config;
    ConvParams p;
    Reader w(workload);
    w.get<std::string>("kernel");
    p.name = w.get<std::string>("name", std::string());
    w.get<std::string>("description", std::string());
    w.get<std::string>("source", std::string());
    w.get<std::uint64_t>("batch", 1, Range<std::uint64_t>{1, 1});
    p.s.h = w.get<std::uint32_t>("h", Range<std::uint32_t>{1, 1 << 16});
    p.s.w = w.get<std::uint32_t>("w", Range<std::uint32_t>{1, 1 << 16});
    p.s.channels = w.get<std::uint32_t>("channels", Range<std::uint32_t>{1, 65535});
    p.s.filters = w.get<std::uint32_t>("filters", Range<std::uint32_t>{1, 65535});
    p.s.k = w.get<std::uint32_t>("k", Range<std::uint32_t>{1, 255});
    p.s.stride = w.get<std::uint32_t>("stride", 1u, Range<std::uint32_t>{1, 255});
    p.s.pad = w.get<std::uint32_t>("pad", 0u, Range<std::uint32_t>{0, 255});
    w.oneOf("dtype", {"i8"}, std::string("i8"));
    if (p.s.h + 2 * p.s.pad < p.s.k || p.s.w + 2 * p.s.pad < p.s.k)
        w.fail("k", fmt::format("a {}×{} kernel does not fit the padded {}×{} input", p.s.k, p.s.k,
                                p.s.h + 2 * p.s.pad, p.s.w + 2 * p.s.pad));
    w.finish();

    Node planNode = plan.isNull() ? Node::makeMap(plan.location()) : plan;
    Reader pl(planNode);
    pl.get<std::string>("name", std::string());
    pl.get<std::string>("description", std::string());
    p.strategyName = pl.oneOf("strategy", {"naive", "static-single", "double-buffer"}, std::string("double-buffer"));
    p.strategy = p.strategyName == "naive" ? ConvStrategy::Naive
                 : p.strategyName == "static-single" ? ConvStrategy::StaticSingle : ConvStrategy::DoubleBuffer;
    const bool naive = p.strategy == ConvStrategy::Naive;
    TileRequest req;
    req.th = readTile(pl, "tile_h", naive ? 1 : 0);
    req.tw = readTile(pl, "tile_w", naive ? kFull : 0);
    req.tc = readTile(pl, "tile_c", 0);
    req.tf = readTile(pl, "tile_f", 0);
    p.dmaChannels = pl.get<unsigned>("dma_channels", 4u, Range<unsigned>{1, 256});
    const EngineInfo* engine = nullptr;
    if (pl.has("engine")) {
        p.engine = pl.get<std::string>("engine");
        engine = target.findEngine(p.engine);
        if (!engine) pl.fail("engine", "target '" + target.name + "' has no engine '" + p.engine + "'");
    } else {
        for (const auto& e : target.engines)
            if (e.mainCompute) { engine = &e; break; }
        if (!engine) engine = &target.engines.front();
        p.engine = engine->name;
    }
    auto space = [&](const std::string& key, const std::string& level) -> const MemorySpaceInfo* {
        if (pl.has(key)) {
            std::string n = pl.get<std::string>(key);
            const MemorySpaceInfo* s = target.findSpace(n);
            if (!s) pl.fail(key, "target '" + target.name + "' has no memory '" + n + "'");
            return s;
        }
        for (const auto& s : target.spaces)
            if (s.level == level) return &s;
        pl.fail("strategy", "conv2d needs a memory of level '" + level + "' on target '" + target.name + "'");
    };
    p.sram = space("sram", "sram");
    p.ddr = space("ddr", "ddr");
    PlannerMachine m;
    m.sramBytes = p.sram->size;
    m.ddrBytesPerSecond = p.ddr->peakBandwidth > 0 ? p.ddr->peakBandwidth : 1e10;
    m.macsPerCycle = engine->peakWorkPerCycle > 0 ? engine->peakWorkPerCycle : 1.0;
    m.macsPerSecond = m.macsPerCycle * engine->clock.hz();
    std::string message;
    if (!planTiling(p.s, p.strategy, req, m, p.t, message)) {
        std::string key = pl.has("tile_h") ? "tile_h" : "strategy";
        pl.fail(key, message + fmt::format(" (layer {}×{}×{} → {} filters, k {}, stride {}, pad {}, strategy {})",
                                           p.s.channels, p.s.h, p.s.w, p.s.filters, p.s.k, p.s.stride, p.s.pad,
                                           p.strategyName));
    }
    pl.finish();
    p.layout = sramLayout(p.s, p.t, p.strategy);
    auto ceilDiv = [](std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; };
    p.nH = ceilDiv(p.s.outH(), p.t.th);
    p.nW = ceilDiv(p.s.outW(), p.t.tw);
    p.nC = ceilDiv(p.s.channels, p.t.tc);
    p.nF = ceilDiv(p.s.filters, p.t.tf);
    auto align = [](std::uint64_t v) { return (v + 4095) / 4096 * 4096; };
    p.ddrIn = 0;
    p.ddrW = align(std::uint64_t{p.s.channels} * p.s.h * p.s.w);
    p.ddrOut = p.ddrW + align(std::uint64_t{p.s.filters} * p.s.channels * p.s.k * p.s.k);
    p.ddrZero = p.ddrOut + align(std::uint64_t{p.s.filters} * p.s.outH() * p.s.outW() * 4);
    if (p.ddrZero + 4096 + p.layout.zeroBytes > p.ddr->size)
        w.fail("h", fmt::format("the layer needs {} B of '{}', which holds {} B", p.ddrZero + p.layout.zeroBytes,
                                p.ddr->name, p.ddr->size));
    return std::make_unique<ConvKernel>(std::move(p));
}

}  // namespace tessim
