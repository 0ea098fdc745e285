#include "sim/report/HumanUnits.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace tessim {
namespace {

// Four significant digits, trailing zeros kept (`10.00`, `512.0`, `0.2500`, `1235`).
std::string fourDigits(double v) {
    std::string s = fmt::format("{:.4g}", v);
    if (s.find_first_of("einf") != std::string::npos)
        return s;
    int digits = 0;
    bool significant = false;
    for (const char c : s) {
        significant |= c >= '1' && c <= '9';
        digits += significant && c >= '0' && c <= '9';
    }
    if (digits >= 4 || !significant)
        return s;
    if (s.find('.') == std::string::npos)
        s += '.';
    return s + std::string(4 - digits, '0');
}

}  // namespace

std::string humanSi(double value, const std::string& unit) {
    static const std::pair<double, const char*> prefixes[] = {{1e12, "T"}, {1e9, "G"},  {1e6, "M"},
                                                              {1e3, "k"},  {1.0, ""},   {1e-3, "m"},
                                                              {1e-6, "µ"}, {1e-9, "n"}, {1e-12, "p"}};
    const double magnitude = std::fabs(value);
    if (magnitude == 0.0 || !std::isfinite(value))
        return fmt::format("{} {}", value, unit);
    for (const auto& [factor, prefix] : prefixes) {
        // Seconds scale down only: 1235 s, not 1.235 ks.
        if (factor > 1.0 && unit == "s")
            continue;
        // 999.96 rounds to 1000 at four digits: it prints as the next prefix up.
        if (magnitude >= factor * 0.99995)
            return fourDigits(value / factor) + " " + prefix + unit;
    }
    return fourDigits(value / 1e-12) + " p" + unit;
}

std::string humanBytes(double bytes) {
    static const char* const prefixes[] = {"KiB", "MiB", "GiB", "TiB"};
    const double magnitude = std::fabs(bytes);
    if (magnitude < 1023.95)
        return fmt::format("{:.0f} B", bytes);
    double scaled = bytes / 1024.0;
    std::size_t i = 0;
    while (std::fabs(scaled) >= 1023.95 && i + 1 < std::size(prefixes)) {
        scaled /= 1024.0;
        ++i;
    }
    return fourDigits(scaled) + " " + prefixes[i];
}

std::string unitOfReportKey(const std::string& key) {
    auto endsWith = [&](const std::string& s) {
        return key.size() >= s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
    };
    if (endsWith("bytes_per_s"))
        return "B/s";
    if (endsWith("_per_s") || endsWith("_per_byte"))
        return "";  // roofline rates of work (FLOP or MAC, the engines' unit)
    if (key == "seconds" || endsWith(".seconds") || endsWith("_s") ||
        key.find("bandwidth_s.") != std::string::npos || key.find("wait_s.") != std::string::npos)
        return "s";
    if (key.rfind("energy_j", 0) == 0 || key.find(".energy_j") != std::string::npos)
        return "J";
    if (key == "power_w" || endsWith(".power_w"))
        return "W";
    if (key.find("bytes") != std::string::npos)
        return "B";
    if (key == "cycles")
        return "cycles";
    return "";
}

std::string humanReportValue(double value, const std::string& key) {
    const std::string unit = unitOfReportKey(key);
    if (unit.empty())
        return fourDigits(value);
    if (unit == "cycles")
        return fmt::format("{:.0f} cycles", value);
    return unit == "B" ? humanBytes(value) : humanSi(value, unit);
}

}  // namespace tessim
