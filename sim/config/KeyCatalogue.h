#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tessim::config {

/// Collects, while it lives, what the configuration readers ask of the maps that name a schema
/// (Reader::describeAs): each key with what it holds, its fallback and its bounds. Loading the
/// shipped configurations under one gives the configuration reference (docs/config-reference.md),
/// written from the readers themselves so that it cannot drift from them. One per thread at a time.
class KeyCatalogue {
public:
    struct Key {
        std::string name;      // dotted below the schema's map; "[]" marks a list of maps
        std::string type;      // what it holds, with the units it accepts
        std::string fallback;  // empty when required
        std::string bounds;    // "≥ 1", "1 to 64", "one of 'a', 'b'"; empty when any value is fine
        bool required = false;
        bool fallbackVaries = false;  // the fallback follows other keys
    };
    struct Schema {
        std::string name;
        std::vector<Key> keys;  // in the order first read
    };

    KeyCatalogue();
    ~KeyCatalogue();
    KeyCatalogue(const KeyCatalogue&) = delete;
    KeyCatalogue& operator=(const KeyCatalogue&) = delete;

    /// The schemas, sorted by name, each with its keys merged over every map read under it.
    std::vector<Schema> schemas() const;

private:
    friend class Reader;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tessim::config
