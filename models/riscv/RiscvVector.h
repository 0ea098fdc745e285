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
