#include "workloads/LayerSequence.h"
#include "workloads/conv/ConvShapeReader.h"

#include <algorithm>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Reader.h"
#include "sim/workload/PlanEngine.h"
#include "workloads/common/FlopStats.h"
#include "workloads/common/LoopOps.h"
#include "workloads/conv/RvvVectorLayers.h"

namespace tessim {
namespace {

// Element ops per second of the engines beside the main ones that ran a vector layer: each
// engine's vector ALUs (the units that execute `add`) at one op per lane per issue, lanes being
// its register of `dtype` elements; 0 where the layer ran on the main engines, whose peak
// bounds it as their MACs do.
double besideEnginesPeak(const TargetInfo& target, const nlohmann::ordered_json& engines,
                         const std::string& dtype) {
    DType t{};
    if (!engines.is_array() || engines.empty() || !parseDType(dtype, t))
        return 0.0;
    double peak = 0.0;
    for (const auto& name : engines) {
        const EngineInfo* e = target.findEngine(name.get<std::string>());
        if (!e || e->mainCompute)
            return 0.0;
        for (const auto& u : e->units)
            if (const OpTimingInfo* add = u.findOp("add"))
                peak += u.instances * static_cast<double>(e->registerBytes / dtypeBytes(t)) /
                        std::max(add->reciprocal, 1e-9) * e->clock.hz();
    }
    return peak;
}

// The barrier after each block: an id the kernels' own barriers (small numbers) do not take.
constexpr std::uint32_t kSequenceBarrier = 0x7fff0001;

struct SequenceBlock {
    std::unique_ptr<Workload> work;
    std::uint64_t macs = 0;
    // The engines meet after it; a group of a grouped layer that runs on its own core beside the
    // others does not wait for them until the layer's last block.
    bool barrierAfter = true;
};

struct SequenceLayer {
    std::string name;
    std::uint32_t index = 0;
    std::vector<SequenceBlock> blocks;
    std::uint32_t filters = 0;
    std::uint32_t channels = 0, groups = 1;  // the layer's, not a group block's
    bool groupsSideBySide = false;           // one group per core at a time, else one after another
    bool vector = false;                     // an element-wise layer (`op: Relu` …), not a convolution
    std::uint64_t flops = 0;                 // a vector layer's
    double peakOpsPerSecond = 0.0;           // a vector layer's on an engine beside the main ones; 0: theirs
    // A fully connected layer run as a GEMV: its weights as a `channels`-channel gemvRows ×
    // gemvCols map (stored transposed), the input vector as one 1×1 filter (0: not so).
    std::uint32_t gemvRows = 0, gemvCols = 0;
    std::size_t filterBlocks() const { return blocks.size() / groups; }
    std::uint64_t macs() const {
        std::uint64_t m = 0;
        for (const auto& b : blocks)
            m += b.macs;
        return m;
    }
};

// One engine's ops: each block's stream for it (none where the block leaves it idle), the
// barrier after each block, and the layer's mark after its last block (every engine marks it, so
// that the layer's DDR bytes count each engine's transfers).
class SequenceStream : public OpStream {
public:
    SequenceStream(std::vector<std::vector<std::unique_ptr<OpStream>>> perLayer,
                   std::vector<std::vector<bool>> barrierAfter, std::uint32_t engines)
        : layers_(std::move(perLayer)), barrierAfter_(std::move(barrierAfter)), engines_(engines) {}

    void setEngineClock(EngineClock* clock) override {
        for (auto& l : layers_)
            for (auto& s : l)
                if (s)
                    s->setEngineClock(clock);
    }
    const Op* next() override {
        const Op* first = nullptr;
        if (pos_ == held_.size()) {
            held_.clear();
            pos_ = 0;
            if (nextChunk(first) == 0)
                return nullptr;
            held_.assign(first, first + last_);
        }
        return &held_[pos_++];
    }
    std::size_t nextChunk(const Op*& first) override {
        while (layer_ < layers_.size()) {
            auto& blocks = layers_[layer_];
            if (block_ < blocks.size()) {
                if (blocks[block_]) {
                    const std::size_t n = blocks[block_]->nextChunk(first);
                    if (n > 0)
                        return last_ = n;
                }
                const bool barrier = barrierAfter_[layer_][block_];
                ++block_;
                own_.clear();
                if (engines_ > 1 && (barrier || block_ == blocks.size()))
                    own_.push_back(syncOp(OpKind::Barrier, kSequenceBarrier, engines_));
                if (block_ == blocks.size()) {
                    Op mark;
                    mark.kind = OpKind::Nop;
                    mark.tag = static_cast<std::uint32_t>(layer_) + 1;
                    own_.push_back(mark);
                }
                if (!own_.empty()) {
                    first = own_.data();
                    return last_ = own_.size();
                }
                continue;
            }
            ++layer_;
            block_ = 0;
        }
        return 0;
    }

private:
    std::vector<std::vector<std::unique_ptr<OpStream>>> layers_;
    std::vector<std::vector<bool>> barrierAfter_;
    std::uint32_t engines_;
    std::size_t layer_ = 0, block_ = 0;
    std::vector<Op> own_, held_;
    std::size_t pos_ = 0, last_ = 0;
};

class LayerSequenceWorkload : public Workload {
public:
    LayerSequenceWorkload(std::vector<SequenceLayer> layers, double peakMacs,
                          std::vector<std::string> planEngines)
        : layers_(std::move(layers)), peakMacs_(peakMacs), planEngines_(std::move(planEngines)) {}

    nlohmann::ordered_json resolvedWorkload() const override {
        nlohmann::ordered_json j;
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& l : layers_) {
            nlohmann::ordered_json one = l.blocks.front().work->resolvedWorkload();
            j["kernel"] = one["kernel"];
            one.erase("kernel");
            nlohmann::ordered_json named;
            named["name"] = l.name;
            for (auto it = one.begin(); it != one.end(); ++it)
                named[it.key()] = it.value();
            if (!l.vector)
                named["filters"] = l.filters;
            if (l.gemvRows > 0) {  // the layer as written: its lowering is derived again
                named["h"] = 1;
                named["w"] = 1;
            }
            if (l.groups > 1) {
                named["channels"] = l.channels;
                named["groups"] = l.groups;
            }
            list.push_back(named);
        }
        j["layers"] = list;
        return j;
    }
    // What every block's plan resolves alike (the engines, a strategy every layer took, …): run
    // again, each layer derives the rest as it did. What differs per layer is in layers().
    nlohmann::ordered_json resolvedPlan() const override {
        nlohmann::ordered_json j;
        bool first = true;
        for (const auto& l : layers_)
            for (const auto& b : l.blocks) {
                nlohmann::ordered_json one = b.work->resolvedPlan();
                if (l.groupsSideBySide) {  // a group's block runs on one of the plan's engines
                    one.erase("engine");
                    one["cores"] = planEngines_.size();
                    one["engines"] = planEngines_;
                }
                if (first) {
                    j = std::move(one);
                    first = false;
                    continue;
                }
                std::vector<std::string> differ;
                for (auto it = j.begin(); it != j.end(); ++it)
                    if (!one.contains(it.key()) || one[it.key()] != it.value())
                        differ.push_back(it.key());
                for (const auto& key : differ)
                    j.erase(key);
            }
        j.erase("ddr_offset");
        nlohmann::ordered_json blocks = nlohmann::ordered_json::array();
        for (const auto& l : layers_)
            blocks.push_back(l.filterBlocks());
        j["filter_blocks"] = blocks;
        return j;
    }
    std::vector<EngineStream> streams() override {
        // Every block's streams, by engine, in the order the engines first appear.
        std::vector<std::string> engines;
        std::vector<std::vector<std::vector<EngineStream>>> all;
        for (auto& l : layers_) {
            all.emplace_back();
            for (auto& b : l.blocks) {
                all.back().push_back(b.work->streams());
                for (const auto& s : all.back().back())
                    if (std::find(engines.begin(), engines.end(), s.engine) == engines.end())
                        engines.push_back(s.engine);
            }
        }
        engine_ = engines.front();
        std::vector<std::vector<bool>> barriers;
        for (const auto& l : layers_) {
            barriers.emplace_back();
            for (const auto& b : l.blocks)
                barriers.back().push_back(b.barrierAfter);
        }
        std::vector<EngineStream> out;
        for (const auto& e : engines) {
            std::vector<std::vector<std::unique_ptr<OpStream>>> perLayer;
            for (auto& layer : all) {
                perLayer.emplace_back();
                for (auto& block : layer) {
                    std::unique_ptr<OpStream> mine;
                    for (auto& s : block)
                        if (s.engine == e)
                            mine = std::move(s.stream);
                    perLayer.back().push_back(std::move(mine));
                }
            }
            out.push_back(EngineStream{
                e, std::make_unique<SequenceStream>(std::move(perLayer), barriers,
                                                    static_cast<std::uint32_t>(engines.size()))});
        }
        return out;
    }
    // Each block's own: a layer split into blocks reads its input once per block.
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        std::map<std::string, std::uint64_t> sum;
        for (const auto& l : layers_)
            for (const auto& b : l.blocks)
                for (const auto& [level, bytes] : b.work->compulsoryBytes())
                    sum[level] += bytes;
        return sum;
    }
    std::uint64_t coldReadBytes() const override {
        std::uint64_t sum = 0;
        for (const auto& l : layers_)
            for (const auto& b : l.blocks)
                sum += b.work->coldReadBytes();
        return sum;
    }
    void initialise(FunctionalMemory& memory) override {
        for (auto& l : layers_)
            for (auto& b : l.blocks)
                b.work->initialise(memory);
    }
    FunctionalCheck check(FunctionalMemory& memory) override {
        FunctionalCheck all;
        for (auto& l : layers_) {
            for (auto& b : l.blocks) {
                const FunctionalCheck c = b.work->check(memory);
                all.checked = all.checked || c.checked;
                all.elements += c.elements;
                all.maxAbsError = std::max(all.maxAbsError, c.maxAbsError);
                if (c.mismatches > 0 && all.mismatches == 0) {
                    all.firstMismatch = l.name + ": " + c.firstMismatch;
                    all.firstMismatchLocated = c.firstMismatchLocated;
                    all.firstMismatchSpace = c.firstMismatchSpace;
                    all.firstMismatchAddress = c.firstMismatchAddress;
                }
                all.mismatches += c.mismatches;
            }
        }
        return all;
    }
    bool formsBundles() const override { return layers_.front().blocks.front().work->formsBundles(); }
    bool multiLayer() const override { return true; }
    nlohmann::ordered_json layers() const override {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& l : layers_) {
            nlohmann::ordered_json j;
            j["index"] = l.index;
            j["name"] = l.name;
            j["mark"] = l.index + 1;
            j["engine"] = engine_;
            const nlohmann::ordered_json shape = l.blocks.front().work->resolvedWorkload();
            for (const char* key : {"h", "w", "channels", "k", "kh", "kw", "stride", "stride_h", "stride_w",
                                    "pad", "pad_h", "pad_w", "dtype", "model_dtype"})
                if (shape.contains(key))
                    j[key] = shape[key];
            if (l.vector) {
                // As the K1 reports its vector layers: one filter per channel, the window a pool
                // reads (a global pool's: the map), 1×1 for an element-wise op.
                const std::string op = shape.value("op", std::string());
                const bool pool = op.find("Pool") != std::string::npos, global = op.rfind("Global", 0) == 0;
                const auto window = [&](const char* one, const char* both, const char* map) {
                    return global ? shape.value(map, 1u)
                           : pool ? shape.value(one, shape.value(both, 1u))
                                  : 1u;
                };
                j["op"] = op;
                j["filters"] = shape.value("channels", 1u);
                j["groups"] = shape.value("channels", 1u);
                j["kh"] = window("kh", "k", "h");
                j["kw"] = window("kw", "k", "w");
                for (const char* key : {"stride", "stride_h", "stride_w"})
                    j.erase(key);
                const auto stride = [&](const char* axis) {
                    return pool && !global ? shape.value(axis, shape.value("stride", 1u)) : 1u;
                };
                writePerAxis(j, "stride", "stride_h", "stride_w", stride("stride_h"), stride("stride_w"));
                j["pad_h"] = pool && !global ? shape.value("pad_h", shape.value("pad", 0u)) : 0u;
                j["pad_w"] = pool && !global ? shape.value("pad_w", shape.value("pad", 0u)) : 0u;
                j.erase("k");
                j.erase("pad");
                j["flops"] = l.flops;
                // On the plan's cores, or on the engines beside them that have a vector unit.
                const nlohmann::ordered_json ran =
                    l.blocks.front().work->resolvedPlan().value("engines", nlohmann::ordered_json::array());
                const std::string where =
                    ran.empty() || ran == nlohmann::ordered_json(planEngines_)
                        ? std::string("every core")
                        : fmt::format("{} {}", ran.size() == 1 ? "engine" : "engines",
                                      fmt::join(ran.get<std::vector<std::string>>(), ", "));
                j["lowering"] =
                    fmt::format("{} on {}", pool ? "a pooling loop" : "an element-wise stream", where);
            } else {
                j["filters"] = l.filters;
            }
            if (l.gemvRows > 0) {
                j["h"] = 1;
                j["w"] = 1;
                j["lowering"] = fmt::format(
                    "a GEMV: the weights as a {}-channel {}×{} map (stored transposed), the input "
                    "vector as one 1×1 filter",
                    l.channels, l.gemvRows, l.gemvCols);
            }
            if (l.groups > 1) {
                j["channels"] = l.channels;
                j["groups"] = l.groups;
                j["lowering"] = l.groupsSideBySide
                                    ? "a convolution per group, groups side by side on the cores"
                                    : "a convolution per group, one after another on every core";
            }
            if (!l.vector)
                j["filter_blocks"] = l.filterBlocks();
            const nlohmann::ordered_json plan = l.blocks.front().work->resolvedPlan();
            if (plan.contains("strategy"))
                j["strategy"] = plan["strategy"];
            j["macs"] = l.macs();
            std::uint64_t bytes = 0;
            for (const auto& b : l.blocks)
                for (const auto& [level, n] : b.work->compulsoryBytes())
                    bytes += n;
            j["compulsory_bytes"] = bytes;
            // An element-wise op takes an FMAC lane for a cycle, as a MAC does; on a vector
            // processor beside the main engines (the npu's vpu), a lane of its vector ALUs.
            j["compute_bound_s"] = l.peakOpsPerSecond > 0
                                       ? static_cast<double>(l.flops) / l.peakOpsPerSecond
                                       : static_cast<double>(l.macs() + l.flops) / peakMacs_;
            out.push_back(j);
        }
        return out;
    }
    void collectStats(StatsTree& stats, std::uint64_t cycles, double seconds) const override {
        std::uint64_t flops = 0;
        for (const auto& l : layers_)
            flops += 2 * l.macs() + l.flops;
        addFlopStats(stats, flops, "2 · MACs of every layer, and the element-wise layers' ops", cycles,
                     seconds);
    }

private:
    std::vector<SequenceLayer> layers_;
    double peakMacs_;                       // of the main engines, per second
    std::vector<std::string> planEngines_;  // the engines the plan gives every layer
    std::string engine_;
};

// A scalar node with `text` where `at` was (so that an error names the layer's line).
config::Node scalarAt(const std::string& text, const config::Location& at) {
    return config::Node::makeScalar(text, at);
}

std::uint64_t macsOf(const Workload& w) {
    const nlohmann::ordered_json j = w.resolvedWorkload();
    const auto get = [&](const char* key, std::uint64_t fallback) {
        return j.contains(key) ? j[key].get<std::uint64_t>() : fallback;
    };
    // A key per axis, else the one both share.
    const std::uint64_t kh = get("kh", get("k", 1)), kw = get("kw", get("k", 1)),
                        sh = get("stride_h", get("stride", 1)), sw = get("stride_w", get("stride", 1)),
                        padH = get("pad_h", get("pad", 0)), padW = get("pad_w", get("pad", 0));
    const std::uint64_t ho = (get("h", 1) + 2 * padH - kh) / sh + 1,
                        wo = (get("w", 1) + 2 * padW - kw) / sw + 1;
    return ho * wo * get("filters", 1) * (get("channels", 1) / get("groups", 1)) * kh * kw;
}

// The blocks of filters of the convolution `one` that fit the cores' memories: all of its filters,
// else halves, quarters … of them; their tensors in DDR from `offset` on, which moves past them.
std::vector<SequenceBlock> blocksThatFit(const KernelEntry& row, const std::string& kernel,
                                         const config::Node& one, const config::Node& plan,
                                         const TargetInfo& target, std::uint64_t& offset) {
    const config::Node* filters = one.find("filters");
    const std::uint32_t all =
        filters && filters->isScalar() ? config::Reader(one).get<std::uint32_t>("filters") : 1;
    for (std::uint32_t per = all;;) {
        std::vector<SequenceBlock> blocks;
        std::uint64_t at = offset;
        try {
            for (std::uint32_t f0 = 0; f0 < all; f0 += per) {
                config::Node part = one;
                if (per < all)
                    part.set("filters",
                             scalarAt(std::to_string(std::min(per, all - f0)), filters->location()));
                config::Node partPlan = plan;
                partPlan.set("ddr_offset", scalarAt(std::to_string(at), plan.location()));
                SequenceBlock b;
                b.work = row.make(kernel, part, partPlan, target);
                b.macs = macsOf(*b.work);
                std::uint64_t bytes = 0;
                for (const auto& [level, n] : b.work->compulsoryBytes())
                    bytes += n;
                at = (at + bytes + 4 * 4096 + 4095) / 4096 * 4096;  // its tensors, each page-aligned
                blocks.push_back(std::move(b));
            }
        } catch (const config::ConfigError& e) {
            if (e.shortfall() != config::Shortfall::Capacity || per <= 1 || !filters)
                throw;
            per = (per + 1) / 2;
            continue;
        }
        offset = at;
        return blocks;
    }
}

// The rows a layer may run on: `row`, and where the plan names no strategy, every other row of the
// kernel that the target can run one layer at a time (the DSP's shuffle and im2col).
std::vector<const KernelEntry*> candidateRows(const KernelEntry& row, const config::Node& workload,
                                              const config::Node& plan, const TargetInfo& target) {
    std::vector<const KernelEntry*> rows{&row};
    if (plan.find("strategy"))
        return rows;
    for (const KernelEntry* k : kernelRowsFor(workload))
        if (k != &row && !k->needs.layerLists && unmetNeeds(k->needs, target).empty())
            rows.push_back(k);
    return rows;
}

// A layer's estimate: its blocks' (Workload::estimatedSeconds), summed.
double estimatedSeconds(const std::vector<SequenceBlock>& blocks) {
    double seconds = 0.0;
    for (const auto& b : blocks)
        seconds += b.work->estimatedSeconds();
    return seconds;
}

// The blocks of the row whose estimate (Workload::estimatedSeconds, summed over the blocks) is the
// shortest; ties go to the earlier row. A row that cannot run the layer is passed over; if none
// can, the first row's refusal is thrown.
std::vector<SequenceBlock> fastestBlocks(const std::vector<const KernelEntry*>& rows,
                                         const std::string& kernel, const config::Node& one,
                                         const config::Node& plan, const TargetInfo& target,
                                         std::uint64_t& offset) {
    if (rows.size() == 1)
        return blocksThatFit(*rows.front(), kernel, one, plan, target, offset);
    std::vector<SequenceBlock> best;
    double bestSeconds = 0.0;
    std::uint64_t bestEnd = offset;
    std::exception_ptr firstRefusal;
    for (const KernelEntry* k : rows) {
        std::uint64_t at = offset;
        std::vector<SequenceBlock> blocks;
        try {
            blocks = blocksThatFit(*k, kernel, one, plan, target, at);
        } catch (const config::ConfigError&) {
            if (k == rows.front())
                firstRefusal = std::current_exception();
            continue;
        }
        const double seconds = estimatedSeconds(blocks);
        if (best.empty() || seconds < bestSeconds) {
            best = std::move(blocks);
            bestSeconds = seconds;
            bestEnd = at;
        }
    }
    if (best.empty())
        std::rethrow_exception(firstRefusal);
    offset = bestEnd;
    return best;
}

// A fully connected layer (a 1×1 map, a 1×1 kernel) on a vector DSP fills one lane of a map-wide
// vector. As a GEMV its F outputs are the map instead: y = W·x is the 1×1 convolution of the
// C-channel map W^T (the weights stored transposed, C × F, laid out as rows × cols = F) with one
// filter whose C weights are x: the same MACs and bytes, the outputs across the lanes, the weights
// streamed from DDR in blocks of rows. Taken when the estimate of some rows × cols beats the
// layer's own lowering.
void lowerAsGemvIfFaster(SequenceLayer& layer, const std::vector<const KernelEntry*>& rows,
                         const std::string& kernel, const config::Node& one, const config::Node& plan,
                         const TargetInfo& target, std::uint64_t before, std::uint64_t& offset) {
    const auto get = [&](const char* key, std::uint64_t fallback) {
        const config::Node* n = one.find(key);
        return n && n->isScalar() ? config::Reader(one).get<std::uint64_t>(key) : fallback;
    };
    const std::uint64_t f = layer.filters;
    if (get("h", 1) != 1 || get("w", 1) != 1 || get("k", 1) != 1 || get("pad", 0) != 0 || f < 2 ||
        one.find("kh") || one.find("kw"))
        return;
    double best = estimatedSeconds(layer.blocks);
    DType dtype{};  // the type the layer runs in (an ONNX layer's is the kernel's default)
    if (best <= 0.0 ||
        !parseDType(layer.blocks.front().work->resolvedWorkload().value("dtype", std::string()), dtype))
        return;
    // A row of the map fills at least one vector of the main cores (narrower rows leave lanes
    // idle, and the estimate does not see it: 500 × 2 was estimated faster and ran 1.6× slower).
    std::uint64_t lanes = 1;
    for (const auto& e : target.engines)
        if (e.mainCompute)
            lanes = std::max<std::uint64_t>(lanes, e.registerBytes / dtypeBytes(dtype));
    for (std::uint64_t cols = lanes; cols * 2 <= f; ++cols) {
        if (f % cols != 0)
            continue;
        config::Node map = one;
        const config::Location at = one.location();
        map.set("h", scalarAt(std::to_string(f / cols), at));
        map.set("w", scalarAt(std::to_string(cols), at));
        map.set("filters", scalarAt("1", at));
        std::uint64_t end = before;
        std::vector<SequenceBlock> blocks;
        try {
            blocks = fastestBlocks(rows, kernel, map, plan, target, end);
        } catch (const config::ConfigError&) {
            continue;  // this shape does not fit; another may
        }
        const double seconds = estimatedSeconds(blocks);
        if (seconds < best) {
            best = seconds;
            layer.blocks = std::move(blocks);
            layer.gemvRows = static_cast<std::uint32_t>(f / cols);
            layer.gemvCols = static_cast<std::uint32_t>(cols);
            offset = end;
        }
    }
}

}  // namespace

std::unique_ptr<Workload> makeLayerSequence(const KernelEntry& row, const config::Node& workload,
                                            const config::Node& plan, const TargetInfo& target) {
    // A layer list, or the workload itself as a network of one layer.
    const config::Node* given = workload.find("layers");
    if (given && (!given->isSequence() || given->items().empty()))
        config::Reader(workload).fail("layers", "expected a non-empty list of layers");
    config::Node single = config::Node::makeSequence(workload.location());
    if (!given) {
        config::Node item = config::Node::makeMap(workload.location());
        if (const config::Node* name = workload.find("name"))
            item.set("name", *name);
        single.append(item);
    }
    const config::Node* list = given ? given : &single;
    const std::string kernel = workload.find("kernel")->scalar();
    // The plan every layer takes: the run's, on every main core unless it names its own.
    config::Node base = plan.isNull() ? config::Node::makeMap(workload.location()) : plan;
    unsigned mainEngines = 0;
    double peakWork = 0.0;
    for (const auto& e : target.engines)
        mainEngines += e.mainCompute ? 1u : 0u;
    // A row that takes layer lists itself (the npu's array) runs its convolutions on its engine.
    if (!base.find("cores") && !base.find("engine") && !base.find("engines") && !row.needs.layerLists)
        base.set("cores", scalarAt(std::to_string(std::max(1u, mainEngines)), base.location()));
    std::vector<std::string> engineNames;
    for (const EngineInfo* e : planEngines(config::Reader(base), target, "cores", 0))
        engineNames.push_back(e->name);
    const std::vector<const KernelEntry*> rows = candidateRows(row, workload, base, target);
    std::vector<SequenceLayer> layers;
    std::uint64_t offset = 0;
    std::map<std::string, std::size_t> names;  // reports key layers by name: each once
    std::string convDtype;                     // the element type of the last convolution
    for (std::size_t i = 0; i < list->items().size(); ++i) {
        const config::Node& item = list->items()[i];
        if (!item.isMap())
            config::Reader(workload).fail("layers",
                                          fmt::format("layer {} is {}, not a map", i, item.kindName()));
        SequenceLayer layer;
        layer.index = static_cast<std::uint32_t>(i);
        const config::Node* name = item.find("name");
        layer.name = name && name->isScalar() ? name->scalar() : fmt::format("layer{}", i);
        if (const auto [at, fresh] = names.emplace(layer.name, i); !fresh)
            throw config::ConfigError(name ? name->location() : item.location(),
                                      name ? name->path() : item.path() + ".name",
                                      repeatedLayerName(layer.name, at->second));
        // The layer's node: the workload's top-level keys, then its own.
        // Each key keeps the dotted path where it is written (layers[2].k, dtype), which errors
        // name and a report's derived keys are found by (DerivedKeys).
        config::Node one = config::Node::makeMap(item.location());
        one.setPath(item.path());
        for (const auto& [key, value] : workload.entries())
            if (key != "layers" && key != "name" && key != "description" && key != "source") {
                one.set(key, value);
                one.findMutable(key)->setPath(value.path());
            }
        for (const auto& [key, value] : item.entries())
            if (key != "name")
                one.set(key, value);
        if (const config::Node* op = one.find("op");
            op && op->isScalar() && isVectorLayerOp(op->scalar()) && row.makeVectorLayer) {
            // Without a `dtype` of its own or the network's, it takes the type of the network's
            // convolutions before it (INT8 on the npu's array).
            if (!one.find("dtype") && !convDtype.empty())
                one.set("dtype", scalarAt(convDtype, item.location()));
            config::Node layerPlan = base;
            layerPlan.set("ddr_offset", scalarAt(std::to_string(offset), base.location()));
            SequenceBlock b;
            b.work = row.makeVectorLayer(one, layerPlan, target);
            std::uint64_t bytes = 0;
            for (const auto& [level, n] : b.work->compulsoryBytes())
                bytes += n;
            offset = (offset + bytes + 4 * 4096 + 4095) / 4096 * 4096;
            layer.vector = true;
            layer.flops = b.work->resolvedWorkload().value("flops", std::uint64_t{0});
            layer.peakOpsPerSecond =
                besideEnginesPeak(target, b.work->resolvedPlan().value("engines", nlohmann::ordered_json()),
                                  b.work->resolvedWorkload().value("dtype", std::string()));
            layer.blocks.push_back(std::move(b));
            layers.push_back(std::move(layer));
            continue;
        }
        const config::Node* filters = one.find("filters");
        layer.filters =
            filters && filters->isScalar() ? config::Reader(one).get<std::uint32_t>("filters") : 1;
        const config::Node* channels = one.find("channels");
        layer.channels =
            channels && channels->isScalar() ? config::Reader(one).get<std::uint32_t>("channels") : 1;
        if (one.find("groups"))
            layer.groups =
                config::Reader(one).get<std::uint32_t>("groups", config::Range<std::uint32_t>{1, 65535});
        if (layer.groups == 1 || row.needs.layerLists) {  // such a row runs grouped layers itself
            const std::uint64_t before = offset;
            layer.blocks = fastestBlocks(rows, kernel, one, base, target, offset);
            if (rows.size() > 1 && layer.groups == 1)
                lowerAsGemvIfFaster(layer, rows, kernel, one, base, target, before, offset);
            const nlohmann::ordered_json j = layer.blocks.front().work->resolvedWorkload();
            convDtype = j.value("model_dtype", j.value("dtype", std::string()));
            layers.push_back(std::move(layer));
            continue;
        }
        // A grouped layer: a convolution per group, of its channels and filters. With at least as
        // many groups as cores, each group on one core and the cores side by side (a depthwise
        // layer's channels spread over them); else the groups one after another on every core.
        if (layer.channels % layer.groups != 0 || layer.filters % layer.groups != 0)
            config::Reader(one).fail("groups",
                                     fmt::format("{} groups do not divide {} channels and {} filters",
                                                 layer.groups, layer.channels, layer.filters));
        layer.groupsSideBySide = layer.groups >= engineNames.size();
        config::Node part = one;
        part.erase("groups");
        part.set("channels", scalarAt(std::to_string(layer.channels / layer.groups),
                                      channels ? channels->location() : one.location()));
        part.set("filters", scalarAt(std::to_string(layer.filters / layer.groups),
                                     filters ? filters->location() : one.location()));
        for (std::uint32_t g = 0; g < layer.groups; ++g) {
            config::Node groupPlan = base;
            if (layer.groupsSideBySide) {
                for (const char* key : {"cores", "engines", "engine"})
                    groupPlan.erase(key);
                groupPlan.set("engine", scalarAt(engineNames[g % engineNames.size()], base.location()));
            }
            for (auto& b : fastestBlocks(rows, kernel, part, groupPlan, target, offset)) {
                b.barrierAfter = !layer.groupsSideBySide;
                layer.blocks.push_back(std::move(b));
            }
        }
        layers.push_back(std::move(layer));
    }
    // The peak in MACs per second: a MAC array's work is a MAC, a vector unit's an FMA's two ops.
    for (const auto& e : target.engines)
        if (e.mainCompute)
            peakWork += e.peakWorkPerCycle * e.clock.hz() / (e.macArray ? 1.0 : 2.0);
    return std::make_unique<LayerSequenceWorkload>(std::move(layers), peakWork > 0 ? peakWork : 1.0,
                                                   std::move(engineNames));
}

}  // namespace tessim
