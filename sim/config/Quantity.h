#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace tessim::config {

/// Strong unit types: a value read from a configuration always carries its unit in its type.
struct Bytes {
    uint64_t value = 0;
};
struct Frequency {
    double hz = 0.0;
};
struct Bandwidth {
    double bytes_per_s = 0.0;
};
struct Duration {
    double seconds = 0.0;
};
struct Energy {
    double joules = 0.0;
};
struct Power {
    double watts = 0.0;
};

/// Strict parsers: "<number>[ ]<unit>", units are case-sensitive.
///   size       B KiB MiB GiB KB MB GB            (must come out as a whole number of bytes)
///   frequency  Hz kHz MHz GHz
///   bandwidth  B/s KB/s MB/s GB/s KiB/s MiB/s GiB/s
///   duration   ps ns us ms s
///   energy     fJ pJ nJ uJ mJ J
///   power      uW mW W
/// A missing, unknown or wrong-family unit, a negative value or trailing text gives std::nullopt
/// and, when `why` is given, a reason naming the expected family with an example.
std::optional<Bytes> parseBytes(std::string_view text, std::string* why = nullptr);
std::optional<Frequency> parseFrequency(std::string_view text, std::string* why = nullptr);
std::optional<Bandwidth> parseBandwidth(std::string_view text, std::string* why = nullptr);
std::optional<Duration> parseDuration(std::string_view text, std::string* why = nullptr);
/// The longest duration parseDuration accepts: 2^64 ps, the range of simulated time.
constexpr double kMaxDurationSeconds = 18446744.073709551615;
std::optional<Energy> parseEnergy(std::string_view text, std::string* why = nullptr);
std::optional<Power> parsePower(std::string_view text, std::string* why = nullptr);

/// "1 MiB", "1536 B": the largest binary unit that divides the count exactly.
std::string formatBytes(uint64_t bytes);
/// Human-readable forms for messages ("1.6 GHz", "25.6 GB/s", "10 ns", "1.5 pJ", "250 mW").
std::string formatFrequency(double hz);
std::string formatBandwidth(double bytesPerSecond);
std::string formatDuration(double seconds);
std::string formatEnergy(double joules);
std::string formatPower(double watts);

inline std::string toString(Bytes v) {
    return formatBytes(v.value);
}
inline std::string toString(Frequency v) {
    return formatFrequency(v.hz);
}
inline std::string toString(Bandwidth v) {
    return formatBandwidth(v.bytes_per_s);
}
inline std::string toString(Duration v) {
    return formatDuration(v.seconds);
}
inline std::string toString(Energy v) {
    return formatEnergy(v.joules);
}
inline std::string toString(Power v) {
    return formatPower(v.watts);
}

/// The plain number inside a quantity, so ranges and comparisons work on every unit type.
constexpr uint64_t magnitude(Bytes v) {
    return v.value;
}
constexpr double magnitude(Frequency v) {
    return v.hz;
}
constexpr double magnitude(Bandwidth v) {
    return v.bytes_per_s;
}
constexpr double magnitude(Duration v) {
    return v.seconds;
}
constexpr double magnitude(Energy v) {
    return v.joules;
}
constexpr double magnitude(Power v) {
    return v.watts;
}

template <class Q, class = void> struct IsQuantity : std::false_type {};
template <class Q>
struct IsQuantity<Q, std::void_t<decltype(magnitude(std::declval<Q>()))>> : std::true_type {};

template <class Q, class = std::enable_if_t<IsQuantity<Q>::value>> constexpr bool operator==(Q a, Q b) {
    return magnitude(a) == magnitude(b);
}
template <class Q, class = std::enable_if_t<IsQuantity<Q>::value>> constexpr bool operator!=(Q a, Q b) {
    return magnitude(a) != magnitude(b);
}
template <class Q, class = std::enable_if_t<IsQuantity<Q>::value>> constexpr bool operator<(Q a, Q b) {
    return magnitude(a) < magnitude(b);
}
template <class Q, class = std::enable_if_t<IsQuantity<Q>::value>> constexpr bool operator<=(Q a, Q b) {
    return magnitude(a) <= magnitude(b);
}
template <class Q, class = std::enable_if_t<IsQuantity<Q>::value>> constexpr bool operator>(Q a, Q b) {
    return magnitude(a) > magnitude(b);
}
template <class Q, class = std::enable_if_t<IsQuantity<Q>::value>> constexpr bool operator>=(Q a, Q b) {
    return magnitude(a) >= magnitude(b);
}

}  // namespace tessim::config
