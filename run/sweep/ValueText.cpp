#include "run/sweep/ValueText.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/config/Quantity.h"

namespace tessim::sweep {

std::string formatNumber(double value) {
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
        return fmt::format("{}", static_cast<long long>(value));
    }
    return fmt::format("{}", value);
}

std::string formatSize(uint64_t bytes) {
    static constexpr struct {
        uint64_t factor;
        const char* unit;
    } units[] = {{1ULL << 30, "GiB"}, {1ULL << 20, "MiB"}, {1ULL << 10, "KiB"}};
    for (const auto& u : units) {
        if (bytes != 0 && bytes % u.factor == 0) {
            return fmt::format("{} {}", bytes / u.factor, u.unit);
        }
    }
    return fmt::format("{} B", bytes);
}

std::optional<double> plainNumber(std::string_view text) {
    std::string s(text);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    size_t start = 0;
    while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start])))
        ++start;
    if (start == s.size())
        return std::nullopt;
    const char* begin = s.c_str() + start;
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(begin, &end);
    if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

std::optional<double> numericValue(std::string_view text) {
    if (auto v = plainNumber(text))
        return v;
    if (auto v = config::parseBytes(text))
        return static_cast<double>(v->value);
    if (auto v = config::parseFrequency(text))
        return v->hz;
    if (auto v = config::parseBandwidth(text))
        return v->bytes_per_s;
    if (auto v = config::parseDuration(text))
        return v->seconds;
    if (auto v = config::parseEnergy(text))
        return v->joules;
    if (auto v = config::parsePower(text))
        return v->watts;
    return std::nullopt;
}

}  // namespace tessim::sweep
