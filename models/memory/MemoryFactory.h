// The closed set of memory models, picked by the YAML key `impl`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/memory/Memory.h"
#include "sim/config/Reader.h"

namespace tessim {

// The `impl` names this factory builds (the target loader dispatches components by them).
const std::vector<std::string>& memoryImpls();

// Reads the memory's keys (all but name/impl, which the caller consumed) from `r`.
std::unique_ptr<Memory> makeMemory(const std::string& impl, config::Reader& r, const std::string& name);

}  // namespace tessim
