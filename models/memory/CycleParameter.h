// Timing parameters of clocked memories, written either as a cycle count (`tCL: 24`) or as a
// duration (`tRCD: 18 ns`) that is converted to whole cycles of the memory's clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/config/Reader.h"
#include "sim/core/Time.h"

namespace tessim {

enum class CycleRounding { Up, Down };

// Required when `fallback` is empty. Durations round up (a minimum delay must be honoured),
// or down for maximum intervals such as tREFI.
std::uint64_t readCycles(const config::Reader& r, const std::string& key, const ClockDomain& clock,
                         std::optional<std::uint64_t> fallback = std::nullopt,
                         CycleRounding rounding = CycleRounding::Up);

}  // namespace tessim
