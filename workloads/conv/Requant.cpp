#include "workloads/conv/Requant.h"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace tessim {

void requantFor(const ConvShape& s, std::int32_t& multiplier, std::uint32_t& shift) {
    const double sigma = 5461.5 * std::sqrt(double(s.groupChannels()) * double(s.taps()));
    double m = 32.0 / sigma;
    std::uint32_t sh = 0;
    while (m < double(1u << 30) && sh < 62) {
        m *= 2;
        ++sh;
    }
    std::int64_t mi = std::llround(m);
    if (mi >= (std::int64_t{1} << 31)) {
        mi /= 2;
        --sh;
    }
    multiplier = static_cast<std::int32_t>(mi);
    shift = sh;
}

void resolveRequant(const ConvShape& s, const RequantKeys& own, const RequantKeys& top,
                    std::int32_t& multiplier, std::uint32_t& shift) {
    requantFor(s, multiplier, shift);
    multiplier = own.multiplier.value_or(top.multiplier.value_or(multiplier));
    shift = own.shift.value_or(top.shift.value_or(shift));
}

RequantKeys readRequant(config::Reader& r) {
    RequantKeys k;
    auto number = [&](const std::string& key, long long lo, long long hi, long long& out) {
        if (!r.has(key))
            return false;
        std::string v = r.get<std::string>(key);
        if (v == "auto")
            return false;
        try {
            std::size_t pos = 0;
            long long n = std::stoll(v, &pos);
            if (pos == v.size() && n >= lo && n <= hi) {
                out = n;
                return true;
            }
        } catch (...) {
        }
        r.fail(key, fmt::format("expected an integer in {}..{} or 'auto', got '{}'", lo, hi, v));
    };
    long long m = 0, sh = 0;
    if (number("requant_multiplier", -(1ll << 31), (1ll << 31) - 1, m))
        k.multiplier = static_cast<std::int32_t>(m);
    if (number("requant_shift", 0, 63, sh))
        k.shift = static_cast<std::uint32_t>(sh);
    return k;
}

}  // namespace tessim
