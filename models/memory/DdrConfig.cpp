#include "models/memory/DdrConfig.h"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "models/memory/CycleParameter.h"
#include "sim/config/Loader.h"

namespace tessim {
namespace {

// Reads each key from the memory's own map when written there, else from the parameter set.
struct LayeredReader {
    const config::Reader& own;
    const config::Reader* preset;

    const config::Reader& pick(const std::string& key) const {
        if (own.has(key) || !preset) {
            if (preset && preset->has(key))
                preset->ignore(key);
            return own;
        }
        return *preset;
    }
};

std::string presetPath(const config::Reader& r, const std::string& preset) {
    namespace fs = std::filesystem;
    fs::path p = preset;
    if (preset.find('/') == std::string::npos && p.extension() != ".yaml") {
        p = fs::path(TESSIM_CONFIG_DIR) / "memory" / (preset + ".yaml");
    } else if (p.is_relative()) {
        p = fs::path(r.node("preset").location().file).parent_path() / p;
    }
    if (!fs::exists(p)) {
        std::string known;
        fs::path dir = fs::path(TESSIM_CONFIG_DIR) / "memory";
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".yaml")
                known += (known.empty() ? "" : ", ") + e.path().stem().string();
        r.fail("preset", fmt::format("no DDR parameter set '{}' (looked for {}; known: {})", preset,
                                     p.string(), known.empty() ? "none" : known));
    }
    return p.string();
}

DdrField parseField(const config::Reader& r, const std::string& name) {
    if (name == "channel")
        return DdrField::Channel;
    if (name == "rank")
        return DdrField::Rank;
    if (name == "bank")
        return DdrField::Bank;
    if (name == "row")
        return DdrField::Row;
    if (name == "column")
        return DdrField::Column;
    r.fail("mapping", "unknown address field '" + name + "' (expected row, rank, bank, column, channel)");
}

}  // namespace

DdrConfig DdrConfig::fromYaml(config::Reader& r, const std::string& name) {
    using namespace config;
    std::optional<Node> presetNode;
    std::optional<Reader> presetReader;
    if (r.has("preset")) {
        presetNode = loadYamlFile(presetPath(r, r.get<std::string>("preset")));
        presetReader.emplace(*presetNode);
    }
    LayeredReader p{r, presetReader ? &*presetReader : nullptr};

    DdrConfig c;
    c.level = p.pick("level").get<std::string>("level", "ddr");
    c.standard = p.pick("standard").get<std::string>("standard", "custom");
    c.size = p.pick("size").get<Bytes>("size", Range<Bytes>{Bytes{1}, Bytes{~0ULL}}).value;
    c.channels = p.pick("channels").get<unsigned>("channels", 1u, Range<unsigned>{1, 64});
    c.ranks = p.pick("ranks").get<unsigned>("ranks", 1u, Range<unsigned>{1, 16});
    c.banks = p.pick("banks").get<unsigned>("banks", Range<unsigned>{1, 256});
    c.rowBytes = p.pick("row_size").get<Bytes>("row_size", Range<Bytes>{Bytes{64}, Bytes{1 << 20}}).value;
    c.busBits = p.pick("bus_width").get<unsigned>("bus_width", Range<unsigned>{8, 1024});
    if (c.busBits % 8 != 0)
        p.pick("bus_width").fail("bus_width", "the bus width (bits) must be a multiple of 8");
    c.burstLength = p.pick("burst_length").get<unsigned>("burst_length", Range<unsigned>{2, 64});
    if (c.burstLength % 2 != 0)
        p.pick("burst_length").fail("burst_length", "the burst length must be even");
    c.clock = ClockDomain::fromHz(
        p.pick("clock").get<Frequency>("clock", Range<Frequency>{Frequency{1e6}, Frequency{1e11}}).hz);
    auto cycles = [&](const std::string& key, std::optional<std::uint64_t> fallback = std::nullopt,
                      CycleRounding rounding = CycleRounding::Up) {
        return readCycles(p.pick(key), key, c.clock, fallback, rounding);
    };
    c.t.tCL = cycles("tCL");
    c.t.tCWL = cycles("tCWL", c.t.tCL);
    c.t.tRCD = cycles("tRCD");
    c.t.tRP = cycles("tRP");
    c.t.tRAS = cycles("tRAS");
    c.t.tRTP = cycles("tRTP", c.burstCycles());
    c.t.tWR = cycles("tWR", 0);
    c.t.tRFC = cycles("tRFC", 0);
    c.t.tREFI = cycles("tREFI", 0, CycleRounding::Down);
    if (c.t.tREFI != 0 && c.t.tRFC >= c.t.tREFI)
        p.pick("tRFC").fail("tRFC", "tRFC must be shorter than tREFI");

    std::vector<std::string> fields = p.pick("mapping").get<std::vector<std::string>>(
        "mapping", std::vector<std::string>{"row", "rank", "bank", "column", "channel"});
    for (const auto& f : fields) {
        DdrField field = parseField(p.pick("mapping"), f);
        for (DdrField seen : c.mapping)
            if (seen == field)
                p.pick("mapping").fail("mapping", "address field '" + f + "' appears twice");
        c.mapping.push_back(field);
    }
    if (c.mapping.size() != 5)
        p.pick("mapping").fail("mapping",
                               "the mapping must name each of row, rank, bank, column, channel once");
    c.interleave =
        p.pick("interleave")
            .get<Bytes>("interleave", Bytes{c.burstBytes()}, Range<Bytes>{Bytes{1}, Bytes{c.rowBytes}})
            .value;
    if (c.rowBytes % c.interleave != 0)
        p.pick("interleave").fail("interleave", "the row size must be a multiple of the interleave granule");
    std::uint64_t perRow = std::uint64_t{c.channels} * c.ranks * c.banks * c.rowBytes;
    if (c.size % perRow != 0)
        p.pick("size").fail(
            "size",
            fmt::format("size must be a multiple of channels × ranks × banks × row_size ({} B)", perRow));
    c.openPage =
        p.pick("page_policy").oneOf("page_policy", {"open", "closed"}, std::string("open")) == "open";
    c.writeQueue = p.pick("write_queue").get<unsigned>("write_queue", 32u, Range<unsigned>{0, 4096});
    c.frfcfs =
        p.pick("scheduler").oneOf("scheduler", {"fr-fcfs", "fcfs"}, std::string("fr-fcfs")) == "fr-fcfs";
    c.rowHistory = p.pick("row_history").get<unsigned>("row_history", 1u, Range<unsigned>{1, 256});

    if (auto e = p.pick("energy").optionalChild("energy")) {
        c.activateJoules = e->get<Energy>("activate", Energy{0.0}).joules;
        c.readBurstJoules = e->get<Energy>("read_burst", Energy{0.0}).joules;
        c.writeBurstJoules = e->get<Energy>("write_burst", Energy{c.readBurstJoules}).joules;
        c.refreshJoules = e->get<Energy>("refresh", Energy{0.0}).joules;
        c.backgroundWatts = e->get<Power>("background_power", Power{0.0}).watts;
    }
    if (presetReader) {
        presetReader->finish();
    }
    (void)name;
    return c;
}

}  // namespace tessim
