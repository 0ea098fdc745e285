#include "models/memory/DdrConfig.h"

#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "models/memory/CycleParameter.h"
#include "models/memory/PowerOfTwo.h"
#include "sim/config/Loader.h"

namespace tessim {
namespace {

bool fromCommandLine(const config::Reader& r, const std::string& key) {
    return r.has(key) && r.node(key).location().file == "<command line>";
}

// Reads each key from the memory's own map when written there, else from the parameter set. A
// parameter set named on the command line (`--set target.ddr.preset=X`) swaps the memory: its
// keys then win over the target file's, and only other --set keys win over it.
struct LayeredReader {
    const config::Reader& own;
    const config::Reader* preset;
    bool swapped = false;  // the preset was named on the command line

    bool ownWins(const std::string& key) const {
        if (!own.has(key) || !preset)
            return own.has(key) || !preset;
        return !swapped || !preset->has(key) || fromCommandLine(own, key);
    }
    const config::Reader& pick(const std::string& key) const {
        if (ownWins(key)) {
            if (preset && preset->has(key))
                preset->ignore(key);
            return own;
        }
        if (own.has(key))
            own.ignore(key);
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

// "7" or "13-15" (inclusive, low bit first) → bit positions.
void parseBits(const config::Reader& r, const std::string& key, std::vector<unsigned>& out) {
    for (const std::string& item : r.get<std::vector<std::string>>(key, std::vector<std::string>{})) {
        unsigned lo = 0, hi = 0;
        char dash = 0, extra = 0;
        int n = std::sscanf(item.c_str(), "%u%c%u%c", &lo, &dash, &hi, &extra);
        if (n == 1)
            hi = lo;
        else if (n != 3 || dash != '-' || hi < lo)
            r.fail(key, fmt::format("bit range '{}': expected an address bit (7) or a range low-high (13-15)",
                                    item));
        if (hi > 63)
            r.fail(key, fmt::format("address bit {} is beyond bit 63", hi));
        for (unsigned b = lo; b <= hi; ++b)
            out.push_back(b);
    }
}

// `mapping:` as a map of bit lists: every address bit from the burst size up to the device size
// belongs to exactly one field, and each field has as many bits as its count needs.
void readBitMap(const config::Reader& m, DdrConfig& c) {
    DdrBitMap& b = c.bits;
    parseBits(m, "channel", b.channel);
    parseBits(m, "rank", b.rank);
    parseBits(m, "bank", b.bank);
    parseBits(m, "row", b.row);
    parseBits(m, "column", b.column);
    parseBits(m, "bank_xor", b.bankXor);
    const std::uint64_t columns = c.rowBytes / c.burstBytes();
    const std::pair<const char*, std::uint64_t> counts[] = {{"channel", c.channels},
                                                            {"rank", c.ranks},
                                                            {"bank", c.banks},
                                                            {"row", c.rows()},
                                                            {"column", columns}};
    const std::vector<unsigned>* lists[] = {&b.channel, &b.rank, &b.bank, &b.row, &b.column};
    if (!isPow2(c.size))
        m.fail("row", "a bit-list mapping needs a power-of-two size");
    const unsigned low = log2Of(c.burstBytes()), high = log2Of(c.size);
    std::vector<int> owner(64, -1);
    for (std::size_t f = 0; f < 5; ++f) {
        const auto& [key, count] = counts[f];
        if (!isPow2(count))
            m.fail(key, fmt::format("a bit-list mapping needs a power-of-two {} count (got {})", key, count));
        if (lists[f]->size() != log2Of(count))
            m.fail(key, fmt::format("{} needs {} address bits for {} values, got {}", key, log2Of(count),
                                    count, lists[f]->size()));
        for (unsigned bit : *lists[f]) {
            if (bit < low || bit >= high)
                m.fail(key,
                       fmt::format("address bit {} is outside the mapped bits {}-{} (below {}: offset in "
                                   "a {} B burst; from {}: beyond the {} B size)",
                                   bit, low, high - 1, low, c.burstBytes(), high, c.size));
            if (owner[bit] >= 0)
                m.fail(key,
                       fmt::format("address bit {} is already mapped to {}", bit, counts[owner[bit]].first));
            owner[bit] = static_cast<int>(f);
        }
    }
    if (!b.bankXor.empty()) {
        // One address bit per bank bit, or several such groups XORed together (a hash that folds
        // many row bits into the bank).
        if (b.bank.empty() || b.bankXor.size() % b.bank.size() != 0)
            m.fail("bank_xor", fmt::format("bank_xor needs one address bit per bank bit ({}), or a multiple "
                                           "of that (groups XORed together); got {}",
                                           b.bank.size(), b.bankXor.size()));
        std::vector<bool> seen(64, false);
        for (unsigned bit : b.bankXor) {
            if (bit >= high || owner[bit] < 0 || owner[bit] == 2)
                m.fail("bank_xor", fmt::format("bank_xor bit {} must be a mapped bit of another field "
                                               "(row, column, rank or channel)",
                                               bit));
            if (seen[bit])
                m.fail("bank_xor",
                       fmt::format("bank_xor names address bit {} twice (it would cancel itself)", bit));
            seen[bit] = true;
        }
    }
}

}  // namespace

DdrConfig DdrConfig::fromYaml(config::Reader& r, const std::string& name) {
    using namespace config;
    std::optional<Node> presetNode;
    std::optional<Reader> presetReader;
    if (r.has("preset")) {
        presetNode = loadYamlFile(presetPath(r, r.get<std::string>("preset")));
        presetReader.emplace(*presetNode);
        presetReader->describeAs("impl: ddr (memory)");
    }
    LayeredReader p{r, presetReader ? &*presetReader : nullptr, presetReader && fromCommandLine(r, "preset")};

    DdrConfig c;
    c.level = p.pick("level").get<std::string>("level", "ddr");
    c.standard = p.pick("standard").get<std::string>("standard", "custom");
    // At most 1 TiB: far above any memory these chips address (and below overflow in the mapping).
    c.size = p.pick("size").get<Bytes>("size", Range<Bytes>{Bytes{1}, Bytes{1ULL << 40}}).value;
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
    {
        // `clock` (command clock) or `tCK` (its period); the memory's own map wins over the preset
        // (but for a preset swapped in on the command line, unless the clock is set there too).
        const bool ownClock = (r.has("clock") || r.has("tCK")) &&
                              (!p.swapped || fromCommandLine(r, "clock") || fromCommandLine(r, "tCK"));
        const Reader& own = ownClock || !presetReader ? r : *presetReader;
        if (own.has("clock") && own.has("tCK"))
            own.fail("tCK", "give the command clock as `clock` or as `tCK`, not both");
        if (presetReader && &own == &r) {
            presetReader->ignore("clock");
            presetReader->ignore("tCK");
        } else {
            r.ignore("clock");
            r.ignore("tCK");
        }
        if (own.has("tCK")) {
            double tck = own.get<Duration>("tCK").seconds;
            if (tck < 1e-11 || tck > 1e-6)
                own.fail("tCK", "tCK must lie between 10 ps and 1 us");
            c.clock = ClockDomain::fromHz(1.0 / tck);
        } else {
            c.clock = ClockDomain::fromHz(
                own.get<Frequency>("clock", Range<Frequency>{Frequency{1e6}, Frequency{1e11}}).hz);
        }
    }
    auto cycles = [&](const std::string& key, std::optional<std::uint64_t> fallback = std::nullopt,
                      CycleRounding rounding = CycleRounding::Up) {
        return readCycles(p.pick(key), key, c.clock, fallback, rounding);
    };
    // A DRAM command takes time: the core timings are at least one command clock.
    auto atLeastOne = [&](const std::string& key, std::uint64_t value,
                          const char* why = "a DRAM cannot answer in no time") {
        if (value == 0)
            p.pick(key).fail(key,
                             fmt::format("{} must be at least one command clock ({}): {}", key,
                                         formatDuration(static_cast<double>(c.clock.period) * 1e-12), why));
        return value;
    };
    c.t.tCL = atLeastOne("tCL", cycles("tCL"));
    c.t.tCWL = cycles("tCWL", c.t.tCL);
    c.t.tRCD = atLeastOne("tRCD", cycles("tRCD"));
    c.t.tRP = atLeastOne("tRP", cycles("tRP"));
    c.t.tRAS = atLeastOne("tRAS", cycles("tRAS"));
    // A row stays open at least until its first column command may issue (JESD79-4, JESD209-4:
    // tRAS > tRCD in every speed bin).
    if (c.t.tRAS < c.t.tRCD)
        p.pick("tRAS").fail("tRAS",
                            fmt::format("tRAS ({} clocks) must not be shorter than tRCD ({} clocks): a row "
                                        "stays open at least until its first read or write",
                                        c.t.tRAS, c.t.tRCD));
    c.t.tRTP = cycles("tRTP", c.burstCycles());
    c.t.tWR = cycles("tWR", 0);
    // `refresh: none` switches refresh off in so many words (a preset's refresh timings are then
    // not read); a tREFI of 0 would do it unnoticed and is refused.
    const std::string refresh =
        p.pick("refresh").oneOf("refresh", {"all-bank", "per-bank", "none"}, std::string("all-bank"));
    c.perBankRefresh = refresh == "per-bank";
    if (refresh == "none") {
        for (const char* key : {"tRFC", "tREFI", "tRFCpb", "tREFIpb"})
            for (const config::Reader* layer : {&r, presetReader ? &*presetReader : nullptr})
                if (layer != nullptr && layer->has(key))
                    layer->ignore(key);
    } else {
        c.t.tRFC = cycles("tRFC", 0);
        if (p.pick("tREFI").has("tREFI"))
            c.t.tREFI =
                atLeastOne("tREFI", cycles("tREFI", std::nullopt, CycleRounding::Down),
                           "0 would turn refresh off unnoticed (write `refresh: none` to model no refresh)");
    }
    c.bankGroups = p.pick("bank_groups").get<unsigned>("bank_groups", 1u, Range<unsigned>{1, 64});
    if (c.banks % c.bankGroups != 0)
        p.pick("bank_groups").fail("bank_groups", "the banks per rank must be a multiple of bank_groups");
    // A short key (tCCD, tRRD, tWTR) sets both the _S and the _L value unless they are written.
    auto pair = [&](const std::string& base, std::uint64_t fallback, std::uint64_t& s, std::uint64_t& l) {
        const std::uint64_t both = cycles(base, fallback);
        s = cycles(base + "_S", both);
        l = cycles(base + "_L", both == fallback ? s : both);
        if (l < s)
            p.pick(base + "_L").fail(base + "_L", base + "_L must not be shorter than " + base + "_S");
    };
    pair("tCCD", c.burstCycles(), c.t.tCCD_S, c.t.tCCD_L);
    pair("tRRD", 0, c.t.tRRD_S, c.t.tRRD_L);
    pair("tWTR", 0, c.t.tWTR_S, c.t.tWTR_L);
    c.t.tFAW = cycles("tFAW", 0);
    // Four activates span at least three tRRD_S, so a window shorter than one gap is a slip
    // (a unit, or tRRD for tFAW), never a rule that binds.
    if (c.t.tFAW != 0 && c.t.tFAW < c.t.tRRD_S)
        p.pick("tFAW").fail(
            "tFAW", fmt::format("tFAW ({} clocks) is shorter than tRRD_S ({} clocks): a window of four "
                                "activates is at least the gap between two",
                                c.t.tFAW, c.t.tRRD_S));
    c.t.tRTW = cycles("tRTW", 0);
    c.t.tDQSCK = cycles("tDQSCK", 0);
    c.t.tRPab = cycles("tRPab", 0);
    c.columnCycles = p.pick("column_cycles").get<unsigned>("column_cycles", 1u, Range<unsigned>{1, 16});
    if (refresh != "none") {
        c.t.tRFCpb = cycles("tRFCpb", c.perBankRefresh ? std::nullopt : std::optional<std::uint64_t>{0});
        c.t.tREFIpb = cycles("tREFIpb", c.perBankRefresh ? std::nullopt : std::optional<std::uint64_t>{0},
                             CycleRounding::Down);
    }
    if (c.perBankRefresh && c.t.tREFIpb == 0)
        p.pick("tREFIpb").fail("tREFIpb", "per-bank refresh needs a tREFIpb above zero");
    if (c.refreshPeriodCycles() != 0 && c.refreshBlockCycles() >= c.refreshPeriodCycles()) {
        const std::string key = c.perBankRefresh ? "tRFCpb" : "tRFC";
        p.pick(key).fail(key, c.perBankRefresh ? "tRP + tRFCpb must be shorter than banks × tREFIpb"
                                               : "tRPab + tRFC must be shorter than tREFI");
    }
    c.bankQueue = p.pick("bank_queue").get<unsigned>("bank_queue", 0u, Range<unsigned>{0, 4096});

    std::uint64_t perRow = std::uint64_t{c.channels} * c.ranks * c.banks * c.rowBytes;
    if (c.size % perRow != 0)
        p.pick("size").fail(
            "size",
            fmt::format("size must be a multiple of channels × ranks × banks × row_size ({} B)", perRow));
    const Reader& mappingLayer = p.pick("mapping");
    c.bitMapped = mappingLayer.has("mapping") && mappingLayer.node("mapping").isMap();
    if (c.bitMapped) {
        readBitMap(mappingLayer.child("mapping"), c);
        if (&mappingLayer == &r && r.has("interleave"))
            r.fail("interleave", "interleave belongs to the field-order mapping; a bit-list mapping places "
                                 "every address bit itself");
        r.ignore("interleave");
        if (presetReader)
            presetReader->ignore("interleave");
        c.interleave = c.burstBytes();
        c.mapping = {DdrField::Row, DdrField::Rank, DdrField::Bank, DdrField::Column, DdrField::Channel};
    }
    std::vector<std::string> fields =
        c.bitMapped ? std::vector<std::string>{}
                    : p.pick("mapping").get<std::vector<std::string>>(
                          "mapping", std::vector<std::string>{"row", "rank", "bank", "column", "channel"});
    for (const auto& f : fields) {
        DdrField field = parseField(p.pick("mapping"), f);
        for (DdrField seen : c.mapping)
            if (seen == field)
                p.pick("mapping").fail("mapping", "address field '" + f + "' appears twice");
        c.mapping.push_back(field);
    }
    if (!c.bitMapped && c.mapping.size() != 5)
        p.pick("mapping").fail("mapping",
                               "the mapping must name each of row, rank, bank, column, channel once");
    if (!c.bitMapped)
        c.interleave =
            p.pick("interleave")
                .get<Bytes>("interleave", Bytes{c.burstBytes()}, Range<Bytes>{Bytes{1}, Bytes{c.rowBytes}})
                .value;
    if (c.rowBytes % c.interleave != 0)
        p.pick("interleave").fail("interleave", "the row size must be a multiple of the interleave granule");
    const Reader& hashLayer = p.pick("bank_hash");
    c.bankHashRow = hashLayer.oneOf("bank_hash", {"none", "xor-row"}, std::string("none")) == "xor-row";
    if (c.bankHashRow && c.bitMapped) {
        // A preset named on the command line brings its own bit-list map (and its hashing): the
        // target's hash of the map it replaced goes with it.
        if (p.swapped && &hashLayer != &mappingLayer && !fromCommandLine(hashLayer, "bank_hash"))
            c.bankHashRow = false;
        else
            hashLayer.fail("bank_hash", "a bit-list mapping hashes its banks with bank_xor");
    }
    if (c.bankHashRow && !isPow2(c.banks))
        hashLayer.fail("bank_hash",
                       fmt::format("xor-row folds the row into the bank bits: it needs a power-of-two "
                                   "bank count (got {})",
                                   c.banks));
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
