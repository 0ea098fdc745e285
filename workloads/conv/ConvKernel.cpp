#include "workloads/conv/ConvKernel.h"
#include "workloads/conv/ConvShapeReader.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/TestData.h"
#include "workloads/conv/ConvGeometry.h"
#include "workloads/conv/ConvLayer.h"
#include "workloads/conv/ConvReference.h"
#include "workloads/conv/ConvStream.h"
#include "workloads/conv/Requant.h"

namespace tessim {
namespace {

void merge(nlohmann::ordered_json& into, const nlohmann::ordered_json& from) {
    for (auto it = from.begin(); it != from.end(); ++it)
        into[it.key()] = it.value();
}

class ConvKernel : public ConfiguredWorkload {
public:
    // `listed`: the workload gave a `layers` list (per-layer marks and results, even for one layer).
    ConvKernel(std::string name, std::vector<ConvParams> layers, bool listed)
        : name_(std::move(name)), layers_(std::move(layers)), listed_(listed) {}

    void deriveWorkload(nlohmann::ordered_json& j) const override {
        if (!name_.empty())
            j["name"] = name_;
        if (!listed_) {
            const ConvParams& p = layers_.front();
            merge(j, shapeJson(p));
            j["dtype"] = "i8";
            j["out_h"] = p.s.outH();
            j["out_w"] = p.s.outW();
            j["macs"] = p.s.macs();
            return;
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
    }
    void derivePlan(nlohmann::ordered_json& j) const override {
        const ConvParams& p = layers_.front();
        j["engine"] = p.engine;
        j["sram"] = p.sram->name;
        j["ddr"] = p.ddr->name;
        j["dma_channels"] = p.dmaChannels;
        if (!listed_) {
            merge(j, tilesJson(p));
            j["sram_bytes"] = p.sram->size;
            merge(j, fetchJson(p));
            return;
        }
        j["sram_bytes"] = p.sram->size;
        for (const char* perLayer : {"tile_h", "tile_w", "tile_c", "tile_f", "loop_order"})
            j.erase(perLayer);
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& q : layers_) {
            nlohmann::ordered_json l;
            l["name"] = q.name;
            merge(l, tilesJson(q));
            merge(l, fetchJson(q));
            list.push_back(l);
        }
        j["layers"] = list;
    }
    std::vector<EngineStream> streams() override {
        std::vector<EngineStream> s;
        s.push_back(EngineStream{layers_.front().engine, makeConvLayersStream(layers_, listed_)});
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
            l["dtype"] = "i8";  // the array's INT8 operands
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
            checkConvLayer(p, memory, listed_, c);
        return c;
    }

private:
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
        resolveRequant(p.s, row ? readRequant(*row) : RequantKeys{}, top, p.multiplier, p.shift);
    };
    // A layer list (`layers:`, each with name, h, w, channels, filters, k, stride, pad), or one
    // layer given by the top-level keys.
    const bool listed = w.has("layers");
    std::vector<ConvParams> layers;
    if (listed) {
        std::vector<Reader> rows = w.children("layers");
        if (rows.empty())
            w.fail("layers", "the layer list is empty");
        std::map<std::string, std::size_t> names;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            ConvParams p;
            p.index = static_cast<std::uint32_t>(i);
            p.name = readLayerName(rows[i], i, names);
            p.s = readConvShape(rows[i]);
            requant(p, &rows[i]);
            rows[i].finish();
            layers.push_back(std::move(p));
        }
    } else {
        ConvParams p;
        p.name = name;
        p.s = readConvShape(w);
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
    // Seed 001's own planner (its TensorTilingPlanner): bands of full-width rows, every channel and
    // filter, as many input rows as one buffer of band_bytes holds (C·W bytes a row at INT8), less
    // the K − 1 halo rows: out_h_step = band_bytes / (C·W) − (K − 1) output rows a band.
    std::uint64_t bandBytes = 0;
    if (pl.has("band_bytes")) {
        for (const char* key : {"tile_h", "tile_w", "tile_c", "tile_f"})
            if (readTile(pl, key, 0) != 0)  // only auto beside it
                pl.fail(key,
                        "band_bytes sizes the tiles as seed 001's planner does: no tile_h, tile_w, tile_c "
                        "or tile_f beside it");
        bandBytes = pl.get<Bytes>("band_bytes", Range<Bytes>{Bytes{1}, Bytes{~0ULL}}).value;
    }
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
        m.rows = pl.get<unsigned>("array_rows", array.rows, Range<unsigned>{1, 4096});
        m.cols = pl.get<unsigned>("array_cols", array.cols, Range<unsigned>{1, 4096});
        const std::string df = pl.oneOf("array_dataflow", {"os", "ws", "is"}, array.dataflow);
        m.dataflow = dataflowFromName(df);
        // A plan that names the array it would get anyway (a report's plan fed back) plans on it.
        const bool fromPlan = m.rows != array.rows || m.cols != array.cols || df != array.dataflow;
        arraySource = fromPlan ? std::string("plan") : arraySourceDefault;
    }
    // Where the partial sums of a tile's channel chunks wait: an INT32 buffer in the SRAM, or the
    // array's own accumulators (a target whose MAC array has `accumulators`).
    const bool inArray = pl.oneOf("accumulate", {"sram", "array"}, std::string("sram")) == "array";
    if (inArray) {
        if (!engine->macArray || engine->macArray->accumulatorBytes == 0)
            pl.fail("accumulate",
                    fmt::format(
                        "the partial sums cannot stay in the array: engine '{}' of target '{}' has {}",
                        engineName, target.name,
                        engine->macArray ? "a MAC array without accumulators (its unit's `accumulators` key)"
                                         : "no MAC array"));
        m.arrayAccumulatorBytes = engine->macArray->accumulatorBytes;
    }
    auto ceilDiv = [](std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; };
    // Each layer is planned on its own; DDR holds every layer's input, weights and output in
    // distinct regions, then one zero line as long as the longest any layer needs.
    // A layer of a network that runs a layer at a time (LayerSequence) puts its tensors after the
    // layers before it: plan.ddr_offset.
    MemoryLayout ddrLayout(*ddr, 4096, readDdrOffset(pl));
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
        p.inArray = inArray;
        std::string message;
        TileRequest layerRequest = req;
        if (bandBytes > 0) {
            const ConvShape g = p.s.group();
            const std::uint64_t rowBytes = std::uint64_t{g.channels} * g.w;  // INT8
            const std::uint64_t rows = bandBytes / rowBytes;
            if (rows < g.kh)
                pl.fail(
                    "band_bytes",
                    fmt::format("{} B hold {} input rows of {} B ({} channels × {} columns), fewer than the "
                                "{}-row kernel: the seed's planner stops here (\"SRAM too small to hold "
                                "single tile line\"){}",
                                bandBytes, rows, rowBytes, g.channels, g.w, g.kh,
                                listed ? fmt::format(" (layer {} '{}')", p.index, p.name) : std::string()));
            layerRequest.th =
                static_cast<std::uint32_t>(std::min<std::uint64_t>(rows - (g.kh - 1), 1u << 24));
            layerRequest.tw = layerRequest.tc = layerRequest.tf = kFull;
        }
        if (!planTiling(p.s, p.strategy, layerRequest, m, p.t, message)) {
            std::string key = pl.has("tile_h")       ? "tile_h"
                              : pl.has("band_bytes") ? "band_bytes"
                              : inArray              ? "accumulate"
                                                     : "strategy";
            std::string layer =
                listed ? fmt::format("layer {} '{}' ", p.index, p.name) : std::string("layer ");
            pl.fail(key,
                    message +
                        fmt::format(
                            " ({}{}×{}×{} → {} filters, k {}, stride {}, pad {}{}, strategy {})", layer,
                            p.s.channels, p.s.h, p.s.w, p.s.filters,
                            p.s.kh == p.s.kw ? std::to_string(p.s.kh) : fmt::format("{}×{}", p.s.kh, p.s.kw),
                            strideText(p.s),
                            p.s.padH == p.s.padW ? std::to_string(p.s.padH)
                                                 : fmt::format("{}×{}", p.s.padH, p.s.padW),
                            p.s.groups > 1 ? fmt::format(", groups {}", p.s.groups) : "", p.strategyName),
                    config::Shortfall::Capacity);
        }
        p.layout = sramLayout(p.s, p.t, p.strategy, inArray);
        p.estimate = estimatePlan(p.s, p.t, p.strategy, m);
        if (engine->macArray) {  // the array that runs the tiles streams these through the SRAM
            const std::string& df = engine->macArray->dataflow;
            p.arraySramBytes = arraySramBytes(p.s, p.t, engine->macArray->rows, engine->macArray->cols,
                                              df == "os"   ? Dataflow::OutputStationary
                                              : df == "is" ? Dataflow::InputStationary
                                                           : Dataflow::WeightStationary,
                                              inArray);
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
    auto k = std::make_unique<ConvKernel>(name, std::move(layers), listed);
    k->echoFrom(w, pl);
    return k;
}

}  // namespace tessim
