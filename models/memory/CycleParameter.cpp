#include "models/memory/CycleParameter.h"

#include <cctype>

#include "sim/config/Quantity.h"

namespace tessim {

namespace {

// A timing parameter of a memory or DMA is at most a millisecond (assumption: every real one is
// below a microsecond or so); far longer ones, summed over a run's accesses, would run past the
// 2^64 ps that simulated time can count, or take the models' loops forever to reach.
constexpr Tick kMaxTimingTicks = kTicksPerSecond / 1000;

std::uint64_t checked(const config::Reader& r, const std::string& key, const ClockDomain& clock,
                      std::uint64_t cycles) {
    if (cycles > kMaxTimingTicks / clock.period)
        r.fail(key, "a timing parameter is at most 1 ms (" + std::to_string(kMaxTimingTicks / clock.period) +
                        " cycles of this clock), not " + std::to_string(cycles) + " cycles");
    return cycles;
}

}  // namespace

std::uint64_t readCycles(const config::Reader& r, const std::string& key, const ClockDomain& clock,
                         std::optional<std::uint64_t> fallback, CycleRounding rounding) {
    if (config::Reader::cataloguing())
        r.noteKey(key, "cycles (24) or time (18 ns)",
                  fallback ? std::optional<std::string>(std::to_string(*fallback)) : std::nullopt, "≤ 1 ms");
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
        return checked(r, key, clock, v);
    }
    bool negative = text.size() > 1 && text.front() == '-';
    for (char c : text.substr(negative ? 1 : 0))
        negative = negative && std::isdigit(static_cast<unsigned char>(c));
    if (negative)
        r.fail(key, "a cycle count is not negative, got '" + text + "'");
    std::string why;
    auto d = config::parseDuration(text, &why);
    if (!d)
        r.fail(key, "expected a cycle count (24) or a duration (18 ns): " + why);
    if (d->seconds > 1e-3)
        r.fail(key, "a timing parameter is at most 1 ms, not " + text);
    Tick ticks = secondsToTicks(d->seconds);
    return checked(r, key, clock,
                   rounding == CycleRounding::Up ? clock.cyclesCeil(ticks) : clock.cyclesFloor(ticks));
}

}  // namespace tessim
