#include "workloads/conv/ConvKernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/Int8Dot.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/DmaOps.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/TestData.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {
namespace {

// DMA tags of layer i: 5i+1, 5i+2 input buffers, 5i+3, 5i+4 output buffers, 5i+5 zero line.
constexpr std::uint32_t kTagsPerLayer = 5;

// The layer's four DMA streams and the channel each takes on a DMA with 1, 2, 3 or ≥ 4 channels:
// the input (the largest stream) keeps a channel of its own whenever there are two; the weights,
// the write-back and the zero fill share what is left. Channels 4, 5, ... take a share of the
// input's channel planes (ConvStream::load).
enum class DmaStream : unsigned { Input, Weights, Output, Zero };
unsigned dmaChannelFor(DmaStream stream, unsigned channels) {
    static constexpr unsigned kChannel[4][4] = {
        {0, 0, 0, 0},  // one channel
        {0, 1, 1, 1},  // two
        {0, 1, 2, 1},  // three
        {0, 1, 2, 3},  // four or more
    };
    return kChannel[std::min(channels, 4u) - 1][static_cast<unsigned>(stream)];
}

struct ConvParams {
    std::string name;
    std::uint32_t index = 0;      // position in the layer list
    ConvShape s;                  // s.outBytes: 1 (output_dtype i8, requantised) or 4 (i32)
    std::int32_t multiplier = 1;  // requantisation (i8): see MacTileArgs
    std::uint32_t shift = 0;
    ConvStrategy strategy = ConvStrategy::DoubleBuffer;
    std::string strategyName;
    ConvTiling t;
    SramLayout layout;
    std::string engine;
    const MemorySpaceInfo* sram = nullptr;
    const MemorySpaceInfo* ddr = nullptr;
    unsigned dmaChannels = 4;
    std::uint64_t ddrIn = 0, ddrW = 0, ddrOut = 0, ddrZero = 0;
    std::uint32_t nH = 0, nW = 0, nC = 0, nF = 0;  // tiles of one group (nC, nF: of its channels, filters)
    std::uint32_t nG = 1;                          // groups, one after the other
    double macsPerSecond = 1e12;
    PlanEstimate estimate;
    std::uint64_t arraySramBytes = 0;  // operand bytes the engine's MAC array streams (0: no array)
    std::string arraySource;           // where the planner's array geometry came from
    std::uint64_t steps() const { return std::uint64_t{nG} * nH * nW * nC * nF; }
    std::uint32_t tagIn(unsigned slot) const { return kTagsPerLayer * index + 1 + slot; }
    std::uint32_t tagOut(unsigned slot) const { return kTagsPerLayer * index + 3 + slot; }
    std::uint32_t tagInit() const { return kTagsPerLayer * index + 5; }
    std::uint64_t saltIn() const { return 2 * std::uint64_t{index} + 1; }
    std::uint64_t saltW() const { return 2 * std::uint64_t{index} + 2; }
};

// Step i of the loop nest (groups outermost, input channels innermost; within a group filters
// outer or spatial tiles outer). f and c count the chunks of the group's filters and channels.
struct Step {
    std::uint32_t g, f, h, w, c;
    bool firstC() const { return c == 0; }
};

// An operand's ping-pong state: the chunk each buffer holds and the buffer the latest step uses.
struct Resident {
    std::int64_t key[2] = {-1, -1};
    unsigned slot = 1;
};

class ConvStream : public ChunkedOpStream {
public:
    explicit ConvStream(const ConvParams& p) : p_(p) {}
    // The next chunk of ops (ConvLayersStream runs layers one after the other).
    bool chunk(std::vector<Op>& out) { return refill(out); }

protected:
    bool refill(std::vector<Op>& out) override {
        const std::uint64_t n = p_.steps();
        if (!started_) {
            started_ = true;
            if (p_.s.padded()) {
                out.push_back(dmaCopy(p_.tagInit(), channel(DmaStream::Zero),
                                      {static_cast<std::uint32_t>(p_.layout.zeroBytes)},
                                      {p_.ddr->id, p_.ddrZero}, {p_.sram->id, p_.layout.zero}));
                out.push_back(dmaWait(p_.tagInit()));
            }
            if (p_.strategy == ConvStrategy::DoubleBuffer)
                load(0, 0, out);
            return true;
        }
        if (i_ > n)
            return false;
        if (i_ == n) {
            ++i_;
            if (p_.strategy == ConvStrategy::DoubleBuffer && pendingOut_ >= 0) {
                store(static_cast<std::uint64_t>(pendingOut_), out);
                out.push_back(dmaWait(p_.tagOut(0)));
                out.push_back(dmaWait(p_.tagOut(1)));
            }
            return !out.empty() || false;
        }
        const std::uint64_t i = i_++;
        Step st = step(i);
        const std::uint64_t tile = i / p_.nC;  // output tile index
        const bool last = st.c + 1 == p_.nC;
        if (p_.strategy != ConvStrategy::DoubleBuffer) {
            load(i, 0, out);
            out.push_back(dmaWait(p_.tagIn(0)));
            out.push_back(mac(st, 0, 0, 0));
            out.push_back(fence());
            if (last) {
                store(tile, out);
                out.push_back(dmaWait(p_.tagOut(0)));
            }
            return true;
        }
        const unsigned slot = i % 2, oslot = tile % 2;
        out.push_back(dmaWait(p_.tagIn(slot)));
        if (st.firstC())
            out.push_back(dmaWait(p_.tagOut(oslot)));  // write-back of tile − 2 left this buffer
        out.push_back(mac(st, in_.slot, w_.slot, oslot));
        if (i + 1 < p_.steps())
            load(i + 1, (i + 1) % 2, out);
        if (pendingOut_ >= 0) {
            store(static_cast<std::uint64_t>(pendingOut_), out);
            pendingOut_ = -1;
        }
        out.push_back(fence());
        if (last)
            pendingOut_ = static_cast<std::int64_t>(tile);
        return true;
    }

private:
    Step step(std::uint64_t i) const {
        Step s;
        s.c = static_cast<std::uint32_t>(i % p_.nC);
        i /= p_.nC;
        const std::uint64_t perGroup = std::uint64_t{p_.nH} * p_.nW * p_.nF;
        s.g = static_cast<std::uint32_t>(i / perGroup);
        i %= perGroup;
        if (p_.t.order == LoopOrder::SpatialOuter) {
            s.f = static_cast<std::uint32_t>(i % p_.nF);
            i /= p_.nF;
            s.w = static_cast<std::uint32_t>(i % p_.nW);
            s.h = static_cast<std::uint32_t>(i / p_.nW);
            return s;
        }
        s.w = static_cast<std::uint32_t>(i % p_.nW);
        i /= p_.nW;
        s.h = static_cast<std::uint32_t>(i % p_.nH);
        s.f = static_cast<std::uint32_t>(i / p_.nH);
        return s;
    }
    // Chunk identities: an operand is fetched only when the step's chunk differs from the one its
    // latest buffer holds, into the other buffer when double-buffered.
    std::int64_t inputKey(const Step& st) const {
        return ((static_cast<std::int64_t>(st.g) * p_.nH + st.h) * p_.nW + st.w) * p_.nC + st.c;
    }
    std::int64_t weightKey(const Step& st) const {
        return (static_cast<std::int64_t>(st.g) * p_.nF + st.f) * p_.nC + st.c;
    }
    // Whether step's operand needs a fetch; if so, picks its buffer.
    bool take(Resident& r, std::int64_t key) const {
        if (r.key[r.slot] == key)
            return false;
        if (p_.strategy == ConvStrategy::DoubleBuffer)
            r.slot ^= 1u;
        else
            r.slot = 0;
        r.key[r.slot] = key;
        return true;
    }
    TileSpan spanH(const Step& st) const {
        return tileSpan(st.h * p_.t.th, p_.t.th, p_.s.outH(), p_.s.h, p_.s.kh, p_.s.stride, p_.s.padH);
    }
    TileSpan spanW(const Step& st) const {
        return tileSpan(st.w * p_.t.tw, p_.t.tw, p_.s.outW(), p_.s.w, p_.s.kw, p_.s.stride, p_.s.padW);
    }
    std::uint32_t chunk(std::uint32_t index, std::uint32_t tile, std::uint32_t total) const {
        return std::min(tile, total - index * tile);
    }

    unsigned channel(DmaStream stream) const { return dmaChannelFor(stream, p_.dmaChannels); }
    Op fence() const { return macArrayFence(p_.sram->id); }
    Op mac(const Step& st, unsigned inSlot, unsigned wSlot, unsigned oslot) const {
        TileSpan h = spanH(st), w = spanW(st);
        Op op;
        op.kind = OpKind::MacTile;
        op.dtype = DType::I8;
        op.mac = MacTileArgs{};
        op.mac.space = p_.sram->id;
        op.mac.accumulate = st.c > 0;
        op.mac.stride = static_cast<std::uint8_t>(p_.s.stride);
        op.mac.kh = static_cast<std::uint8_t>(p_.s.kh);
        op.mac.kw = static_cast<std::uint8_t>(p_.s.kw);
        op.mac.pad = static_cast<std::uint8_t>(std::max(p_.s.padH, p_.s.padW));
        op.mac.channels = static_cast<std::uint16_t>(chunk(st.c, p_.t.tc, p_.s.groupChannels()));
        op.mac.filters = static_cast<std::uint16_t>(chunk(st.f, p_.t.tf, p_.s.groupFilters()));
        op.mac.inH = h.in;
        op.mac.inW = w.in;
        op.mac.outH = h.n;
        op.mac.outW = w.n;
        op.mac.in = p_.layout.slotIn[inSlot];
        op.mac.weights = p_.layout.slotW[wSlot];
        op.mac.out = p_.layout.accumulator(oslot);
        if (p_.s.requantize() && st.c + 1 == p_.nC) {  // the tile's last channel chunk
            op.mac.requantize = 1;
            op.mac.multiplier = p_.multiplier;
            op.mac.shift = static_cast<std::uint8_t>(p_.shift);
            op.mac.out8 = p_.layout.slotOut[oslot];
        }
        return op;
    }
    // DMA of step i's operands (tagged with the step's buffer parity `tag`, steps being loaded
    // in order): the weights and the input window when their chunk changed, into the buffer
    // take() picks, with zeros for the padding of the window.
    void load(std::uint64_t i, unsigned tag, std::vector<Op>& out) {
        Step st = step(i);
        const auto& s = p_.s;
        // A group's channels and filters are contiguous in DDR: group g starts at channel g·cg of
        // the input, filter g·fg of the weights (each filter cg × kh × kw) and of the output.
        const std::uint32_t cg = s.groupChannels(), fg = s.groupFilters();
        const std::uint32_t tc = chunk(st.c, p_.t.tc, cg), tf = chunk(st.f, p_.t.tf, fg);
        const std::uint64_t kk = s.taps();
        if (take(w_, weightKey(st))) {
            std::uint64_t src = p_.ddrW + ((std::uint64_t{st.g} * fg + std::uint64_t{st.f} * p_.t.tf) * cg +
                                           std::uint64_t{st.c} * p_.t.tc) *
                                              kk;
            out.push_back(
                dmaCopy(p_.tagIn(tag), channel(DmaStream::Weights), {static_cast<std::uint32_t>(tc * kk), tf},
                        {p_.ddr->id, src, static_cast<std::int64_t>(cg * kk)},
                        {p_.sram->id, p_.layout.slotW[w_.slot], static_cast<std::int64_t>(tc * kk)}));
        }
        if (!take(in_, inputKey(st)))
            return;
        TileSpan h = spanH(st), w = spanW(st);
        const std::uint64_t base = p_.layout.slotIn[in_.slot];
        const std::int64_t plane = std::int64_t{h.in} * w.in;
        if (h.valid > 0 && w.valid > 0) {
            std::uint64_t y0 = static_cast<std::uint64_t>(h.i0 + h.padBefore),
                          x0 = static_cast<std::uint64_t>(w.i0 + w.padBefore);
            std::uint64_t src =
                p_.ddrIn + ((std::uint64_t{st.g} * cg + std::uint64_t{st.c} * p_.t.tc) * s.h + y0) * s.w + x0;
            std::uint64_t dst = base + std::uint64_t{h.padBefore} * w.in + w.padBefore;
            // Channels beyond the four streams share the input's planes: more bursts in flight.
            const std::uint32_t parts = std::min(tc, 1 + (p_.dmaChannels > 4 ? p_.dmaChannels - 4 : 0));
            for (std::uint32_t i = 0; i < parts; ++i) {
                const std::uint32_t c0 = tc * i / parts, c1 = tc * (i + 1) / parts;
                out.push_back(dmaCopy(
                    p_.tagIn(tag), i == 0 ? channel(DmaStream::Input) : 3 + i, {w.valid, h.valid, c1 - c0},
                    {p_.ddr->id, src + std::uint64_t{c0} * s.h * s.w, s.w, std::int64_t{s.h} * s.w},
                    {p_.sram->id, dst + std::uint64_t{c0} * static_cast<std::uint64_t>(plane), w.in, plane}));
            }
        }
        // Zeros: whole padding rows, then the padding columns of the valid rows.
        auto zero = [&](std::uint64_t dst, std::uint32_t rowBytes, std::uint32_t rows) {
            if (rowBytes == 0 || rows == 0)
                return;
            out.push_back(dmaCopy(p_.tagIn(tag), channel(DmaStream::Zero), {rowBytes, rows, tc},
                                  {p_.sram->id, p_.layout.zero}, {p_.sram->id, dst, w.in, plane}));
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
        const std::uint32_t fg = p_.s.groupFilters(), tf = chunk(st.f, p_.t.tf, fg);
        const std::uint64_t ho = p_.s.outH(), wo = p_.s.outW();
        const std::uint32_t ob = p_.s.outBytes;  // INT8 outputs, or INT32 accumulators
        const std::uint64_t f0 = std::uint64_t{st.g} * fg + std::uint64_t{st.f} * p_.t.tf;
        std::uint64_t dst = p_.ddrOut + ((f0 * ho + h.o0) * wo + w.o0) * ob;
        out.push_back(dmaCopy(
            p_.tagOut(oslot), channel(DmaStream::Output), {w.n * ob, h.n, tf},
            {p_.sram->id, p_.layout.slotOut[oslot], std::int64_t{w.n} * ob, std::int64_t{w.n} * h.n * ob},
            {p_.ddr->id, dst, static_cast<std::int64_t>(wo * ob), static_cast<std::int64_t>(ho * wo * ob)}));
    }

    ConvParams p_;
    bool started_ = false;
    std::uint64_t i_ = 0;
    std::int64_t pendingOut_ = -1;
    Resident in_, w_;
};

// Layers one after the other on one engine: each layer's stream runs to its end (every DMA of the
// layer waited for), then, for a layer list, a Nop tagged index + 1 marks the end of the layer.
class ConvLayersStream : public ChunkedOpStream {
public:
    ConvLayersStream(std::vector<ConvParams> layers, bool marks)
        : layers_(std::move(layers)), marks_(marks) {}

protected:
    bool refill(std::vector<Op>& out) override {
        while (li_ < layers_.size()) {
            if (!current_)
                current_ = std::make_unique<ConvStream>(layers_[li_]);
            if (current_->chunk(out))
                return true;
            out.clear();
            current_.reset();
            const std::uint32_t mark = layers_[li_++].index + 1;
            if (marks_) {
                Op op;
                op.kind = OpKind::Nop;
                op.tag = mark;
                out.push_back(op);
                return true;
            }
        }
        return false;
    }

private:
    std::vector<ConvParams> layers_;
    bool marks_;
    std::size_t li_ = 0;
    std::unique_ptr<ConvStream> current_;
};

std::uint64_t outputBytes(const ConvParams& p) {
    return p.s.outputs() * p.s.outBytes;
}
std::uint64_t weightBytes(const ConvParams& p) {
    return std::uint64_t{p.s.filters} * p.s.groupChannels() * p.s.taps();
}
std::uint64_t inputBytes(const ConvParams& p) {
    return std::uint64_t{p.s.channels} * p.s.h * p.s.w;
}
// Input bytes some output needs: all of them unless the stride skips rows or columns (k < stride).
std::uint64_t touchedInputBytes(const ConvParams& p) {
    auto touched = [&](std::uint32_t in, std::uint32_t out, std::uint32_t kernel, std::uint32_t pad) {
        std::vector<bool> used(in, false);
        for (std::uint32_t o = 0; o < out; ++o)
            for (std::uint32_t k = 0; k < kernel; ++k) {
                std::int64_t i = std::int64_t{o} * p.s.stride + k - pad;
                if (i >= 0 && i < in)
                    used[static_cast<std::size_t>(i)] = true;
            }
        return static_cast<std::uint64_t>(std::count(used.begin(), used.end(), true));
    };
    return std::uint64_t{p.s.channels} * touched(p.s.h, p.s.outH(), p.s.kh, p.s.padH) *
           touched(p.s.w, p.s.outW(), p.s.kw, p.s.padW);
}
nlohmann::ordered_json shapeJson(const ConvParams& p) {
    nlohmann::ordered_json j;
    j["h"] = p.s.h;
    j["w"] = p.s.w;
    j["channels"] = p.s.channels;
    j["filters"] = p.s.filters;
    // A square kernel and equal padding keep their one key each (reports before non-square kernels).
    if (p.s.kh == p.s.kw) {
        j["k"] = p.s.kh;
    } else {
        j["kh"] = p.s.kh;
        j["kw"] = p.s.kw;
    }
    j["stride"] = p.s.stride;
    if (p.s.padH == p.s.padW) {
        j["pad"] = p.s.padH;
    } else {
        j["pad_h"] = p.s.padH;
        j["pad_w"] = p.s.padW;
    }
    if (p.s.groups > 1)
        j["groups"] = p.s.groups;
    j["output_dtype"] = p.s.requantize() ? "i8" : "i32";
    if (p.s.requantize()) {
        j["requant_multiplier"] = p.multiplier;
        j["requant_shift"] = p.shift;
    }
    return j;
}
nlohmann::ordered_json tilesJson(const ConvParams& p) {
    nlohmann::ordered_json j;
    j["tile_h"] = p.t.th;
    j["tile_w"] = p.t.tw;
    j["tile_c"] = p.t.tc;
    j["tile_f"] = p.t.tf;
    j["loop_order"] = loopOrderName(p.t.order);
    j["steps"] = p.steps();
    j["sram_bytes_used"] = p.layout.total;
    return j;
}
nlohmann::ordered_json fetchJson(const ConvParams& p) {
    nlohmann::ordered_json j;
    std::uint64_t fetch = inputFetchBytes(p.s, p.t);
    j["input_fetch_bytes"] = fetch;
    j["halo_bytes"] = fetch - inputBytes(p);
    j["weight_fetch_bytes"] = weightFetchBytes(p.s, p.t);
    j["zero_line_bytes"] = p.layout.zeroBytes;
    j["output_bytes"] = outputBytes(p);
    // The planner's estimate for this plan (tessim's simulation is the measurement).
    j["estimate"] = {{"compute_cycles", p.estimate.computeCycles},
                     {"ddr_bytes", p.estimate.ddrBytes},
                     {"sram_bytes", p.estimate.sramBytes},
                     {"seconds", p.estimate.seconds},
                     {"array", p.arraySource}};
    return j;
}
void merge(nlohmann::ordered_json& into, const nlohmann::ordered_json& from) {
    for (auto it = from.begin(); it != from.end(); ++it)
        into[it.key()] = it.value();
}

class ConvKernel : public Workload {
public:
    // `listed`: the workload gave a `layers` list (per-layer marks and results, even for one layer).
    ConvKernel(std::string name, std::vector<ConvParams> layers, bool listed)
        : name_(std::move(name)), layers_(std::move(layers)), listed_(listed) {}

    nlohmann::ordered_json resolvedWorkload() const override {
        nlohmann::ordered_json j;
        j["kernel"] = "conv2d";
        if (!name_.empty())
            j["name"] = name_;
        if (!listed_) {
            const ConvParams& p = layers_.front();
            merge(j, shapeJson(p));
            j["dtype"] = "i8";
            j["out_h"] = p.s.outH();
            j["out_w"] = p.s.outW();
            j["macs"] = p.s.macs();
            return j;
        }
        j["dtype"] = "i8";
        j["output_dtype"] = layers_.front().s.requantize() ? "i8" : "i32";
        std::uint64_t macs = 0;
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& p : layers_) {
            nlohmann::ordered_json l;
            l["name"] = p.name;
            merge(l, shapeJson(p));
            l["out_h"] = p.s.outH();
            l["out_w"] = p.s.outW();
            l["macs"] = p.s.macs();
            macs += p.s.macs();
            list.push_back(l);
        }
        j["macs"] = macs;
        j["layers"] = list;
        return j;
    }
    nlohmann::ordered_json resolvedPlan() const override {
        const ConvParams& p = layers_.front();
        nlohmann::ordered_json j;
        j["strategy"] = p.strategyName;
        j["engine"] = p.engine;
        j["sram"] = p.sram->name;
        j["ddr"] = p.ddr->name;
        j["dma_channels"] = p.dmaChannels;
        if (!listed_) {
            merge(j, tilesJson(p));
            j["sram_bytes"] = p.sram->size;
            merge(j, fetchJson(p));
            return j;
        }
        j["sram_bytes"] = p.sram->size;
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& q : layers_) {
            nlohmann::ordered_json l;
            l["name"] = q.name;
            merge(l, tilesJson(q));
            merge(l, fetchJson(q));
            list.push_back(l);
        }
        j["layers"] = list;
        return j;
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        s.push_back(
            EngineStream{layers_.front().engine, std::make_unique<ConvLayersStream>(layers_, listed_)});
        return s;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        std::uint64_t total = 0, sram = 0;
        for (const auto& p : layers_) {
            total += touchedInputBytes(p) + weightBytes(p) + outputBytes(p);
            sram += p.arraySramBytes;
        }
        std::map<std::string, std::uint64_t> bytes{{layers_.front().ddr->level, total}};
        // The plan's tiles: what its array streams through the SRAM (the DMA's bytes come on top).
        if (sram > 0)
            bytes[layers_.front().sram->level] = sram;
        return bytes;
    }
    bool multiLayer() const override { return listed_; }
    nlohmann::ordered_json layers() const override {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        if (!listed_)
            return out;
        for (std::size_t i = 0; i < layers_.size(); ++i) {
            const ConvParams& p = layers_[i];
            nlohmann::ordered_json l;
            l["index"] = p.index;
            l["name"] = p.name;
            l["mark"] = p.index + 1;
            l["engine"] = p.engine;
            merge(l, shapeJson(p));
            l["out_h"] = p.s.outH();
            l["out_w"] = p.s.outW();
            l["macs"] = p.s.macs();
            l["tiles"] = tilesJson(p);
            l["compulsory_bytes"] = touchedInputBytes(p) + weightBytes(p) + outputBytes(p);
            l["compute_bound_s"] = static_cast<double>(p.s.macs()) / p.macsPerSecond;
            out.push_back(l);
        }
        return out;
    }
    void initialise(FunctionalMemory& memory) override {
        std::uint64_t zero = 0, sram = 0;
        for (const auto& p : layers_) {
            std::vector<std::int8_t> buf(inputBytes(p));
            for (std::uint64_t i = 0; i < buf.size(); ++i)
                buf[i] = testInt8(i, p.saltIn());
            memory.write(p.ddr->id, p.ddrIn, buf.data(), buf.size());
            buf.resize(weightBytes(p));
            for (std::uint64_t i = 0; i < buf.size(); ++i)
                buf[i] = testInt8(i, p.saltW());
            memory.write(p.ddr->id, p.ddrW, buf.data(), buf.size());
            // Poison the output so that nothing passes by accident.
            std::vector<std::uint8_t> poison(outputBytes(p), 0xA5);
            memory.write(p.ddr->id, p.ddrOut, poison.data(), poison.size());
            zero = std::max(zero, p.layout.zeroBytes);
            sram = std::max(sram, p.layout.total);
        }
        const ConvParams& p = layers_.front();
        if (zero) {
            std::vector<std::uint8_t> z(zero, 0);
            memory.write(p.ddr->id, p.ddrZero, z.data(), z.size());
        }
        std::vector<std::uint8_t> poison(sram, 0x5A);
        memory.write(p.sram->id, 0, poison.data(), poison.size());
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        for (const auto& p : layers_)
            checkLayer(p, memory, c);
        return c;
    }

private:
    // The requantisation of MacTileArgs, written out independently of requantizeI8 (quotient and
    // remainder of |acc · multiplier| by 2^shift; a remainder of half or more rounds away from 0).
    static std::int32_t referenceRequant(std::int32_t acc, std::int32_t multiplier, std::uint32_t shift) {
        const std::int64_t prod = std::int64_t{acc} * multiplier;
        const std::uint64_t mag =
            prod < 0 ? 0 - static_cast<std::uint64_t>(prod) : static_cast<std::uint64_t>(prod);
        std::uint64_t q = shift == 0 ? mag : mag >> shift;
        if (shift > 0 && mag - (q << shift) >= (std::uint64_t{1} << (shift - 1)))
            ++q;
        const std::int64_t v = prod < 0 ? -static_cast<std::int64_t>(q) : static_cast<std::int64_t>(q);
        return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -128, 127));
    }
    void checkLayer(const ConvParams& p, FunctionalMemory& memory, FunctionalCheck& c) const {
        const auto& s = p.s;
        const std::uint32_t ho = s.outH(), wo = s.outW();
        std::vector<std::int32_t> got(s.outputs());
        if (s.requantize()) {
            std::vector<std::int8_t> q(got.size());
            memory.read(p.ddr->id, p.ddrOut, q.data(), q.size());
            std::copy(q.begin(), q.end(), got.begin());
        } else {
            memory.read(p.ddr->id, p.ddrOut, got.data(), got.size() * 4);
        }
        const std::string where = listed_ ? fmt::format("layer {} ({}) ", p.index, p.name) : std::string();
        // Every input and weight once, widened to int16: a test value is a hash, and recomputing
        // it for each MAC would cost far more than the convolution itself.
        const std::uint32_t cg = s.groupChannels(), gf = s.groupFilters();
        std::vector<std::int16_t> in(std::uint64_t{s.channels} * s.h * s.w);
        std::vector<std::int16_t> weights(std::uint64_t{s.filters} * cg * s.taps());
        for (std::uint64_t i = 0; i < in.size(); ++i)
            in[i] = testInt8(i, p.saltIn());
        for (std::uint64_t i = 0; i < weights.size(); ++i)
            weights[i] = testInt8(i, p.saltW());
        // Direct convolution: output (f, y, x) sums, over the cg channels ch of f's group and (ky, kx),
        // the weight times the input at (y·stride + ky − padH, x·stride + kx − padW), zero in the
        // padding. The receptive field of (y, x) in a group is gathered once, in the weights' order,
        // for every filter of that group.
        const std::uint64_t taps = std::uint64_t{cg} * s.taps();
        std::vector<std::int16_t> field(2 * taps);
        std::vector<std::int32_t> sums(std::uint64_t{s.filters} * wo);    // one output row
        std::vector<const std::int16_t*> rows(std::uint64_t{cg} * s.kh);  // null: padding
        for (std::uint32_t y = 0; y < ho; ++y) {
            std::fill(sums.begin(), sums.end(), 0);
            for (std::uint32_t g = 0; g < s.groups; ++g) {
                for (std::uint32_t ch = 0; ch < cg; ++ch)
                    for (std::uint32_t ky = 0; ky < s.kh; ++ky) {
                        const std::int64_t iy = std::int64_t{y} * s.stride + ky - s.padH;
                        const std::uint64_t c = std::uint64_t{g} * cg + ch;
                        rows[std::uint64_t{ch} * s.kh + ky] =
                            iy < 0 || iy >= s.h
                                ? nullptr
                                : in.data() + (c * s.h + static_cast<std::uint64_t>(iy)) * s.w;
                    }
                for (std::uint32_t x = 0; x < wo; x += 2) {
                    const std::uint32_t pair = std::min(2u, wo - x);  // two outputs share the weights' loads
                    std::int16_t* f = field.data();
                    for (std::uint32_t j = 0; j < pair; ++j) {
                        const std::int64_t left =
                            std::int64_t{x + j} * s.stride - s.padW;  // column of kx = 0
                        const bool inside = left >= 0 && left + s.kw <= s.w;
                        for (const std::int16_t* row : rows)
                            for (std::uint32_t kx = 0; kx < s.kw; ++kx) {
                                const std::int64_t ix = left + kx;
                                *f++ = row && (inside || (ix >= 0 && ix < s.w)) ? row[ix] : std::int16_t{0};
                            }
                    }
                    accumulateDots(field.data(), pair, weights.data() + std::uint64_t{g} * gf * taps, taps,
                                   gf, wo, sums.data() + std::uint64_t{g} * gf * wo + x);
                }
            }
            for (std::uint32_t f = 0; f < s.filters; ++f)
                for (std::uint32_t x = 0; x < wo; ++x) {
                    std::int32_t acc = sums[std::uint64_t{f} * wo + x];
                    if (s.requantize())
                        acc = referenceRequant(acc, p.multiplier, p.shift);
                    std::uint64_t idx = (std::uint64_t{f} * ho + y) * wo + x;
                    ++c.elements;
                    double err = std::abs(double(got[idx]) - double(acc));
                    c.maxAbsError = std::max(c.maxAbsError, err);
                    if (got[idx] != acc && c.mismatches++ == 0) {
                        c.firstMismatch = fmt::format("{}output [{}][{}][{}]: simulated {} reference {}",
                                                      where, f, y, x, got[idx], acc);
                        c.locateFirstMismatch(p.ddr->id, p.ddrOut + idx * (s.requantize() ? 1 : 4));
                    }
                }
        }
    }

    std::string name_;
    std::vector<ConvParams> layers_;
    bool listed_;
};

std::uint32_t readTile(config::Reader& r, const std::string& key, std::uint32_t fallback) {
    if (!r.has(key))
        return fallback;
    std::string v = r.get<std::string>(key);
    if (v == "auto")
        return 0;
    if (v == "full")
        return kFull;
    try {
        std::size_t pos = 0;
        long long n = std::stoll(v, &pos);
        if (pos == v.size() && n >= 1 && n <= 1 << 24)
            return static_cast<std::uint32_t>(n);
    } catch (...) {
    }
    r.fail(key, "expected a positive tile size, 'auto' or 'full', got '" + v + "'");
}

// Requantisation for the deterministic test data (testInt8(): INT8 uniform over −128..127, E[x²] =
// 5461.5): an accumulator of N = channels·k² products has σ ≈ 5461.5·√N (interior outputs;
// padded borders sum fewer). The scale 32/σ maps σ to 32 LSB, so an output saturates only beyond
// ≈ 4σ (about 6 in 100,000 for a Gaussian sum). Scale = multiplier / 2^shift with the multiplier
// normalised to [2^30, 2^31), as gemmlowp / TFLite quantised multipliers are.
void requantFor(const ConvShape& s, std::int32_t& multiplier, std::uint32_t& shift) {
    const double sigma = 5461.5 * std::sqrt(double(s.groupChannels()) * double(s.taps()));
    double m = 32.0 / sigma;
    std::uint32_t sh = 0;
    while (m < double(1u << 30) && sh < 62) {
        m *= 2;
        ++sh;
    }
    std::int64_t mi = std::llround(m);
    if (mi >= (std::int64_t{1} << 31)) {
        mi /= 2;
        --sh;
    }
    multiplier = static_cast<std::int32_t>(mi);
    shift = sh;
}

// requant_multiplier / requant_shift: an integer, or `auto` (requantFor) when absent or `auto`.
struct RequantKeys {
    std::optional<std::int32_t> multiplier;
    std::optional<std::uint32_t> shift;
};
RequantKeys readRequant(config::Reader& r) {
    RequantKeys k;
    auto number = [&](const std::string& key, long long lo, long long hi, long long& out) {
        if (!r.has(key))
            return false;
        std::string v = r.get<std::string>(key);
        if (v == "auto")
            return false;
        try {
            std::size_t pos = 0;
            long long n = std::stoll(v, &pos);
            if (pos == v.size() && n >= lo && n <= hi) {
                out = n;
                return true;
            }
        } catch (...) {
        }
        r.fail(key, fmt::format("expected an integer in {}..{} or 'auto', got '{}'", lo, hi, v));
    };
    long long m = 0, sh = 0;
    if (number("requant_multiplier", -(1ll << 31), (1ll << 31) - 1, m))
        k.multiplier = static_cast<std::int32_t>(m);
    if (number("requant_shift", 0, 63, sh))
        k.shift = static_cast<std::uint32_t>(sh);
    return k;
}

// One layer's shape from a map (the workload's top level, or an entry of its `layers` list).
ConvShape readShape(config::Reader& r) {
    using config::Range;
    ConvShape s;
    s.h = r.get<std::uint32_t>("h", Range<std::uint32_t>{1, 1 << 16});
    s.w = r.get<std::uint32_t>("w", Range<std::uint32_t>{1, 1 << 16});
    s.channels = r.get<std::uint32_t>("channels", Range<std::uint32_t>{1, 65535});
    s.filters = r.get<std::uint32_t>("filters", Range<std::uint32_t>{1, 65535});
    // The kernel: k rows by k columns, unless kh (rows) or kw (columns) is written (k may then be
    // left out when both are); the padding likewise: pad on every side, pad_h above and below,
    // pad_w left and right.
    const Range<std::uint32_t> kernel{1, 255}, padding{0, 255};
    const std::uint32_t k = r.has("kh") && r.has("kw") && !r.has("k") ? 0 : r.get<std::uint32_t>("k", kernel);
    s.kh = r.has("kh") ? r.get<std::uint32_t>("kh", kernel) : k;
    s.kw = r.has("kw") ? r.get<std::uint32_t>("kw", kernel) : k;
    s.stride = r.get<std::uint32_t>("stride", 1u, Range<std::uint32_t>{1, 255});
    const std::uint32_t pad = r.get<std::uint32_t>("pad", 0u, padding);
    s.padH = r.get<std::uint32_t>("pad_h", pad, padding);
    s.padW = r.get<std::uint32_t>("pad_w", pad, padding);
    // Grouped convolution: `groups` independent convolutions of channels/groups by filters/groups.
    s.groups = r.get<std::uint32_t>("groups", 1u, Range<std::uint32_t>{1, 65535});
    if (s.channels % s.groups != 0 || s.filters % s.groups != 0)
        r.fail("groups", fmt::format("groups {} must divide both channels ({}) and filters ({})", s.groups,
                                     s.channels, s.filters));
    if (s.h + 2 * s.padH < s.kh || s.w + 2 * s.padW < s.kw)
        r.fail(s.h + 2 * s.padH < s.kh ? (r.has("kh") ? "kh" : "k") : (r.has("kw") ? "kw" : "k"),
               fmt::format("a {}×{} kernel does not fit the padded {}×{} input", s.kh, s.kw, s.h + 2 * s.padH,
                           s.w + 2 * s.padW));
    return s;
}

}  // namespace

std::unique_ptr<Workload> makeConvKernel(const std::string& kernel, const config::Node& workload,
                                         const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    Reader w(workload);
    w.get<std::string>("kernel");
    const std::string name = w.get<std::string>("name", std::string());
    w.get<std::string>("description", std::string());
    w.get<std::string>("source", std::string());
    w.get<std::uint64_t>("batch", 1, Range<std::uint64_t>{1, 1});
    w.oneOf("dtype", {"i8"}, std::string("i8"));
    // Outputs: i8 (the array requantises the INT32 accumulators, 1 B per output in DDR) or i32
    // (the accumulators themselves, 4 B per output).
    const std::uint32_t outBytes = w.oneOf("output_dtype", {"i8", "i32"}, std::string("i8")) == "i8" ? 1 : 4;
    // requant_multiplier / requant_shift at the top level apply to every layer; a layer of a list
    // may give its own. Either left out (or `auto`): derived from the layer's shape (requantFor).
    const RequantKeys top = readRequant(w);
    auto requant = [&](ConvParams& p, config::Reader* row) {
        p.s.outBytes = outBytes;
        requantFor(p.s, p.multiplier, p.shift);
        RequantKeys own = row ? readRequant(*row) : RequantKeys{};
        p.multiplier = own.multiplier.value_or(top.multiplier.value_or(p.multiplier));
        p.shift = own.shift.value_or(top.shift.value_or(p.shift));
    };
    // A layer list (`layers:`, each with name, h, w, channels, filters, k, stride, pad), or one
    // layer given by the top-level keys.
    const bool listed = w.has("layers");
    std::vector<ConvParams> layers;
    if (listed) {
        std::vector<Reader> rows = w.children("layers");
        if (rows.empty())
            w.fail("layers", "the layer list is empty");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            ConvParams p;
            p.index = static_cast<std::uint32_t>(i);
            p.name = rows[i].get<std::string>("name", fmt::format("layer{}", i));
            p.s = readShape(rows[i]);
            requant(p, &rows[i]);
            rows[i].finish();
            layers.push_back(std::move(p));
        }
    } else {
        ConvParams p;
        p.name = name;
        p.s = readShape(w);
        requant(p, nullptr);
        layers.push_back(std::move(p));
    }
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    const std::string strategyName =
        pl.oneOf("strategy", {"naive", "static-single", "double-buffer"}, std::string("double-buffer"));
    const ConvStrategy strategy = strategyName == "naive"           ? ConvStrategy::Naive
                                  : strategyName == "static-single" ? ConvStrategy::StaticSingle
                                                                    : ConvStrategy::DoubleBuffer;
    const bool naive = strategy == ConvStrategy::Naive;
    TileRequest req;
    req.th = readTile(pl, "tile_h", naive ? 1 : 0);
    req.tw = readTile(pl, "tile_w", naive ? kFull : 0);
    req.tc = readTile(pl, "tile_c", 0);
    req.tf = readTile(pl, "tile_f", 0);
    const std::string order =
        pl.oneOf("loop_order", {"auto", "filters-outer", "spatial-outer"}, std::string("auto"));
    req.autoOrder = order == "auto";
    req.order = order == "spatial-outer" ? LoopOrder::SpatialOuter : LoopOrder::FiltersOuter;
    const EngineInfo* engine = &planEngine(pl, target);
    const std::string engineName = engine->name;
    // DMA channels: all the engine's DMA has unless the plan asks for fewer.
    if (engine->dmaChannels == 0)
        pl.fail(pl.has("engine") ? "engine" : "strategy", "conv2d moves tiles with DMA, but engine '" +
                                                              engineName + "' of target '" + target.name +
                                                              "' has no DMA engine (its `dma:` key)");
    const unsigned dmaChannels =
        pl.get<unsigned>("dma_channels", engine->dmaChannels, Range<unsigned>{1, engine->dmaChannels});
    auto space = [&](const std::string& key, const std::string& level) -> const MemorySpaceInfo* {
        if (pl.has(key)) {
            std::string n = pl.get<std::string>(key);
            const MemorySpaceInfo* s = target.findSpace(n);
            if (!s)
                pl.fail(key, "target '" + target.name + "' has no memory '" + n + "'");
            return s;
        }
        for (const auto& s : target.spaces)
            if (s.level == level)
                return &s;
        pl.fail("strategy", "conv2d needs a memory of level '" + level + "' on target '" + target.name + "'");
    };
    const MemorySpaceInfo* sram = space("sram", "sram");
    const MemorySpaceInfo* ddr = space("ddr", "ddr");
    // Tiles live in an on-chip memory that the array reads: one the engine reaches, not the DDR.
    const bool reached =
        std::find(engine->memories.begin(), engine->memories.end(), sram->id) != engine->memories.end();
    if (sram == ddr || sram->level == ddr->level || !reached)
        pl.fail(
            pl.has("sram") ? "sram" : "strategy",
            fmt::format("conv2d tiles need an on-chip memory that engine '{}' reaches; '{}' (level {}) {}",
                        engineName, sram->name, sram->level,
                        sram == ddr || sram->level == ddr->level ? "is the DDR the tiles are fetched from"
                                                                 : "is not among its memories"));
    PlannerMachine m;
    m.sramBytes = sram->size;
    m.ddrBytesPerSecond = ddr->peakBandwidth > 0 ? ddr->peakBandwidth : 1e10;
    m.ddrBurst = static_cast<double>(ddr->burstBytes);
    m.sramBytesPerSecond = sram->peakBandwidth;
    const double macsPerCycle = engine->peakWorkPerCycle > 0 ? engine->peakWorkPerCycle : 1.0;
    const double macsPerSecond = macsPerCycle * engine->clock.hz();
    m.clockHz = engine->clock.hz();
    std::string arraySource;
    // The array the planner times tiles with: plan.array_rows / array_cols / array_dataflow when
    // given, else the engine's own MAC array, else one assumed from its peak MAC/cycle: weight
    // stationary, rows the largest power of two ≤ √peak, cols = peak / rows.
    {
        MacArrayInfo array;
        std::string arraySourceDefault;
        if (engine->macArray) {
            array = *engine->macArray;
            arraySourceDefault = fmt::format("target: {}×{} {} array of engine {}", array.rows, array.cols,
                                             array.dataflow, engine->name);
        } else {
            array.rows = 1;
            while (double(array.rows) * 2 * array.rows * 2 <= macsPerCycle)
                array.rows *= 2;
            array.cols = std::max(1u, static_cast<unsigned>(macsPerCycle / array.rows));
            array.dataflow = "ws";
            arraySourceDefault =
                fmt::format("assumed {}×{} ws from {} MAC/cycle", array.rows, array.cols, macsPerCycle);
        }
        bool fromPlan = pl.has("array_rows") || pl.has("array_cols") || pl.has("array_dataflow");
        arraySource = fromPlan ? std::string("plan") : arraySourceDefault;
        m.rows = pl.get<unsigned>("array_rows", array.rows, Range<unsigned>{1, 4096});
        m.cols = pl.get<unsigned>("array_cols", array.cols, Range<unsigned>{1, 4096});
        const std::string df = pl.oneOf("array_dataflow", {"os", "ws", "is"}, array.dataflow);
        m.dataflow = df == "os"   ? Dataflow::OutputStationary
                     : df == "ws" ? Dataflow::WeightStationary
                                  : Dataflow::InputStationary;
    }
    auto ceilDiv = [](std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; };
    // Each layer is planned on its own; DDR holds every layer's input, weights and output in
    // distinct regions, then one zero line as long as the longest any layer needs.
    MemoryLayout ddrLayout(*ddr, 4096);
    std::uint64_t zeroBytes = 0;
    for (auto& p : layers) {
        p.strategyName = strategyName;
        p.strategy = strategy;
        p.dmaChannels = dmaChannels;
        p.engine = engineName;
        p.sram = sram;
        p.ddr = ddr;
        p.macsPerSecond = macsPerSecond;
        p.arraySource = arraySource;
        std::string message;
        if (!planTiling(p.s, p.strategy, req, m, p.t, message)) {
            std::string key = pl.has("tile_h") ? "tile_h" : "strategy";
            std::string layer =
                listed ? fmt::format("layer {} '{}' ", p.index, p.name) : std::string("layer ");
            pl.fail(key,
                    message +
                        fmt::format(
                            " ({}{}×{}×{} → {} filters, k {}, stride {}, pad {}{}, strategy {})", layer,
                            p.s.channels, p.s.h, p.s.w, p.s.filters,
                            p.s.kh == p.s.kw ? std::to_string(p.s.kh) : fmt::format("{}×{}", p.s.kh, p.s.kw),
                            p.s.stride,
                            p.s.padH == p.s.padW ? std::to_string(p.s.padH)
                                                 : fmt::format("{}×{}", p.s.padH, p.s.padW),
                            p.s.groups > 1 ? fmt::format(", groups {}", p.s.groups) : "", p.strategyName),
                    config::Shortfall::Capacity);
        }
        p.layout = sramLayout(p.s, p.t, p.strategy);
        p.estimate = estimatePlan(p.s, p.t, p.strategy, m);
        if (engine->macArray) {  // the array that runs the tiles streams these through the SRAM
            const std::string& df = engine->macArray->dataflow;
            p.arraySramBytes = arraySramBytes(p.s, p.t, engine->macArray->rows, engine->macArray->cols,
                                              df == "os"   ? Dataflow::OutputStationary
                                              : df == "is" ? Dataflow::InputStationary
                                                           : Dataflow::WeightStationary);
        }
        p.nH = ceilDiv(p.s.outH(), p.t.th);
        p.nW = ceilDiv(p.s.outW(), p.t.tw);
        p.nC = ceilDiv(p.s.groupChannels(), p.t.tc);
        p.nF = ceilDiv(p.s.groupFilters(), p.t.tf);
        p.nG = p.s.groups;
        p.ddrIn = ddrLayout.allocate(p.name + " input", inputBytes(p));
        p.ddrW = ddrLayout.allocate(p.name + " weights", weightBytes(p));
        p.ddrOut = ddrLayout.allocate(p.name + " output", outputBytes(p));
        zeroBytes = std::max(zeroBytes, p.layout.zeroBytes);
    }
    pl.finish();
    const std::uint64_t zero = ddrLayout.allocate("zero line", zeroBytes);
    for (auto& p : layers)
        p.ddrZero = zero;
    ddrLayout.requireFits(w, listed ? "layers" : "h", listed ? "the layer list" : "the layer");
    return std::make_unique<ConvKernel>(name, std::move(layers), listed);
}

}  // namespace tessim
