#pragma once

#include "sim/config/Location.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessim::config {

/// A YAML tree that owns its data (no yaml-cpp types) and remembers, for every node, where it
/// was written and its dotted path from the root ("dram.timing", "layers[2].name").
class Node {
public:
    enum class Kind { Null, Scalar, Map, Sequence };
    using Entry = std::pair<std::string, Node>;

    /// A Null node with an unknown location.
    Node() = default;

    static Node makeNull(Location where);
    static Node makeScalar(std::string text, Location where);
    static Node makeMap(Location where);
    static Node makeSequence(Location where);

    Kind kind() const { return kind_; }
    bool isNull() const { return kind_ == Kind::Null; }
    bool isScalar() const { return kind_ == Kind::Scalar; }
    bool isMap() const { return kind_ == Kind::Map; }
    bool isSequence() const { return kind_ == Kind::Sequence; }
    /// "nothing", "a value", "a map", "a list": for messages such as "expected a map, got a list".
    std::string_view kindName() const;

    /// Where the value starts.
    const Location& location() const { return location_; }
    /// Where the key naming this node starts (for a sequence item or the root: location()).
    const Location& keyLocation() const { return keyLocation_.line > 0 ? keyLocation_ : location_; }
    /// Dotted path from the root; "" for the root.
    const std::string& path() const { return path_; }

    /// The scalar text; ConfigError unless this is a Scalar.
    const std::string& scalar() const;
    /// Map entries in file order; empty for Null, ConfigError for a Scalar or Sequence.
    const std::vector<Entry>& entries() const;
    /// Sequence items; empty for Null, ConfigError for a Scalar or Map.
    const std::vector<Node>& items() const;

    /// The value under `key` in a map, or nullptr (also for Null, Scalar and Sequence nodes).
    const Node* find(std::string_view key) const;
    Node* findMutable(std::string_view key);
    /// The sequence item at `index`, or nullptr (also for non-sequences).
    Node* itemMutable(std::size_t index);
    /// Inserts or replaces `key` (a replaced key keeps its position). The value's paths are
    /// rewritten to hang under this node. A Null node becomes a Map; others: ConfigError.
    void set(std::string key, Node value);
    /// Appends `key`, which the caller knows is not there yet (the loader, which checks repeated
    /// keys itself): no search, so a map of n keys is built in O(n). Map or Null nodes only.
    void appendNew(std::string key, Node value);
    /// Removes `key` if present; returns whether it was.
    bool erase(std::string_view key);
    /// Appends to a sequence (a Null node becomes a Sequence; others: ConfigError).
    void append(Node item);

    /// Rewrites this node's path and, recursively, its children's.
    void setPath(std::string path);
    void setLocation(Location where) { location_ = std::move(where); }
    void setKeyLocation(Location where) { keyLocation_ = std::move(where); }

private:
    Kind kind_ = Kind::Null;
    Location location_;
    Location keyLocation_;
    std::string path_;
    std::string scalar_;
    std::vector<Entry> entries_;
    std::vector<Node> items_;
    // A map of many keys (a target with thousands of components) is also indexed by key, so that
    // find() and set() stay O(1); built on the first find() and kept up to date by appends.
    static constexpr std::size_t kIndexFrom = 32;
    mutable std::unordered_map<std::string, std::size_t> index_;
    void indexAppended() const;
};

/// Child paths: joinPath("dram", "size") == "dram.size", joinPath("", "dram") == "dram";
/// indexPath("layers", 2) == "layers[2]".
std::string joinPath(std::string_view parent, std::string_view key);
std::string indexPath(std::string_view parent, std::size_t index);

}  // namespace tessim::config
