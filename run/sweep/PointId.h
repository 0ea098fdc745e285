// Stable point ids: FNV-1a (64 bit) of the canonical parameter text, so an id names the same
// point in every run, on every rank and after a resume.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessim::sweep {

using ParameterValues = std::vector<std::pair<std::string, std::string>>;

uint64_t fnv1a64(std::string_view text);

/// "key=value\n" lines sorted by key: the text the id hashes.
std::string canonicalParameterText(const ParameterValues& params);

/// 16 lower-case hex digits of fnv1a64(canonicalParameterText(params)).
std::string pointId(const ParameterValues& params);

}  // namespace tessim::sweep
