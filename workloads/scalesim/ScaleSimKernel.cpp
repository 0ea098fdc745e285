#include "workloads/scalesim/ScaleSimKernel.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Reader.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/DmaOps.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/scalesim/ScaleSimIdealInterface.h"
#include "workloads/scalesim/ScaleSimTopology.h"

namespace tessim {
namespace {

constexpr std::uint64_t kChunkCap = 1u << 20;      // largest single DMA descriptor
constexpr std::uint64_t kRegionWindow = 8u << 20;  // DRAM addresses wrap in an 8 MiB window per operand
constexpr std::uint64_t kWordBytes = 1;  // a SCALE-Sim word is 1 B (as the .cfg conversion maps bandwidth)

struct Fold {
    std::uint32_t ru = 0, cu = 0;  // rows and columns of the array used
    std::uint64_t ifmapBytes = 0, filterBytes = 0, ofmapBytes = 0;
};

struct LayerRun {
    std::size_t index = 0;  // row in the topology
    ScaleSimLayer l;
    ScaleSimMapping m;
    std::vector<Fold> folds;
    std::uint64_t dramIfmap = 0, dramFilter = 0, dramOfmap = 0;
    ScaleSimIdealAccess ideal;  // with an ideal interface: SCALE-Sim's access windows
    ScaleSimSramWindows sram;   // with the memory model: SRAM windows were the folds back to back
};

struct Params {
    std::string name, source, form, layerSel, dataflow;
    bool idealInterface = false;  // `interface: ideal`: operands arrive without DMA, the array never waits
    unsigned rows = 32, cols = 32;
    std::vector<LayerRun> layers;
    std::string engine;
    unsigned dmaChannels = 3;
    // One channel per operand stream (0 ifmap, 1 filter, 2 ofmap); with fewer, the last is shared.
    unsigned channel(unsigned stream) const { return std::min(stream, dmaChannels - 1); }
    const MemorySpaceInfo *ifmap = nullptr, *filter = nullptr, *ofmap = nullptr, *ddr = nullptr;
    std::uint64_t ifmapOffset = 0, filterOffset = 10000000, ofmapOffset = 20000000;
};

// Distinct SCALE-Sim ifmap addresses touched by pixels [p0, p1) × window elements [w0, w1).
class AddressCounter {
public:
    explicit AddressCounter(const ScaleSimLayer& l) : l_(l) {
        std::uint64_t maxAddr = (((l.ofmapH() - 1) * l.strideH + l.filterH - 1) * l.ifmapW +
                                 (l.ofmapW() - 1) * l.strideW + l.filterW - 1) *
                                    l.channels +
                                l.channels;
        stamp_.assign(maxAddr, 0);
    }
    std::uint64_t count(std::uint64_t p0, std::uint64_t p1, std::uint64_t w0, std::uint64_t w1) {
        ++epoch_;
        std::uint64_t n = 0;
        const std::uint64_t ow = l_.ofmapW(), c = l_.channels, fw = l_.filterW;
        for (std::uint64_t p = p0; p < p1; ++p) {
            const std::uint64_t oy = p / ow, ox = p % ow;
            for (std::uint64_t w = w0; w < w1; ++w) {
                const std::uint64_t ch = w % c, s = (w / c) % fw, r = w / (c * fw);
                const std::uint64_t a = ((oy * l_.strideH + r) * l_.ifmapW + ox * l_.strideW + s) * c + ch;
                if (stamp_[a] != epoch_) {
                    stamp_[a] = epoch_;
                    ++n;
                }
            }
        }
        return n;
    }

private:
    const ScaleSimLayer& l_;
    std::vector<std::uint32_t> stamp_;
    std::uint32_t epoch_ = 0;
};

// `countIfmap`: count the distinct ifmap addresses per fold (the DMA schedule's ifmap bytes).
void planFolds(LayerRun& lr, unsigned rows, unsigned cols, const std::string& df, bool countIfmap) {
    const ScaleSimLayer& l = lr.l;
    lr.m = scaleSimMapping(l, rows, cols, df);
    const auto& m = lr.m;
    const std::uint64_t e = l.pixels(), k = l.window(), n = l.filters;
    AddressCounter counter(l);
    std::vector<std::uint64_t> rowFoldIfmap(m.rowFolds, 0);
    if (df != "is" && countIfmap)
        for (std::uint64_t fr = 0; fr < m.rowFolds; ++fr) {
            std::uint64_t r0 = fr * rows, r1 = std::min(m.sr, r0 + rows);
            rowFoldIfmap[fr] = df == "ws" ? counter.count(0, e, r0, r1) : counter.count(r0, r1, 0, k);
        }
    lr.folds.reserve(m.folds());
    for (std::uint64_t fc = 0; fc < m.colFolds; ++fc)
        for (std::uint64_t fr = 0; fr < m.rowFolds; ++fr) {
            Fold f;
            std::uint64_t r0 = fr * rows, c0 = fc * cols;
            f.ru = static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, m.sr - r0));
            f.cu = static_cast<std::uint32_t>(std::min<std::uint64_t>(cols, m.sc - c0));
            if (df == "ws") {
                f.ifmapBytes = rowFoldIfmap[fr];
                f.filterBytes = std::uint64_t{f.ru} * f.cu;
                f.ofmapBytes = e * f.cu;
            } else if (df == "os") {
                f.ifmapBytes = rowFoldIfmap[fr];
                f.filterBytes = k * f.cu;
                f.ofmapBytes = std::uint64_t{f.ru} * f.cu;
            } else {
                f.ifmapBytes = countIfmap ? counter.count(c0, c0 + f.cu, r0, r0 + f.ru) : 0;
                f.filterBytes = std::uint64_t{f.ru} * n;
                f.ofmapBytes = std::uint64_t{f.cu} * n;
            }
            lr.dramIfmap += f.ifmapBytes;
            lr.dramFilter += f.filterBytes;
            lr.dramOfmap += f.ofmapBytes;
            lr.folds.push_back(f);
        }
}

class ScaleSimStream : public ChunkedOpStream {
public:
    explicit ScaleSimStream(const Params& p) : p_(p) {}

protected:
    bool refill(std::vector<Op>& out) override {
        while (li_ < p_.layers.size()) {
            const LayerRun& lr = p_.layers[li_];
            if (p_.idealInterface) {  // folds back to back
                for (std::size_t k = 0; k < lr.folds.size(); ++k)
                    out.push_back(mac(lr, k));
                ++li_;
                return true;
            }
            const std::uint32_t base = static_cast<std::uint32_t>(4 * li_);
            const std::size_t n = lr.folds.size();
            if (k_ == 0 && !prologue_) {
                prologue_ = true;
                load(lr, 0, 0, base, out);
                return true;
            }
            if (k_ < n) {
                const std::size_t k = k_++;
                const unsigned slot = k % 2;
                out.push_back(dmaWait(base + 1 + slot));
                out.push_back(dmaWait(base + 3 + slot));  // write-back of fold k − 2 left this half
                out.push_back(mac(lr, k));
                if (k + 1 < n)
                    load(lr, k + 1, (k + 1) % 2, base, out);
                if (k >= 1)
                    store(lr, k - 1, (k - 1) % 2, base, out);
                out.push_back(fence());
                return true;
            }
            store(lr, n - 1, (n - 1) % 2, base, out);
            out.push_back(dmaWait(base + 3));
            out.push_back(dmaWait(base + 4));
            ++li_;
            k_ = 0;
            prologue_ = false;
            return true;
        }
        return false;
    }

private:
    // `bytes` from DRAM region `region` into (or, for writes, out of) half `slot` of `sram`, in
    // descriptors no larger than the half: SCALE-Sim's buffers stream, they need not hold a fold.
    void transfer(std::vector<Op>& out, std::uint32_t tag, unsigned channel, const MemorySpaceInfo& sram,
                  unsigned slot, std::uint64_t region, std::uint64_t& cursor, std::uint64_t bytes,
                  bool toDram) {
        const std::uint64_t half = std::max<std::uint64_t>(1, sram.size / 2);
        const std::uint64_t chunk = std::min(half, kChunkCap);
        const std::uint64_t sramAddr = slot * half;
        while (bytes > 0) {
            std::uint64_t b = std::min(bytes, chunk);
            std::uint64_t dramAddr = region + cursor % kRegionWindow;
            if (toDram)
                out.push_back(dmaCopy(tag, channel, {static_cast<std::uint32_t>(b)}, {sram.id, sramAddr},
                                      {p_.ddr->id, dramAddr}));
            else
                out.push_back(dmaCopy(tag, channel, {static_cast<std::uint32_t>(b)}, {p_.ddr->id, dramAddr},
                                      {sram.id, sramAddr}));
            cursor += b;
            bytes -= b;
        }
    }
    void load(const LayerRun& lr, std::size_t k, unsigned slot, std::uint32_t base, std::vector<Op>& out) {
        const Fold& f = lr.folds[k];
        transfer(out, base + 1 + slot, p_.channel(1), *p_.filter, slot, p_.filterOffset, filterCursor_,
                 f.filterBytes, false);
        transfer(out, base + 1 + slot, p_.channel(0), *p_.ifmap, slot, p_.ifmapOffset, ifmapCursor_,
                 f.ifmapBytes, false);
    }
    void store(const LayerRun& lr, std::size_t k, unsigned slot, std::uint32_t base, std::vector<Op>& out) {
        const Fold& f = lr.folds[k];
        transfer(out, base + 3 + slot, p_.channel(2), *p_.ofmap, slot, p_.ofmapOffset, ofmapCursor_,
                 f.ofmapBytes, true);
    }
    Op fence() const { return macArrayFence(p_.ifmap->id); }
    // One fold as a MacTile whose mapping on the array is exactly that fold (see mapTile).
    Op mac(const LayerRun& lr, std::size_t k) const {
        const Fold& f = lr.folds[k];
        Op op = fence();
        op.flags |= Op::kIdealOperands;  // SCALE-Sim's array never waits for its SRAMs
        MacTileArgs& a = op.mac;
        a.kh = a.kw = 1;
        const std::uint64_t t = lr.m.t;
        if (p_.dataflow == "ws") {  // window = ru, filters = cu, pixels = T
            a.channels = static_cast<std::uint16_t>(f.ru);
            a.filters = static_cast<std::uint16_t>(f.cu);
            a.outH = static_cast<std::uint32_t>(t);
        } else if (p_.dataflow == "is") {  // window = ru, pixels = cu, filters = T
            a.channels = static_cast<std::uint16_t>(f.ru);
            a.outH = f.cu;
            a.filters = static_cast<std::uint16_t>(t);
        } else {  // os: pixels = ru, filters = cu, window = T = channels · kh
            a.outH = f.ru;
            a.filters = static_cast<std::uint16_t>(f.cu);
            std::uint64_t kh = 1;
            while (t / kh > 65535 || t % kh != 0)
                ++kh;
            a.kh = static_cast<std::uint8_t>(kh);
            a.channels = static_cast<std::uint16_t>(t / kh);
        }
        a.outW = 1;
        a.inH = a.outH;
        a.inW = 1;
        return op;
    }

    const Params& p_;
    std::size_t li_ = 0, k_ = 0;
    bool prologue_ = false;
    std::uint64_t ifmapCursor_ = 0, filterCursor_ = 0, ofmapCursor_ = 0;
};

class ScaleSimKernel : public ConfiguredWorkload {
public:
    explicit ScaleSimKernel(Params p) : p_(std::move(p)) {}

    void deriveWorkload(nlohmann::ordered_json& j) const override {
        j["name"] = p_.name;
        j["source"] = p_.source;
        j["form"] = p_.form;
        j["layer"] = p_.layerSel;
        j["interface"] = p_.idealInterface ? "ideal" : "memory";
        j["array"] = {{"rows", p_.rows}, {"cols", p_.cols}, {"dataflow", p_.dataflow}};
        nlohmann::ordered_json layers = nlohmann::ordered_json::array();
        for (const auto& lr : p_.layers) {
            const auto& l = lr.l;
            const auto& m = lr.m;
            const std::uint64_t e = l.pixels(), k = l.window(), n = l.filters;
            std::uint64_t ifR = 0, fR = 0, oW = 0;  // SCALE-Sim's SRAM access counts
            if (p_.dataflow == "ws")
                ifR = e * k * m.colFolds, fR = k * n, oW = e * n * m.rowFolds;
            else if (p_.dataflow == "os")
                ifR = e * k * m.colFolds, fR = k * n * m.rowFolds, oW = e * n;
            else
                ifR = e * k, fR = k * n * m.colFolds, oW = e * n * m.rowFolds;
            // SCALE-Sim's os count adds rows + cols per fold (the padded fold's height and width);
            // reported so with its ideal interface, whose figures are SCALE-Sim's.
            if (p_.idealInterface && p_.dataflow == "os")
                oW += m.folds() * (std::uint64_t{p_.rows} + p_.cols);
            nlohmann::ordered_json x;
            x["index"] = lr.index;
            x["name"] = l.name;
            x["ifmap_h"] = l.ifmapH;
            x["ifmap_w"] = l.ifmapW;
            x["filter_h"] = l.filterH;
            x["filter_w"] = l.filterW;
            x["channels"] = l.channels;
            x["filters"] = l.filters;
            x["stride"] = l.strideH;
            x["stride_w"] = l.strideW;
            x["ofmap_h"] = l.ofmapH();
            x["ofmap_w"] = l.ofmapW();
            x["macs"] = l.macs();
            x["sr"] = m.sr;
            x["sc"] = m.sc;
            x["t"] = m.t;
            x["row_folds"] = m.rowFolds;
            x["col_folds"] = m.colFolds;
            x["cycles_per_fold"] = m.cyclesPerFold;
            x["compute_cycles"] = m.computeCycles();
            x["mapping_efficiency"] =
                double(m.sr) * m.sc / (double(m.rowFolds) * p_.rows * m.colFolds * p_.cols);
            x["sram_ifmap_reads"] = ifR;
            x["sram_filter_reads"] = fR;
            x["sram_ofmap_writes"] = oW;
            x["dram_ifmap_reads"] = lr.dramIfmap;
            x["dram_filter_reads"] = lr.dramFilter;
            x["dram_ofmap_writes"] = lr.dramOfmap;
            if (p_.idealInterface) {
                auto window = [](const ScaleSimWindow& w) {
                    return nlohmann::ordered_json{{"start", w.start}, {"stop", w.stop}, {"count", w.count}};
                };
                const auto& a = lr.ideal;
                x["ideal_interface"] = {{"sram",
                                         {{"ifmap", window(a.sramIfmap)},
                                          {"filter", window(a.sramFilter)},
                                          {"ofmap", window(a.sramOfmap)}}},
                                        {"dram",
                                         {{"ifmap", window(a.dramIfmap)},
                                          {"filter", window(a.dramFilter)},
                                          {"ofmap", window(a.dramOfmap)}}}};
            }
            if (!p_.idealInterface) {
                auto window = [](const ScaleSimSramWindow& w) {
                    return nlohmann::ordered_json{
                        {"start", w.start}, {"stop", w.stop}, {"stop_fold", w.stopFold}};
                };
                x["sram_windows_back_to_back"] = {{"ifmap", window(lr.sram.ifmap)},
                                                  {"filter", window(lr.sram.filter)},
                                                  {"ofmap", window(lr.sram.ofmap)}};
            }
            layers.push_back(x);
        }
        j["layers"] = layers;
    }
    void derivePlan(nlohmann::ordered_json& j) const override {
        j["strategy"] = "scalesim-folds";
        j["engine"] = p_.engine;
        j["ifmap_sram"] = p_.ifmap->name;
        j["filter_sram"] = p_.filter->name;
        j["ofmap_sram"] = p_.ofmap->name;
        j["ddr"] = p_.ddr->name;
        j["fold_order"] = "column folds outer, row folds inner";
        j["buffers"] = p_.idealInterface ? "ideal interface (no DMA)" : "double (ping-pong halves)";
        j["dma_channels"] = {{"ifmap", p_.channel(0)}, {"filter", p_.channel(1)}, {"ofmap", p_.channel(2)}};
        if (p_.idealInterface) {
            const UntimedTraffic u = idealTraffic();
            j["ideal_interface"] = {{"memory", u.memory},
                                    {"timed", false},
                                    {"word_bytes", kWordBytes},
                                    {"read_bytes", u.readBytes},
                                    {"write_bytes", u.writeBytes}};
        }
    }
    // With the ideal interface the DRAM words SCALE-Sim's estimate moves (every layer's DRAM
    // reads and writes) count in the DDR's traffic and energy; no DRAM access is timed.
    std::vector<UntimedTraffic> untimedTraffic() const override {
        if (!p_.idealInterface)
            return {};
        return {idealTraffic()};
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        s.push_back(EngineStream{p_.engine, std::make_unique<ScaleSimStream>(p_)});
        return s;
    }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        std::uint64_t total = 0;
        for (const auto& lr : p_.layers) {
            const auto& l = lr.l;
            total += l.ifmapH * l.ifmapW * l.channels + l.window() * l.filters + l.pixels() * l.filters;
        }
        return {{p_.ddr->level, total}};
    }
    void initialise(FunctionalMemory&) override {
        throw std::runtime_error("kernel scalesim is timing-only: --functional is not supported");
    }
    FunctionalCheck check(FunctionalMemory&) override { return FunctionalCheck{}; }
    bool multiLayer() const override { return p_.layers.size() > 1; }

private:
    UntimedTraffic idealTraffic() const {
        UntimedTraffic u;
        u.memory = p_.ddr->name;
        for (const auto& lr : p_.layers) {
            u.readBytes += (lr.dramIfmap + lr.dramFilter) * kWordBytes;
            u.writeBytes += lr.dramOfmap * kWordBytes;
        }
        return u;
    }

    Params p_;
};

}  // namespace

std::unique_ptr<Workload> makeScaleSimKernel(const std::string& kernel, const config::Node& workload,
                                             const config::Node& plan, const TargetInfo& target) {
    using namespace config;
    Params p;
    Reader w(workload);
    w.get<std::string>("kernel");
    p.name = w.get<std::string>("name", std::string("scalesim"));
    p.source = w.get<std::string>("source", std::string());
    w.get<std::string>("description", std::string());
    p.form = w.oneOf("form", {"conv", "gemm"}, std::string("conv"));
    p.layerSel = w.get<std::string>("layer", std::string("all"));
    p.idealInterface = w.oneOf("interface", {"memory", "ideal"}, std::string("memory")) == "ideal";
    // The array: the workload's `array` map when given, else the target's first MAC array.
    MacArrayInfo targetArray;
    for (const auto& e : target.engines)
        if (e.macArray && targetArray.rows == 0)
            targetArray = *e.macArray;
    if (!w.has("array") && targetArray.rows == 0)
        w.fail("kernel",
               "kernel scalesim needs a target with a MAC array (a unit with impl: systolic), e.g. one "
               "made from a SCALE-Sim .cfg");
    if (w.has("array")) {
        Reader a = w.child("array");
        p.rows = a.get<unsigned>("rows", Range<unsigned>{1, 4096});
        p.cols = a.get<unsigned>("cols", Range<unsigned>{1, 4096});
        p.dataflow = a.oneOf("dataflow", {"os", "ws", "is"}, std::string("ws"));
    } else {
        p.rows = targetArray.rows;
        p.cols = targetArray.cols;
        p.dataflow = targetArray.dataflow;
    }
    std::vector<Reader> rows = w.children("layers");
    if (rows.empty())
        w.fail("layers", "the topology has no layers");
    std::size_t only = rows.size();
    if (p.layerSel != "all") {
        std::size_t pos = 0;
        long long idx = -1;
        try {
            idx = std::stoll(p.layerSel, &pos);
        } catch (...) {
            pos = 0;
        }
        if (pos != p.layerSel.size() || idx < 0 || idx >= static_cast<long long>(rows.size()))
            w.fail("layer", fmt::format("expected 'all' or a layer index in [0, {}], got '{}'",
                                        rows.size() - 1, p.layerSel));
        only = static_cast<std::size_t>(idx);
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        Reader& r = rows[i];
        LayerRun lr;
        lr.index = i;
        lr.l.name = r.get<std::string>("name", fmt::format("layer{}", i));
        const Range<std::uint64_t> dim{1, 1ull << 31};
        lr.l.ifmapH = r.get<std::uint64_t>("ifmap_h", dim);
        lr.l.ifmapW = r.get<std::uint64_t>("ifmap_w", dim);
        lr.l.filterH = r.get<std::uint64_t>("filter_h", dim);
        lr.l.filterW = r.get<std::uint64_t>("filter_w", dim);
        lr.l.channels = r.get<std::uint64_t>("channels", dim);
        lr.l.filters = r.get<std::uint64_t>("filters", dim);
        lr.l.strideH = r.get<std::uint64_t>("stride", std::uint64_t{1}, dim);
        lr.l.strideW = r.get<std::uint64_t>("stride_w", lr.l.strideH, dim);
        r.finish();
        if (lr.l.filterH > lr.l.ifmapH || lr.l.filterW > lr.l.ifmapW)
            r.fail("filter_h", fmt::format("filter {}×{} exceeds the ifmap {}×{}", lr.l.filterH, lr.l.filterW,
                                           lr.l.ifmapH, lr.l.ifmapW));
        if (only != rows.size() && i != only)
            continue;
        ScaleSimMapping m = scaleSimMapping(lr.l, p.rows, p.cols, p.dataflow);
        if (m.t > 65535 && p.dataflow == "is")
            r.fail("filters", fmt::format("dataflow is with {} filters: at most 65535 per layer", m.t));
        p.layers.push_back(std::move(lr));
    }
    w.finish();
    if (!plan.isNull()) {
        // SCALE-Sim's fold schedule is fixed: a plan may only name what it derives (a report's
        // plan fed back, sim/config/DerivedKeys.h), which finish() leaves to be compared.
        Reader pl(plan);
        pl.get<std::string>("name", std::string());
        pl.get<std::string>("description", std::string());
        if (!pl.has("strategy") || pl.get<std::string>("strategy") != "scalesim-folds")
            pl.fail("strategy", "kernel scalesim takes no plan (SCALE-Sim's fold schedule is fixed)");
        pl.finish();
    }
    const EngineInfo* engine = &target.mainEngine();
    p.engine = engine->name;
    if (engine->dmaChannels == 0 && !p.idealInterface)
        w.fail("kernel",
               fmt::format("kernel scalesim moves folds with DMA, but engine '{}' of target '{}' has "
                           "no DMA engine (its `dma:` key)",
                           engine->name, target.name));
    p.dmaChannels = engine->dmaChannels;
    auto space = [&](const char* n) {
        const MemorySpaceInfo* s = target.findSpace(n);
        if (!s)
            w.fail("kernel",
                   fmt::format("kernel scalesim needs memory '{}' on target '{}' (targets made from a "
                               "SCALE-Sim .cfg have ifmap_sram, filter_sram, ofmap_sram and ddr)",
                               n, target.name));
        return s;
    };
    p.ifmap = space("ifmap_sram");
    p.filter = space("filter_sram");
    p.ofmap = space("ofmap_sram");
    p.ddr = space("ddr");
    for (auto& lr : p.layers) {
        planFolds(lr, p.rows, p.cols, p.dataflow, !p.idealInterface);
        if (p.idealInterface) {
            lr.ideal = scaleSimIdealAccess(lr.l, lr.m, p.rows, p.cols, p.dataflow, p.ifmap->size,
                                           p.filter->size, p.ofmap->size);
            lr.dramIfmap = lr.ideal.dramIfmap.count;
            lr.dramFilter = lr.ideal.dramFilter.count;
            lr.dramOfmap = lr.ideal.dramOfmap.count;
        } else {
            lr.sram = scaleSimSramWindows(lr.l, lr.m, p.rows, p.cols, p.dataflow);
        }
    }
    auto made = std::make_unique<ScaleSimKernel>(std::move(p));
    made->echoFrom(w, PlanReader(plan).reader);
    return made;
}

}  // namespace tessim
