// INT8 on an RVV core without dot-product instructions, as an INT8 framework runs it on the X60:
// i8 operands sign-extended to i16 (vsext.vf2) and multiplied into i32 accumulators (vwmacc);
// the accumulators requantised through f32 — XNNPACK's "fp32" requantisation: vfcvt.f.x.v, vfmul.vf
// by the layer's scale (multiplier / 2^shift), vfmax/vfmin to −128..127, vfcvt.x.f.v (nearest,
// ties to even) and two narrowing conversions (vncvt) — then stored as i8 (vse8). Or, for
// output_dtype i32, the accumulators stored as they are.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/FunctionalMemory.h"
#include "sim/ir/Op.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/VectorOps.h"

namespace tessim {

struct Int8Outputs {
    bool requantize = true;       // false: the i32 accumulators are stored
    double scale = 1.0;           // multiplier / 2^shift, rounded to f32
    std::uint64_t constants = 0;  // the pool the loop loads: scale, −128, 127 as f32
    unsigned outBytes() const { return requantize ? 1 : 4; }
    DType outType() const { return requantize ? DType::I8 : DType::I32; }
};

// The pool's FP registers (flw), above the integer ones.
constexpr std::uint8_t kInt8Scale = scalarReg(32), kInt8Low = scalarReg(33), kInt8High = scalarReg(34);
constexpr std::uint64_t kInt8ConstantBytes = 12;

Int8Outputs int8Outputs(bool requantize, std::int32_t multiplier, std::uint32_t shift);

// The pool's three flw (before the first requantisation; nothing when storing i32).
void loadInt8Constants(std::vector<Op>& out, const Int8Outputs& o, std::uint8_t space);

// An accumulator (an i32 group of vl elements) and where its outputs go (base: the register the
// address comes from, or kNoReg).
struct AccumulatorStore {
    std::uint8_t acc;
    std::uint64_t addr;
    std::uint8_t base = kNoReg;
};

// The accumulators requantised and stored, a type at a time (one vsetvli each: e32, e16, e8, at
// LMUL 4·lmulI8, 2·lmulI8, lmulI8), or stored as i32. vlReg: the register vsetvli writes.
void storeInt8Outputs(std::vector<Op>& out, const Int8Outputs& o, const std::vector<AccumulatorStore>& stores,
                      std::uint32_t vl, std::uint8_t space, unsigned registerBytes, unsigned lmulI8,
                      std::uint8_t vlReg);

// An output as storeInt8Outputs computes it from its accumulator.
double int8OutputReference(const Int8Outputs& o, double acc);

void writeInt8Constants(FunctionalMemory& memory, std::uint8_t space, const Int8Outputs& o);

}  // namespace tessim
