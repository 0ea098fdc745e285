#include "workloads/onnx/OnnxKernel.h"

#include <fmt/format.h>

#include "sim/config/Reader.h"
#include "sim/ir/Op.h"
#include "workloads/KernelRegistry.h"
#include "workloads/WorkloadFactory.h"
#include "workloads/conv/RvvVectorLayers.h"

namespace tessim {
namespace {

// The conv2d layers of the model, with each layer's ONNX operator added to what they report.
class OnnxWorkload : public Workload {
public:
    OnnxWorkload(std::unique_ptr<Workload> layers, std::string source, std::vector<std::string> ops,
                 nlohmann::ordered_json notSimulated)
        : layers_(std::move(layers)), source_(std::move(source)), ops_(std::move(ops)),
          notSimulated_(std::move(notSimulated)) {}

    nlohmann::ordered_json resolvedWorkload() const override {
        nlohmann::ordered_json j = layers_->resolvedWorkload();
        j["kernel"] = "onnx";
        j["source"] = source_;
        if (j.contains("layers"))
            addOps(j["layers"]);
        return j;
    }
    nlohmann::ordered_json resolvedPlan() const override { return layers_->resolvedPlan(); }
    std::vector<EngineStream> streams() override { return layers_->streams(); }
    bool formsBundles() const override { return layers_->formsBundles(); }
    std::map<std::string, std::uint64_t> compulsoryBytes() const override {
        return layers_->compulsoryBytes();
    }
    void initialise(FunctionalMemory& memory) override { layers_->initialise(memory); }
    FunctionalCheck check(FunctionalMemory& memory) override { return layers_->check(memory); }
    bool multiLayer() const override { return layers_->multiLayer(); }
    nlohmann::ordered_json layers() const override {
        nlohmann::ordered_json j = layers_->layers();
        addOps(j);
        return j;
    }
    // Each node's bytes in the element type the layers ran in (the first layer's: the npu runs
    // an f32 model in INT8), the model's own beside them; its element count is not reported.
    nlohmann::ordered_json notSimulated() const override {
        const nlohmann::ordered_json ran = layers_->layers();
        const std::string dtype = ran.empty() ? std::string() : ran.front().value("dtype", std::string());
        DType t{};
        const bool known = parseDType(dtype, t);
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const nlohmann::ordered_json& n : notSimulated_) {
            nlohmann::ordered_json e;
            for (const char* key : {"op", "node", "flops"})
                e[key] = n[key];
            e["bytes"] =
                known ? n["elements"].get<std::uint64_t>() * dtypeBytes(t) : n["bytes"].get<std::uint64_t>();
            if (known) {
                e["model_bytes"] = n["bytes"];
                e["dtype"] = dtype;
            }
            e["reason"] = n["reason"];
            out.push_back(std::move(e));
        }
        return out;
    }

private:
    void addOps(nlohmann::ordered_json& list) const {
        for (std::size_t i = 0; i < list.size() && i < ops_.size(); ++i)
            list[i]["op"] = ops_[i];
    }

    std::unique_ptr<Workload> layers_;
    std::string source_;
    std::vector<std::string> ops_;
    nlohmann::ordered_json notSimulated_;
};

}  // namespace

std::unique_ptr<Workload> makeOnnxKernel(const std::string& kernel, const config::Node& workload,
                                         const config::Node& plan, const TargetInfo& target) {
    (void)kernel;
    config::Reader r(workload);
    nlohmann::ordered_json left = nlohmann::ordered_json::array();
    for (config::Reader& n : r.children("not_simulated")) {
        nlohmann::ordered_json e;
        e["op"] = n.get<std::string>("op");
        e["node"] = n.get<std::string>("node");
        e["flops"] = n.get<std::uint64_t>("flops");
        e["bytes"] = n.get<std::uint64_t>("bytes");
        e["elements"] = n.get<std::uint64_t>("elements", std::uint64_t{0});
        e["reason"] = n.get<std::string>("reason");
        n.finish();
        left.push_back(e);
    }
    // The rest is a conv2d layer list once each convolution's `op` is taken out. Element-wise and
    // pooling layers keep theirs where the row serving conv2d runs them (their `flops` and `bytes`
    // are the model's accounting, for a row that does not: then they are listed as not simulated).
    config::Node conv = workload;
    conv.erase("not_simulated");
    conv.set("kernel", config::Node::makeScalar("conv2d", workload.location()));
    std::vector<std::string> ops;
    if (config::Node* layers = conv.findMutable("layers")) {
        const KernelEntry* row = nullptr;
        config::Node kept = config::Node::makeSequence(layers->location());
        for (const config::Node& l : layers->items()) {
            const config::Node* op = l.find("op");
            const std::string name = op && op->isScalar() ? op->scalar() : std::string();
            config::Node layer = l;
            if (!isVectorLayerOp(name)) {
                layer.erase("op");
                ops.push_back(name);
                kept.append(std::move(layer));
                continue;
            }
            if (!row) {
                config::Node macOnly = conv;
                macOnly.erase("layers");
                row = selectKernel(macOnly, plan, &target);
            }
            if (row && row->runsVectorLayer(l, plan, target)) {
                layer.erase("flops");
                layer.erase("bytes");
                layer.erase("elements");
                ops.push_back(name);
                kept.append(std::move(layer));
                continue;
            }
            config::Reader v(l);
            nlohmann::ordered_json e;
            e["op"] = name;
            e["node"] = v.get<std::string>("name");
            e["flops"] = v.get<std::uint64_t>("flops");
            e["bytes"] = v.get<std::uint64_t>("bytes");
            e["elements"] = v.get<std::uint64_t>("elements", std::uint64_t{0});
            e["reason"] = row && row->vectorLayerGap
                              ? fmt::format("{}: {}", row->rowName(), row->vectorLayerGap(l, plan, target))
                              : fmt::format("{} runs no element-wise or pooling layer (conv2d/rvv does)",
                                            row ? row->rowName() : std::string("conv2d"));
            left.push_back(e);
        }
        conv.set("layers", std::move(kept));
    }
    const std::string source = r.get<std::string>("source", std::string());
    return std::make_unique<OnnxWorkload>(makeWorkload(conv, plan, target), source, std::move(ops),
                                          std::move(left));
}

}  // namespace tessim
