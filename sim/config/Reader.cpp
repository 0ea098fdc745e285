#include "sim/config/Reader.h"

#include <nlohmann/json.hpp>

#include "sim/config/ConfigError.h"
#include "sim/config/DerivedKeys.h"
#include "sim/config/EditDistance.h"
#include "sim/config/KeyCatalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace tessim::config {

/// Shared by copies of a Reader and linked from its parent, so finish() sees the whole tree.
struct Reader::State {
    const Node* map = nullptr;
    std::vector<std::string> known;  // asked for or expected: "did you mean" candidates
    std::set<std::string> consumed;
    std::vector<std::pair<std::string, std::shared_ptr<State>>> children;
    std::unordered_map<std::string, std::vector<std::size_t>> childrenByKey;  // key -> indices in children
    // echo(): the keys in the order first read, each a value or the maps read under it.
    struct Echoed {
        std::string key;
        nlohmann::ordered_json value;
        std::vector<std::shared_ptr<State>> maps;
        bool listed = false;
    };
    std::vector<Echoed> echoed;
    // The configuration reference (KeyCatalogue): the schema this map names, and its keys as read.
    std::string schema;
    std::string keyPlaceholder;  // the keys are names, shown as this (but for fixedKeys)
    std::vector<std::string> fixedKeys;
    std::set<std::string> probed;  // asked has(): a required get of it is an optional key
    struct Noted {
        std::string key;
        const char* type;
        std::optional<std::string> fallback;
        std::string bounds;
        bool probed;
    };
    std::vector<Noted> noted;

    std::string shownKey(const std::string& key) const {
        if (keyPlaceholder.empty() || std::find(fixedKeys.begin(), fixedKeys.end(), key) != fixedKeys.end())
            return key;
        return keyPlaceholder;
    }

    // Indexed by key, so that a map of thousands of keys (components) reads in linear time.
    std::unordered_map<std::string, std::size_t> echoIndex;  // complete when its size is echoed's
    std::unordered_set<std::string> knownSet;

    Echoed& echoEntry(const std::string& key) {
        if (echoIndex.size() != echoed.size()) {
            echoIndex.clear();
            for (std::size_t i = 0; i < echoed.size(); ++i)
                echoIndex.emplace(echoed[i].key, i);
        }
        if (const auto it = echoIndex.find(key); it != echoIndex.end())
            return echoed[it->second];
        echoed.push_back(Echoed{key, nullptr, {}, false});
        echoIndex.emplace(key, echoed.size() - 1);
        return echoed.back();
    }

    void remember(const std::string& key) {
        if (knownSet.insert(key).second)
            known.push_back(key);
    }
};

namespace {

thread_local KeyCatalogue* tCollecting = nullptr;  // the catalogue collecting on this thread

[[noreturn]] void typeError(const Node& node, std::string_view expected) {
    if (node.isScalar()) {
        throw ConfigError(node.location(), node.path(),
                          fmt::format("expected {}, got '{}'", expected, node.scalar()));
    }
    throw ConfigError(node.location(), node.path(),
                      fmt::format("expected {}, got {}", expected, node.kindName()));
}

/// Strict integer syntax: decimal digits with an optional '-', or 0x and hex digits.
template <class I> bool parseInteger(std::string_view text, I& out) {
    int base = 10;
    std::string_view digits = text;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        digits.remove_prefix(2);
    }
    if (digits.empty() || digits.front() == '+' || (base == 16 && digits.front() == '-')) {
        return false;
    }
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out, base);
    return ec == std::errc() && end == digits.data() + digits.size();
}

/// Integer syntax, whatever the size: tells "too large" apart from "not a number at all".
bool looksLikeInteger(std::string_view text) {
    if (!text.empty() && text.front() == '-') {
        text.remove_prefix(1);
    }
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

template <class I> void decodeInteger(const Node& node, I& out) {
    if (node.isScalar() && parseInteger(node.scalar(), out)) {
        return;
    }
    if (node.isScalar() && looksLikeInteger(node.scalar())) {
        if (std::is_unsigned_v<I> && node.scalar().front() == '-') {
            typeError(node, "a non-negative integer");
        }
        typeError(node, fmt::format("an integer from {} to {}", std::numeric_limits<I>::min(),
                                    std::numeric_limits<I>::max()));
    }
    typeError(node, "an integer");
}

// A bare number in a JSON file is a quantity in its SI base unit, as a report's resolved workload
// and plan write it (so they read back); YAML files name the unit.
bool bareNumberInJson(const Node& node) {
    const std::string& file = node.location().file;
    const std::string& text = node.scalar();
    if (file.size() < 5 || file.compare(file.size() - 5, 5, ".json") != 0 || text.empty())
        return false;
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return end != nullptr && *end == '\0';
}

template <class Q>
void decodeQuantity(const Node& node, Q& out, std::optional<Q> (*parse)(std::string_view, std::string*),
                    std::string_view expected, std::string_view baseUnit) {
    if (!node.isScalar()) {
        typeError(node, expected);
    }
    std::string why;
    const std::optional<Q> value = bareNumberInJson(node)
                                       ? parse(node.scalar() + " " + std::string(baseUnit), &why)
                                       : parse(node.scalar(), &why);
    if (!value) {
        throw ConfigError(node.location(), node.path(), why);
    }
    out = *value;
}

template <class T>
void decodeList(const Node& node, std::vector<T>& out, std::string_view expected,
                void (*decodeItem)(const Node&, T&)) {
    if (!node.isSequence()) {
        typeError(node, expected);
    }
    out.clear();
    for (const Node& item : node.items()) {
        T value{};
        decodeItem(item, value);
        out.push_back(std::move(value));
    }
}

}  // namespace

Reader::Reader(const Node& map) : state_(std::make_shared<State>()) {
    if (!map.isMap() && !map.isNull()) {
        throw ConfigError(map.location(), map.path(), fmt::format("expected a map, got {}", map.kindName()));
    }
    state_->map = &map;
}

Reader::Reader(std::shared_ptr<State> state) : state_(std::move(state)) {}

const Node* Reader::optional(const std::string& key) const {
    state_->remember(key);
    const Node* node = state_->map->find(key);
    if (node == nullptr) {
        return nullptr;
    }
    state_->consumed.insert(key);
    return node->isNull() ? nullptr : node;
}

const Node& Reader::required(const std::string& key) const {
    state_->remember(key);
    const Node* node = state_->map->find(key);
    if (node != nullptr) {
        state_->consumed.insert(key);
        return *node;
    }
    std::string message = "missing required key";
    // The key may be there under a misspelt name; say so now rather than at finish().
    std::vector<std::string> unread;
    for (const auto& entry : state_->map->entries()) {
        if (state_->consumed.count(entry.first) == 0) {
            unread.push_back(entry.first);
        }
    }
    const std::string misspelt = closestMatch(key, unread);
    if (!misspelt.empty()) {
        message += fmt::format("; is it misspelt as '{}'?", misspelt);
    }
    throw ConfigError(state_->map->location(), joinPath(state_->map->path(), key), message);
}

void Reader::decode(const Node& node, bool& out) {
    static const std::set<std::string> kTrue{"true", "True", "TRUE"};
    static const std::set<std::string> kFalse{"false", "False", "FALSE"};
    if (node.isScalar() && kTrue.count(node.scalar()) != 0) {
        out = true;
    } else if (node.isScalar() && kFalse.count(node.scalar()) != 0) {
        out = false;
    } else {
        typeError(node, "true or false");
    }
}

void Reader::decode(const Node& node, int64_t& out) {
    decodeInteger(node, out);
}
void Reader::decode(const Node& node, uint64_t& out) {
    decodeInteger(node, out);
}
void Reader::decode(const Node& node, int& out) {
    decodeInteger(node, out);
}
void Reader::decode(const Node& node, uint32_t& out) {
    decodeInteger(node, out);
}

void Reader::decode(const Node& node, double& out) {
    if (node.isScalar()) {
        std::string_view text = node.scalar();
        if (text.size() > 1 && text.front() == '+') {
            text.remove_prefix(1);
        }
        const bool startsWell = !text.empty() && (std::isdigit(static_cast<unsigned char>(text.front())) ||
                                                  text.front() == '-' || text.front() == '.');
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
        if (startsWell && ec == std::errc() && end == text.data() + text.size() && std::isfinite(out)) {
            return;
        }
    }
    typeError(node, "a number");
}

void Reader::decode(const Node& node, std::string& out) {
    if (!node.isScalar()) {
        typeError(node, "a string");
    }
    out = node.scalar();
}

void Reader::decode(const Node& node, Bytes& out) {
    decodeQuantity(node, out, &parseBytes, "a size with a unit, like 512 KiB", "B");
}

void Reader::decode(const Node& node, Frequency& out) {
    decodeQuantity(node, out, &parseFrequency, "a frequency with a unit, like 1 GHz", "Hz");
}

void Reader::decode(const Node& node, Bandwidth& out) {
    decodeQuantity(node, out, &parseBandwidth, "a bandwidth with a unit, like 25.6 GB/s", "B/s");
}

void Reader::decode(const Node& node, Duration& out) {
    decodeQuantity(node, out, &parseDuration, "a duration with a unit, like 10 ns", "s");
}

// A configuration's energies are per event (an access, a MAC, a burst, a refresh); the costliest,
// a whole DRAM device's refresh, is about 100 nJ, so a millijoule is a unit slipped by orders of
// magnitude. Its powers are a part's static or background power: beyond a kilowatt likewise.
void Reader::decode(const Node& node, Energy& out) {
    decodeQuantity(node, out, &parseEnergy, "an energy with a unit, like 1.5 pJ", "J");
    if (out.joules > 1e-3)
        throw ConfigError(
            node.location(), node.path(),
            fmt::format("'{}' is above 1 mJ, more than any single event of a chip or its DRAM "
                        "costs (a refresh of a whole device is about 100 nJ): is the unit right?",
                        node.scalar()));
}

void Reader::decode(const Node& node, Power& out) {
    decodeQuantity(node, out, &parsePower, "a power with a unit, like 250 mW", "W");
    if (out.watts > 1e3)
        throw ConfigError(node.location(), node.path(),
                          fmt::format("'{}' is above 1 kW, beyond the static or background power of any part "
                                      "of an edge chip: is the unit right?",
                                      node.scalar()));
}

void Reader::decode(const Node& node, std::vector<int64_t>& out) {
    decodeList<int64_t>(node, out, "a list of integers", &Reader::decode);
}

void Reader::decode(const Node& node, std::vector<double>& out) {
    decodeList<double>(node, out, "a list of numbers", &Reader::decode);
}

void Reader::decode(const Node& node, std::vector<std::string>& out) {
    decodeList<std::string>(node, out, "a list of strings", &Reader::decode);
}

std::string Reader::describeReal(double value) {
    return fmt::format("{}", value);
}

void Reader::rangeError(const Node& node, const std::string& min, const std::string& max) {
    const std::string shown = node.isScalar() ? node.scalar() : std::string(node.kindName());
    std::string bounds;
    if (min.empty()) {
        bounds = fmt::format("it must be at most {}", max);
    } else if (max.empty()) {
        bounds = fmt::format("it must be at least {}", min);
    } else {
        bounds = fmt::format("it must be between {} and {}", min, max);
    }
    throw ConfigError(node.location(), node.path(), fmt::format("{} is out of range: {}", shown, bounds));
}

std::string Reader::oneOf(const std::string& key, std::vector<std::string> allowed,
                          std::optional<std::string> fallback) const {
    const Node* node = fallback ? optional(key) : &required(key);
    std::string choices;
    for (const std::string& choice : allowed) {
        choices += fmt::format("{}'{}'", choices.empty() ? "" : ", ", choice);
    }
    if (cataloguing()) {
        noteKey(key, "text", fallback, "one of " + choices);
    }
    if (node == nullptr) {
        record(key, *fallback);
        return *fallback;
    }
    if (!node->isScalar()) {
        typeError(*node, fmt::format("one of {}", choices));
    }
    const std::string& value = node->scalar();
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) {
        record(key, value);
        return value;
    }
    const std::string message =
        fmt::format("expected one of {}, got '{}'", choices, value) + didYouMean(value, allowed);
    throw ConfigError(node->location(), node->path(), message);
}

bool Reader::has(const std::string& key) const {
    state_->remember(key);
    if (tCollecting != nullptr)
        state_->probed.insert(key);
    return state_->map->find(key) != nullptr;
}

Reader Reader::makeChild(const std::string& key, const Node& node, bool listed) const {
    // Asking for the same child twice must not give two ledgers that each miss half the keys.
    if (const auto it = state_->childrenByKey.find(key); it != state_->childrenByKey.end())
        for (std::size_t i : it->second)
            if (state_->children[i].second->map == &node)
                return Reader(state_->children[i].second);
    Reader child(node);
    state_->children.emplace_back(key, child.state_);
    state_->childrenByKey[key].push_back(state_->children.size() - 1);
    State::Echoed& e = state_->echoEntry(key);
    e.maps.push_back(child.state_);
    e.listed = listed;
    return child;
}

Reader Reader::child(const std::string& key) const {
    return makeChild(key, required(key), false);
}

std::optional<Reader> Reader::optionalChild(const std::string& key) const {
    state_->remember(key);
    const Node* node = state_->map->find(key);
    if (node == nullptr) {
        return std::nullopt;
    }
    state_->consumed.insert(key);
    return makeChild(key, *node, false);
}

std::vector<Reader> Reader::children(const std::string& key) const {
    const Node* list = optional(key);
    std::vector<Reader> result;
    if (list == nullptr) {
        return result;
    }
    if (!list->isSequence()) {
        typeError(*list, "a list of maps");
    }
    for (const Node& item : list->items()) {
        result.push_back(makeChild(key, item, true));
    }
    if (result.empty()) {
        state_->echoEntry(key).listed = true;
    }
    return result;
}

const Node& Reader::node(const std::string& key) const {
    return required(key);
}

const Node& Reader::self() const {
    return *state_->map;
}

const std::string& Reader::path() const {
    return state_->map->path();
}

void Reader::fail(const std::string& key, const std::string& message, Shortfall shortfall) const {
    const Node* node = state_->map->find(key);
    throw ConfigError(node != nullptr ? node->keyLocation() : state_->map->location(),
                      joinPath(state_->map->path(), key), message, shortfall);
}

void Reader::finish() const {
    struct Walk {
        static void check(const State& state) {
            for (const auto& [key, value] : state.map->entries()) {
                if (state.consumed.count(key) == 0) {
                    const std::string message =
                        fmt::format("unknown key '{}'", key) + didYouMean(key, state.known);
                    const ConfigError unknown(value.keyLocation(), value.path(), message);
                    // A report's resolved configuration fed back: its derived keys (DerivedKeys.h).
                    if (DerivedKeys::note(value, unknown))
                        continue;
                    throw unknown;
                }
                if (const auto it = state.childrenByKey.find(key); it != state.childrenByKey.end())
                    for (std::size_t i : it->second)
                        check(*state.children[i].second);
            }
        }
    };
    Walk::check(*state_);
}

void Reader::ignore(const std::string& key) const {
    state_->remember(key);
    state_->consumed.insert(key);
}

nlohmann::ordered_json Reader::echo() const {
    return echoOf(*state_);
}

void Reader::unecho(const std::string& key) const {
    auto& e = state_->echoed;
    e.erase(std::remove_if(e.begin(), e.end(), [&](const State::Echoed& x) { return x.key == key; }),
            e.end());
    state_->echoIndex.clear();
}

nlohmann::ordered_json Reader::echoOf(const State& state) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& e : state.echoed) {
        if (!e.listed && e.maps.empty()) {
            out[e.key] = e.value;
        } else if (!e.listed) {
            out[e.key] = echoOf(*e.maps.front());
        } else {
            nlohmann::ordered_json list = nlohmann::ordered_json::array();
            for (const auto& m : e.maps)
                list.push_back(echoOf(*m));
            out[e.key] = list;
        }
    }
    return out;
}

namespace {

template <class T> nlohmann::ordered_json echoValue(const T& value) {
    if constexpr (IsQuantity<T>::value) {
        return magnitude(value);
    } else {
        return value;
    }
}

}  // namespace

template <class T> void Reader::record(const std::string& key, const T& value) const {
    state_->echoEntry(key).value = echoValue(value);
}

template void Reader::record(const std::string&, const bool&) const;
template void Reader::record(const std::string&, const int64_t&) const;
template void Reader::record(const std::string&, const uint64_t&) const;
template void Reader::record(const std::string&, const int&) const;
template void Reader::record(const std::string&, const uint32_t&) const;
template void Reader::record(const std::string&, const double&) const;
template void Reader::record(const std::string&, const std::string&) const;
template void Reader::record(const std::string&, const Bytes&) const;
template void Reader::record(const std::string&, const Frequency&) const;
template void Reader::record(const std::string&, const Bandwidth&) const;
template void Reader::record(const std::string&, const Duration&) const;
template void Reader::record(const std::string&, const Energy&) const;
template void Reader::record(const std::string&, const Power&) const;
template void Reader::record(const std::string&, const std::vector<int64_t>&) const;
template void Reader::record(const std::string&, const std::vector<double>&) const;
template void Reader::record(const std::string&, const std::vector<std::string>&) const;

struct KeyCatalogue::Impl {
    std::vector<std::shared_ptr<Reader::State>> described;  // in the order described

    static void mergeKey(std::vector<Key>& keys, const std::string& name, const Reader::State::Noted& n);
    // The keys read in `state` and in the maps under it that name no schema of their own.
    static void collect(const Reader::State& state, const std::string& prefix, std::vector<Key>& keys);
};

KeyCatalogue::KeyCatalogue() : impl_(std::make_unique<Impl>()) {
    if (tCollecting != nullptr)
        throw std::logic_error("KeyCatalogue: one at a time per thread");
    tCollecting = this;
}

KeyCatalogue::~KeyCatalogue() {
    tCollecting = nullptr;
}

bool Reader::cataloguing() {
    return tCollecting != nullptr;
}

void Reader::describeAs(const std::string& schema) const {
    state_->schema = schema;
    if (tCollecting == nullptr)
        return;
    auto& described = tCollecting->impl_->described;
    if (std::find(described.begin(), described.end(), state_) == described.end())
        described.push_back(state_);
}

void Reader::noteKey(const std::string& key, const char* type, std::optional<std::string> fallback,
                     std::string bounds) const {
    const bool probed = state_->probed.count(key) != 0;
    state_->noted.push_back(State::Noted{key, type, std::move(fallback), std::move(bounds), probed});
}

void Reader::describeKeysAs(const std::string& placeholder, std::vector<std::string> fixed) const {
    state_->keyPlaceholder = placeholder;
    state_->fixedKeys = std::move(fixed);
}

void KeyCatalogue::Impl::mergeKey(std::vector<Key>& keys, const std::string& name,
                                  const Reader::State::Noted& n) {
    auto it = std::find_if(keys.begin(), keys.end(), [&](const Key& k) { return k.name == name; });
    if (it == keys.end()) {
        Key k;
        k.name = name;
        k.type = n.type;
        k.fallback = n.fallback.value_or("");
        k.bounds = n.bounds;
        k.required = !n.fallback && !n.probed;
        keys.push_back(k);
        return;
    }
    if (it->type.find(n.type) == std::string::npos)
        it->type += " or " + std::string(n.type);
    if (it->bounds.empty())
        it->bounds = n.bounds;
    // A fallback anywhere makes the key optional; else a required read (not after has()) makes it
    // required (a DDR timing read here or from the preset); a read after has() alone does not.
    if (n.fallback) {
        if (it->fallback.empty()) {
            it->fallback = *n.fallback;
            it->required = false;
        } else if (it->fallback != *n.fallback) {
            it->fallbackVaries = true;
        }
    } else if (!n.probed && it->fallback.empty()) {
        it->required = true;
    }
}

void KeyCatalogue::Impl::collect(const Reader::State& state, const std::string& prefix,
                                 std::vector<Key>& keys) {
    for (const auto& n : state.noted)
        mergeKey(keys, prefix + state.shownKey(n.key), n);
    for (const auto& [key, child] : state.children) {
        if (!child->schema.empty())
            continue;
        bool listed = false;
        for (const auto& e : state.echoed)
            if (e.key == key)
                listed = e.listed;
        collect(*child, prefix + state.shownKey(key) + (listed ? "[]." : "."), keys);
    }
}

std::vector<KeyCatalogue::Schema> KeyCatalogue::schemas() const {
    std::vector<Schema> out;
    for (const auto& state : impl_->described) {
        auto it =
            std::find_if(out.begin(), out.end(), [&](const Schema& s) { return s.name == state->schema; });
        if (it == out.end()) {
            out.push_back(Schema{state->schema, {}});
            it = out.end() - 1;
        }
        Impl::collect(*state, "", it->keys);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Schema& a, const Schema& b) { return a.name < b.name; });
    return out;
}

void Reader::expectKeys(std::vector<std::string> keys) const {
    for (const std::string& key : keys) {
        state_->remember(key);
    }
}

}  // namespace tessim::config
