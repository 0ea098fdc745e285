#include "run/pipeline/TargetExplanation.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "models/targets/ConfiguredTarget.h"
#include "run/pipeline/ConfigLibrary.h"
#include "run/pipeline/Simulation.h"
#include "run/report/NodeJson.h"
#include "sim/config/Loader.h"
#include "sim/core/SimulationSetup.h"
#include "sim/report/HumanUnits.h"

namespace tessim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// The lines of the files a target reads, for the comments beside its values.
class SourceLines {
public:
    const std::vector<std::string>& of(const std::string& file) {
        auto it = files_.find(file);
        if (it != files_.end())
            return it->second;
        std::vector<std::string>& lines = files_[file];
        std::ifstream in(file);
        for (std::string line; std::getline(in, line);)
            lines.push_back(line);
        return lines;
    }

    // The comment on the value's line, else the comment block right above it ("" when none): what
    // the project's YAML writes a parameter's source in.
    std::string commentFor(const config::Location& where) {
        const auto& lines = of(where.file);
        if (where.line < 1 || where.line > static_cast<int>(lines.size()))
            return "";
        if (auto c = trailingComment(lines[where.line - 1]); !c.empty())
            return c;
        std::string block;
        for (int i = where.line - 2; i >= 0; --i) {
            const std::string& l = lines[i];
            const auto first = l.find_first_not_of(" \t");
            if (first == std::string::npos || l[first] != '#')
                break;
            const std::string text = trim(l.substr(first + 1));
            block = block.empty() ? text : text + " " + block;
        }
        return block;
    }

private:
    static std::string trim(const std::string& s) {
        const auto a = s.find_first_not_of(" \t");
        return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(" \t") - a + 1);
    }
    // A '#' after white space, outside quotes, starts a comment.
    static std::string trailingComment(const std::string& line) {
        char quote = 0;
        for (std::size_t i = 0; i < line.size(); ++i) {
            const char c = line[i];
            if (quote) {
                quote = c == quote ? 0 : quote;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '#' && i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
                return trim(line.substr(i + 1));
            }
        }
        return "";
    }
    std::map<std::string, std::vector<std::string>> files_;
};

std::string flowText(const config::Node& n) {
    if (n.isScalar())
        return n.scalar();
    if (n.isNull())
        return "~";
    std::string s = n.isSequence() ? "[" : "{";
    bool first = true;
    if (n.isSequence()) {
        for (const auto& item : n.items()) {
            s += (first ? "" : ", ") + flowText(item);
            first = false;
        }
    } else {
        for (const auto& [key, value] : n.entries()) {
            s += (first ? "" : ", ") + key + ": " + flowText(value);
            first = false;
        }
    }
    return s + (n.isSequence() ? "]" : "}");
}

// The names of memory spaces given by id, in the order given.
Json spaceNames(const TargetInfo& info, const std::vector<std::uint8_t>& ids) {
    Json names = Json::array();
    for (const auto id : ids)
        for (const auto& s : info.spaces)
            if (s.id == id)
                names.push_back(s.name);
    return names;
}

// Keys that describe rather than parameterise: they need no source.
bool isDescriptive(const std::string& key) {
    return key == "name" || key == "description" || key == "impl" || key == "next" || key == "energy" ||
           key == "energy_table" || key == "preset" || key == "memories" || key == "dma" || key == "engines";
}

void collectParameters(const config::Node& node, const std::string& prefix, const std::string& origin,
                       SourceLines& sources, Json& out, Json& warnings) {
    for (const auto& [key, value] : node.entries()) {
        const std::string path = prefix.empty() ? key : prefix + "." + key;
        if (value.isMap()) {
            collectParameters(value, path, origin, sources, out, warnings);
            // A DDR preset's parameters count as the memory's own, unless the memory sets them.
            const config::Node* preset = value.find("preset");
            if (preset && preset->isScalar()) {
                const fs::path file = fs::path(TESSIM_CONFIG_DIR) / "memory" / (preset->scalar() + ".yaml");
                if (fs::is_regular_file(file)) {
                    config::Node from = config::loadYamlFile(file.string());
                    for (const auto& [own, v] : value.entries())
                        from.erase(own);
                    if (from.isMap())
                        collectParameters(from, path, "preset " + preset->scalar(), sources, out, warnings);
                }
            }
            continue;
        }
        Json p;
        p["key"] = path;
        p["value"] = flowText(value);
        const config::Location& at = value.isNull() ? value.keyLocation() : value.location();
        std::string source = at.file == "<command line>" ? "--set" : sources.commentFor(at);
        p["source"] = source;
        p["from"] = origin.empty() ? toString(at) : origin + " (" + toString(at) + ")";
        if (source.empty() && !isDescriptive(key))
            warnings.push_back(fmt::format("{}: {} = {} names no source (a comment with the facts file, "
                                           "datasheet or paper, or the word assumption)",
                                           toString(at), path, p["value"].get<std::string>()));
        out.push_back(p);
    }
}

}  // namespace

Json explainTarget(const std::string& targetName, const std::vector<std::string>& sets) {
    RunRequest request;
    request.target = targetName;
    request.sets = sets;
    const ResolvedInputs inputs = resolveInputs(request);
    initSystemC();
    ConfiguredTarget target(inputs.target);
    const TargetInfo& info = target.info();

    Json out;
    out["schema"] = "tessim.explain/1";
    out["target"] = info.name;
    const config::Node* description = inputs.target.find("description");
    out["description"] = description && description->isScalar() ? description->scalar() : "";
    out["clock_hz"] = info.mainClock.hz();

    Json warnings = Json::array();
    double peakWork = 0.0;
    Json engines = Json::array();
    for (const auto& e : info.engines) {
        Json j;
        j["name"] = e.name;
        j["cluster"] = e.cluster >= 0 ? Json(info.clusters[e.cluster].name) : Json(nullptr);
        j["clock_hz"] = e.clock.hz();
        j["main_compute"] = e.mainCompute;
        j["issue_width"] = e.issueWidth;
        j["vliw"] = e.vliw;
        j["vector_registers"] = e.vectorRegisters;
        j["register_bytes"] = e.registerBytes;
        j["peak_work_per_cycle"] = e.peakWorkPerCycle;
        j["peak_work_per_s"] = e.peakWorkPerCycle * e.clock.hz();
        if (e.macArray)
            j["mac_array"] = fmt::format("{}×{}", e.macArray->rows, e.macArray->cols);
        Json units = Json::array();
        for (const auto& u : e.units)
            units.push_back(u.instances > 1 ? fmt::format("{} ×{}", u.name, u.instances) : u.name);
        j["units"] = units;
        j["memories"] = spaceNames(info, e.memories);
        if (e.mainCompute) {
            peakWork += e.peakWorkPerCycle * e.clock.hz();
            if (e.peakWorkPerCycle <= 0.0)
                warnings.push_back("engine " + e.name +
                                   " is a main compute engine with no peak work per cycle");
        }
        engines.push_back(j);
    }

    std::map<std::string, double> bandwidthByLevel;
    Json memories = Json::array();
    for (const auto& s : info.spaces) {
        Json j;
        j["name"] = s.name;
        j["level"] = s.level;
        if (s.role) {
            j["role_of"] = spaceNames(info, s.instances);
        } else {
            j["size_bytes"] = s.size;
            j["peak_bandwidth_bytes_per_s"] = s.peakBandwidth;
            // Where writes take the memory longer than reads (a cache's store rate, or the time a
            // write-back from the level above holds its port).
            if (s.peakWriteBandwidth > 0.0 && s.peakWriteBandwidth < s.peakBandwidth)
                j["peak_store_bandwidth_bytes_per_s"] = s.peakWriteBandwidth;
            j["cluster"] = s.cluster >= 0 ? Json(info.clusters[s.cluster].name) : Json(nullptr);
            bandwidthByLevel[s.level] += s.peakBandwidth;
            if (s.peakBandwidth <= 0.0)
                warnings.push_back("memory " + s.name + " has no peak bandwidth: no bandwidth bound for it");
        }
        memories.push_back(j);
    }
    Json peaks;
    peaks["work_per_s"] = peakWork;
    Json levels;
    for (const auto& [level, bandwidth] : bandwidthByLevel)
        levels[level] = bandwidth;
    peaks["bandwidth_bytes_per_s"] = levels;
    // What one byte of traffic at each level allows: a kernel doing fewer operations per byte
    // than this is bound by that level (the roofline's ridge points).
    Json ridge;
    for (const auto& [level, bandwidth] : bandwidthByLevel)
        if (bandwidth > 0.0)
            ridge[level] = peakWork / bandwidth;
    peaks["work_per_byte_at_ridge"] = ridge;
    out["peaks"] = peaks;
    out["engines"] = engines;
    out["memories"] = memories;
    Json clusters = Json::array();
    for (const auto& c : info.clusters)
        clusters.push_back({{"name", c.name}, {"engines", c.engines}});
    out["clusters"] = clusters;
    out["dma_engines"] = info.dmaEngines;
    Json groups = Json::array();
    for (const auto& g : info.groups)
        groups.push_back({{"name", g.name}, {"members", spaceNames(info, g.members)}});
    out["multicast_groups"] = groups;

    SourceLines sources;
    Json parameters = Json::array();
    collectParameters(inputs.target, "", "", sources, parameters, warnings);
    out["parameters"] = parameters;
    out["warnings"] = warnings;
    out["resolved"] = targetToJson(target.resolvedTree(), target.resolvedEnergyTable());
    return out;
}

std::string explanationToMarkdown(const Json& x) {
    std::string md = fmt::format("# tessim explain: {}\n\n{}\n\n", x["target"].get<std::string>(),
                                 x["description"].get<std::string>());
    md += fmt::format("Main clock {}; peak {} work units/s over the main compute engines.\n\n",
                      humanSi(x["clock_hz"].get<double>(), "Hz"),
                      humanSi(x["peaks"]["work_per_s"].get<double>(), ""));
    md += "| level | peak bandwidth | work per byte at the ridge |\n|---|---|---|\n";
    for (const auto& [level, bw] : x["peaks"]["bandwidth_bytes_per_s"].items()) {
        const auto& ridge = x["peaks"]["work_per_byte_at_ridge"];
        md += fmt::format("| {} | {} | {} |\n", level, humanSi(bw.get<double>(), "B/s"),
                          ridge.contains(level) ? fmt::format("{:.4g}", ridge[level].get<double>()) : "—");
    }
    md += "\n## Engines\n\n| engine | cluster | clock | issue | peak work/cycle | peak work/s | units | "
          "memories |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& e : x["engines"]) {
        std::string units, memories;
        for (const auto& u : e["units"])
            units += (units.empty() ? "" : ", ") + u.get<std::string>();
        for (const auto& m : e["memories"])
            memories += (memories.empty() ? "" : ", ") + m.get<std::string>();
        md += fmt::format("| {}{} | {} | {} | {}{} | {:.4g} | {} | {} | {} |\n", e["name"].get<std::string>(),
                          e["main_compute"].get<bool>() ? "" : " (helper)",
                          e["cluster"].is_null() ? "—" : e["cluster"].get<std::string>(),
                          humanSi(e["clock_hz"].get<double>(), "Hz"), e["issue_width"].get<unsigned>(),
                          e["vliw"].get<bool>() ? " (VLIW)" : "", e["peak_work_per_cycle"].get<double>(),
                          humanSi(e["peak_work_per_s"].get<double>(), ""), units, memories);
    }
    md += "\n## Memories\n\n| memory | level | size | peak bandwidth | cluster |\n|---|---|---|---|---|\n";
    for (const auto& m : x["memories"]) {
        if (m.contains("role_of")) {
            std::string of;
            for (const auto& i : m["role_of"])
                of += (of.empty() ? "" : ", ") + i.get<std::string>();
            md += fmt::format("| {} (role) | {} | one of: {} | | |\n", m["name"].get<std::string>(),
                              m["level"].get<std::string>(), of);
            continue;
        }
        md += fmt::format("| {} | {} | {} | {} | {} |\n", m["name"].get<std::string>(),
                          m["level"].get<std::string>(), humanBytes(m["size_bytes"].get<double>()),
                          humanSi(m["peak_bandwidth_bytes_per_s"].get<double>(), "B/s"),
                          m["cluster"].is_null() ? "—" : m["cluster"].get<std::string>());
    }
    md += "\n## Parameters\n\n| key | value | source |\n|---|---|---|\n";
    for (const auto& p : x["parameters"]) {
        std::string source = p["source"].get<std::string>();
        for (char& c : source)
            c = c == '|' ? '/' : c;
        md += fmt::format("| {} | {} | {} |\n", p["key"].get<std::string>(), p["value"].get<std::string>(),
                          source.empty() ? "**none**" : source);
    }
    md += fmt::format("\n## Warnings ({})\n\n", x["warnings"].size());
    for (const auto& w : x["warnings"])
        md += "- " + w.get<std::string>() + "\n";
    return md;
}

}  // namespace tessim
