#include "workloads/common/TestData.h"

#include <vector>

#include "sim/ir/ElementArithmetic.h"

namespace tessim {

std::uint64_t testDataBits(std::uint64_t index, std::uint64_t salt) {
    std::uint64_t z = (index + 1) * 0x9E3779B97F4A7C15ULL ^ salt;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double testValue(DType type, std::uint64_t index, std::uint64_t salt) {
    const std::uint64_t z = testDataBits(index, salt);
    if (type == DType::F16 || type == DType::F32 || type == DType::F64)
        return roundTo(type, static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    return static_cast<double>(static_cast<std::int64_t>(z % 16) - 8);
}

std::int8_t testInt8(std::uint64_t index, std::uint64_t salt) {
    return static_cast<std::int8_t>(testDataBits(index, salt) & 0xFF);
}

void writeTestValues(FunctionalMemory& memory, std::uint8_t space, std::uint64_t addr, std::uint64_t count,
                     DType type, std::uint64_t salt) {
    const unsigned elem = dtypeBytes(type);
    std::vector<std::uint8_t> buf(count * elem);
    for (std::uint64_t k = 0; k < count; ++k)
        encodeElement(type, testValue(type, k, salt), buf.data() + k * elem);
    memory.write(space, addr, buf.data(), buf.size());
}

}  // namespace tessim
