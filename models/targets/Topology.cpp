#include "models/targets/Topology.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Reader.h"

namespace tessim {
namespace {

using config::ConfigError;
using config::Node;

constexpr unsigned kMaxInstances = 4096;

// One `impl:` map as written: at chip level (cluster = −1) or inside cluster declaration k.
struct Declaration {
    std::string key;
    const Node* node = nullptr;
    int cluster = -1;    // index into clusterDecls
    unsigned count = 1;  // per cluster instance (or on the chip)
};

struct ClusterDeclaration {
    std::string key;
    const Node* node = nullptr;
    unsigned count = 1;
};

std::string implOf(const Declaration& d) {
    const Node* impl = d.node->find("impl");
    return impl && impl->isScalar() ? impl->scalar() : std::string();
}

std::string instanceName(const std::string& key, unsigned index, unsigned total) {
    if (total == 1)
        return key;
    bool endsInDigit = !key.empty() && std::isdigit(static_cast<unsigned char>(key.back()));
    return endsInDigit ? fmt::format("{}_{}", key, index) : fmt::format("{}{}", key, index);
}

unsigned readCount(const Node& component) {
    const Node* c = component.find("count");
    if (!c)
        return 1;
    std::string text = c->isScalar() ? c->scalar() : std::string();
    unsigned long long value = 0;
    bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) {
        return std::isdigit(static_cast<unsigned char>(ch));
    });
    if (digits && text.size() < 6)
        value = std::stoull(text);
    if (!digits || value < 1 || value > kMaxInstances)
        throw ConfigError(c->location(), c->path(),
                          fmt::format("expected a whole number of instances from 1 to {}, got '{}'",
                                      kMaxInstances, c->isScalar() ? text : std::string(c->kindName())));
    return static_cast<unsigned>(value);
}

bool isComponent(const Node& node) {
    return node.isMap() && node.find("impl") != nullptr;
}

bool isCluster(const Node& node) {
    const Node* impl = node.find("impl");
    return impl && impl->isScalar() && impl->scalar() == "cluster";
}

class Expander {
public:
    explicit Expander(const Node& root) : root_(root) {}

    ExpandedTopology run() {
        collect();
        nameInstances();
        ExpandedTopology out;
        out.flat = Node::makeMap(root_.location());
        out.flat.setPath(root_.path());
        for (const auto& [key, node] : root_.entries()) {
            if (key == "groups")
                continue;
            if (isTargetSettingKey(key) || !isComponent(node))
                out.flat.set(key, node);  // settings; anything else the target rejects with its own message
            else if (isCluster(node))
                emitCluster(key, out);
            else
                emitDeclaration(declarationIndex(key, -1), -1, out);
        }
        for (std::size_t k = 0; k < clusterDecls_.size(); ++k)
            for (unsigned c = 0; c < clusterDecls_[k].count; ++c)
                out.clusters.push_back(ClusterInstance{
                    instanceName(clusterDecls_[k].key, c, clusterDecls_[k].count), clusterDecls_[k].key, c});
        for (const auto& d : decls_) {
            unsigned n = total(d);
            if (n < 2)
                continue;
            auto& names = out.replicated[d.key];
            for (unsigned g = 0; g < n; ++g)
                names.push_back(instanceName(d.key, g, n));
        }
        readGroups(out);
        return out;
    }

private:
    void collect() {
        for (const auto& [key, node] : root_.entries()) {
            if (isTargetSettingKey(key) || !isComponent(node))
                continue;
            if (!isCluster(node)) {
                decls_.push_back(Declaration{key, &node, -1, readCount(node)});
                continue;
            }
            int k = static_cast<int>(clusterDecls_.size());
            clusterDecls_.push_back(ClusterDeclaration{key, &node, readCount(node)});
            bool any = false;
            for (const auto& [inner, innerNode] : node.entries()) {
                if (inner == "impl" || inner == "count" || inner == "description")
                    continue;
                if (!isComponent(innerNode))
                    throw ConfigError(
                        innerNode.location(), innerNode.path(),
                        "a cluster holds components (maps with an impl), count and description");
                if (isCluster(innerNode))
                    throw ConfigError(innerNode.find("impl")->location(), innerNode.find("impl")->path(),
                                      "clusters do not nest");
                decls_.push_back(Declaration{inner, &innerNode, k, readCount(innerNode)});
                any = true;
            }
            if (!any)
                throw ConfigError(node.location(), node.path(), "a cluster needs at least one component");
        }
    }

    unsigned clusterCount(const Declaration& d) const {
        return d.cluster < 0 ? 1 : clusterDecls_[static_cast<std::size_t>(d.cluster)].count;
    }
    unsigned total(const Declaration& d) const { return d.count * clusterCount(d); }
    // Chip-wide index of the first instance of cluster declaration k.
    unsigned clusterBase(int k) const {
        unsigned base = 0;
        for (int j = 0; j < k; ++j)
            base += clusterDecls_[static_cast<std::size_t>(j)].count;
        return base;
    }

    std::size_t declarationIndex(const std::string& key, int cluster) const {
        for (std::size_t i = 0; i < decls_.size(); ++i)
            if (decls_[i].key == key && decls_[i].cluster == cluster)
                return i;
        return decls_.size();
    }

    void nameInstances() {
        std::set<std::string> keys;
        for (const auto& d : decls_) {
            if (!keys.insert(d.key).second)
                throw ConfigError(d.node->keyLocation(), d.node->path(),
                                  fmt::format("the component name '{}' is declared twice", d.key));
        }
        for (const auto& c : clusterDecls_)
            keys.insert(c.key);
        for (const auto& d : decls_) {
            unsigned n = total(d);
            for (unsigned g = 0; g < n; ++g) {
                std::string name = instanceName(d.key, g, n);
                bool clashes = (n > 1 && keys.count(name)) || !names_.insert(name).second;
                if (clashes)
                    throw ConfigError(d.node->keyLocation(), d.node->path(),
                                      fmt::format("instance name '{}' clashes with another component", name));
            }
        }
    }

    // The instance names that `name`, written in declaration `from` for its instance (cluster c,
    // index i within the cluster), refers to. Names that match nothing are returned unchanged:
    // the target reports them with the message that fits the key.
    std::vector<std::string> resolve(const Declaration& from, int c, unsigned i, const std::string& name,
                                     bool list, const Node& where,
                                     std::map<std::string, std::string>* roles) {
        const Declaration* to = nullptr;
        std::size_t same = declarationIndex(name, from.cluster);
        if (same < decls_.size())
            to = &decls_[same];
        else if (std::size_t top = declarationIndex(name, -1); top < decls_.size())
            to = &decls_[top];
        else if (from.cluster < 0) {
            for (const auto& d : decls_)
                if (d.key == name)
                    to = &d;
        }
        if (!to)
            return {name};
        const unsigned toTotal = total(*to);
        const unsigned fromGlobal = (c < 0 ? 0 : static_cast<unsigned>(c)) * from.count + i;
        auto at = [&](unsigned global) { return instanceName(to->key, global, toTotal); };
        std::vector<std::string> out;
        if (to->cluster == from.cluster) {
            unsigned base = (c < 0 ? 0 : static_cast<unsigned>(c)) * to->count;
            if (to->count == 1)
                out.push_back(at(base));
            else if (to->count == from.count)
                out.push_back(at(base + i));
            else if (list)
                for (unsigned j = 0; j < to->count; ++j)
                    out.push_back(at(base + j));
        } else if (to->cluster < 0) {
            if (to->count == 1)
                out.push_back(at(0));
            else if (to->count == total(from))
                out.push_back(at(fromGlobal));
            else if (list)
                for (unsigned j = 0; j < toTotal; ++j)
                    out.push_back(at(j));
        } else {
            if (toTotal == 1)
                out.push_back(at(0));
            else if (toTotal == total(from))
                out.push_back(at(fromGlobal));
            else if (list)
                for (unsigned j = 0; j < toTotal; ++j)
                    out.push_back(at(j));
        }
        // A core reaching several instances of one replicated cache would share "private" caches
        // in no defined way (which one holds a line?): its own (same count) or one shared cache.
        if (list && out.size() > 1 && implOf(from) == "engine" && implOf(*to) == "cache")
            throw ConfigError(
                where.location(), where.path(),
                fmt::format("'{}' has {} instances and '{}' has {}: an engine reaches one instance of a "
                            "cache, its own (give '{}' count {}) or a shared one (count 1), or name one "
                            "({} … {})",
                            name, toTotal, from.key, total(from), name, total(from), at(0), at(toTotal - 1)));
        if (out.empty())
            throw ConfigError(
                where.location(), where.path(),
                fmt::format("'{}' has {} instances and '{}' has {}: name one instance ({} … {})", name,
                            toTotal, from.key, total(from), at(0), at(toTotal - 1)));
        if (roles && toTotal > 1 && out.size() == 1)
            (*roles)[to->key] = out.front();
        return out;
    }

    Node rewriteReferences(const Declaration& d, int c, unsigned i, ComponentInstance& instance) {
        Node copy = *d.node;
        copy.erase("count");
        for (const char* key : {"dma", "via", "next"}) {
            const Node* ref = d.node->find(key);
            if (!ref || !ref->isScalar())
                continue;
            auto names = resolve(d, c, i, ref->scalar(), false, *ref, nullptr);
            Node replaced = Node::makeScalar(names.front(), ref->location());
            copy.set(key, replaced);
        }
        if (const Node* list = d.node->find("memories"); list && list->isSequence()) {
            Node replaced = Node::makeSequence(list->location());
            for (const auto& item : list->items()) {
                if (!item.isScalar()) {
                    replaced.append(item);
                    continue;
                }
                for (const auto& name : resolve(d, c, i, item.scalar(), true, item, &instance.roles))
                    replaced.append(Node::makeScalar(name, item.location()));
            }
            copy.set("memories", replaced);
        }
        return copy;
    }

    void emitDeclaration(std::size_t declIndex, int cluster, ExpandedTopology& out) {
        const Declaration& d = decls_[declIndex];
        const unsigned n = total(d);
        for (unsigned i = 0; i < d.count; ++i) {
            unsigned global = (cluster < 0 ? 0 : static_cast<unsigned>(cluster)) * d.count + i;
            ComponentInstance instance;
            instance.name = instanceName(d.key, global, n);
            instance.key = d.key;
            instance.cluster = cluster < 0 ? -1 : static_cast<int>(clusterBase(d.cluster)) + cluster;
            instance.index = global;
            instance.instances = n;
            Node node = rewriteReferences(d, cluster, i, instance);
            out.flat.set(instance.name, node);
            // Errors name the key the user wrote, not the instance.
            Node* placed = out.flat.findMutable(instance.name);
            placed->setPath(d.node->path());
            placed->setKeyLocation(d.node->keyLocation());
            out.components.push_back(std::move(instance));
        }
    }

    void emitCluster(const std::string& key, ExpandedTopology& out) {
        int k = -1;
        for (std::size_t j = 0; j < clusterDecls_.size(); ++j)
            if (clusterDecls_[j].key == key)
                k = static_cast<int>(j);
        for (unsigned c = 0; c < clusterDecls_[static_cast<std::size_t>(k)].count; ++c)
            for (std::size_t d = 0; d < decls_.size(); ++d)
                if (decls_[d].cluster == k)
                    emitDeclaration(d, static_cast<int>(c), out);
    }

    void readGroups(ExpandedTopology& out) {
        const Node* groups = root_.find("groups");
        if (!groups || groups->isNull())
            return;
        if (!groups->isMap())
            throw ConfigError(groups->location(), groups->path(),
                              std::string("expected a map of group name → list of memories, got ") +
                                  std::string(groups->kindName()));
        for (const auto& [name, list] : groups->entries()) {
            MulticastGroupSpec g{name, {}, list.location(), list.path()};
            if (!list.isSequence() || list.items().empty())
                throw ConfigError(list.location(), list.path(), "expected a non-empty list of memory names");
            for (const auto& item : list.items()) {
                if (!item.isScalar())
                    throw ConfigError(item.location(), item.path(), "expected a memory name");
                auto it = out.replicated.find(item.scalar());
                if (it != out.replicated.end())
                    g.members.insert(g.members.end(), it->second.begin(), it->second.end());
                else
                    g.members.push_back(item.scalar());
            }
            out.groups.push_back(std::move(g));
        }
    }

    const Node& root_;
    std::vector<Declaration> decls_;
    std::vector<ClusterDeclaration> clusterDecls_;
    std::set<std::string> names_;
};

}  // namespace

const std::vector<std::string>& targetSettingKeys() {
    static const std::vector<std::string> keys{"name",         "description", "clock",
                                               "energy_table", "quantum",     "groups"};
    return keys;
}

bool isTargetSettingKey(const std::string& key) {
    const auto& keys = targetSettingKeys();
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

const ComponentInstance* ExpandedTopology::find(const std::string& instanceName) const {
    for (const auto& c : components)
        if (c.name == instanceName)
            return &c;
    return nullptr;
}

ExpandedTopology expandTopology(const config::Node& root) {
    if (!root.isMap())
        throw ConfigError(root.location(), root.path(), "a target is a map of settings and components");
    return Expander(root).run();
}

void defaultReplicatedLevels(ExpandedTopology& topology, const std::vector<std::string>& memoryImpls) {
    for (const auto& c : topology.components) {
        config::Node* node = topology.flat.findMutable(c.name);
        const config::Node* impl = node ? node->find("impl") : nullptr;
        if (c.instances < 2 || !impl || !impl->isScalar() || node->find("level"))
            continue;
        if (std::find(memoryImpls.begin(), memoryImpls.end(), impl->scalar()) == memoryImpls.end())
            continue;
        const std::string path = node->path();
        node->set("level", config::Node::makeScalar(c.key, impl->location()));
        node->setPath(path);
    }
}

Placement placementOf(const ExpandedTopology& topology, const std::string& instanceName) {
    const ComponentInstance* c = topology.find(instanceName);
    return c ? Placement{c->key, c->cluster, c->index} : Placement{instanceName, -1, 0};
}

void addRoleSpaces(const ExpandedTopology& topology, TargetInfo& info, const config::Reader& r) {
    for (const auto& [key, instances] : topology.replicated) {
        const MemorySpaceInfo* first = info.findSpace(instances.front());
        if (!first)
            continue;  // not a memory
        if (info.spaces.size() >= 255)
            r.child(instances.front()).fail("impl", "too many memories and memory roles (at most 255)");
        MemorySpaceInfo role = *first;
        role.name = key;
        role.key = key;
        role.id = static_cast<std::uint8_t>(info.spaces.size());
        role.cluster = -1;
        role.index = 0;
        role.role = true;
        for (const auto& instance : instances)
            role.instances.push_back(info.space(instance).id);
        info.spaces.push_back(role);
    }
}

void addMulticastGroups(const ExpandedTopology& topology, TargetInfo& info) {
    for (const auto& g : topology.groups) {
        if (info.groups.size() >= 254)
            throw config::ConfigError(g.location, g.path, "too many multicast groups (at most 254)");
        MulticastGroupInfo group{g.name, static_cast<std::uint8_t>(info.groups.size() + 1), {}};
        for (const auto& member : g.members) {
            const MemorySpaceInfo* s = info.findSpace(member);
            if (!s || s->role)
                throw config::ConfigError(g.location, g.path,
                                          fmt::format("group '{}': no memory named '{}'", g.name, member));
            if (std::find(group.members.begin(), group.members.end(), s->id) != group.members.end())
                throw config::ConfigError(g.location, g.path,
                                          fmt::format("group '{}' names '{}' twice", g.name, member));
            group.members.push_back(s->id);
        }
        info.groups.push_back(std::move(group));
    }
}

std::map<std::string, std::uint8_t> rolesOf(const ExpandedTopology& topology, const std::string& instanceName,
                                            const TargetInfo& info) {
    std::map<std::string, std::uint8_t> roles;
    const ComponentInstance* c = topology.find(instanceName);
    if (!c)
        return roles;
    for (const auto& [roleKey, instance] : c->roles) {
        const MemorySpaceInfo* role = info.findSpace(roleKey);
        const MemorySpaceInfo* concrete = info.findSpace(instance);
        if (role && role->role && concrete)
            roles[roleKey] = concrete->id;
    }
    return roles;
}

void describeClusters(const ExpandedTopology& topology, TargetInfo& info) {
    for (std::size_t k = 0; k < topology.clusters.size(); ++k) {
        ClusterInfo cluster{topology.clusters[k].name, static_cast<unsigned>(k), {}, {}};
        for (const auto& e : info.engines)
            if (e.cluster == static_cast<int>(k))
                cluster.engines.push_back(e.name);
        for (const auto& s : info.spaces)
            if (!s.role && s.cluster == static_cast<int>(k))
                cluster.memories.push_back(s.id);
        info.clusters.push_back(std::move(cluster));
    }
}

}  // namespace tessim
