#include "models/targets/ConfiguredTarget.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/compute/UnitFactory.h"
#include "models/dma/DmaFactory.h"
#include "models/memory/Cache.h"
#include "models/memory/Ddr.h"
#include "models/memory/Interconnect.h"
#include "models/memory/MemoryFactory.h"
#include "models/targets/Topology.h"
#include "sim/config/ConfigError.h"
#include "sim/config/EditDistance.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"

namespace tessim {
namespace {

// Replaces `holder.key: NAME` by the energy table's section `components.NAME`, so components read
// their energy numbers like any other key.
void resolveSection(config::Node& holder, const std::string& key, const config::Node* table) {
    config::Node* e = holder.findMutable(key);
    if (!e || !e->isScalar())
        return;
    const config::Node* components = table ? table->find("components") : nullptr;
    const config::Node* section = components ? components->find(e->scalar()) : nullptr;
    if (!section)
        throw config::ConfigError(e->location(), e->path(),
                                  table ? "energy table has no section 'components." + e->scalar() + "'"
                                        : "names an energy section, but the target has no energy_table");
    config::Node copy = *section;
    copy.setLocation(section->location());
    holder.set(key, copy);
}

// Components name an energy-table section (`energy: sram_1mib`); a memory's section may name the
// SRAM array model it follows (`array: sram_array`, see sim/energy/SramArrayModel.h).
void resolveEnergyReferences(config::Node& node, const config::Node* table) {
    if (node.isMap()) {
        resolveSection(node, "energy", table);
        if (config::Node* e = node.findMutable("energy"); e && e->isMap())
            resolveSection(*e, "array", table);
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

namespace {

// A top-level map without `impl` is usually a misspelt component that `--set target.<name>.…`
// created: suggest the nearest component as the user would name it (a cluster's members as
// `<cluster>.<member>`, the way they are written and overridden).
[[noreturn]] void failMisspeltComponent(const config::Reader& r, const config::Node& root,
                                        const std::string& key) {
    std::vector<std::string> names, paths;
    for (const auto& [name, node] : root.entries()) {
        if (!node.isMap() || node.find("impl") == nullptr)
            continue;
        names.push_back(name);
        paths.push_back(name);
        if (node.find("impl")->isScalar() && node.find("impl")->scalar() == "cluster")
            for (const auto& [member, memberNode] : node.entries())
                if (memberNode.isMap() && memberNode.find("impl") != nullptr) {
                    names.push_back(member);
                    paths.push_back(name + "." + member);
                }
    }
    // A cluster member named without its cluster first, then the nearest spelling.
    const bool member = std::find(names.begin(), names.end(), key) != names.end();
    const std::string near = member ? key : config::closestMatch(key, names);
    if (near.empty())
        r.fail(key, "a component needs an `impl` (none given)");
    const std::size_t i = std::find(names.begin(), names.end(), near) - names.begin();
    r.fail(key, fmt::format("no component '{}' (it has no `impl`); did you mean '{}'?", key, paths[i]));
}

}  // namespace

// Components name an energy-table section. The table is a library name (configs/energy/<name>.yaml,
// so a copied target still finds it) or a path, read relative to the file naming it.
config::Node ConfiguredTarget::resolveEnergyTable(const config::Node& input) {
    using namespace config;
    namespace fs = std::filesystem;
    Node root = input;
    // A report's target carries the table it ran with: fed back, the run uses that table (and
    // reproduces even where the library's has changed since); the echo writes it back.
    if (const Node* table = root.find("energy_table_resolved")) {
        if (!table->isMap())
            throw ConfigError(table->location(), table->path(),
                              fmt::format("expected the energy table as a map, got {}", table->kindName()));
        energyTable_ = *table;
        root.erase("energy_table_resolved");
    } else if (const Node* t = root.find("energy_table")) {
        const std::string name = t->scalar();
        fs::path p = name;
        if (name.find('/') == std::string::npos && p.extension() != ".yaml")
            p = fs::path(TESSIM_CONFIG_DIR) / "energy" / (name + ".yaml");
        else if (p.is_relative())
            p = fs::path(t->location().file).parent_path() / p;
        if (!fs::is_regular_file(p)) {
            std::vector<std::string> known;
            std::error_code ec;
            for (const auto& e : fs::directory_iterator(fs::path(TESSIM_CONFIG_DIR) / "energy", ec))
                if (e.path().extension() == ".yaml")
                    known.push_back(e.path().stem().string());
            std::sort(known.begin(), known.end());
            throw ConfigError(
                t->location(), t->path(),
                fmt::format("energy table '{}' does not exist (looked for {}; library tables: {})", name,
                            p.string(), fmt::join(known, ", ")));
        }
        energyTable_ = loadYamlFile(p.string());
    }
    resolveEnergyReferences(root, energyTable_ ? &*energyTable_ : nullptr);
    resolvedTree_ = root;
    return root;
}

namespace {

// The memory instances a component declares (a cluster's, times its count); throws at the first
// component past the 255 a target may hold, before anything is expanded or built, so that a file
// of 100,000 memories stops at once rather than after building them.
std::uint64_t countMemories(const config::Node& map, const std::vector<std::string>& impls,
                            std::uint64_t total) {
    for (const auto& [key, node] : map.entries()) {
        const config::Node* impl = node.isMap() ? node.find("impl") : nullptr;
        if (!impl || !impl->isScalar())
            continue;
        std::uint64_t count = 1;
        if (const config::Node* c = node.find("count"); c && c->isScalar())
            count = std::max<std::uint64_t>(1, std::strtoull(c->scalar().c_str(), nullptr, 10));
        if (impl->scalar() == "cluster")
            total += count * countMemories(node, impls, 0);
        else if (std::find(impls.begin(), impls.end(), impl->scalar()) != impls.end())
            total += count;
        if (total > 255)
            throw config::ConfigError(impl->location(), impl->path(), "too many memories (at most 255)");
    }
    return total;
}

}  // namespace

ConfiguredTarget::ConfiguredTarget(const config::Node& input) {
    countMemories(input, memoryImpls(), 0);
    const config::Node root = resolveEnergyTable(input);
    // Replicated components and clusters become concrete instances; from here on the target is
    // wired as if every instance had been written out.
    ExpandedTopology topology = expandTopology(root);
    defaultReplicatedLevels(topology, memoryImpls());
    config::Reader r(topology.flat);
    r.describeAs("target (top level)");
    const Tick quantum = readSettings(r);
    const ComponentKeys keys = componentKeys(r, root, topology);
    buildMemories(r, topology, keys.memories);
    wireMemoryLevels(r, keys.interconnects, keys.memories);
    addRoleSpaces(topology, info_, r);
    addMulticastGroups(topology, info_);
    buildDmaEngines(r, keys.dma);
    buildEngines(r, topology, keys.engines, quantum);
    if (engines_.empty())
        r.fail("name", "a target needs at least one component with impl: engine");
    describeClusters(topology, info_);
    groupMembers_.assign(info_.groups.size() + 1, {});
    for (const auto& g : info_.groups)
        groupMembers_[g.id] = g.members;
    for (auto& dma : dmaEngines_)
        dma->setMulticastGroups(&groupMembers_);
    for (auto& engine : engines_)
        engine->setMulticastGroups(&groupMembers_);
    r.finish();
    assignInitiators();
}

Tick ConfiguredTarget::readSettings(config::Reader& r) {
    using namespace config;
    info_.name = r.get<std::string>("name");
    // Reports, sweeps and `compare` tell targets apart by name.
    if (info_.name.find_first_not_of(" \t") == std::string::npos)
        r.fail("name", "a target's name is not empty: reports and comparisons tell targets apart by it");
    r.get<std::string>("description", std::string());
    r.ignore("energy_table");
    info_.mainClock =
        ClockDomain::fromHz(r.get<Frequency>("clock", Range<Frequency>{Frequency{1e3}, Frequency{1e11}}).hz);
    // Temporal decoupling: how far an engine may run ahead of the others (engines may override).
    const Duration quantum =
        r.get<Duration>("quantum", Duration{1e-6}, Range<Duration>{Duration{1e-12}, Duration{1.0}});
    return secondsToTicks(quantum.seconds);
}

// Every other top-level key is a component, sorted by its `impl`: memories first (their order
// gives the space ids), then DMA engines, then compute engines, so references resolve.
ConfiguredTarget::ComponentKeys ConfiguredTarget::componentKeys(const config::Reader& r,
                                                                const config::Node& root,
                                                                const ExpandedTopology& topology) {
    ComponentKeys keys;
    for (const auto& [key, node] : topology.flat.entries()) {
        if (isTargetSettingKey(key))
            continue;
        if (node.isMap() && node.find("impl") == nullptr)
            failMisspeltComponent(r, root, key);
        if (!node.isMap()) {
            // A value at the top that is no setting: most likely a misspelt one (`clok: 2 GHz`).
            const std::string near = config::closestMatch(key, targetSettingKeys());
            r.fail(key, fmt::format("unknown target setting '{}' (settings: {}; a component is a map with "
                                    "`impl`){}",
                                    key, fmt::join(targetSettingKeys(), ", "),
                                    near.empty() ? "" : "; did you mean '" + near + "'?"));
        }
        config::Reader c = r.child(key);
        std::string impl = c.get<std::string>("impl");
        auto in = [&](const std::vector<std::string>& v) {
            return std::find(v.begin(), v.end(), impl) != v.end();
        };
        if (in(memoryImpls())) {
            keys.memories.push_back(key);
            c.describeAs("impl: " + impl + " (memory)");
        } else if (in(dmaImpls())) {
            keys.dma.push_back(key);
            c.describeAs("impl: " + impl + " (DMA engine)");
        } else if (in(interconnectImpls())) {
            keys.interconnects.push_back(key);
            c.describeAs("impl: " + impl + " (interconnect)");
        } else if (impl == "engine") {
            keys.engines.push_back(key);
            c.describeAs("impl: engine (compute engine)");
        } else {
            std::string known = "engine";
            for (const auto& v : {memoryImpls(), dmaImpls(), interconnectImpls()})
                for (const auto& i : v)
                    known += ", " + i;
            c.fail("impl", "unknown component model '" + impl + "' (expected one of: " + known + ")");
        }
    }
    return keys;
}

void ConfiguredTarget::buildMemories(const config::Reader& r, const ExpandedTopology& topology,
                                     const std::vector<std::string>& keys) {
    for (const auto& name : keys) {
        config::Reader m = r.child(name);
        if (memories_.size() >= 255)
            m.fail("impl", "too many memories (at most 255)");
        auto mem = makeMemory(m.get<std::string>("impl"), m, name);
        MemorySpaceInfo s;
        s.name = name;
        s.id = static_cast<std::uint8_t>(memories_.size());
        s.level = mem->level();
        s.size = mem->capacity();
        s.peakBandwidth = mem->peakBandwidth();
        s.peakWriteBandwidth = mem->peakWriteBandwidth();
        s.burstBytes = mem->burstBytes();
        if (mem->isCache())
            s.cacheBytes = static_cast<const Cache&>(*mem).config().size;
        const Placement at = placementOf(topology, name);
        s.key = at.key;
        s.cluster = at.cluster;
        s.index = at.index;
        info_.spaces.push_back(s);
        memories_.push_back(std::move(mem));
    }
}

// Binds an initiator to the memories its `key` lists; returns their space ids, in list order. An
// initiator binds once to each interconnect; every memory behind it shares that socket.
template <class Initiator>
std::vector<std::uint8_t> ConfiguredTarget::connect(config::Reader& owner, const std::string& key,
                                                    Initiator& initiator) {
    std::vector<std::pair<Interconnect*, unsigned>> viaSockets;
    std::vector<std::uint8_t> reached;
    const auto names = owner.get<std::vector<std::string>>(key);
    if (names.empty())
        owner.fail(key,
                   "the list is empty: an engine or DMA moves data only to and from the memories it reaches");
    for (const auto& memName : names) {
        const MemorySpaceInfo* s = info_.findSpace(memName);
        if (!s)
            owner.fail(key, "no memory named '" + memName + "'");
        reached.push_back(s->id);
        Interconnect* bus = via_[s->id];
        if (!bus) {
            initiator.memory.bind(memories_[s->id]->socket);
            initiator.mapSpace(s->id, static_cast<unsigned>(initiator.memory.size() - 1));
            continue;
        }
        auto it =
            std::find_if(viaSockets.begin(), viaSockets.end(), [&](const auto& v) { return v.first == bus; });
        if (it == viaSockets.end()) {
            initiator.memory.bind(bus->socket);
            viaSockets.emplace_back(bus, static_cast<unsigned>(initiator.memory.size() - 1));
            it = viaSockets.end() - 1;
        }
        initiator.mapSpace(s->id, it->second);
    }
    return reached;
}

void ConfiguredTarget::buildDmaEngines(const config::Reader& r, const std::vector<std::string>& keys) {
    for (const auto& name : keys) {
        config::Reader d = r.child(name);
        auto dma = makeDma(d.get<std::string>("impl"), d, name);
        connect(d, "memories", *dma);
        info_.dmaEngines.push_back(name);
        dmaEngines_.push_back(std::move(dma));
    }
}

void ConfiguredTarget::buildEngines(const config::Reader& r, const ExpandedTopology& topology,
                                    const std::vector<std::string>& keys, Tick quantum) {
    for (const auto& name : keys) {
        config::Reader e = r.child(name);
        EngineConfig c = EngineConfig::fromYaml(e, name, info_.mainClock, quantum);
        std::vector<std::unique_ptr<FunctionalUnit>> units;
        UnitContext ctx{c.registerBytes, c.clock.hz(), {}};
        for (const auto& slot : c.slots)
            ctx.slotClasses.push_back(slot.name);
        config::Reader unitsReader = e.child("units");
        for (const auto& entry : unitsReader.self().entries()) {
            config::Reader u = unitsReader.child(entry.first);
            units.push_back(makeUnit(u, entry.first, ctx));
        }
        if (units.empty())
            e.fail("units", "an engine needs at least one unit");
        auto engine = std::make_unique<Engine>(c.name.c_str(), c, std::move(units), sync_);
        const std::vector<std::uint8_t> reached = connect(e, "memories", *engine);
        DmaEngine* dma = nullptr;
        if (e.has("dma")) {
            std::string dmaName = e.get<std::string>("dma");
            auto it = std::find(info_.dmaEngines.begin(), info_.dmaEngines.end(), dmaName);
            if (it == info_.dmaEngines.end())
                e.fail("dma", "no DMA engine named '" + dmaName + "'");
            dma = dmaEngines_[static_cast<std::size_t>(it - info_.dmaEngines.begin())].get();
            engine->dma.bind(*dma);
        }
        EngineInfo ei = engine->describe();
        ei.dmaChannels = dma ? dma->channelCount() : 0;
        ei.dmaAlignment = dma ? dma->alignment() : 1;
        const Placement at = placementOf(topology, name);
        ei.key = at.key;
        ei.cluster = at.cluster;
        ei.index = at.index;
        for (const auto& [role, concrete] : rolesOf(topology, name, info_)) {
            engine->mapSpaceAlias(info_.space(role).id, concrete);
            ei.roles[role] = concrete;
        }
        // The memories it reaches, as listed; an instance it reaches as a role is named by the role.
        for (std::uint8_t id : reached) {
            for (const auto& [role, instance] : ei.roles)
                if (instance == id)
                    id = info_.space(role).id;
            ei.memories.push_back(id);
        }
        info_.engines.push_back(ei);
        engines_.push_back(std::move(engine));
    }
    std::vector<std::string> spaceNames;
    for (const auto& space : info_.spaces)
        spaceNames.push_back(space.name);
    for (auto& engine : engines_)
        engine->setSpaceNames(spaceNames);
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
    for (auto& e : engines_)
        e->setAccessObserver(observer);
    for (auto& d : dmaEngines_)
        d->setAccessObserver(observer);
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
        info_.spaces[id].next = n->id;
        if (via_[n->id])
            socket->bind(via_[n->id]->socket);
        else
            socket->bind(memories_[n->id]->socket);
        next[id] = n->id;
    }
    backingSpace_.resize(memories_.size());
    for (std::size_t id = 0; id < memories_.size(); ++id)
        backingSpace_[id] = static_cast<std::uint8_t>(id);
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
        backingSpace_[id] = static_cast<std::uint8_t>(last);
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
    return s && !s->role ? memories_[s->id].get() : nullptr;
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

void ConfiguredTarget::setTrace(SpanObserver* trace) {
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
    return std::max(end, postedWritesEnd_);
}

std::vector<ConfiguredTarget::WaitingEngine> ConfiguredTarget::unfinishedEngines() const {
    const std::vector<std::string> synchronising = sync_.waiting();
    std::vector<WaitingEngine> out;
    for (const std::string& w : synchronising) {
        out.push_back({"", w, kNoOpIndex});
        for (const auto& e : engines_)
            if (w.rfind(std::string(e->name()) + ":", 0) == 0)
                out.back() = {e->config().name, w, e->currentOp()};
    }
    for (const auto& e : engines_) {
        const std::string name = e->name();
        if (std::any_of(synchronising.begin(), synchronising.end(),
                        [&](const std::string& w) { return w.rfind(name + ":", 0) == 0; }))
            continue;
        for (const sc_core::sc_object* child : e->get_child_objects()) {
            sc_core::sc_process_handle process(const_cast<sc_core::sc_object*>(child));
            if (process.valid() && !process.terminated()) {
                out.push_back(
                    {e->config().name, name + ": waits forever (its stream never finished)", e->currentOp()});
                break;
            }
        }
    }
    return out;
}

void ConfiguredTarget::completePostedWrites() {
    for (auto& m : memories_)
        postedWritesEnd_ = std::max(postedWritesEnd_, m->completePendingWrites());
}

bool ConfiguredTarget::hasCaches() const {
    return std::any_of(memories_.begin(), memories_.end(), [](const auto& m) { return m->isCache(); });
}

// Caches are walked from the last declared (a cluster's L1s follow its L2) so that upper levels
// usually go first; another round writes back what a round's write-backs dirtied below.
void ConfiguredTarget::writeBackDirtyLines() {
    auto writtenBelowCaches = [this] {
        std::uint64_t bytes = 0;
        for (const auto& m : memories_)
            if (!m->isCache())
                bytes += m->busBytesWritten();
        return bytes;
    };
    const std::uint64_t before = writtenBelowCaches();
    writebackEnd_ = drainWrites(kernelEnd());
    dirtyAtEndBytes_ = writtenBelowCaches() - before;
}

Tick ConfiguredTarget::drainWrites(Tick from) {
    Tick flushed = from;
    for (std::size_t round = 0; round < memories_.size(); ++round) {
        const Tick start = flushed;
        bool wroteBack = false;
        for (auto m = memories_.rbegin(); m != memories_.rend(); ++m) {
            bool wrote = false;
            flushed = std::max(flushed, (*m)->writeBackAtEnd(start, wrote));
            wroteBack = wroteBack || wrote;
        }
        if (!wroteBack)
            break;
    }
    for (auto& m : memories_)
        flushed = std::max(flushed, m->completePendingWrites());
    return flushed;
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
        it->read += m->busBytesRead();
        it->write += m->busBytesWritten();
        it->usefulRead += m->bytesRead();
        it->usefulWrite += m->bytesWritten();
    }
    return out;
}

void ConfiguredTarget::countUntimedTraffic(const std::string& memory, std::uint64_t readBytes,
                                           std::uint64_t writeBytes) {
    Memory* m = findMemory(memory);
    if (!m)
        throw std::runtime_error("untimed traffic names memory '" + memory + "' that target '" + info_.name +
                                 "' lacks");
    m->countUntimed(readBytes, writeBytes);
}

void ConfiguredTarget::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(info_.name);
    for (const auto& e : engines_)
        e->collect(node, energy, seconds);
    for (const auto& d : dmaEngines_)
        d->collect(node, energy, seconds);
    // Memories and buses also worked while the dirty lines went down after the kernel's end: their
    // utilisation and refreshes cover that window too.
    const double memorySeconds = std::max(seconds, ticksToSeconds(writebackEnd_));
    for (const auto& m : memories_)
        m->collect(node, energy, memorySeconds);
    for (const auto& b : interconnects_)
        b->collect(node, energy, memorySeconds);
}

// Functional bytes live in the last level of a cache chain; reaching it directly works before
// elaboration has completed the socket bindings (workloads initialise memories before the run).
Memory& ConfiguredTarget::memoryForSpace(std::uint8_t space) {
    if (space < memories_.size())
        return *memories_[backingSpace_[space]];
    if (space >= info_.spaces.size())
        throw std::runtime_error(fmt::format("target {}: memory space {} does not exist", info_.name, space));
    // A role: caches hold no data (every instance reaches the same bytes below); private
    // scratchpads differ per core, so their bytes are reached through a named instance.
    const MemorySpaceInfo& role = info_.spaces[space];
    for (std::uint8_t id : role.instances)
        if (!memories_[id]->nextLevelSocket())
            throw std::runtime_error(fmt::format(
                "target {}: '{}' names {} memories, one per core; address one instance ({} … {})", info_.name,
                role.name, role.instances.size(), info_.spaces[role.instances.front()].name,
                info_.spaces[role.instances.back()].name));
    return *memories_[backingSpace_[role.instances.front()]];
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
