#include "workloads/conv/ConvStream.h"

#include <algorithm>

#include "sim/ir/OpStream.h"
#include "workloads/common/DmaOps.h"

namespace tessim {
namespace {

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
                // Each output buffer that carried a write-back (one tile uses only the first).
                for (unsigned slot = 0; slot < 2; ++slot)
                    if (storedFrom_[slot])
                        out.push_back(dmaWait(p_.tagOut(slot)));
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
        return tileSpan(st.h * p_.t.th, p_.t.th, p_.s.outH(), p_.s.h, p_.s.kh, p_.s.strideH, p_.s.padH);
    }
    TileSpan spanW(const Step& st) const {
        return tileSpan(st.w * p_.t.tw, p_.t.tw, p_.s.outW(), p_.s.w, p_.s.kw, p_.s.strideW, p_.s.padW);
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
        op.mac.strideH = static_cast<std::uint8_t>(p_.s.strideH);
        op.mac.strideW = static_cast<std::uint8_t>(p_.s.strideW);
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
        if (p_.inArray)  // the INT32 results leave the array after the last chunk unless requantised
            op.mac.inArray = st.c + 1 == p_.nC && !p_.s.requantize() ? 2 : 1;
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
        storedFrom_[oslot] = true;
        out.push_back(dmaCopy(
            p_.tagOut(oslot), channel(DmaStream::Output), {w.n * ob, h.n, tf},
            {p_.sram->id, p_.layout.slotOut[oslot], std::int64_t{w.n} * ob, std::int64_t{w.n} * h.n * ob},
            {p_.ddr->id, dst, static_cast<std::int64_t>(wo * ob), static_cast<std::int64_t>(ho * wo * ob)}));
    }

    ConvParams p_;
    bool started_ = false;
    std::uint64_t i_ = 0;
    std::int64_t pendingOut_ = -1;
    bool storedFrom_[2] = {false, false};  // output buffers a write-back has left from
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

}  // namespace

std::unique_ptr<OpStream> makeConvLayersStream(std::vector<ConvParams> layers, bool marks) {
    return std::make_unique<ConvLayersStream>(std::move(layers), marks);
}

}  // namespace tessim
