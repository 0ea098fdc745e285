// The im2col copy on RISC-V vector cores: an output pixel's column row built from an NHWC input,
// the input run under each kernel row copied by vector loads and stores (LMUL-8 strips: real
// traffic through the caches), zeros stored where the window lies over the padding. The RVV
// convolution (RvvConvKernel) and a tensor-train convolution (TensorTrainKernel with `im2col`)
// build their rows with it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/ir/Op.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {

// The vsetvl a stream last issued: an emitter skips a vsetvl that would change nothing.
struct VectorTypeState {
    std::uint32_t vl = 0;  // 0: unknown (another loop set its own)
    DType type = DType::F32;
    void set(std::vector<Op>& out, DType t, std::uint32_t avl, unsigned lmul, std::uint8_t vlRegister);
    void forget() { vl = 0; }
};

// Copies move whole LMUL-8 groups.
constexpr unsigned kIm2colLmul = 8;

struct Im2colRegisters {
    std::uint8_t src = 0, dst = 0;  // scalar: the copy's pointers
    std::uint8_t vl = 0;            // scalar: vsetvl's result
    std::uint8_t data = 24;         // vector: the LMUL-8 group the data pass through
    std::uint8_t zero = 16;         // vector: the LMUL-8 group of zeros (padding)
};

class RvvIm2colRows {
public:
    // `vlmax`: elements of one LMUL-8 copy; `state`: the stream's vsetvl state, shared with its
    // other loops.
    RvvIm2colRows(DType dtype, std::uint8_t space, std::uint32_t vlmax, Im2colRegisters regs,
                  VectorTypeState& state)
        : dtype_(dtype), space_(space), vlmax_(vlmax), regs_(regs), state_(state) {}

    // The zero group the padding is stored from: once before the rows.
    void zeros(std::vector<Op>& out);
    // Column row of output pixel m (row-major over outH × outW) of group g, at `row`: per kernel
    // row the input run under it (kw·C contiguous elements without groups; per column a run of the
    // group's channels, or one strided load across the columns for one channel per group), in the
    // order [ky][kx][c].
    void row(std::vector<Op>& out, const ConvShape& s, std::uint64_t input, unsigned g, std::uint64_t m,
             std::uint64_t row);
    // n elements from `src` (`stride` bytes apart; 0: contiguous) to `dst`, or zeros without a source.
    void copy(std::vector<Op>& out, std::optional<std::uint64_t> src, std::uint64_t stride, std::uint64_t dst,
              std::uint64_t n);

private:
    DType dtype_;
    std::uint8_t space_;
    std::uint32_t vlmax_;
    Im2colRegisters regs_;
    VectorTypeState& state_;
};

}  // namespace tessim
