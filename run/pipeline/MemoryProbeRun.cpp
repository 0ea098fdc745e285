// `tessim probe`'s runs: standard micro-patterns and request streams on one memory of a target, or
// on a DDR memory alone (models/memory/MemoryProbe), as one JSON object.
#include "run/pipeline/MemoryProbeRun.h"

#include <filesystem>
#include <stdexcept>

#include <systemc>

#include "models/targets/ConfiguredTarget.h"
#include "run/pipeline/Simulation.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"
#include "sim/core/SimulationSetup.h"

namespace tessim {
namespace {

bool isKind(Memory* m, const std::string& kind) {
    if (kind == "ddr")
        return dynamic_cast<Ddr*>(m) != nullptr;
    if (kind == "cache")
        return dynamic_cast<Cache*>(m) != nullptr;
    return dynamic_cast<Scratchpad*>(m) != nullptr;
}

nlohmann::ordered_json streamsOn(MemoryProbe& probe, Ddr& ddr, const std::vector<DdrStreamSpec>& specs) {
    nlohmann::ordered_json streams = nlohmann::ordered_json::array();
    for (const auto& spec : specs)
        streams.push_back(probe.probeDdrStream(ddr, spec));
    return streams;
}

// A DDR memory alone: a YAML file of DDR keys (as configs/memory/*.yaml) or a parameter-set name.
nlohmann::ordered_json probeMemoryAlone(const MemoryProbeRequest& p) {
    const std::vector<DdrStreamSpec>& specs = p.streams;
    if (p.kind != "ddr")
        throw std::runtime_error("probe " + p.kind + " needs --target T (only `probe ddr` runs on a memory " +
                                 "alone, with --memory FILE)");
    if (p.memory.empty())
        throw std::runtime_error("probe ddr needs --target T or --memory FILE (e.g. " +
                                 std::string("configs/memory/ddr4-2400-x64.yaml)"));
    if (!p.sets.empty())
        throw std::runtime_error("--set overrides a target; for a memory alone write the keys into its YAML "
                                 "(preset: FILE plus the keys to change)");
    namespace fs = std::filesystem;
    const bool isFile = fs::exists(p.memory);
    if (!isFile && (p.memory.find('/') != std::string::npos || fs::path(p.memory).extension() == ".yaml"))
        throw std::runtime_error("--memory '" + p.memory + "': no such file");
    config::Node node = isFile ? config::loadYamlFile(p.memory)
                               : config::loadYamlString("preset: " + p.memory + "\n", "--memory");
    config::Reader reader(node);
    DdrConfig ddrConfig = DdrConfig::fromYaml(reader, "ddr");
    reader.finish();
    initSystemC();
    Ddr ddr("ddr", ddrConfig);
    MemoryProbe probe(
        "probe", [&] { ddr.resetTiming(); }, p.options);
    probe.socket.bind(ddr.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    nlohmann::ordered_json out;
    out["schema"] = "tessim.probe/1";
    out["probe"] = "ddr";
    out["memory"] = p.memory;
    const nlohmann::ordered_json figures = probe.probeDdr(ddr);
    for (auto& [k, v] : figures.items())
        out[k] = v;
    const DdrConfig& c = ddr.config();
    out["organisation"] = {{"channels", c.channels},
                           {"ranks", c.ranks},
                           {"banks", c.banks},
                           {"bank_groups", c.bankGroups},
                           {"row_bytes", c.rowBytes},
                           {"burst_bytes", c.burstBytes()},
                           {"bank_queue", c.bankQueue},
                           {"write_queue", c.writeQueue},
                           {"refresh", c.perBankRefresh ? "per-bank" : "all-bank"}};
    out["streams"] = streamsOn(probe, ddr, specs);
    return out;
}

nlohmann::ordered_json probeTargetMemory(const MemoryProbeRequest& p) {
    const std::vector<DdrStreamSpec>& specs = p.streams;
    RunRequest request;
    request.target = p.target;
    request.sets = p.sets;
    ResolvedInputs inputs = resolveInputs(request);
    initSystemC();
    ConfiguredTarget target(inputs.target);
    const TargetInfo& info = target.info();
    Memory* memory = nullptr;
    std::string names;
    for (const auto& s : info.spaces) {
        Memory* m = target.findMemory(s.name);
        if (!isKind(m, p.kind))
            continue;
        names += (names.empty() ? "" : ", ") + s.name;
        if (!memory && (p.memory.empty() || p.memory == s.name))
            memory = m;
    }
    std::string implName = p.kind == "sram" ? "scratchpad" : p.kind;
    if (!memory) {
        if (p.memory.empty())
            throw std::runtime_error("target '" + info.name + "' has no memory with impl: " + implName);
        throw std::runtime_error("target '" + info.name + "' has no " + implName + " named '" + p.memory +
                                 "'" +
                                 (names.empty() ? "" : " (its " + implName + " memories: " + names + ")"));
    }
    MemoryProbe probe(
        "probe", [&] { target.resetMemoryTiming(); }, p.options);
    probe.setDrain([&](Tick from) { return target.drainWrites(from); });
    probe.socket.bind(memory->socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    nlohmann::ordered_json out;
    out["schema"] = "tessim.probe/1";
    out["probe"] = p.kind;
    out["target"] = info.name;
    out["memory"] = std::string(memory->name());
    nlohmann::ordered_json figures;
    if (p.kind == "ddr")
        figures = probe.probeDdr(*dynamic_cast<Ddr*>(memory));
    else if (p.kind == "cache")
        figures = probe.probeCache(*dynamic_cast<Cache*>(memory));
    else
        figures = probe.probeScratchpad(*dynamic_cast<Scratchpad*>(memory));
    for (auto& [k, v] : figures.items())
        out[k] = v;
    if (!specs.empty())
        out["streams"] = streamsOn(probe, *dynamic_cast<Ddr*>(memory), specs);
    return out;
}

}  // namespace

nlohmann::ordered_json probeMemory(const MemoryProbeRequest& request) {
    return request.target.empty() ? probeMemoryAlone(request) : probeTargetMemory(request);
}

}  // namespace tessim
