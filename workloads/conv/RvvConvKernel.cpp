#include "workloads/conv/RvvConvKernel.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/stats/StatsTree.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/FlopStats.h"
#include "workloads/common/Int8Outputs.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/PlanMemory.h"
#include "workloads/common/Slices.h"
#include "workloads/common/TestData.h"
#include "workloads/common/VectorOps.h"
#include "workloads/conv/ConvShapeReader.h"
#include "workloads/conv/Requant.h"
#include "workloads/conv/RvvIm2colRows.h"
#include "workloads/conv/RvvVectorLayers.h"
#include "workloads/fc/FcGemmStream.h"

namespace tessim {
namespace {

// The im2col loop's scalar registers, above the GEMM's (fc_gemm::kFirstPointer and its blocks):
// the source and destination pointers, the row counter, its compare flag, vsetvl's result.
constexpr std::uint8_t kIm2colSrc = scalarReg(24);
constexpr std::uint8_t kIm2colDst = scalarReg(25);
constexpr std::uint8_t kIm2colRow = scalarReg(26);
constexpr std::uint8_t kIm2colFlag = scalarReg(27);
constexpr std::uint8_t kIm2colVl = scalarReg(28);
// Copies move whole LMUL-8 groups (RvvIm2colRows): data through v24–v31, zeros (padding) from
// v16–v23, registers the GEMM between them may use too.
constexpr Im2colRegisters kIm2colRegisters{kIm2colSrc, kIm2colDst, kIm2colVl, 24, 16};
// A hard activation's constants (alpha, beta, 0, 1), loaded with flw: below the im2col's registers,
// free while a vector layer runs (the GEMM sets its own again).
constexpr std::uint8_t kVectorConstants = scalarReg(20);
// The direct depthwise loop's LMUL-8 groups: accumulator, inputs, weights. INT8: the i32
// accumulator v0–v7 (LMUL 8), the i16 inputs and weights v8 and v12 (LMUL 4), their i8 v16, v18.
constexpr std::uint8_t kDepthwiseAcc = 0;
constexpr std::uint8_t kDepthwiseIn = 8;
constexpr std::uint8_t kDepthwiseW = 24;
constexpr std::uint8_t kDepthwiseW16 = 12, kDepthwiseIn8 = 16, kDepthwiseW8 = 18;
constexpr unsigned kDepthwiseLmulI8 = 2;
// The threads meet at this barrier after each layer (a barrier is reusable: one generation per
// layer); thread 0 forks the others at the start.
constexpr std::uint32_t kRvvLayerBarrier = fc_gemm::kJoinBarrier;

struct RvvLayer {
    std::string name;
    std::uint32_t index = 0;
    ConvShape s;
    std::uint64_t inAddr = 0, wAddr = 0, outAddr = 0;
    std::vector<Slice> rows;  // per thread: its output pixels
    // Per thread: its filters, when the layer is split by filters (every thread then takes every
    // pixel: a layer of few pixels, a fully connected one above all); empty: each thread all filters.
    std::vector<Slice> filterSlices;
    std::uint64_t tile = 1;  // pixels per im2col + GEMM step (their column rows stay in the L1)
    // A depthwise layer (one channel per group, one filter each) run directly: per output pixel,
    // the channels vectorised, one multiply-add per kernel tap; its weights packed tap-major
    // ([tap][channel], as a framework packs them for this loop) instead of [filter][tap].
    bool direct = false;
    // An element-wise or pooling layer (RvvVectorLayers): its second operand at inBAddr, `rows`
    // its work items per thread; s its input's geometry.
    std::optional<RvvVectorLayer> vec;
    std::uint64_t inBAddr = 0;
    std::uint64_t constAddr = 0;  // a hard activation's constant pool
    RequantKeys requant;          // its own requant_multiplier / requant_shift
    Int8Outputs int8;             // INT8 runs: how its accumulators leave

    std::uint64_t pixels() const { return std::uint64_t{s.outH()} * s.outW(); }
    std::uint64_t k() const { return std::uint64_t{s.groupChannels()} * s.taps(); }  // GEMM depth per group
    std::uint64_t inputs() const {
        return vec ? vec->inputs() + vec->secondElements() : std::uint64_t{s.h} * s.w * s.channels;
    }
    std::uint64_t weights() const { return vec ? 0 : std::uint64_t{s.filters} * k(); }
    std::uint64_t outputs() const { return vec ? vec->outputs() : pixels() * s.filters; }
    std::uint64_t macs() const { return vec ? 0 : s.macs(); }
    std::uint64_t flops() const { return vec ? vec->flops() : 2 * s.macs(); }
    std::uint64_t saltIn() const { return 2 * std::uint64_t{index} + 1; }
    std::uint64_t saltW() const { return 2 * std::uint64_t{index} + 2; }
};

struct RvvConvParams {
    std::vector<RvvLayer> layers;
    bool listed = false;
    DType dtype = DType::F32;
    std::string modelDtype;  // the workload's dtype (the model's); this core runs `dtype`
    const MemorySpaceInfo* memory = nullptr;
    std::vector<std::string> engines;  // one thread per engine
    FcParams gemm;                     // the GEMM's blocking, registers and vector length
    std::uint32_t copyVlmax = 0;       // elements per copy at LMUL 8
    std::uint64_t colAddr = 0;         // the column buffers (one per thread) every layer reuses
    std::uint64_t colStride = 0;       // bytes from one thread's column buffer to the next
    double peakFlopPerSecond = 0.0;    // of all threads' engines

    unsigned elem() const { return dtypeBytes(dtype); }
    bool int8() const { return dtype == DType::I8; }
    // A layer's output elements: an INT8 convolution's i8 (requantised) or i32.
    DType outType(const RvvLayer& l) const { return int8() && !l.vec ? l.int8.outType() : dtype; }
    unsigned outElem(const RvvLayer& l) const { return dtypeBytes(outType(l)); }
    std::uint64_t layerBytes(const RvvLayer& l) const {
        return (l.inputs() + l.weights()) * elem() + l.outputs() * outElem(l);
    }
    // Channels per strip of the direct depthwise loop (INT8: its i32 accumulator at LMUL 8).
    std::uint32_t depthwiseVlmax = 0;
    std::uint64_t column(unsigned t) const { return colAddr + t * colStride; }
    // The GEMM of group g of `layer` over `count` pixels of thread t from `first` (in its slice):
    // x their rows of the thread's column buffer, W the group's filters, y the pixels' outputs of
    // those filters (rows F apart).
    FcParams gemmFor(const RvvLayer& layer, unsigned t, unsigned g, std::uint64_t first,
                     std::uint64_t count) const {
        FcParams f = gemm;
        const std::uint64_t pixel = layer.rows[t].first + first;
        const std::uint64_t gf = layer.s.groupFilters();
        f.in = layer.k();
        f.out = gf;
        f.batch = count;
        f.xAddr = column(t);
        f.wAddr = layer.wAddr + g * gf * layer.k() * elem();
        f.yAddr = layer.outAddr + (pixel * layer.s.filters + g * gf) * outElem(layer);
        f.int8 = layer.int8;
        f.yRow = layer.s.filters;
        f.threads = {layer.filterSlices.empty()
                         ? ThreadSlice{engines[t], 0, gf}
                         : ThreadSlice{engines[t], layer.filterSlices[t].first, layer.filterSlices[t].count}};
        f.forkJoin = false;
        return f;
    }
};

// Thread t's ops: per layer and group, im2col of its pixels then their GEMM; a barrier (and, on
// thread 0 of a layer list, the layer's mark) after each layer.
class RvvConvStream : public ChunkedOpStream {
public:
    RvvConvStream(const RvvConvParams& p, unsigned thread)
        : p_(p), t_(thread), rows_(p.dtype, p.memory->id, p.copyVlmax, kIm2colRegisters, vs_) {}

protected:
    bool refill(std::vector<Op>& out) override {
        if (!started_) {
            started_ = true;
            if (p_.engines.size() > 1)
                out.push_back(t_ == 0 ? syncOp(OpKind::Fork, fc_gemm::kForkEvent, 0)
                                      : syncOp(OpKind::Join, fc_gemm::kForkEvent, 1));
        }
        while (layer_ < p_.layers.size()) {
            const RvvLayer& l = p_.layers[layer_];
            const Slice& rows = l.rows[t_];
            if (l.vec) {
                if (!vec_)
                    vec_ = std::make_unique<RvvVectorLayerEmitter>(
                        *l.vec, p_.dtype, p_.memory->id, p_.copyVlmax, l.inAddr, l.inBAddr, l.outAddr, rows,
                        VectorLayerRegs{kIm2colSrc, kIm2colFlag, kIm2colDst, kIm2colRow, kIm2colVl,
                                        kVectorConstants},
                        l.constAddr);
                if (vec_->emit(out))
                    return true;
                vec_.reset();
                vs_.forget();  // the layer set its own
            }
            if (gemm_) {
                if (gemm_->appendTo(out))  // the GEMM's ops straight into this stream's buffer
                    return true;
                gemm_.reset();
                vs_.forget();  // the GEMM set its own
                pixel_ = 0;
                tile_ += l.tile;
                if (tile_ >= rows.count) {
                    tile_ = 0;
                    ++group_;
                }
            }
            if (!l.vec && l.direct && pixel_ < rows.count) {
                if (pixel_ == 0) {
                    out.push_back(scalarOp(OpKind::SAdd, DType::I32, kIm2colRow, fc_gemm::kZero, 0.0));
                    if (p_.int8())
                        loadInt8Constants(out, l.int8, p_.memory->id);
                }
                for (unsigned n = 0; n < 4 && pixel_ < rows.count; ++n, ++pixel_)
                    depthwisePixel(out, l, rows.first + pixel_, rows.count);
                return true;
            }
            if (!l.vec && !l.direct && group_ < l.s.groups && rows.count > 0) {
                const std::uint64_t count = std::min(l.tile, rows.count - tile_);
                if (pixel_ == 0) {
                    rows_.zeros(out);
                    out.push_back(scalarOp(OpKind::SAdd, DType::I32, kIm2colRow, fc_gemm::kZero, 0.0));
                }
                // A few pixels per chunk: chunks stay small whatever the layer.
                for (unsigned n = 0; n < 4 && pixel_ < count; ++n, ++pixel_)
                    im2colPixel(out, l, rows.first + tile_ + pixel_, group_, count);
                if (pixel_ == count) {
                    // The GEMM counts its blocks from zero.
                    out.push_back(scalarOp(OpKind::SAdd, DType::I32, fc_gemm::kBlock, fc_gemm::kZero, 0.0));
                    gemm_ = makeFcStream(p_.gemmFor(l, t_, group_, tile_, count), 0);
                }
                return true;
            }
            // The layer's end: every thread's outputs are written before the next layer reuses the
            // column buffer.
            if (p_.engines.size() > 1)
                out.push_back(
                    syncOp(OpKind::Barrier, kRvvLayerBarrier, static_cast<std::uint32_t>(p_.engines.size())));
            if (p_.listed && t_ == 0) {
                Op mark;
                mark.kind = OpKind::Nop;
                mark.tag = l.index + 1;
                out.push_back(mark);
            }
            ++layer_;
            group_ = 0;
            tile_ = 0;
            pixel_ = 0;
            if (!out.empty())
                return true;
        }
        return !out.empty();
    }

private:
    void setVl(std::vector<Op>& out, std::uint32_t vl) { vs_.set(out, p_.dtype, vl, kIm2colLmul, kIm2colVl); }
    void setType(std::vector<Op>& out, DType t, std::uint32_t vl, unsigned lmul) {
        vs_.set(out, t, vl, lmul, kIm2colVl);
    }
    // Output pixel m of a depthwise layer: per strip of channels, the accumulator zeroed, then for
    // each kernel tap over the input (padding taps add nothing) the channels' inputs and the tap's
    // packed weights loaded (unit stride, NHWC) and multiplied into it; the strip stored.
    void depthwisePixel(std::vector<Op>& out, const RvvLayer& l, std::uint64_t m, std::uint64_t pixels) {
        const ConvShape& s = l.s;
        const unsigned elem = p_.elem();
        for (std::uint64_t c0 = 0; c0 < s.channels; c0 += p_.depthwiseVlmax) {
            if (p_.int8()) {
                depthwiseInt8Strip(out, l, m, c0);
                continue;
            }
            const auto vl =
                static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.depthwiseVlmax, s.channels - c0));
            setVl(out, vl);
            Op zero = vectorOp(OpKind::Broadcast, p_.dtype, vl);
            zero.dst = kDepthwiseAcc;
            out.push_back(zero);
            forEachInputTap(s, m, [&](std::uint64_t at, std::uint64_t tap) {
                out.push_back(vectorLoad(p_.dtype, kDepthwiseIn, p_.memory->id,
                                         l.inAddr + (at * s.channels + c0) * elem, vl));
                out.push_back(vectorLoad(p_.dtype, kDepthwiseW, p_.memory->id,
                                         l.wAddr + (tap * s.channels + c0) * elem, vl));
                Op fma = vectorOp(OpKind::Fma, p_.dtype, vl);
                fma.dst = kDepthwiseAcc;
                fma.src[0] = kDepthwiseIn;
                fma.src[1] = kDepthwiseW;
                fma.src[2] = kDepthwiseAcc;
                out.push_back(fma);
            });
            out.push_back(vectorStore(p_.dtype, kDepthwiseAcc, p_.memory->id,
                                      l.outAddr + (m * s.filters + c0) * elem, vl));
        }
        out.push_back(scalarOp(OpKind::SAdd, DType::I32, kIm2colRow, kIm2colRow, 1.0));
        out.push_back(
            scalarOp(OpKind::SCompare, DType::I32, kIm2colFlag, kIm2colRow, static_cast<double>(pixels)));
        out.push_back(branchOp(DType::I32, kIm2colFlag, pixel_ + 1 < pixels));
    }
    // INT8: the strip's i32 accumulator zeroed; per tap over the input, the inputs' and weights' i8
    // loaded (vle8), sign-extended (vsext.vf2) and multiplied into it (vwmacc.vv); then requantised
    // and stored.
    void depthwiseInt8Strip(std::vector<Op>& out, const RvvLayer& l, std::uint64_t m, std::uint64_t c0) {
        const ConvShape& s = l.s;
        const auto vl =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(p_.depthwiseVlmax, s.channels - c0));
        const unsigned regBytes = p_.gemm.registerBytes;
        setType(out, DType::I32, vl, 4 * kDepthwiseLmulI8);
        Op zero = vectorOp(OpKind::Broadcast, DType::I32, vl);
        zero.dst = kDepthwiseAcc;
        out.push_back(zero);
        forEachInputTap(s, m, [&](std::uint64_t at, std::uint64_t tap) {
            setType(out, DType::I8, vl, kDepthwiseLmulI8);
            out.push_back(
                vectorLoad(DType::I8, kDepthwiseIn8, p_.memory->id, l.inAddr + at * s.channels + c0, vl));
            out.push_back(
                vectorLoad(DType::I8, kDepthwiseW8, p_.memory->id, l.wAddr + tap * s.channels + c0, vl));
            setType(out, DType::I16, vl, 2 * kDepthwiseLmulI8);
            out.push_back(convertOp(DType::I16, DType::I8, kDepthwiseIn, kDepthwiseIn8, vl, regBytes));
            out.push_back(convertOp(DType::I16, DType::I8, kDepthwiseW16, kDepthwiseW8, vl, regBytes));
            Op mac = vectorOp(OpKind::WidenFma, DType::I16, vl);
            mac.dst = kDepthwiseAcc;
            mac.src[0] = kDepthwiseIn;
            mac.src[1] = kDepthwiseW16;
            mac.src[2] = kDepthwiseAcc;
            out.push_back(mac);
        });
        storeInt8Outputs(out, l.int8, {{kDepthwiseAcc, l.outAddr + (m * s.filters + c0) * p_.outElem(l)}}, vl,
                         p_.memory->id, regBytes, kDepthwiseLmulI8, kIm2colVl);
        vs_.type = l.int8.outType();
        vs_.vl = vl;
    }
    // Column row `m` of group g (RvvIm2colRows::row) into row pixel_ of the thread's column
    // buffer. `pixels`: the tile's count, which the row counter is compared with (the back-edge's
    // condition: another pixel follows).
    void im2colPixel(std::vector<Op>& out, const RvvLayer& l, std::uint64_t m, unsigned g,
                     std::uint64_t pixels) {
        rows_.row(out, l.s, l.inAddr, g, m, p_.column(t_) + pixel_ * l.k() * p_.elem());
        out.push_back(scalarOp(OpKind::SAdd, DType::I32, kIm2colRow, kIm2colRow, 1.0));
        out.push_back(
            scalarOp(OpKind::SCompare, DType::I32, kIm2colFlag, kIm2colRow, static_cast<double>(pixels)));
        out.push_back(branchOp(DType::I32, kIm2colFlag, pixel_ + 1 < pixels));
    }

    const RvvConvParams& p_;
    unsigned t_;
    bool started_ = false;
    std::size_t layer_ = 0;
    unsigned group_ = 0;
    std::uint64_t tile_ = 0;   // the tile's first pixel in the thread's slice
    std::uint64_t pixel_ = 0;  // the next pixel of the tile
    VectorTypeState vs_;
    RvvIm2colRows rows_;
    std::unique_ptr<ChunkedOpStream> gemm_;
    std::unique_ptr<RvvVectorLayerEmitter> vec_;
};

class RvvConvKernel : public ConfiguredWorkload {
public:
    explicit RvvConvKernel(RvvConvParams p) : p_(std::move(p)) {}

    void derivePlan(nlohmann::ordered_json& j) const override {
        j["dtype"] = dtypeName(p_.dtype);
        j["threads"] = p_.engines.size();
        j["engines"] = p_.engines;
        j["vector_length"] = p_.gemm.vlmax;
        j["copy_vector_length"] = p_.copyVlmax;
        j["memory"] = p_.memory->name;
        j["column_buffers"] = p_.colAddr;
        j["column_buffer_bytes"] = p_.colStride;
        nlohmann::ordered_json tiles = nlohmann::ordered_json::array();
        for (const auto& l : p_.layers)
            tiles.push_back(l.tile);
        j["tile_pixels"] = p_.listed ? tiles : tiles.front();
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        for (unsigned t = 0; t < p_.engines.size(); ++t)
            s.push_back(EngineStream{p_.engines[t], std::make_unique<RvvConvStream>(p_, t)});
        return s;
    }
    // Inputs and weights read once, outputs written once (the column buffer is the lowering's own).
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        std::uint64_t bytes = 0;
        for (const auto& l : p_.layers)
            bytes += p_.layerBytes(l);
        return {{p_.memory->level, bytes}};
    }
    std::map<std::string, std::uint64_t> compulsoryWriteBytes() const override {
        std::uint64_t bytes = 0;
        for (const auto& l : p_.layers)
            bytes += l.outputs() * p_.outElem(l);
        return {{p_.memory->level, bytes}};
    }
    std::uint64_t coldReadBytes() const override {
        std::uint64_t bytes = 0;
        for (const auto& l : p_.layers)
            bytes += (l.inputs() + l.weights()) * p_.elem();
        return bytes;
    }
    bool multiLayer() const override { return p_.listed; }
    nlohmann::ordered_json layers() const override {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        if (!p_.listed)
            return out;
        for (const auto& l : p_.layers) {
            nlohmann::ordered_json j;
            j["index"] = l.index;
            j["name"] = l.name;
            j["mark"] = l.index + 1;
            j["engine"] = p_.engines.front();
            j["h"] = l.s.h;
            j["w"] = l.s.w;
            j["channels"] = l.s.channels;
            j["filters"] = l.s.filters;
            j["kh"] = l.s.kh;
            j["kw"] = l.s.kw;
            writeStride(j, l.s);
            j["pad_h"] = l.s.padH;
            j["pad_w"] = l.s.padW;
            j["groups"] = l.s.groups;
            if (l.vec)
                j["op"] = l.vec->opName;
            j["lowering"] = l.vec      ? (l.vec->pooling() ? "RVV pooling" : "RVV element-wise stream")
                            : l.direct ? "direct depthwise"
                            : l.filterSlices.empty() ? "im2col + GEMM"
                                                     : "im2col + GEMM, filters split over the threads";
            j["out_h"] = l.s.outH();
            j["out_w"] = l.s.outW();
            j["dtype"] = dtypeName(p_.dtype);
            if (p_.modelDtype != dtypeName(p_.dtype))
                j["model_dtype"] = p_.modelDtype;  // the network's type beside the one it ran in
            if (p_.int8() && !l.vec) {
                j["output_dtype"] = dtypeName(l.int8.outType());
                if (l.int8.requantize)
                    j["requant_scale"] = l.int8.scale;
            }
            j["macs"] = l.macs();
            j["flops"] = l.flops();
            j["compulsory_bytes"] = p_.layerBytes(l);
            j["compute_bound_s"] = static_cast<double>(l.flops()) / p_.peakFlopPerSecond;
            out.push_back(j);
        }
        return out;
    }
    void initialise(FunctionalMemory& memory) override {
        for (const auto& l : p_.layers) {
            if (l.vec) {
                write(memory, l.inAddr, l.vec->inputs(), l.saltIn());
                if (const std::vector<double> k = vectorLayerConstants(*l.vec, p_.dtype); !k.empty()) {
                    std::vector<std::uint8_t> buf(k.size() * p_.elem());
                    for (std::size_t i = 0; i < k.size(); ++i)
                        encodeElement(p_.dtype, k[i], buf.data() + i * p_.elem());
                    memory.write(p_.memory->id, l.constAddr, buf.data(), buf.size());
                }
                if (l.vec->secondElements() > 0)
                    write(memory, l.inBAddr, l.vec->secondElements(), l.saltW());
                continue;
            }
            if (p_.int8()) {
                initialiseInt8(memory, l);
                continue;
            }
            write(memory, l.inAddr, l.inputs(), l.saltIn());
            if (!l.direct) {
                write(memory, l.wAddr, l.weights(), l.saltW());
                continue;
            }
            // Tap-major: weight (channel c, tap t) of the [filter][tap] order at t·C + c.
            std::vector<std::uint8_t> buf(l.weights() * p_.elem());
            for (std::uint64_t c = 0; c < l.s.channels; ++c)
                for (std::uint64_t t = 0; t < l.s.taps(); ++t)
                    encodeElement(p_.dtype, testValue(p_.dtype, c * l.s.taps() + t, l.saltW()),
                                  buf.data() + (t * l.s.channels + c) * p_.elem());
            memory.write(p_.memory->id, l.wAddr, buf.data(), buf.size());
        }
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck c;
        c.checked = true;
        const unsigned elem = p_.elem();
        for (const auto& l : p_.layers) {
            std::vector<std::uint8_t> buf(l.outputs() * p_.outElem(l));
            memory.read(p_.memory->id, l.outAddr, buf.data(), buf.size());
            if (l.vec) {
                for (std::uint64_t i = 0; i < l.outputs(); ++i) {
                    const double got = decodeElement(p_.dtype, buf.data() + i * elem);
                    const double want = vectorLayerReference(*l.vec, p_.dtype, i, l.saltIn(), l.saltW());
                    if (c.countOutput(got, want, got != want)) {
                        c.firstMismatch = fmt::format("{} ({}) output element {}: simulated {} reference {}",
                                                      l.name, l.vec->opName, i, got, want);
                        c.locateFirstMismatch(p_.memory->id, l.outAddr + i * elem);
                    }
                }
                continue;
            }
            const std::uint64_t gf = l.s.groupFilters();
            const unsigned outElem = p_.outElem(l);
            for (std::uint64_t m = 0; m < l.pixels(); ++m) {
                for (std::uint64_t f = 0; f < l.s.filters; ++f) {
                    const double got =
                        decodeElement(p_.outType(l), buf.data() + (m * l.s.filters + f) * outElem);
                    const double want = reference(l, m, f / gf, f);
                    if (c.countOutput(got, want, got != want)) {
                        c.firstMismatch =
                            fmt::format("{} output pixel {} filter {}: simulated {} reference {}", l.name, m,
                                        f, got, want);
                        c.locateFirstMismatch(p_.memory->id, l.outAddr + (m * l.s.filters + f) * outElem);
                    }
                }
            }
        }
        return c;
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        std::uint64_t flops = 0;
        bool vector = false;
        for (const auto& l : p_.layers) {
            flops += l.flops();
            vector = vector || l.vec.has_value();
        }
        addFlopStats(
            stats, flops,
            vector ? "2 · MACs of every convolution; element-wise and pooling ops one per element and tap"
                   : "2 · MACs of every layer",
            cycles, seconds);
    }

private:
    void write(FunctionalMemory& memory, std::uint64_t addr, std::uint64_t count, std::uint64_t salt) const {
        writeTestValues(memory, p_.memory->id, addr, count, p_.dtype, salt);
    }
    // A convolution's test value: INT8 over the whole range (as the requantisation expects), else
    // the type's.
    double value(std::uint64_t index, std::uint64_t salt) const {
        return p_.int8() ? testInt8(index, salt) : testValue(p_.dtype, index, salt);
    }
    // INT8: inputs, then weights packed for the loop that reads them — [group][k][filter] for the
    // GEMM (a W column one vle8), tap-major for the direct depthwise loop — and the constant pool.
    void initialiseInt8(FunctionalMemory& memory, const RvvLayer& l) const {
        std::vector<std::uint8_t> in(l.inputs());
        for (std::uint64_t i = 0; i < in.size(); ++i)
            in[i] = static_cast<std::uint8_t>(testInt8(i, l.saltIn()));
        memory.write(p_.memory->id, l.inAddr, in.data(), in.size());
        std::vector<std::uint8_t> w(l.weights());
        const std::uint64_t k = l.k(), gf = l.s.groupFilters();
        for (std::uint64_t f = 0; f < l.s.filters; ++f)
            for (std::uint64_t i = 0; i < k; ++i)
                w[l.direct ? i * l.s.channels + f : (f / gf * k + i) * gf + f % gf] =
                    static_cast<std::uint8_t>(testInt8(f * k + i, l.saltW()));
        memory.write(p_.memory->id, l.wAddr, w.data(), w.size());
        writeInt8Constants(memory, p_.memory->id, l.int8);
    }
    // Output (pixel m, filter f of group g) as the GEMM computes it over the column row, or, for a
    // direct depthwise layer, as its taps accumulate in order from zero.
    double reference(const RvvLayer& l, std::uint64_t m, std::uint64_t g, std::uint64_t f) const {
        const ConvShape& s = l.s;
        if (l.direct) {
            double acc = 0.0;
            const DType accType = p_.int8() ? DType::I32 : p_.dtype;
            forEachInputTap(s, m, [&](std::uint64_t at, std::uint64_t tap) {
                acc = fmaIn(accType, value(at * s.channels + f, l.saltIn()),
                            value(f * s.taps() + tap, l.saltW()), acc);
            });
            return p_.int8() ? int8OutputReference(l.int8, acc) : acc;
        }
        const std::uint64_t gc = s.groupChannels();
        const auto oy = static_cast<std::int64_t>(m / s.outW()), ox = static_cast<std::int64_t>(m % s.outW());
        FcParams fp = p_.gemm;
        fp.in = l.k();
        fp.int8 = l.int8;
        auto x = [&](std::uint64_t i) {
            const std::uint64_t c = i % gc, kx = i / gc % s.kw, ky = i / gc / s.kw;
            const std::int64_t iy = oy * s.strideH - s.padH + static_cast<std::int64_t>(ky);
            const std::int64_t ix = ox * s.strideW - s.padW + static_cast<std::int64_t>(kx);
            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                return 0.0;
            return value((static_cast<std::uint64_t>(iy) * s.w + static_cast<std::uint64_t>(ix)) *
                                 s.channels +
                             g * gc + c,
                         l.saltIn());
        };
        auto w = [&](std::uint64_t i) { return value(f * l.k() + i, l.saltW()); };
        return fcReference(fp, x, w);
    }

    RvvConvParams p_;
};

// Whether a layer's threads split its filters rather than its pixels: as the plan says, or (auto)
// where the pixels leave a thread without work — a layer of fewer pixels than threads, a fully
// connected one above all — and the estimate favours it: the busiest thread's column elements
// copied plus multiply-adds, the GEMM's blocks rounded up (rb pixels, ro filters). Layers whose
// pixels reach every thread stay split by pixels (each thread's weights then stream once per tile).
bool splitFilters(const RvvLayer& l, const std::string& split, std::size_t threads, const FcParams& g) {
    if (split != "auto")
        return split == "filters";
    const std::vector<Slice> byPixel = contiguousSlices(l.pixels(), threads, g.rb);
    if (std::all_of(byPixel.begin(), byPixel.end(), [](const Slice& s) { return s.count > 0; }))
        return false;
    auto roundUp = [](std::uint64_t n, std::uint64_t m) { return (n + m - 1) / m * m; };
    const std::uint64_t k = l.k(), filters = l.s.filters;
    const std::uint64_t pixelsEach = largestSlice(byPixel);
    const std::uint64_t filtersEach = largestSlice(contiguousSlices(filters, threads, g.ro));
    const std::uint64_t byPixels = pixelsEach * k + roundUp(pixelsEach, g.rb) * roundUp(filters, g.ro) * k;
    const std::uint64_t byFilters =
        l.pixels() * k + roundUp(l.pixels(), g.rb) * roundUp(filtersEach, g.ro) * k;
    return byFilters < byPixels;
}

// What an INT8 run does with an element-wise or pooling layer: one whose result does not depend
// on the tensors' quantisation scales runs on the i8 values; the others are refused (the layer
// rows carry no scales, and a quantised Add, say, rescales its operands).
std::string int8Gap(const std::string& op) {
    static const std::set<std::string> exact{"Concat", "Transpose", "Relu", "MaxPool", "GlobalMaxPool"};
    if (exact.count(op))
        return "";
    return fmt::format(
        "{} in i8 (plan.dtype i8): its result depends on the tensors' quantisation scales, which the "
        "layers do not carry (the K1's INT8 layers run Conv, Relu, MaxPool, GlobalMaxPool and copies); run "
        "plan.dtype f32 or f16",
        op);
}

bool int8Plan(const config::Node& plan) {
    const config::Node* type = plan.find("dtype");
    return type && type->isScalar() && type->scalar() == "i8";
}

}  // namespace

std::string rvvVectorLayerGap(const config::Node& layer, const config::Node& plan, const TargetInfo& target) {
    (void)target;
    const config::Node* op = layer.find("op");
    return op && op->isScalar() && int8Plan(plan) ? int8Gap(op->scalar()) : std::string();
}

std::unique_ptr<Workload> makeRvvConvKernel(const std::string& kernel, const config::Node& workload,
                                            const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    (void)kernel;
    RvvConvParams p;
    Reader w(workload);
    w.get<std::string>("kernel");
    const std::string name = w.get<std::string>("name", std::string());
    w.get<std::string>("description", std::string());
    w.get<std::string>("source", std::string());
    w.get<std::uint64_t>("batch", 1, Range<std::uint64_t>{1, 1});
    // The model's types (an INT8 network for the NPU, say): this core runs the plan's dtype. An
    // INT8 run (peeked here: it refuses layers as they are read) stores its convolutions' outputs
    // requantised to i8 (requant_multiplier, requant_shift: as the NPU reads them), or as the i32
    // accumulators for output_dtype i32.
    p.modelDtype = w.oneOf("dtype", {"i8", "f16", "f32", "f64"}, std::string("f32"));
    const std::string outputDtype = w.oneOf("output_dtype", {"i8", "i32", "f16", "f32", "f64"},
                                            p.modelDtype == "i8" ? std::string("i8") : p.modelDtype);
    const RequantKeys top = readRequant(w);
    p.listed = w.has("layers");
    if (p.listed) {
        std::vector<Reader> rows = w.children("layers");
        if (rows.empty())
            w.fail("layers", "the layer list is empty");
        std::map<std::string, std::size_t> names;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            RvvLayer l;
            l.index = static_cast<std::uint32_t>(i);
            l.name = readLayerName(rows[i], i, names);
            std::vector<std::string> ops{"Conv"};
            ops.insert(ops.end(), vectorLayerOps().begin(), vectorLayerOps().end());
            const std::string op = rows[i].oneOf("op", ops, std::string("Conv"));
            if (op == "Conv") {
                l.s = readConvShape(rows[i]);
            } else {
                l.vec = readVectorLayer(rows[i], op);
                l.s = l.vec->s;
            }
            l.requant = readRequant(rows[i]);
            rows[i].finish();
            p.layers.push_back(std::move(l));
        }
    } else {
        RvvLayer l;
        l.name = name;
        l.s = readConvShape(w);
        p.layers.push_back(std::move(l));
    }
    w.finish();

    PlanReader planReader(plan);
    Reader& pl = planReader.reader;
    pl.oneOf("strategy", {"rvv-im2col"}, std::string("rvv-im2col"));
    // Default: the model's floating-point type; f32 for an integer model. f64: RVV e64 (vfmacc.vv
    // at SEW 64), half the lanes of f32. i8: INT8 with widening integer MACs (Int8Outputs; the
    // X60's IME dot-product instructions are not modelled).
    parseDType(pl.oneOf("dtype", {"f32", "f16", "f64", "i8"},
                        p.modelDtype == "i8" ? std::string("f32") : p.modelDtype),
               p.dtype);
    const std::vector<const EngineInfo*> engines = planEngines(pl, target, "threads", 0);
    FcParams& g = p.gemm;
    g.dtype = p.dtype;
    // INT8: rb pixels × ro vectors of filters per block.
    readGemmBlocking(pl, g, 16);
    g.orderedReduce = readReduction(pl, true);
    // Pixels per im2col + GEMM step; 0: as many as fill half the memory the plan uses (the L1), so
    // that the GEMM reads the column rows from it while the weights stream through.
    const std::uint64_t tilePixels =
        pl.get<std::uint64_t>("tile_pixels", 0, Range<std::uint64_t>{0, 1u << 20});
    // Depthwise layers: the direct loop (default) or im2col + a GEMM per channel.
    const bool directDepthwise =
        pl.oneOf("depthwise", {"direct", "im2col"}, std::string("direct")) == "direct";
    // How a convolution's work is shared by the threads: by output pixels, by filters (each thread
    // copies every pixel's column row and multiplies it by its own filters), or by estimate.
    const std::string split = pl.oneOf("split", {"auto", "pixels", "filters"}, std::string("auto"));
    if ((g.lmul & (g.lmul - 1)) != 0)
        pl.fail("lmul", fmt::format("LMUL is 1, 2, 4 or 8, not {}", g.lmul));
    p.memory = &planMemory(pl, target, *engines[0]);
    pl.finish();
    const EngineInfo& core = *engines[0];
    for (const EngineInfo* e : engines) {
        if (e->registerBytes != core.registerBytes || e->vectorRegisters != core.vectorRegisters ||
            e->registerGroups != core.registerGroups)
            pl.fail("threads", fmt::format("engines {} and {} have different registers", core.name, e->name));
        p.engines.push_back(e->name);
        // The peak of the run's type (f16 fills twice f32's lanes; i8 four times, as vwmacc at e8 would).
        p.peakFlopPerSecond += e->peakWorkPerCycleFor(p.dtype) * e->clock.hz();
    }
    if (!core.registerGroups)
        pl.fail("threads",
                fmt::format("engine '{}' has no RVV register groups: the im2col copies run at LMUL 8",
                            core.name));
    if (core.vectorRegisters < 32 || core.scalarRegisters < 29)
        pl.fail("threads",
                fmt::format("engine '{}' has {} vector and {} scalar registers; the lowering uses 32 and 29",
                            core.name, core.vectorRegisters, core.scalarRegisters));
    g.group = g.lmul;
    g.vlmax = std::max(1u, core.registerBytes * g.lmul / dtypeBytes(p.dtype));
    g.overOut = p.int8();
    g.registerBytes = core.registerBytes;
    // The GEMM's blocks take registers from v0 up; the copies reuse v16–v31 between GEMMs (the
    // phases follow each other, so sharing costs only the order it already has). INT8: rb·ro i32
    // accumulators of 4 groups, ro W columns as i16 (2) and i8 (1); x values in scalar registers.
    const unsigned vectorRegs =
        p.int8() ? (4 * g.rb * g.ro + 3 * g.ro) * g.group : (g.rb * g.ro + g.rb + g.ro) * g.group;
    if (vectorRegs > core.vectorRegisters)
        pl.fail(
            "rb",
            fmt::format("a block of rb {} × ro {} at lmul {} needs {} vector registers; engine '{}' has {}",
                        g.rb, g.ro, g.lmul, vectorRegs, core.name, core.vectorRegisters),
            config::Shortfall::Registers);
    if (p.int8() && fc_gemm::kFirstPointer + 3 * g.rb + g.ro > 32)
        pl.fail(
            "rb",
            fmt::format("a block of rb {} × ro {} needs {} integer registers (pointers and x values); the "
                        "core has 32",
                        g.rb, g.ro, fc_gemm::kFirstPointer + 3 * g.rb + g.ro),
            config::Shortfall::Registers);
    p.copyVlmax = std::max(1u, core.registerBytes * kIm2colLmul / dtypeBytes(p.dtype));
    p.depthwiseVlmax = p.int8() ? core.registerBytes * 8 / 4 : p.copyVlmax;
    g.memory = p.memory;
    if (p.peakFlopPerSecond <= 0)
        p.peakFlopPerSecond = 1.0;

    MemoryLayout layout(*p.memory, fc_gemm::kPage);
    for (auto& l : p.layers) {
        const std::string tag = p.listed ? l.name + " " : std::string();
        l.inAddr = layout.allocate(tag + "input", (l.vec ? l.vec->inputs() : l.inputs()) * p.elem());
        if (!l.vec)
            l.wAddr = layout.allocate(tag + "weights", l.weights() * p.elem());
        if (p.int8() && !l.vec) {
            std::int32_t multiplier = 0;
            std::uint32_t shift = 0;
            resolveRequant(l.s, l.requant, top, multiplier, shift);
            l.int8 = int8Outputs(outputDtype != "i32", multiplier, shift);
            if (l.int8.requantize)
                l.int8.constants = layout.allocate(tag + "requantisation constants", kInt8ConstantBytes);
        }
        l.outAddr = layout.allocate(tag + "output", l.outputs() * p.outElem(l));
        if (l.vec) {
            if (l.vec->secondElements() > 0)
                l.inBAddr = layout.allocate(tag + "second input", l.vec->secondElements() * p.elem());
            if (const std::size_t pool = vectorLayerConstants(*l.vec, p.dtype).size(); pool > 0)
                l.constAddr = layout.allocate(tag + "constants", pool * p.elem());
            l.rows = contiguousSlices(RvvVectorLayerEmitter::items(*l.vec, p.copyVlmax), engines.size(), 1);
            continue;
        }
        l.direct = directDepthwise && l.s.groups > 1 && l.s.groupChannels() == 1 && l.s.groupFilters() == 1;
        l.rows = contiguousSlices(l.pixels(), engines.size(), g.rb);
        if (!l.direct && l.s.groups == 1 && splitFilters(l, split, engines.size(), g)) {
            l.filterSlices = contiguousSlices(l.s.filters, engines.size(), p.int8() ? g.vlmax : g.ro);
            for (std::size_t t = 0; t < engines.size(); ++t)
                l.rows[t] = l.filterSlices[t].count ? Slice{0, l.pixels()} : Slice{0, 0};
        }
        const std::uint64_t widest = std::max<std::uint64_t>(1, largestSlice(l.rows));
        const std::uint64_t holds = p.memory->cacheBytes ? p.memory->cacheBytes : p.memory->size;
        const std::uint64_t fit = holds / 2 / (l.k() * p.elem()) / g.rb * g.rb;
        l.tile = std::min(widest, tilePixels ? tilePixels : std::max<std::uint64_t>(g.rb, fit));
        p.colStride = std::max(p.colStride, (l.tile * l.k() * p.elem() + 63) / 64 * 64);
    }
    p.colAddr = layout.allocate("column buffers", p.colStride * engines.size());
    if (layout.end() > (std::uint64_t{1} << 31))
        w.fail(p.listed ? "layers" : "h",
               fmt::format("the layers' arrays take {} B; the loops' 32-bit pointers reach 2 GiB",
                           layout.end()));
    layout.requireFits(w, p.listed ? "layers" : "h", "conv2d as im2col + GEMM");
    auto k = std::make_unique<RvvConvKernel>(std::move(p));
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
