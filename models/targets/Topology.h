// Replication in target YAML, written once: `count: N` on any component makes N instances, and a
// component with `impl: cluster` (and its own `count:`) repeats the components inside it. The
// expansion turns the tree into a flat list of concrete components that the target wires as if
// each had been written out by hand, with names
//   key + index     when the key ends in a letter (core → core0 … core7),
//   key _ index     when it ends in a digit (l1 → l1_0 … l1_7),
//   key             when there is only one instance,
// indices counted over the whole chip (cluster 1's first core of four is core4).
//
// References between components (`memories:`, `dma:`, `via:`, `next:`) name a YAML key and are
// resolved from the referring instance, so one declaration serves every replica:
//   - a component with one instance in reach (in the same cluster, else at chip level) is it;
//   - a replicated component with as many instances per cluster (or on the chip) as the referrer
//     is the one with the same index ("my L1");
//   - in a list (`memories:`), any other replicated component means all its instances in reach
//     (a chip-level DMA engine reaching every core's AM);
//   - an instance name (`l1_3`) names that instance.
// A replicated memory that an engine reaches as one instance is also a role for that engine: the
// memory's key (`l1`, `am`) is a memory space of its own that each engine maps to its instance,
// so one op stream runs on any core.
// Multicast groups: top-level `groups: {name: [memory or key, ...]}`; a key means all its
// instances, in index order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/config/Node.h"
#include "sim/config/Reader.h"
#include "sim/machine/TargetInfo.h"

namespace tessim {

struct ComponentInstance {
    std::string name;        // instance name (core3, l1_3, ddr)
    std::string key;         // YAML key it was declared under (core, l1, ddr)
    int cluster = -1;        // cluster instance index; −1 at chip level
    unsigned index = 0;      // index among the instances of its declaration (chip-wide)
    unsigned instances = 1;  // instances of its declaration on the chip
    // Role (declaration key of a replicated memory it reaches as one instance) → instance name.
    std::map<std::string, std::string> roles;
};

struct ClusterInstance {
    std::string name;  // cluster0, cluster1 (or the key when there is one)
    std::string key;
    unsigned index = 0;
};

struct MulticastGroupSpec {
    std::string name;
    std::vector<std::string> members;  // memory instance names, in order
    config::Location location;
    std::string path;
};

struct ExpandedTopology {
    // The target tree with every replicated component written out as concrete instances (map
    // entries in declaration order, references rewritten to instance names). Each instance node
    // keeps the location and dotted path of its declaration, so errors point at what the user wrote.
    config::Node flat;
    std::vector<ComponentInstance> components;  // in the order of `flat`'s component entries
    std::vector<ClusterInstance> clusters;
    std::vector<MulticastGroupSpec> groups;
    // Keys that are replicated (more than one instance): their instances, in index order.
    std::map<std::string, std::vector<std::string>> replicated;

    const ComponentInstance* find(const std::string& instanceName) const;
};

// Keys of the target's top level that are not components.
bool isTargetSettingKey(const std::string& key);
/// The target's own keys (not components): name, description, clock, energy_table, quantum, groups.
const std::vector<std::string>& targetSettingKeys();

// Expands `count:` and clusters; ConfigError (file:line:col, dotted key) for a bad count, a
// reference that names nothing or is ambiguous, a nested cluster, or a clash of instance names.
ExpandedTopology expandTopology(const config::Node& root);

// The expanded topology as planners see it (TargetInfo), filled in as the target is built.

// The instances of a replicated memory (an `impl` in `memoryImpls`) are one traffic level, named
// after their key (l1_0 … l1_7 are level "l1"), unless the YAML names the level.
void defaultReplicatedLevels(ExpandedTopology& topology, const std::vector<std::string>& memoryImpls);
// Where an instance sits: its declaration key, cluster and index (a name the topology does not
// know: itself, at chip level).
struct Placement {
    std::string key;
    int cluster = -1;
    unsigned index = 0;
};
Placement placementOf(const ExpandedTopology& topology, const std::string& instanceName);
// A replicated memory's key becomes a memory space of its own (a role) after the memories:
// each engine maps it to the instance it reaches, so one op stream runs on any core. `r` (the
// target's reader) locates the error when the 255 space ids run out.
void addRoleSpaces(const ExpandedTopology& topology, TargetInfo& info, const config::Reader& r);
void addMulticastGroups(const ExpandedTopology& topology, TargetInfo& info);
// The roles an engine instance resolves: role name → the space id of its instance.
std::map<std::string, std::uint8_t> rolesOf(const ExpandedTopology& topology, const std::string& instanceName,
                                            const TargetInfo& info);
// Clusters with their engines and memories (once every engine is described).
void describeClusters(const ExpandedTopology& topology, TargetInfo& info);

}  // namespace tessim
