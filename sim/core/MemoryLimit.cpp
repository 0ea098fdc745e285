#include "sim/core/MemoryLimit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Quantity.h"

namespace tessim {
namespace {

std::uint64_t& limitInForce() {
    static std::uint64_t bytes = 0;
    return bytes;
}

constexpr bool kSanitized =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace

std::uint64_t parseMemoryLimit(const std::string& text) {
    if (text == "none")
        return 0;
    std::string why;
    const auto bytes = config::parseBytes(text, &why);
    const config::Location where{"<command line>", 1, 1};
    if (!bytes)
        throw config::ConfigError(where, "--max-memory",
                                  fmt::format("expected a size with a unit (8GiB) or 'none', got '{}'{}",
                                              text, why.empty() ? "" : ": " + why));
    if (bytes->value < (std::uint64_t{64} << 20))
        throw config::ConfigError(
            where, "--max-memory",
            fmt::format("{} is below 64 MiB, less than the simulator itself needs", text));
    return bytes->value;
}

std::uint64_t defaultMemoryLimit() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageBytes = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageBytes <= 0)
        return 0;
    return static_cast<std::uint64_t>(pages) / 4 * 3 * static_cast<std::uint64_t>(pageBytes);
}

void applyMemoryLimit(std::uint64_t bytes) {
    if (kSanitized)
        return;
    rlimit limit{};
    if (::getrlimit(RLIMIT_AS, &limit) != 0)
        return;
    // Never above a limit set from outside (ulimit -v), which only root could raise.
    const rlim_t wanted = bytes == 0 ? limit.rlim_max : static_cast<rlim_t>(bytes);
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
    if (::setrlimit(RLIMIT_AS, &limit) == 0)
        limitInForce() = bytes;
}

std::string outOfMemoryMessage() {
    const std::uint64_t bytes = limitInForce();
    if (bytes == 0)
        return "out of memory: the run needs more memory than this machine gives it";
    return fmt::format("out of memory: the run needs more than its memory limit of {:.1f} GiB (--max-memory; "
                       "the default is three quarters of the physical memory)",
                       static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 30));
}

}  // namespace tessim
