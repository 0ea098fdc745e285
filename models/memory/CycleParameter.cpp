#include "models/memory/CycleParameter.h"

#include <cctype>

#include "sim/config/Quantity.h"

namespace tessim {

std::uint64_t readCycles(const config::Reader& r, const std::string& key, const ClockDomain& clock,
                         std::optional<std::uint64_t> fallback, CycleRounding rounding) {
    if (fallback && !r.has(key))
        return *fallback;
    const config::Node& node = r.node(key);
    if (!node.isScalar())
        r.fail(key, "expected a cycle count (24) or a duration (18 ns)");
    const std::string& text = node.scalar();
    bool digits = !text.empty();
    for (char c : text)
        digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) {
        std::uint64_t v = 0;
        for (char c : text) {
            if (v > (~std::uint64_t{0} - 9) / 10)
                r.fail(key, "cycle count '" + text + "' is too large");
            v = v * 10 + static_cast<std::uint64_t>(c - '0');
        }
        return v;
    }
    std::string why;
    auto d = config::parseDuration(text, &why);
    if (!d)
        r.fail(key, "expected a cycle count (24) or a duration (18 ns): " + why);
    Tick ticks = secondsToTicks(d->seconds);
    return rounding == CycleRounding::Up ? clock.cyclesCeil(ticks) : clock.cyclesFloor(ticks);
}

}  // namespace tessim
