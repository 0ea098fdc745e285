#include "sim/config/Node.h"

#include "sim/config/ConfigError.h"

#include <fmt/format.h>

namespace tessim::config {

namespace {

const std::vector<Node::Entry> kNoEntries;
const std::vector<Node> kNoItems;

}  // namespace

std::string joinPath(std::string_view parent, std::string_view key) {
    if (parent.empty()) {
        return std::string(key);
    }
    return fmt::format("{}.{}", parent, key);
}

std::string indexPath(std::string_view parent, std::size_t index) {
    return fmt::format("{}[{}]", parent, index);
}

Node Node::makeNull(Location where) {
    Node node;
    node.location_ = std::move(where);
    return node;
}

Node Node::makeScalar(std::string text, Location where) {
    Node node = makeNull(std::move(where));
    node.kind_ = Kind::Scalar;
    node.scalar_ = std::move(text);
    return node;
}

Node Node::makeMap(Location where) {
    Node node = makeNull(std::move(where));
    node.kind_ = Kind::Map;
    return node;
}

Node Node::makeSequence(Location where) {
    Node node = makeNull(std::move(where));
    node.kind_ = Kind::Sequence;
    return node;
}

std::string_view Node::kindName() const {
    switch (kind_) {
    case Kind::Null: return "nothing";
    case Kind::Scalar: return "a value";
    case Kind::Map: return "a map";
    case Kind::Sequence: return "a list";
    }
    return "nothing";
}

const std::string& Node::scalar() const {
    if (kind_ != Kind::Scalar) {
        throw ConfigError(location_, path_, fmt::format("expected a value, got {}", kindName()));
    }
    return scalar_;
}

const std::vector<Node::Entry>& Node::entries() const {
    if (kind_ == Kind::Null) {
        return kNoEntries;
    }
    if (kind_ != Kind::Map) {
        throw ConfigError(location_, path_, fmt::format("expected a map, got {}", kindName()));
    }
    return entries_;
}

const std::vector<Node>& Node::items() const {
    if (kind_ == Kind::Null) {
        return kNoItems;
    }
    if (kind_ != Kind::Sequence) {
        throw ConfigError(location_, path_, fmt::format("expected a list, got {}", kindName()));
    }
    return items_;
}

const Node* Node::find(std::string_view key) const {
    if (entries_.size() >= kIndexFrom) {
        if (index_.size() != entries_.size()) {
            index_.clear();
            for (std::size_t i = 0; i < entries_.size(); ++i)
                index_.emplace(entries_[i].first, i);
        }
        const auto it = index_.find(std::string(key));
        return it == index_.end() ? nullptr : &entries_[it->second].second;
    }
    for (const Entry& entry : entries_) {
        if (entry.first == key) {
            return &entry.second;
        }
    }
    return nullptr;
}

void Node::indexAppended() const {
    // The index was complete before this append: add the new key; else find() rebuilds it.
    if (index_.size() + 1 == entries_.size())
        index_.emplace(entries_.back().first, entries_.size() - 1);
}

Node* Node::findMutable(std::string_view key) {
    return const_cast<Node*>(static_cast<const Node*>(this)->find(key));
}

Node* Node::itemMutable(std::size_t index) {
    return index < items_.size() ? &items_[index] : nullptr;
}

void Node::set(std::string key, Node value) {
    if (kind_ == Kind::Null) {
        kind_ = Kind::Map;
    }
    if (kind_ != Kind::Map) {
        throw ConfigError(location_, path_,
                          fmt::format("cannot set key '{}': expected a map, got {}", key, kindName()));
    }
    value.setPath(joinPath(path_, key));
    if (Node* existing = findMutable(key)) {
        *existing = std::move(value);
        return;
    }
    entries_.emplace_back(std::move(key), std::move(value));
    indexAppended();
}

void Node::appendNew(std::string key, Node value) {
    if (kind_ == Kind::Null)
        kind_ = Kind::Map;
    if (kind_ != Kind::Map)
        throw ConfigError(location_, path_,
                          fmt::format("cannot set key '{}': expected a map, got {}", key, kindName()));
    entries_.emplace_back(std::move(key), std::move(value));
    indexAppended();
}

bool Node::erase(std::string_view key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->first == key) {
            entries_.erase(it);
            index_.clear();
            return true;
        }
    }
    return false;
}

void Node::append(Node item) {
    if (kind_ == Kind::Null) {
        kind_ = Kind::Sequence;
    }
    if (kind_ != Kind::Sequence) {
        throw ConfigError(location_, path_,
                          fmt::format("cannot append: expected a list, got {}", kindName()));
    }
    item.setPath(indexPath(path_, items_.size()));
    items_.push_back(std::move(item));
}

void Node::setPath(std::string path) {
    path_ = std::move(path);
    for (Entry& entry : entries_) {
        entry.second.setPath(joinPath(path_, entry.first));
    }
    for (std::size_t i = 0; i < items_.size(); ++i) {
        items_[i].setPath(indexPath(path_, i));
    }
}

}  // namespace tessim::config
