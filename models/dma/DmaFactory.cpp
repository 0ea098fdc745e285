#include "models/dma/DmaFactory.h"

#include "models/dma/StridedDma.h"

namespace tessim {

const std::vector<std::string>& dmaImpls() {
    static const std::vector<std::string> impls{"dma"};
    return impls;
}

std::unique_ptr<DmaEngine> makeDma(const std::string& impl, config::Reader& r, const std::string& name) {
    if (impl == "dma")
        return std::make_unique<StridedDma>(name.c_str(), StridedDmaConfig::fromYaml(r, name));
    r.fail("impl", "unknown DMA model '" + impl + "' for '" + name + "' (expected one of: dma)");
}

}  // namespace tessim
