#include "workloads/ftm/DspLayerCommon.h"

#include <cmath>

#include <fmt/ranges.h>

#include "sim/workload/PlanEngine.h"

namespace tessim {

std::string readDspLayerModelDtype(config::Reader& w, std::string& stated) {
    const std::vector<std::string> types{"f64", "f32", "f16", "i8"};
    std::string dtype = w.oneOf("dtype", types, std::string("f32"));
    for (const char* key : {"output_dtype", "requant_multiplier", "requant_shift"})
        if (w.has(key))
            w.get<std::string>(key);
    if (!w.has("model_dtype"))
        return dtype;
    stated = dtype;
    return w.oneOf("model_dtype", types);
}

bool integerExact(const RvvVectorLayer& l) {
    auto whole = [](double v) { return std::isfinite(v) && v == std::floor(v); };
    switch (l.op) {
    case VectorLayerOp::Copy:
    case VectorLayerOp::Relu:
    case VectorLayerOp::MaxPool:
    case VectorLayerOp::GlobalMaxPool: return true;
    case VectorLayerOp::Clip: return whole(l.lo) && whole(l.hi);
    case VectorLayerOp::Add:
    case VectorLayerOp::Sub:
    case VectorLayerOp::Mul: return l.second != SecondOperand::Constant || whole(l.constant);
    default: return false;
    }
}

std::vector<const EngineInfo*> vectorEngines(const TargetInfo& target) {
    std::vector<const EngineInfo*> engines;
    for (const auto& e : target.engines)
        if (vliwVectorUnits(e, 1).complete)
            engines.push_back(&e);
    return engines;
}

DspLayerMachine dspLayerMachine(config::Reader& pl, config::Reader& w, const TargetInfo& target,
                                const RvvVectorLayer& layer, const std::string& modelDtype,
                                const std::string& statedRun, const char* what) {
    DspLayerMachine m;
    m.engines = planEngines(pl, target);
    const bool named = pl.has("engine") || pl.has("engines") || pl.has("cores");
    if (!named && !vliwVectorUnits(*m.engines.front(), 1).complete)
        if (std::vector<const EngineInfo*> vector = vectorEngines(target); !vector.empty())
            m.engines = vector;
    const EngineInfo& e = *m.engines.front();
    if (!vliwVectorUnits(e, 1).complete)
        pl.fail(named ? (pl.has("engine")    ? "engine"
                         : pl.has("engines") ? "engines"
                                             : "cores")
                      : "engine",
                fmt::format("engine '{}' lacks add, broadcast or vload: {} layers need a vector unit, as "
                            "target ftm2000's cores or target npu's vpu have",
                            e.name, what));
    // The type: the vector unit's (the one that adds) decides.
    const UnitInfo* alu = nullptr;
    for (const auto& u : e.units)
        if (u.findOp("add"))
            alu = &u;
    // The model's type; else the narrowest floating type the unit executes — as wide as the
    // model's floating type at least, where the workload states one.
    const bool floating = modelDtype[0] == 'f';
    const bool stated = w.has("dtype") || w.has("model_dtype");
    DType model = DType::F32;
    parseDType(modelDtype, model);
    std::string run;
    if (alu->executes(modelDtype) && (floating || integerExact(layer)))
        run = modelDtype;
    else
        for (const DType t : {DType::F16, DType::F32, DType::F64})
            if (alu->executes(std::string(dtypeName(t))) &&
                (!floating || !stated || dtypeBytes(t) >= dtypeBytes(model))) {
                run = dtypeName(t);
                break;
            }
    if (run.empty()) {
        const std::string why =
            fmt::format("a {} layer in {} cannot run on engine '{}': its vector unit executes {}",
                        layer.opName, modelDtype, e.name, fmt::join(alu->dtypes, ", "));
        if (w.has("dtype"))
            w.fail("dtype", why);
        pl.fail("engine", why);
    }
    if (!statedRun.empty() && statedRun != run)
        w.fail("dtype", fmt::format("a {} layer of a {} network runs in {} on engine '{}', not {}",
                                    layer.opName, modelDtype, run, e.name, statedRun));
    parseDType(run, m.dtype);
    m.units = vliwVectorUnits(e, dtypeBytes(m.dtype));
    // Memories: each core's AM where the target has them, else the on-chip memory the engine reaches.
    m.ddr = target.findSpace("ddr");
    m.local = target.findSpace("am");
    if (!m.local)
        for (std::uint8_t id : e.memories)
            if (m.ddr && target.spaces[id].level != m.ddr->level) {
                m.local = &target.spaces[id];
                break;
            }
    if (!m.local || !m.ddr)
        pl.fail("engine",
                fmt::format("target '{}' lacks a DDR, or an on-chip memory that engine '{}' reaches",
                            target.name, e.name));
    m.localSize = m.local->role && !m.local->instances.empty() ? target.spaces[m.local->instances[0]].size
                                                               : m.local->size;
    return m;
}

}  // namespace tessim
