// `--max-memory`: a cap on the simulator's own memory (address space, RLIMIT_AS), so a run whose
// schedule, trace or backing stores would outgrow the machine stops with a clear error (exit 2)
// instead of thrashing. Without the flag a run may use three quarters of the physical memory
// (assumption: what a laptop can spare). The limit is a process's: sweep points, run as child
// processes, each get it. Sanitizer builds reserve terabytes of shadow memory and take no limit.
#pragma once

#include <cstdint>
#include <string>

namespace tessim {

/// "8GiB", "512 MiB" or "none"; anything else (a bare number, a limit under 64 MiB) is a
/// ConfigError at the command line naming --max-memory. Returns 0 for none.
std::uint64_t parseMemoryLimit(const std::string& text);

/// Three quarters of the physical memory.
std::uint64_t defaultMemoryLimit();

/// Sets the limit (0: none) for this process and its children; remembers it for the message.
void applyMemoryLimit(std::uint64_t bytes);

/// What a failed allocation means under the limit in force: "out of memory: … --max-memory …".
std::string outOfMemoryMessage();

}  // namespace tessim
