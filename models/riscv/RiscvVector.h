// The RVV 1.0 side of the instruction set: vtype as the hart reads it, and the full name of a
// vector instruction ("vfmacc.vf", "vle32.v", "vlseg2e16.v") from its decoded form.
#pragma once

#include <cstdint>
#include <string>

#include "models/riscv/RiscvInstruction.h"

namespace tessim::riscv {

// vtype: element width (SEW) in bytes, LMUL in eighths (1 = mf8 … 64 = m8), VLMAX at a VLEN of
// `vlenBytes`; vill when the encoding is reserved or SEW exceeds ELEN (64) × LMUL.
struct VectorType {
    bool vill = true;
    unsigned sewBytes = 1;
    unsigned lmul8 = 8;
    std::uint64_t vlmax = 0;
};
VectorType decodeVectorType(std::uint64_t vtype, unsigned vlenBytes);

// The assembler's name of a vector instruction (an empty string for a scalar one; "illegal" for
// an encoding the vector specification reserves).
std::string vectorName(const Instruction& i);

// Element helpers of the vector semantics (RiscvVector*.cpp).
namespace vector {
// An element of `bytes` bytes, sign-extended.
inline std::int64_t signedOf(std::uint64_t v, unsigned bytes) {
    const unsigned shift = 64 - 8 * bytes;
    return static_cast<std::int64_t>(v << shift) >> shift;
}
// v cut to `bytes` bytes.
inline std::uint64_t truncated(std::uint64_t v, unsigned bytes) {
    return bytes >= 8 ? v : v & ((std::uint64_t{1} << (8 * bytes)) - 1);
}
// The registers a group of LMUL lmul8/8 spans (a fractional one: one).
inline unsigned registersOf(unsigned lmul8) {
    return lmul8 / 8 > 1 ? lmul8 / 8 : 1;
}
}  // namespace vector

// funct3 categories of OP-V.
enum VectorCategory : std::uint8_t {
    OPIVV = 0,
    OPFVV = 1,
    OPMVV = 2,
    OPIVI = 3,
    OPIVX = 4,
    OPFVF = 5,
    OPMVX = 6
};

}  // namespace tessim::riscv
