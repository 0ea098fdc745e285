// The closed set of DMA engine models, picked by the YAML key `impl`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/dma/DmaEngine.h"
#include "sim/config/Reader.h"

namespace tessim {

// The `impl` names this factory builds.
const std::vector<std::string>& dmaImpls();

std::unique_ptr<DmaEngine> makeDma(const std::string& impl, config::Reader& r, const std::string& name);

}  // namespace tessim
