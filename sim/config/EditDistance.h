#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tessim::config {

/// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
/// adjacent characters each cost 1, so "frequncy" and "freqeuncy" are both 1 from "frequency".
std::size_t editDistance(std::string_view a, std::string_view b);

/// The candidate closest to `word` within `maxDistance` (first one on ties), or "" if none is.
std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates,
                         std::size_t maxDistance = 2);

/// "; did you mean 'x'?" for the closestMatch of `word`, or "" when none is close: the suffix every
/// error about an unknown name appends.
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace tessim::config
