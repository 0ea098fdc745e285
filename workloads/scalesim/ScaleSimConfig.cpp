#include "workloads/scalesim/ScaleSimConfig.h"

#include <cctype>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/TextFile.h"
#include "workloads/scalesim/ScaleSimText.h"

namespace tessim {
namespace {

using config::ConfigError;
using config::Location;

struct IniValue {
    std::string text;
    Location where;     // of the value
    Location keyWhere;  // of the key
};

std::string trim(const std::string& s, std::size_t* lead = nullptr) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    if (lead)
        *lead = b;
    return s.substr(b, e - b);
}

// A SCALE-Sim config is a few dozen lines.
constexpr std::uintmax_t kMaxConfigBytes = 1u << 20;

// section (lower case) → key (lower case) → value
using Ini = std::map<std::string, std::map<std::string, IniValue>>;

Ini readIni(const std::string& path, std::map<std::string, Location>& sectionAt) {
    std::istringstream in(config::readTextFile(path, "SCALE-Sim config", kMaxConfigBytes));
    Ini ini;
    std::string line, section;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::size_t lead = 0;
        std::string t = trim(line, &lead);
        if (t.empty() || t[0] == '#' || t[0] == ';')
            continue;
        if (t[0] == '[') {
            if (t.back() != ']')
                throw ConfigError(Location{path, lineNo, int(lead) + 1}, "",
                                  "section header without ']': '" + t + "'");
            section = lowerCase(trim(t.substr(1, t.size() - 2)));
            // Python's configparser, which SCALE-Sim reads with, refuses a repeated section or key.
            if (const auto seen = sectionAt.find(section); seen != sectionAt.end())
                throw ConfigError(
                    Location{path, lineNo, int(lead) + 1}, "",
                    fmt::format("section [{}] given twice (first at line {}); SCALE-Sim refuses that",
                                section, seen->second.line));
            sectionAt[section] = Location{path, lineNo, int(lead) + 1};
            continue;
        }
        std::size_t sep = line.find_first_of(":=");
        if (sep == std::string::npos)
            throw ConfigError(Location{path, lineNo, int(lead) + 1}, "",
                              "expected 'Key: value' or 'Key = value', got '" + t + "'");
        if (section.empty())
            throw ConfigError(Location{path, lineNo, int(lead) + 1}, "",
                              "key outside a [section]: '" + t + "'");
        std::string key = trim(line.substr(0, sep));
        std::size_t vlead = 0;
        std::string rest = line.substr(sep + 1);
        std::string value = trim(rest, &vlead);
        // Inline comments.
        for (char c : {'#', ';'}) {
            auto p = value.find(c);
            if (p != std::string::npos)
                value = trim(value.substr(0, p));
        }
        IniValue v{value, Location{path, lineNo, int(sep + 2 + vlead)},
                   Location{path, lineNo, int(lead) + 1}};
        if (const auto seen = ini[section].find(lowerCase(key)); seen != ini[section].end())
            throw ConfigError(
                v.keyWhere, key,
                fmt::format("given twice in [{}] (first at line {}); SCALE-Sim refuses a repeated key",
                            section, seen->second.where.line));
        ini[section][lowerCase(key)] = v;
    }
    return ini;
}

const IniValue* find(const Ini& ini, const std::string& section, const std::string& key) {
    auto s = ini.find(section);
    if (s == ini.end())
        return nullptr;
    auto k = s->second.find(lowerCase(key));
    return k == s->second.end() ? nullptr : &k->second;
}

}  // namespace

bool isScaleSimConfigPath(const std::string& path) {
    return path.size() > 4 && lowerCase(path.substr(path.size() - 4)) == ".cfg";
}

namespace {

struct Parsed {
    ScaleSimArch arch;
    std::map<std::string, Location> where;  // key (lower case) → value location
};

Parsed parse(const std::string& path) {
    std::map<std::string, Location> sectionAt;
    Ini ini = readIni(path, sectionAt);
    Parsed p;
    const std::string arch = "architecture_presets";
    Location archAt = sectionAt.count(arch) ? sectionAt[arch] : Location{path, 1, 1};
    if (!sectionAt.count(arch))
        throw ConfigError(archAt, "", "SCALE-Sim config has no [architecture_presets] section");
    auto need = [&](const std::string& key) -> const IniValue& {
        const IniValue* v = find(ini, arch, key);
        if (!v)
            throw ConfigError(archAt, key, "[architecture_presets] lacks '" + key + "'");
        p.where[lowerCase(key)] = v->where;
        return *v;
    };
    auto integer = [&](const std::string& key, std::uint64_t lo, std::uint64_t hi) -> std::uint64_t {
        const IniValue& v = need(key);
        std::uint64_t n = 0;
        std::size_t pos = 0;
        try {
            n = std::stoull(v.text, &pos);
        } catch (...) {
            pos = 0;
        }
        if (v.text.empty() || pos != v.text.size() || n < lo || n > hi)
            throw ConfigError(v.where, key,
                              fmt::format("expected an integer in [{}, {}], got '{}'", lo, hi, v.text));
        return n;
    };
    if (const IniValue* v = find(ini, "general", "run_name"))
        p.arch.runName = v->text;
    p.arch.rows = static_cast<unsigned>(integer("ArrayHeight", 1, 4096));
    p.arch.cols = static_cast<unsigned>(integer("ArrayWidth", 1, 4096));
    p.arch.ifmapKiB = static_cast<unsigned>(integer("IfmapSramSzkB", 1, 1u << 20));
    p.arch.filterKiB = static_cast<unsigned>(integer("FilterSramSzkB", 1, 1u << 20));
    p.arch.ofmapKiB = static_cast<unsigned>(integer("OfmapSramSzkB", 1, 1u << 20));
    if (find(ini, arch, "IfmapOffset"))
        p.arch.ifmapOffset = integer("IfmapOffset", 0, 1ull << 40);
    if (find(ini, arch, "FilterOffset"))
        p.arch.filterOffset = integer("FilterOffset", 0, 1ull << 40);
    if (find(ini, arch, "OfmapOffset"))
        p.arch.ofmapOffset = integer("OfmapOffset", 0, 1ull << 40);
    {
        const IniValue& df = need("Dataflow");
        std::string d = lowerCase(df.text);
        if (d != "os" && d != "ws" && d != "is")
            throw ConfigError(df.where, "Dataflow", "expected os, ws or is, got '" + df.text + "'");
        p.arch.dataflow = d;
    }
    if (const IniValue* v = find(ini, "run_presets", "InterfaceBandwidth")) {
        std::string m = v->text;
        for (auto& c : m)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (m != "CALC" && m != "USER")
            throw ConfigError(v->where, "InterfaceBandwidth", "expected CALC or USER, got '" + v->text + "'");
        p.arch.interfaceBandwidth = m;
        p.where["interfacebandwidth"] = v->where;
    }
    if (find(ini, arch, "Bandwidth")) {
        const IniValue& v = need("Bandwidth");
        double b = 0;
        std::size_t pos = 0;
        try {
            b = std::stod(v.text, &pos);
        } catch (...) {
            pos = 0;
        }
        if (v.text.empty() || pos != v.text.size() || !(b > 0) || b > 1e6)
            throw ConfigError(v.where, "Bandwidth",
                              "expected a positive number of words per cycle, got '" + v.text + "'");
        p.arch.bandwidth = b;
    } else if (p.arch.interfaceBandwidth == "USER") {
        throw ConfigError(archAt, "Bandwidth",
                          "InterfaceBandwidth USER needs [architecture_presets] Bandwidth");
    }
    return p;
}

// Sets `key` (dotted) of `root` to `value`, located at `where` (a .cfg position).
void put(config::Node& root, const std::string& key, const std::string& value, const Location& where) {
    config::applyOverride(root, key, value, where);
}

}  // namespace

ScaleSimArch parseScaleSimConfig(const std::string& path) {
    return parse(path).arch;
}

config::Node loadScaleSimTarget(const std::string& path, const config::Node& npuTarget) {
    Parsed p = parse(path);
    const ScaleSimArch& a = p.arch;
    auto at = [&](const std::string& key) {
        auto it = p.where.find(lowerCase(key));
        return it != p.where.end() ? it->second : Location{path, 1, 1};
    };
    // Start from the NPU target (clock, energy table, DMA, engine) and put SCALE-Sim's architecture in.
    config::Node t = npuTarget;
    Location file{path, 1, 1};
    std::string name = a.runName.empty() ? std::string("scalesim") : a.runName;
    t.set("name", config::Node::makeScalar(name, file));
    t.set("description",
          config::Node::makeScalar(
              fmt::format("SCALE-Sim config {}: {}x{} {} systolic array, SRAM ifmap {} KiB, "
                          "filter {} KiB, ofmap {} KiB, DRAM {} (npu target otherwise)",
                          path, a.rows, a.cols, a.dataflow, a.ifmapKiB, a.filterKiB, a.ofmapKiB,
                          a.interfaceBandwidth == "USER" ? fmt::format("{} B/cycle", a.bandwidth)
                                                         : std::string("CALC (no stall)")),
              file));
    t.erase("sram");
    t.erase("ddr");
    t.erase("npu");
    t.erase("dma");
    t.erase("vpu");  // SCALE-Sim's machine is the array alone: no vector processor beside it
    // Three SRAM buffers, as SCALE-Sim has them (each double-buffered by the schedule).
    auto sram = [&](const std::string& n, unsigned kib, const std::string& key) {
        Location w = at(key);
        put(t, n + ".impl", "scratchpad", w);
        put(t, n + ".level", "sram", w);
        put(t, n + ".size", fmt::format("{} KiB", kib), w);
        put(t, n + ".banks", "16", w);  // assumption (as npu): 16 × 16 B = 256 B/cycle
        put(t, n + ".bank_width", "16 B", w);
        put(t, n + ".ports", "2", w);
        put(t, n + ".clock", "1 GHz", w);
        put(t, n + ".latency", "2", w);
        put(t, n + ".energy", "sram", w);  // the NPU's SRAM array model: energy, leakage, area by size
    };
    sram("ifmap_sram", a.ifmapKiB, "IfmapSramSzkB");
    sram("filter_sram", a.filterKiB, "FilterSramSzkB");
    sram("ofmap_sram", a.ofmapKiB, "OfmapSramSzkB");
    // DRAM: SCALE-Sim counts words of 1 B per cycle; tessim runs the array at 1 GHz, so 1 B/cycle = 1 GB/s.
    Location bw = a.interfaceBandwidth == "USER" ? at("Bandwidth") : at("InterfaceBandwidth");
    double bytesPerCycle = a.interfaceBandwidth == "USER" ? a.bandwidth : double(a.rows) + a.cols;
    put(t, "ddr.impl", "simple", bw);
    put(t, "ddr.level", "ddr", bw);
    put(t, "ddr.size", "4 GiB", bw);
    put(t, "ddr.latency", "100 ns", bw);  // assumption: LPDDR-class load latency; SCALE-Sim has none
    put(t, "ddr.bandwidth", fmt::format("{} GB/s", bytesPerCycle), bw);
    put(t, "ddr.energy.read_energy_per_byte", "31 pJ",
        bw);  // assumption: npu's LPDDR4X 1.0 nJ per 32 B burst
    put(t, "ddr.energy.write_energy_per_byte", "31 pJ", bw);
    put(t, "ddr.energy.static_power", "40 mW", bw);
    // DMA: one channel per operand (ifmap, filter, ofmap), as the npu's DMA otherwise.
    put(t, "dma.impl", "dma", file);
    put(t, "dma.channels", "3", file);
    put(t, "dma.burst", "256 B", file);
    put(t, "dma.outstanding", "16", file);
    put(t, "dma.queue_depth", "64", file);
    put(t, "dma.clock", "1 GHz", file);
    put(t, "dma.setup", "20", file);
    put(t, "dma.memories", "[ifmap_sram, filter_sram, ofmap_sram, ddr]", file);
    put(t, "dma.energy", "dma", file);
    put(t, "dma.static_power", "5 mW", file);
    put(t, "npu.impl", "engine", file);
    put(t, "npu.issue_width", "1", file);
    put(t, "npu.memories", "[ifmap_sram, filter_sram, ofmap_sram]", file);
    put(t, "npu.dma", "dma", file);
    put(t, "npu.units.mac.impl", "systolic", file);
    put(t, "npu.units.mac.rows", std::to_string(a.rows), at("ArrayHeight"));
    put(t, "npu.units.mac.cols", std::to_string(a.cols), at("ArrayWidth"));
    put(t, "npu.units.mac.dataflow", a.dataflow, at("Dataflow"));
    put(t, "npu.units.mac.dtype", "i8", file);
    put(t, "npu.units.mac.energy", "mac_array", file);
    // SCALE-Sim's DRAM offsets, for the schedule (addresses in words = bytes).
    return t;
}

void applyScaleSimInterface(const std::string& path, config::Node& workload) {
    if (!workload.isMap() || workload.find("interface"))
        return;
    const config::Node* kernel = workload.find("kernel");
    if (!kernel || !kernel->isScalar() || kernel->scalar() != "scalesim")
        return;
    Parsed p = parse(path);
    auto it = p.where.find("interfacebandwidth");
    Location where = it != p.where.end() ? it->second : Location{path, 1, 1};
    workload.set("interface",
                 config::Node::makeScalar(p.arch.interfaceBandwidth == "CALC" ? "ideal" : "memory", where));
}

}  // namespace tessim
