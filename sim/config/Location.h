#pragma once

#include <string>

namespace tessim::config {

/// Where a configuration value came from. Line and column are 1-based; 0 means unknown.
struct Location {
    std::string file;
    int line = 0;
    int column = 0;
};

/// "file:line:col", "file:line" without a column, "file" when both are unknown ("<unknown>" if
/// the file is too).
std::string toString(const Location& where);

}  // namespace tessim::config
