// Parameter values are text (exactly what `--set key=value` receives); these helpers turn
// numbers into such text and back, so "512 KiB" < "1 MiB" compares as bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessim::sweep {

/// Shortest text that reads back as the same double; whole numbers print without a fraction.
std::string formatNumber(double value);

/// An exact size: the largest binary unit that divides the count ("256 KiB", "1536 B").
std::string formatSize(uint64_t bytes);

/// A plain number ("12", "-3.5e2") or a quantity with a unit ("256 KiB", "1.6 GHz", "12 ns") in
/// its base unit (bytes, Hz, B/s, s, J, W); std::nullopt for anything else.
std::optional<double> numericValue(std::string_view text);

/// A plain number only.
std::optional<double> plainNumber(std::string_view text);

}  // namespace tessim::sweep
