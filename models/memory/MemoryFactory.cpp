#include "models/memory/MemoryFactory.h"

#include "models/memory/Cache.h"
#include "models/memory/Ddr.h"
#include "models/memory/Scratchpad.h"
#include "models/memory/SimpleMemory.h"

namespace tessim {

const std::vector<std::string>& memoryImpls() {
    static const std::vector<std::string> impls{"simple", "scratchpad", "cache", "ddr"};
    return impls;
}

std::unique_ptr<Memory> makeMemory(const std::string& impl, config::Reader& r, const std::string& name) {
    if (impl == "simple")
        return std::make_unique<SimpleMemory>(name.c_str(), SimpleMemoryConfig::fromYaml(r, name));
    if (impl == "scratchpad")
        return std::make_unique<Scratchpad>(name.c_str(), ScratchpadConfig::fromYaml(r, name));
    if (impl == "cache")
        return std::make_unique<Cache>(name.c_str(), CacheConfig::fromYaml(r, name));
    if (impl == "ddr")
        return std::make_unique<Ddr>(name.c_str(), DdrConfig::fromYaml(r, name));
    r.fail("impl", "unknown memory model '" + impl + "' (expected one of: simple, scratchpad, cache, ddr)");
}

}  // namespace tessim
