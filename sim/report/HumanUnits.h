// Numbers as a person reads them in Markdown and on the console: four significant digits and a
// scaled unit (`10.00 µs`, `1.319 mJ`, `32.00 KiB`, `10.66 GB/s`). JSON and CSV keep SI base
// units for machines; these are for eyes only.
#pragma once

#include <string>

namespace tessim {

// `value` in `unit` (s, J, W, B/s, Hz, ...) with an SI prefix from p to T; 0 prints as "0 unit".
std::string humanSi(double value, const std::string& unit);

// A byte count with a binary prefix: "512 B", "32.00 KiB", "1.500 MiB", "12.00 GiB".
std::string humanBytes(double bytes);

// The unit of a report quantity or sweep metric, read from its key as the report builds them:
// "s" (seconds, *.seconds, *_s, bandwidth_s.*, wait_s.*), "J" (energy_j*, *.energy_j*), "W"
// (power_w, *.power_w), "B/s" (*bytes_per_s), "" (other *_per_s, *_per_byte), "B" (*bytes*),
// "cycles", or "" (fractions, counts).
std::string unitOfReportKey(const std::string& key);

// `value` of the quantity `key` for eyes: humanBytes, humanSi or four significant digits.
std::string humanReportValue(double value, const std::string& key);

}  // namespace tessim
