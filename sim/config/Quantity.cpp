#include "sim/config/Quantity.h"

#include "sim/config/EditDistance.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

namespace tessim::config {

namespace {

__extension__ typedef unsigned __int128 Wide;

/// A unit scales the number by 10^pow10 * 2^pow2; keeping the two apart lets decimal units go
/// through one correctly rounded decimal conversion ("1.5 pJ" == 1.5e-12 exactly as a literal).
struct Unit {
    std::string_view symbol;
    int pow10;
    int pow2;
};

struct Family {
    std::string_view noun;     // "a size"
    std::string_view example;  // "512 KiB"
    std::vector<Unit> units;
};

const Family kSize{
    "a size",
    "512 KiB",
    {{"B", 0, 0}, {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"KB", 3, 0}, {"MB", 6, 0}, {"GB", 9, 0}}};
const Family kFrequency{"a frequency", "1 GHz", {{"Hz", 0, 0}, {"kHz", 3, 0}, {"MHz", 6, 0}, {"GHz", 9, 0}}};
const Family kBandwidth{"a bandwidth",
                        "25.6 GB/s",
                        {{"B/s", 0, 0},
                         {"KB/s", 3, 0},
                         {"MB/s", 6, 0},
                         {"GB/s", 9, 0},
                         {"KiB/s", 0, 10},
                         {"MiB/s", 0, 20},
                         {"GiB/s", 0, 30}}};
const Family kDuration{
    "a duration", "10 ns", {{"ps", -12, 0}, {"ns", -9, 0}, {"us", -6, 0}, {"ms", -3, 0}, {"s", 0, 0}}};
const Family kEnergy{
    "an energy",
    "1.5 pJ",
    {{"fJ", -15, 0}, {"pJ", -12, 0}, {"nJ", -9, 0}, {"uJ", -6, 0}, {"mJ", -3, 0}, {"J", 0, 0}}};
const Family kPower{"a power", "250 mW", {{"uW", -6, 0}, {"mW", -3, 0}, {"W", 0, 0}}};

const std::array<const Family*, 6> kFamilies{&kSize, &kFrequency, &kBandwidth, &kDuration, &kEnergy, &kPower};

/// A non-negative decimal number split as digits * 10^exponent, digits without leading or
/// trailing zeros ("0" for zero).
struct Decimal {
    std::string digits;
    int exponent = 0;
};

/// The text split into its parts, or a reason it could not be.
struct Split {
    bool negative = false;
    Decimal number;
    std::string_view unit;
    const Unit* match = nullptr;
};

bool isSpace(char c) {
    return c == ' ' || c == '\t';
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && isSpace(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && isSpace(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

std::string unitList(const Family& family) {
    std::string list;
    for (const Unit& unit : family.units) {
        list += list.empty() ? "" : ", ";
        list += unit.symbol;
    }
    return list;
}

std::string expectation(const Family& family) {
    return fmt::format("expected {} with a unit, like {}", family.noun, family.example);
}

bool fail(std::string* why, std::string message) {
    if (why != nullptr) {
        *why = std::move(message);
    }
    return false;
}

/// Reads "[-]digits[.digits][(e|E)[+-]digits]" from the front of `text`.
bool readNumber(std::string_view& text, bool& negative, Decimal& number) {
    std::size_t pos = 0;
    negative = pos < text.size() && text[pos] == '-';
    pos += negative ? 1 : 0;
    std::string mantissa;
    int fractionDigits = 0;
    const std::size_t intStart = pos;
    while (pos < text.size() && isDigit(text[pos])) {
        mantissa += text[pos++];
    }
    if (pos == intStart) {
        return false;
    }
    if (pos + 1 < text.size() && text[pos] == '.' && isDigit(text[pos + 1])) {
        ++pos;
        while (pos < text.size() && isDigit(text[pos])) {
            mantissa += text[pos++];
            ++fractionDigits;
        }
    }
    long exponent = 0;
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
        std::size_t p = pos + 1;
        const bool minus = p < text.size() && text[p] == '-';
        p += (p < text.size() && (text[p] == '-' || text[p] == '+')) ? 1 : 0;
        if (p < text.size() && isDigit(text[p])) {
            while (p < text.size() && isDigit(text[p])) {
                // Saturate: anything this large is out of range anyway.
                exponent = std::min(exponent * 10 + (text[p] - '0'), 100000L);
                ++p;
            }
            exponent = minus ? -exponent : exponent;
            pos = p;
        }
    }
    exponent -= fractionDigits;
    const std::size_t first = mantissa.find_first_not_of('0');
    if (first == std::string::npos) {
        number.digits = "0";
        number.exponent = 0;
    } else {
        mantissa.erase(0, first);
        while (mantissa.back() == '0') {
            mantissa.pop_back();
            ++exponent;
        }
        number.digits = mantissa;
        number.exponent = static_cast<int>(exponent);
    }
    text.remove_prefix(pos);
    return true;
}

const Family* familyOf(std::string_view symbol) {
    for (const Family* family : kFamilies) {
        for (const Unit& unit : family->units) {
            if (unit.symbol == symbol) {
                return family;
            }
        }
    }
    return nullptr;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

std::string suggestUnit(std::string_view symbol, const Family& family) {
    for (const Unit& unit : family.units) {
        if (lower(unit.symbol) == lower(symbol)) {
            return std::string(unit.symbol);
        }
    }
    std::vector<std::string> symbols;
    for (const Unit& unit : family.units) {
        symbols.emplace_back(unit.symbol);
    }
    return symbol.size() > 1 ? closestMatch(symbol, symbols, 1) : std::string();
}

bool split(std::string_view original, const Family& family, Split& out, std::string* why) {
    const std::string_view text = trim(original);
    if (text.empty()) {
        return fail(why, expectation(family) + ", got an empty value");
    }
    std::string_view rest = text;
    if (!readNumber(rest, out.negative, out.number)) {
        return fail(why, fmt::format("{}, got '{}'", expectation(family), text));
    }
    rest = trim(rest);
    std::size_t unitEnd = 0;
    while (unitEnd < rest.size() && !isSpace(rest[unitEnd])) {
        ++unitEnd;
    }
    out.unit = rest.substr(0, unitEnd);
    const std::string_view trailing = trim(rest.substr(unitEnd));
    if (out.unit.empty()) {
        return fail(why, expectation(family));
    }
    for (const Unit& unit : family.units) {
        if (unit.symbol == out.unit) {
            out.match = &unit;
        }
    }
    const std::string expected =
        fmt::format("expected {} with a unit ({}), like {}", family.noun, unitList(family), family.example);
    if (out.match == nullptr) {
        if (const Family* other = familyOf(out.unit)) {
            return fail(why, fmt::format("'{}' is {}, but {}", text, other->noun, expected));
        }
        std::string message = fmt::format("unknown unit '{}' in '{}': {}", out.unit, text, expected);
        const std::string suggestion = suggestUnit(out.unit, family);
        if (!suggestion.empty()) {
            message += fmt::format("; did you mean '{}'?", suggestion);
        }
        return fail(why, message);
    }
    if (!trailing.empty()) {
        return fail(why, fmt::format("unexpected '{}' after the unit in '{}': {}", trailing, text, expected));
    }
    if (out.negative && out.number.digits != "0") {
        return fail(why, fmt::format("expected {} that is not negative, got '{}'", family.noun, text));
    }
    return true;
}

std::optional<double> parseReal(std::string_view text, const Family& family, std::string* why) {
    Split parts;
    if (!split(text, family, parts, why)) {
        return std::nullopt;
    }
    const std::string scientific = fmt::format("{}e{}", parts.number.digits,
                                               static_cast<long>(parts.number.exponent) + parts.match->pow10);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(scientific.data(), scientific.data() + scientific.size(), value);
    value = std::ldexp(value, parts.match->pow2);
    if (ec != std::errc() || end != scientific.data() + scientific.size() || !std::isfinite(value)) {
        fail(why, fmt::format("'{}' is too large or too small to represent", trim(text)));
        return std::nullopt;
    }
    return value;
}

/// A display unit: the value is shown in the largest one (scales are listed largest first)
/// where it is at least 1.
struct Scale {
    std::string_view symbol;
    int pow10;
};

std::string formatReal(double value, std::initializer_list<Scale> scales) {
    const Scale* chosen = std::prev(scales.end());
    for (const Scale& scale : scales) {
        const double scaled =
            scale.pow10 >= 0 ? value / std::pow(10.0, scale.pow10) : value * std::pow(10.0, -scale.pow10);
        if (std::fabs(scaled) >= 1.0) {
            chosen = &scale;
            break;
        }
    }
    if (value == 0.0) {
        for (const Scale& scale : scales) {
            if (scale.pow10 == 0) {
                chosen = &scale;
            }
        }
    }
    const double scaled =
        chosen->pow10 >= 0 ? value / std::pow(10.0, chosen->pow10) : value * std::pow(10.0, -chosen->pow10);
    return fmt::format("{:.6g} {}", scaled, chosen->symbol);
}

}  // namespace

std::optional<Bytes> parseBytes(std::string_view text, std::string* why) {
    Split parts;
    if (!split(text, kSize, parts, why)) {
        return std::nullopt;
    }
    const std::string_view shown = trim(text);
    auto reject = [&](std::string_view problem) -> std::optional<Bytes> {
        fail(why, fmt::format("'{}' is {}", shown, problem));
        return std::nullopt;
    };
    const Decimal& number = parts.number;
    if (number.digits == "0") {
        return Bytes{0};
    }
    // Exact integer arithmetic: "1.5 MiB" is a whole number of bytes, "1.3 KiB" is not.
    // digits * 10^pow10 * 2^pow2 = digits * 5^pow10 * 2^(pow10 + pow2).
    const Wide limit = std::numeric_limits<uint64_t>::max();
    const int pow10 = number.exponent + parts.match->pow10;
    if (number.digits.size() > 38) {
        return reject(pow10 >= 0 ? "too large for a byte count" : "not a whole number of bytes");
    }
    Wide value = 0;
    for (char digit : number.digits) {
        value = value * 10 + static_cast<unsigned>(digit - '0');
    }
    int pow2 = parts.match->pow2;
    if (pow10 >= 0) {
        for (int i = 0; i < pow10 && value <= limit; ++i) {
            value *= 10;
        }
    } else {
        // 5^54 is the largest power of five in 128 bits; digits < 10^38 < 5^55 never divide.
        const int fives = -pow10;
        Wide power = 1;
        for (int i = 0; i < fives && i < 55; ++i) {
            power *= 5;
        }
        if (fives > 54 || value % power != 0) {
            return reject("not a whole number of bytes");
        }
        value /= power;
        pow2 += pow10;
    }
    if (value > limit) {
        return reject("too large for a byte count");
    }
    if (pow2 < 0) {
        if (-pow2 > 127 || (value & ((Wide{1} << -pow2) - 1)) != 0) {
            return reject("not a whole number of bytes");
        }
        value >>= -pow2;
    } else {
        value <<= pow2;  // value < 2^64 and pow2 <= 30: no overflow
    }
    if (value > limit) {
        return reject("too large for a byte count");
    }
    return Bytes{static_cast<uint64_t>(value)};
}

std::optional<Frequency> parseFrequency(std::string_view text, std::string* why) {
    const auto value = parseReal(text, kFrequency, why);
    return value ? std::optional<Frequency>(Frequency{*value}) : std::nullopt;
}

std::optional<Bandwidth> parseBandwidth(std::string_view text, std::string* why) {
    const auto value = parseReal(text, kBandwidth, why);
    return value ? std::optional<Bandwidth>(Bandwidth{*value}) : std::nullopt;
}

std::optional<Duration> parseDuration(std::string_view text, std::string* why) {
    const auto value = parseReal(text, kDuration, why);
    if (value && *value > kMaxDurationSeconds) {
        fail(why, fmt::format("'{}' is beyond the simulator's time range: simulated time is counted in "
                              "64-bit picoseconds, at most {:.4g} s",
                              trim(text), kMaxDurationSeconds));
        return std::nullopt;
    }
    return value ? std::optional<Duration>(Duration{*value}) : std::nullopt;
}

std::optional<Energy> parseEnergy(std::string_view text, std::string* why) {
    const auto value = parseReal(text, kEnergy, why);
    return value ? std::optional<Energy>(Energy{*value}) : std::nullopt;
}

std::optional<Power> parsePower(std::string_view text, std::string* why) {
    const auto value = parseReal(text, kPower, why);
    return value ? std::optional<Power>(Power{*value}) : std::nullopt;
}

std::string formatBytes(uint64_t bytes) {
    static constexpr std::array<std::pair<int, std::string_view>, 3> kUnits{
        {{30, "GiB"}, {20, "MiB"}, {10, "KiB"}}};
    for (const auto& [shift, symbol] : kUnits) {
        const uint64_t unit = uint64_t{1} << shift;
        if (bytes != 0 && bytes % unit == 0) {
            return fmt::format("{} {}", bytes / unit, symbol);
        }
    }
    return fmt::format("{} B", bytes);
}

std::string formatFrequency(double hz) {
    return formatReal(hz, {{"GHz", 9}, {"MHz", 6}, {"kHz", 3}, {"Hz", 0}});
}

std::string formatBandwidth(double bytesPerSecond) {
    return formatReal(bytesPerSecond, {{"GB/s", 9}, {"MB/s", 6}, {"KB/s", 3}, {"B/s", 0}});
}

std::string formatDuration(double seconds) {
    return formatReal(seconds, {{"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}, {"ps", -12}});
}

std::string formatEnergy(double joules) {
    return formatReal(joules, {{"J", 0}, {"mJ", -3}, {"uJ", -6}, {"nJ", -9}, {"pJ", -12}, {"fJ", -15}});
}

std::string formatPower(double watts) {
    return formatReal(watts, {{"W", 0}, {"mW", -3}, {"uW", -6}});
}

}  // namespace tessim::config
