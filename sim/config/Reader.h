#pragma once

#include "sim/config/ConfigError.h"
#include "sim/config/Node.h"
#include "sim/config/Quantity.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tessim::config {

/// Inclusive bounds for Reader::get on numbers and quantities.
template <class T> struct Range {
    T min;
    T max;

    static Range atLeast(T min);
    static Range atMost(T max);
};

namespace detail {

template <class T> struct TypeIdentity { using type = T; };

template <class T>
constexpr bool kReadable =
    std::is_same_v<T, bool> || std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> ||
    std::is_same_v<T, int> || std::is_same_v<T, uint32_t> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::string> || IsQuantity<T>::value || std::is_same_v<T, std::vector<int64_t>> ||
    std::is_same_v<T, std::vector<double>> || std::is_same_v<T, std::vector<std::string>>;

template <class T>
constexpr bool kRangeable = (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || IsQuantity<T>::value;

/// What a key of type T holds, as the configuration reference shows it.
template <class T> constexpr const char* typeLabel() {
    if constexpr (std::is_same_v<T, bool>) {
        return "true or false";
    } else if constexpr (std::is_same_v<T, double>) {
        return "number";
    } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
        return "integer ≥ 0";
    } else if constexpr (std::is_integral_v<T>) {
        return "integer";
    } else if constexpr (std::is_same_v<T, std::string>) {
        return "text";
    } else if constexpr (std::is_same_v<T, Bytes>) {
        return "size (B, KiB, MiB, GiB)";
    } else if constexpr (std::is_same_v<T, Frequency>) {
        return "frequency (Hz, kHz, MHz, GHz)";
    } else if constexpr (std::is_same_v<T, Bandwidth>) {
        return "bandwidth (B/s, MB/s, GB/s, GiB/s)";
    } else if constexpr (std::is_same_v<T, Duration>) {
        return "time (s, ms, us, ns, ps)";
    } else if constexpr (std::is_same_v<T, Energy>) {
        return "energy (J, nJ, pJ, fJ)";
    } else if constexpr (std::is_same_v<T, Power>) {
        return "power (W, mW, uW)";
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
        return "list of integers";
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
        return "list of numbers";
    } else {
        return "list of text";
    }
}

template <class T> constexpr auto magnitudeOf(const T& value) {
    if constexpr (IsQuantity<T>::value) {
        return magnitude(value);
    } else {
        return value;
    }
}

template <class T> constexpr T extreme(bool largest) {
    using M = decltype(magnitudeOf(std::declval<T>()));
    using Limits = std::numeric_limits<M>;
    M bound{};
    if constexpr (Limits::has_infinity) {
        bound = largest ? Limits::infinity() : -Limits::infinity();
    } else {
        bound = largest ? Limits::max() : Limits::lowest();
    }
    if constexpr (IsQuantity<T>::value) {
        return T{bound};
    } else {
        return bound;
    }
}

}  // namespace detail

template <class T> Range<T> Range<T>::atLeast(T min) {
    return Range<T>{min, detail::extreme<T>(true)};
}

template <class T> Range<T> Range<T>::atMost(T max) {
    return Range<T>{detail::extreme<T>(false), max};
}

/// A typed, strict, single-pass view of one map in the configuration.
///
/// Every key read is remembered; finish() then rejects every key that was not read ("unknown
/// key 'x'; did you mean 'y'?"), in this map and in every child Reader made from it, so one
/// finish() on the top-level Reader checks the whole tree (calling it on a child as well is
/// harmless). Copies share their bookkeeping. A Reader refers to its Node: keep the tree alive.
///
/// A key whose value is empty ("key:" or "key: ~") counts as absent for the overloads with a
/// fallback and for children(); a required get() of it is a type error. child() and
/// optionalChild() read an empty value as an empty map.
class Reader {
public:
    /// ConfigError unless `map` is a Map (or Null, read as an empty map).
    explicit Reader(const Node& map);
    /// A Reader only refers to its tree: reading a temporary would dangle.
    explicit Reader(const Node&& map) = delete;

    /// Required key. T is one of bool, int64_t, uint64_t, int, uint32_t, double, std::string,
    /// Bytes, Frequency, Bandwidth, Duration, Energy, Power, std::vector<int64_t>,
    /// std::vector<double>, std::vector<std::string>.
    template <class T> T get(const std::string& key) const {
        static_assert(detail::kReadable<T>, "Reader::get: unsupported type");
        T value{};
        decode(required(key), value);
        record(key, value);
        note<T>(key, nullptr, nullptr);
        return value;
    }

    /// Optional key: `fallback` when absent or empty.
    template <class T> T get(const std::string& key, T fallback) const {
        static_assert(detail::kReadable<T>, "Reader::get: unsupported type");
        const Node* node = optional(key);
        if (node == nullptr) {
            // An empty string is no value: an absent key that falls back to it is not echoed.
            if constexpr (std::is_same_v<T, std::string>) {
                if (!fallback.empty())
                    record(key, fallback);
            } else {
                record(key, fallback);
            }
            note<T>(key, &fallback, nullptr);
            return fallback;
        }
        T value{};
        decode(*node, value);
        record(key, value);
        note<T>(key, &fallback, nullptr);
        return value;
    }

    std::string get(const std::string& key, const char* fallback) const {
        return get<std::string>(key, std::string(fallback));
    }

    /// Required key within inclusive bounds.
    template <class T> T get(const std::string& key, Range<T> range) const {
        static_assert(detail::kRangeable<T>, "Reader::get: ranges need a number or quantity");
        const Node& node = required(key);
        T value{};
        decode(node, value);
        checkRange(node, value, range);
        record(key, value);
        note<T>(key, nullptr, &range);
        return value;
    }

    /// Optional key within inclusive bounds (the fallback is not checked).
    template <class T>
    T get(const std::string& key, typename detail::TypeIdentity<T>::type fallback, Range<T> range) const {
        static_assert(detail::kRangeable<T>, "Reader::get: ranges need a number or quantity");
        const Node* node = optional(key);
        if (node == nullptr) {
            record(key, fallback);
            note<T>(key, &fallback, &range);
            return fallback;
        }
        T value{};
        decode(*node, value);
        checkRange(*node, value, range);
        record(key, value);
        note<T>(key, &fallback, &range);
        return value;
    }

    /// A string that must be one of `allowed`; required unless a fallback is given.
    std::string oneOf(const std::string& key, std::vector<std::string> allowed,
                      std::optional<std::string> fallback = {}) const;

    /// Whether the key is present (even with an empty value). Does not mark it as read.
    bool has(const std::string& key) const;

    /// Required nested map.
    Reader child(const std::string& key) const;
    /// Nested map if present.
    std::optional<Reader> optionalChild(const std::string& key) const;
    /// A list of maps; empty when the key is absent or empty.
    std::vector<Reader> children(const std::string& key) const;

    /// The raw node of a required key (marks it as read).
    const Node& node(const std::string& key) const;
    const Node& self() const;
    /// Dotted path of this map ("" for the root).
    const std::string& path() const;

    /// Reports a cross-field problem at `key` (its location if present, else this map's); a plan
    /// that asks more than the target has says what falls short.
    [[noreturn]] void fail(const std::string& key, const std::string& message,
                           Shortfall shortfall = Shortfall::None) const;

    /// ConfigError for the first key (in file order, children included) that was not read.
    void finish() const;
    /// Marks a key as read without reading it.
    void ignore(const std::string& key) const;
    /// What was read, in the order first read: each key with the value it resolved to (the
    /// fallback when absent; quantities in SI base units: B, Hz, B/s, s, J, W), the maps of child()
    /// and children() as objects and lists of them. Keys only marked or inspected (ignore, has,
    /// node) are left out: whoever reads them raw echoes them. A workload's resolved echo.
    nlohmann::ordered_json echo() const;
    /// Drops a key from echo() (one every map may carry, such as a description).
    void unecho(const std::string& key) const;
    /// Names the schema this map follows ("memory cache", "engine") for the configuration
    /// reference: while a KeyCatalogue collects, the keys read here and in the maps under it (but
    /// for those that name their own) are listed under that name. Costs nothing otherwise.
    void describeAs(const std::string& schema) const;
    /// Whether a KeyCatalogue collects on this thread; noteKey() lists a key a reader decodes
    /// itself from node() (cycle counts) with what it holds, its fallback and bounds.
    static bool cataloguing();
    void noteKey(const std::string& key, const char* type, std::optional<std::string> fallback,
                 std::string bounds) const;
    /// This map's keys are names (op kinds, slot classes): the reference shows each as
    /// `placeholder`, but for the `fixed` keys.
    void describeKeysAs(const std::string& placeholder, std::vector<std::string> fixed = {}) const;
    /// Keys this map may hold that were not asked for (e.g. read only in another mode); used
    /// only for "did you mean" suggestions.
    void expectKeys(std::vector<std::string> keys) const;

private:
    friend class KeyCatalogue;
    struct State;

    explicit Reader(std::shared_ptr<State> state);

    const Node& required(const std::string& key) const;
    const Node* optional(const std::string& key) const;
    Reader makeChild(const std::string& key, const Node& node, bool listed) const;
    /// Remembers a value read for echo(); defined for every readable type in Reader.cpp.
    template <class T> void record(const std::string& key, const T& value) const;
    static nlohmann::ordered_json echoOf(const State& state);
    /// For the configuration reference: what a key holds, its fallback and bounds.
    template <class T> void note(const std::string& key, const T* fallback, const Range<T>* range) const {
        if (!cataloguing())
            return;
        std::string bounds;
        if constexpr (detail::kRangeable<T>) {
            if (range != nullptr)
                bounds = boundsOf(*range);
        }
        noteKey(key, detail::typeLabel<T>(),
                fallback ? std::optional<std::string>(show(*fallback)) : std::nullopt, bounds);
    }
    template <class T> static std::string show(const T& value) {
        if constexpr (std::is_same_v<T, bool>) {
            return value ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
            return value.empty() ? "\"\"" : value;
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<std::string>>) {
            std::string out = "[";
            for (const auto& item : value)
                out += (out.size() > 1 ? ", " : "") + show(item);
            return out + "]";
        } else {
            return describe(value);
        }
    }
    template <class T> static std::string boundsOf(const Range<T>& range) {
        using detail::magnitudeOf;
        const bool openBelow = magnitudeOf(range.min) == magnitudeOf(detail::extreme<T>(false));
        const bool openAbove = magnitudeOf(range.max) == magnitudeOf(detail::extreme<T>(true));
        if (openBelow && openAbove)
            return std::string();
        if (openBelow)
            return "≤ " + describe(range.max);
        if (openAbove)
            return "≥ " + describe(range.min);
        return describe(range.min) + " to " + describe(range.max);
    }

    static void decode(const Node& node, bool& out);
    static void decode(const Node& node, int64_t& out);
    static void decode(const Node& node, uint64_t& out);
    static void decode(const Node& node, int& out);
    static void decode(const Node& node, uint32_t& out);
    static void decode(const Node& node, double& out);
    static void decode(const Node& node, std::string& out);
    static void decode(const Node& node, Bytes& out);
    static void decode(const Node& node, Frequency& out);
    static void decode(const Node& node, Bandwidth& out);
    static void decode(const Node& node, Duration& out);
    static void decode(const Node& node, Energy& out);
    static void decode(const Node& node, Power& out);
    static void decode(const Node& node, std::vector<int64_t>& out);
    static void decode(const Node& node, std::vector<double>& out);
    static void decode(const Node& node, std::vector<std::string>& out);

    template <class T> static std::string describe(const T& value) {
        if constexpr (IsQuantity<T>::value) {
            return toString(value);
        } else if constexpr (std::is_floating_point_v<T>) {
            return describeReal(value);
        } else if constexpr (std::is_signed_v<T>) {
            return std::to_string(static_cast<long long>(value));
        } else {
            return std::to_string(static_cast<unsigned long long>(value));
        }
    }
    static std::string describeReal(double value);

    template <class T> static void checkRange(const Node& node, const T& value, const Range<T>& range) {
        using detail::magnitudeOf;
        if (magnitudeOf(value) >= magnitudeOf(range.min) && magnitudeOf(value) <= magnitudeOf(range.max)) {
            return;
        }
        const bool unboundedBelow = magnitudeOf(range.min) == magnitudeOf(detail::extreme<T>(false));
        const bool unboundedAbove = magnitudeOf(range.max) == magnitudeOf(detail::extreme<T>(true));
        rangeError(node, unboundedBelow ? std::string() : describe(range.min),
                   unboundedAbove ? std::string() : describe(range.max));
    }
    /// Empty bounds are open ends.
    [[noreturn]] static void rangeError(const Node& node, const std::string& min, const std::string& max);

    std::shared_ptr<State> state_;
};

}  // namespace tessim::config
