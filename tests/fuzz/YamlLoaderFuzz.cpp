// libFuzzer harness: the YAML loader, a Reader walk over what it loaded, and the unit parsers.
// Bad input must end in config::ConfigError, never a crash, hang or other exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/Quantity.h"

namespace {

// Visits every node, as the models' readers do, to reach the accessors' own checks.
void walk(const tessim::config::Node& node, int depth) {
    if (depth > 64)
        return;
    if (node.isScalar()) {
        const std::string& text = node.scalar();
        tessim::config::parseBytes(text);
        tessim::config::parseFrequency(text);
        tessim::config::parseDuration(text);
        tessim::config::parseBandwidth(text);
        tessim::config::parseEnergy(text);
        tessim::config::parsePower(text);
    } else if (node.isSequence()) {
        for (const auto& item : node.items())
            walk(item, depth + 1);
    } else if (node.isMap()) {
        for (const auto& [key, value] : node.entries())
            walk(value, depth + 1);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const tessim::config::Node root = tessim::config::loadYamlString(text, "fuzz.yaml");
        walk(root, 0);
    } catch (const tessim::config::ConfigError&) {
        // The expected outcome for bad input.
    }
    return 0;
}
