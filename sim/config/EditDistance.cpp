#include "sim/config/EditDistance.h"

#include <algorithm>

namespace tessim::config {

std::size_t editDistance(std::string_view a, std::string_view b) {
    const std::size_t rows = a.size() + 1;
    const std::size_t cols = b.size() + 1;
    std::vector<std::size_t> d(rows * cols);
    auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * cols + j]; };
    for (std::size_t i = 0; i < rows; ++i) {
        at(i, 0) = i;
    }
    for (std::size_t j = 0; j < cols; ++j) {
        at(0, j) = j;
    }
    for (std::size_t i = 1; i < rows; ++i) {
        for (std::size_t j = 1; j < cols; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
            }
        }
    }
    return at(rows - 1, cols - 1);
}

std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates,
                         std::size_t maxDistance) {
    std::string best;
    std::size_t bestDistance = maxDistance + 1;
    for (const std::string& candidate : candidates) {
        if (candidate == word) {
            continue;
        }
        const std::size_t distance = editDistance(word, candidate);
        if (distance < bestDistance) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates) {
    const std::string close = closestMatch(word, candidates);
    return close.empty() ? std::string() : "; did you mean '" + close + "'?";
}

}  // namespace tessim::config
