#include "run/sweep/PointId.h"

#include <algorithm>
#include <cstdio>

namespace tessim::sweep {

uint64_t fnv1a64(std::string_view text) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

std::string canonicalParameterText(const ParameterValues& params) {
    ParameterValues sorted = params;
    std::sort(sorted.begin(), sorted.end());
    std::string text;
    for (const auto& [key, value] : sorted) {
        text += key;
        text += '=';
        text += value;
        text += '\n';
    }
    return text;
}

std::string pointId(const ParameterValues& params) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(fnv1a64(canonicalParameterText(params))));
    return hex;
}

}  // namespace tessim::sweep
