// The memory a plan places a kernel's buffers in: one it names, or by default the first memory
// its first engine lists ("my L1" on a cache target).
#pragma once

#include <string>

#include "sim/config/Reader.h"
#include "sim/machine/TargetInfo.h"

namespace tessim {

// The memory `name` of the target; a ConfigError at the plan's `key` when it has none.
inline const MemorySpaceInfo& planSpace(const config::Reader& pl, const std::string& key,
                                        const std::string& name, const TargetInfo& target) {
    const MemorySpaceInfo* s = target.findSpace(name);
    if (!s)
        pl.fail(key, "target '" + target.name + "' has no memory '" + name + "'");
    return *s;
}

// The plan's `memory`, else the first memory `first` (the first thread's engine) lists.
inline const MemorySpaceInfo& planMemory(const config::Reader& pl, const TargetInfo& target,
                                         const EngineInfo& first) {
    if (pl.has("memory"))
        return planSpace(pl, "memory", pl.get<std::string>("memory"), target);
    if (first.memories.empty())
        pl.fail("threads", "engine '" + first.name + "' reaches no memory");
    for (const auto& s : target.spaces)
        if (s.id == first.memories[0])
            return s;
    pl.fail("threads", "engine '" + first.name + "' lists memory " + std::to_string(first.memories[0]) +
                           ", which the target does not have");
}

}  // namespace tessim
