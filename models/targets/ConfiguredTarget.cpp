#include "models/targets/ConfiguredTarget.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "models/compute/UnitFactory.h"
#include "models/dma/DmaFactory.h"
#include "models/memory/Interconnect.h"
#include "models/memory/MemoryFactory.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"
#include "sim/report/NodeJson.h"

namespace tessim {
namespace {

// Components name an energy-table section (`energy: sram_1mib`); replace the name by the
// section's map so each component reads its energy numbers like any other key.
void resolveEnergyReferences(config::Node& node, const config::Node* table) {
    if (node.isMap()) {
        if (config::Node* e = node.findMutable("energy"); e && e->isScalar()) {
            const config::Node* components = table ? table->find("components") : nullptr;
            const config::Node* section = components ? components->find(e->scalar()) : nullptr;
            if (!section)
                throw config::ConfigError(
                    e->location(), e->path(),
                    table ? "energy table has no section 'components." + e->scalar() + "'"
                          : "names an energy section, but the target has no energy_table");
            config::Node copy = *section;
            copy.setLocation(section->location());
            node.set("energy", copy);
        }
        std::vector<std::string> keys;
        for (const auto& entry : node.entries())
            keys.push_back(entry.first);
        for (const auto& key : keys)
            resolveEnergyReferences(*node.findMutable(key), table);
    } else if (node.isSequence()) {
        for (std::size_t i = 0; i < node.items().size(); ++i)
            resolveEnergyReferences(*node.itemMutable(i), table);
    }
}

}  // namespace

ConfiguredTarget::ConfiguredTarget(const config::Node& input) {
    using namespace config;
    Node root = input;
    std::optional<Node> table;
    if (const Node* t = root.find("energy_table")) {
        // Relative to the file that names it.
        std::filesystem::path p = t->scalar();
        if (p.is_relative())
            p = std::filesystem::path(t->location().file).parent_path() / p;
        if (!std::filesystem::exists(p))
            throw ConfigError(t->location(), t->path(), "energy table '" + p.string() + "' does not exist");
        table = loadYamlFile(p.string());
    }
    resolveEnergyReferences(root, table ? &*table : nullptr);
    resolved_ = nodeToJson(root);
    if (table)
        resolved_["energy_table_resolved"] = nodeToJson(*table);

    Reader r(root);
    info_.name = r.get<std::string>("name");
    r.get<std::string>("description", std::string());
    r.ignore("energy_table");
    info_.mainClock =
        ClockDomain::fromHz(r.get<Frequency>("clock", Range<Frequency>{Frequency{1e3}, Frequency{1e11}}).hz);

    // Every other top-level key is a component, dispatched by its `impl`; memories first (their
    // order gives the space ids), then DMA engines, then compute engines, so references resolve.
    std::vector<std::string> memoryKeys, dmaKeys, engineKeys, interconnectKeys;
    for (const auto& [key, node] : root.entries()) {
        if (key == "name" || key == "description" || key == "clock" || key == "energy_table")
            continue;
        Reader c = r.child(key);
        std::string impl = c.get<std::string>("impl");
        auto in = [&](const std::vector<std::string>& v) {
            return std::find(v.begin(), v.end(), impl) != v.end();
        };
        if (in(memoryImpls()))
            memoryKeys.push_back(key);
        else if (in(dmaImpls()))
            dmaKeys.push_back(key);
        else if (in(interconnectImpls()))
            interconnectKeys.push_back(key);
        else if (impl == "engine")
            engineKeys.push_back(key);
        else {
            std::string known = "engine";
            for (const auto& v : {memoryImpls(), dmaImpls(), interconnectImpls()})
                for (const auto& i : v)
                    known += ", " + i;
            c.fail("impl", "unknown component model '" + impl + "' (expected one of: " + known + ")");
        }
    }
    for (const auto& name : memoryKeys) {
        Reader m = r.child(name);
        if (memories_.size() >= 255)
            m.fail("impl", "too many memories (at most 255)");
        auto mem = makeMemory(m.get<std::string>("impl"), m, name);
        MemorySpaceInfo s;
        s.name = name;
        s.id = static_cast<std::uint8_t>(memories_.size());
        s.level = mem->level();
        s.size = mem->capacity();
        s.peakBandwidth = mem->peakBandwidth();
        info_.spaces.push_back(s);
        memories_.push_back(std::move(mem));
    }
    wireMemoryLevels(r, interconnectKeys, memoryKeys);
    auto connect = [&](Reader& owner, const std::string& key, auto& initiator) {
        // An initiator binds once to each interconnect; every memory behind it shares that socket.
        std::vector<std::pair<Interconnect*, unsigned>> viaSockets;
        for (const auto& memName : owner.get<std::vector<std::string>>(key)) {
            const MemorySpaceInfo* s = info_.findSpace(memName);
            if (!s)
                owner.fail(key, "no memory named '" + memName + "'");
            Interconnect* bus = via_[s->id];
            if (!bus) {
                initiator.memory.bind(memories_[s->id]->socket);
                initiator.mapSpace(s->id, static_cast<unsigned>(initiator.memory.size() - 1));
                continue;
            }
            auto it = std::find_if(viaSockets.begin(), viaSockets.end(),
                                   [&](const auto& v) { return v.first == bus; });
            if (it == viaSockets.end()) {
                initiator.memory.bind(bus->socket);
                viaSockets.emplace_back(bus, static_cast<unsigned>(initiator.memory.size() - 1));
                it = viaSockets.end() - 1;
            }
            initiator.mapSpace(s->id, it->second);
        }
    };
    for (const auto& name : dmaKeys) {
        Reader d = r.child(name);
        auto dma = makeDma(d.get<std::string>("impl"), d, name);
        connect(d, "memories", *dma);
        info_.dmaEngines.push_back(name);
        dmaEngines_.push_back(std::move(dma));
    }
    for (const auto& name : engineKeys) {
        Reader e = r.child(name);
        EngineConfig c;
        c.name = name;
        c.clock = ClockDomain::fromHz(e.get<Frequency>("clock", Frequency{info_.mainClock.hz()}).hz);
        c.issueWidth = e.get<unsigned>("issue_width", 1u, Range<unsigned>{1, 16});
        c.vliw = e.get<bool>("vliw", false);
        c.registerBytes = static_cast<unsigned>(
            e.get<Bytes>("register_size", Bytes{32}, Range<Bytes>{Bytes{1}, Bytes{1 << 20}}).value);
        c.quantum = secondsToTicks(e.get<Duration>("quantum", Duration{1e-6}).seconds);
        c.isMainCompute = e.get<bool>("main", true);
        std::vector<std::unique_ptr<FunctionalUnit>> units;
        UnitContext ctx{c.registerBytes, c.clock.hz()};
        Reader unitsReader = e.child("units");
        for (const auto& entry : unitsReader.self().entries()) {
            Reader u = unitsReader.child(entry.first);
            units.push_back(makeUnit(u, entry.first, ctx));
        }
        if (units.empty())
            e.fail("units", "an engine needs at least one unit");
        auto engine = std::make_unique<Engine>(c.name.c_str(), c, std::move(units), sync_);
        connect(e, "memories", *engine);
        if (e.has("dma")) {
            std::string dmaName = e.get<std::string>("dma");
            auto it = std::find(info_.dmaEngines.begin(), info_.dmaEngines.end(), dmaName);
            if (it == info_.dmaEngines.end())
                e.fail("dma", "no DMA engine named '" + dmaName + "'");
            engine->dma.bind(*dmaEngines_[static_cast<std::size_t>(it - info_.dmaEngines.begin())]);
        }
        EngineInfo ei{c.name, c.clock, c.registerBytes, engine->peakWorkPerCycle(), c.isMainCompute, {}};
        for (const auto& unit : engine->units())
            if (!ei.macArray)
                ei.macArray = unit->macArray();
        info_.engines.push_back(ei);
        engines_.push_back(std::move(engine));
    }
    std::vector<std::string> spaceNames;
    for (const auto& space : info_.spaces)
        spaceNames.push_back(space.name);
    for (auto& engine : engines_)
        engine->setSpaceNames(spaceNames);
    if (engines_.empty())
        r.fail("name", "a target needs at least one component with impl: engine");
    r.finish();
    assignInitiators();
}

void ConfiguredTarget::assignInitiators() {
    for (auto& e : engines_)
        e->setInitiator(initiators_.add(e->config().name));
    for (auto& d : dmaEngines_)
        d->setInitiatorBase(initiators_.addRange(std::string(d->name()) + "_ch", d->channelCount()));
    for (auto& m : memories_)
        m->setInitiatorRegistry(&initiators_);
}

void ConfiguredTarget::setAccessObserver(AccessObserver* observer) {
    for (auto& m : memories_)
        m->setObserver(observer);
}

ConfiguredTarget::~ConfiguredTarget() = default;

void ConfiguredTarget::wireMemoryLevels(const config::Reader& r,
                                        const std::vector<std::string>& interconnectKeys,
                                        const std::vector<std::string>& memoryKeys) {
    using namespace config;
    std::vector<std::string> interconnectNames;
    for (const auto& name : interconnectKeys) {
        Reader b = r.child(name);
        interconnects_.push_back(makeInterconnect(b.get<std::string>("impl"), b, name));
        interconnectNames.push_back(name);
    }
    // `via: <interconnect>`: initiators (and caches above) reach the memory through it.
    via_.assign(memories_.size(), nullptr);
    for (const auto& name : memoryKeys) {
        Reader m = r.child(name);
        if (!m.has("via"))
            continue;
        std::string busName = m.get<std::string>("via");
        auto it = std::find(interconnectNames.begin(), interconnectNames.end(), busName);
        if (it == interconnectNames.end())
            m.fail("via", "no interconnect named '" + busName + "'");
        std::uint8_t id = info_.space(name).id;
        via_[id] = interconnects_[static_cast<std::size_t>(it - interconnectNames.begin())].get();
        via_[id]->attach(*memories_[id], id);
    }
    // `next: <memory>` on a cache: misses and write-backs go there; its address range is the
    // range of the last level of the chain.
    std::vector<int> next(memories_.size(), -1);
    for (const auto& name : memoryKeys) {
        Reader m = r.child(name);
        std::uint8_t id = info_.space(name).id;
        tlm::tlm_initiator_socket<>* socket = memories_[id]->nextLevelSocket();
        if (!m.has("next"))
            continue;
        if (!socket)
            m.fail("next", "only caches forward to a next level");
        std::string nextName = m.get<std::string>("next");
        const MemorySpaceInfo* n = info_.findSpace(nextName);
        if (!n || n->id == id)
            m.fail("next", "no other memory named '" + nextName + "'");
        if (via_[n->id])
            socket->bind(via_[n->id]->socket);
        else
            socket->bind(memories_[n->id]->socket);
        next[id] = n->id;
    }
    for (const auto& name : memoryKeys) {
        std::uint8_t id = info_.space(name).id;
        if (next[id] < 0)
            continue;
        int last = id;
        for (std::size_t steps = 0; next[static_cast<std::size_t>(last)] >= 0; ++steps) {
            if (steps > memories_.size())
                r.child(name).fail("next", "the chain of next levels forms a cycle");
            last = next[static_cast<std::size_t>(last)];
        }
        memories_[id]->setNextLevel(static_cast<std::uint8_t>(next[id]),
                                    memories_[static_cast<std::size_t>(last)]->capacity());
        info_.spaces[id].size = memories_[id]->capacity();
    }
}

std::vector<Engine*> ConfiguredTarget::engines() {
    std::vector<Engine*> out;
    for (auto& e : engines_)
        out.push_back(e.get());
    return out;
}

Engine* ConfiguredTarget::findEngine(const std::string& name) {
    for (auto& e : engines_)
        if (e->config().name == name)
            return e.get();
    return nullptr;
}

Memory* ConfiguredTarget::findMemory(const std::string& name) {
    const MemorySpaceInfo* s = info_.findSpace(name);
    return s ? memories_[s->id].get() : nullptr;
}

void ConfiguredTarget::resetMemoryTiming() {
    for (auto& m : memories_)
        m->resetTiming();
    for (auto& b : interconnects_)
        b->resetTiming();
}

void ConfiguredTarget::setFunctional(bool on) {
    for (auto& e : engines_)
        e->setFunctional(on);
    for (auto& d : dmaEngines_)
        d->setFunctional(on);
}

void ConfiguredTarget::setTrace(TraceSink* trace) {
    for (auto& e : engines_)
        e->setTrace(trace);
    for (auto& d : dmaEngines_)
        d->setTrace(trace);
}

Tick ConfiguredTarget::kernelEnd() const {
    Tick end = 0;
    for (const auto& e : engines_)
        end = std::max(end, e->config().clock.at(e->finishCycle()));
    for (const auto& d : dmaEngines_)
        end = std::max(end, d->lastCompletion());
    return end;
}

std::vector<LevelTraffic> ConfiguredTarget::traffic() const {
    std::vector<LevelTraffic> out;
    for (const auto& m : memories_) {
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const LevelTraffic& t) { return t.level == m->level(); });
        if (it == out.end()) {
            out.push_back(LevelTraffic{m->level(), 0, 0});
            it = out.end() - 1;
        }
        it->read += m->bytesRead();
        it->write += m->bytesWritten();
    }
    return out;
}

void ConfiguredTarget::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(info_.name);
    for (const auto& e : engines_)
        e->collect(node, energy, seconds);
    for (const auto& d : dmaEngines_)
        d->collect(node, energy, seconds);
    for (const auto& m : memories_)
        m->collect(node, energy, seconds);
    for (const auto& b : interconnects_)
        b->collect(node, energy, seconds);
}

Memory& ConfiguredTarget::memoryForSpace(std::uint8_t space) {
    if (space >= memories_.size())
        throw std::runtime_error(fmt::format("target {}: memory space {} does not exist", info_.name, space));
    return *memories_[space];
}

void ConfiguredTarget::read(std::uint8_t space, std::uint64_t addr, void* data, std::uint64_t bytes) {
    Memory& m = memoryForSpace(space);
    if (addr > m.capacity() || bytes > m.capacity() - addr)
        throw std::runtime_error(
            fmt::format("read of {} B at {}+{:#x} is outside the memory", bytes, m.name(), addr));
    m.debugRead(addr, data, bytes);
}

void ConfiguredTarget::write(std::uint8_t space, std::uint64_t addr, const void* data, std::uint64_t bytes) {
    Memory& m = memoryForSpace(space);
    if (addr > m.capacity() || bytes > m.capacity() - addr)
        throw std::runtime_error(
            fmt::format("write of {} B at {}+{:#x} is outside the memory", bytes, m.name(), addr));
    m.debugWrite(addr, data, bytes);
}

}  // namespace tessim
