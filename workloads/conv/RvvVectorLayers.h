// Element-wise and pooling layers of a network on RISC-V vector cores (the K1), as the RVV loops a
// framework runs for them: strip-mined LMUL-8 streams (vsetvli, vle, the operation, vse, pointer
// and count updates, bnez) for Relu, Clip, Add, Mul, Div, the hard activations and (by a rational
// approximation) Tanh and Sigmoid; per output pixel and strip of channels
// (NHWC) a max or sum over the window's taps for MaxPool, AveragePool and the global pools. A
// layer list holds them beside convolutions (`op: MaxPool` …); the threads split the elements, or
// the pooling's (pixel, channel strip) items, in contiguous slices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/ir/Op.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/Slices.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {

// Pools last: pooling() is op ≥ MaxPool.
enum class VectorLayerOp {
    Relu,
    Clip,
    HardSigmoid,
    HardSwish,
    LeakyRelu,  // x for x ≥ 0, alpha·x below: max(x, alpha·x) (min for alpha > 1)
    Add,
    Mul,
    Sub,
    PRelu,  // x for x ≥ 0, slope·x below, the slope per channel (or one, or per element): max(x, slope·x)
    Div,    // x / y (vfdiv): a tensor, a per-channel value or a constant
    Tanh,   // a rational approximation: clamp, x·p(x²)/q(x²) (RationalTanh)
    Sigmoid,  // 0.5 + 0.5·tanh(x/2), the same approximation
    Softmax,  // over each pixel's channels: exp(x − max) / Σ exp(x − max) (ExpBySquaring)
    Copy,     // Concat, Transpose: the output's elements read and written once (a layout move; a
              // Transpose with its permutation reads its input in strided runs)
    MaxPool,
    AveragePool,
    GlobalAveragePool,
    GlobalMaxPool
};

// The operators a layer row's `op` may name besides a convolution (ONNX spelling).
bool isVectorLayerOp(const std::string& op);
const std::vector<std::string>& vectorLayerOps();

// tanh(x) ≈ x·p(x²)/q(x²) on |x| ≤ clamp, the input clamped first (tanh(clamp) rounds to 1 in the
// type): coefficients fitted by analysis/fits/tanh_rational.py (least squares, reweighted towards the
// relative error of the quotient). Evaluated by Horner in x² with a multiply and an add per
// coefficient and one divide, every op rounded in the layer's type, its largest |error| against
// tanh is 3.0e-7 in f32 (f64 runs the f32 fit) and 1.6e-3 in f16 (a lower-degree fit: the f32
// one's small coefficients vanish in f16).
struct RationalTanh {
    double clamp;
    std::vector<double> p;  // p[0] + p[1]·y + …
    std::vector<double> q;  // 1 + q[1]·y + … (q[0] = 1)
};
const RationalTanh& rationalTanh(DType dtype);
// A divide in a type, as a core computes it: divIn (RVV's vfdiv) or a sequence (newtonDivideIn).
using DivideIn = double (*)(DType, double, double);

// exp(x) for x ≤ 0 as Softmax's loop computes it, without the bits of the type: x clamped at
// `lowest` (exp below it is 0 beside the largest term, 1), y = x / 2^squarings, p = Σ y^k / k! for
// k ≤ degree by Horner (an fma a coefficient), then p squared `squarings` times. Its largest
// relative error against exp over [lowest, 0] is 3.1e-5 in f32 (2^-8 y^8/8! truncation, doubled by
// each square with the roundings) and 1.5e-6 in f64 (the same sequence); f16 runs a shorter one
// (4 squares), 4.9e-3 off at most (absolute: beside the largest term, 1).
struct ExpBySquaring {
    double lowest;
    unsigned squarings, degree;
};
const ExpBySquaring& expBySquaring(DType dtype);
double expBySquaringIn(DType dtype, double x);

// tanh or the sigmoid of `x` as the emitted loop computes it, each op rounded in `dtype`.
double rationalActivation(bool sigmoid, DType dtype, double x, DivideIn divide = divIn);

// Add's and Mul's second operand: a tensor of the output's shape, one value per channel broadcast
// over the pixels (an SE block's scale, a bias), or a constant.
enum class SecondOperand { Tensor, Channel, Constant };

struct RvvVectorLayer {
    VectorLayerOp op = VectorLayerOp::Relu;
    std::string opName;
    // The input's geometry (NHWC) and, for a pool, its window: filters = groups = channels.
    ConvShape s;
    double lo = 0.0, hi = 0.0;       // Clip's bounds
    double alpha = 0.2, beta = 0.5;  // HardSigmoid's max(0, min(1, alpha·x + beta)); HardSwish: 1/6, 0.5;
                                     // LeakyRelu's slope below 0 (ONNX's 0.01)
    SecondOperand second = SecondOperand::Tensor;
    double constant = 0.0;  // a Constant second operand
    // Sub, Div: the second operand first — c − x, c / x (an ONNX node whose broadcast input is
    // the minuend or the dividend).
    bool reversed = false;
    // Transpose: the input's dimensions in ONNX's order and the permutation (output axis k is
    // input axis perm[k]); tensors of rank 4 lie NHWC in memory, the others in their own order.
    // Empty: the output's elements in the input's order (Concat, or a Transpose without them).
    std::vector<std::uint64_t> inputDims;
    std::vector<unsigned> perm;
    // The same permutation as it moves memory (simplifyTranspose): the input's dimensions in
    // memory order without the axes of one element, output memory axis k taking input memory axis
    // memPerm[k]. Empty where the output is the input's elements in order (a Transpose that moves
    // only axes of one element, or none).
    std::vector<std::uint64_t> memDims;
    std::vector<unsigned> memPerm;

    bool pooling() const { return op >= VectorLayerOp::MaxPool; }
    bool maximum() const { return op == VectorLayerOp::MaxPool || op == VectorLayerOp::GlobalMaxPool; }
    // The vector op an Add, Sub, Mul or PRelu applies to its two operands (PRelu then keeps the
    // larger of that and x: keepsLargerWithX()).
    OpKind binaryKind() const {
        return op == VectorLayerOp::Add   ? OpKind::Add
               : op == VectorLayerOp::Sub ? OpKind::Sub
               : op == VectorLayerOp::Div ? OpKind::Div
                                          : OpKind::Mul;
    }
    bool keepsLargerWithX() const { return op == VectorLayerOp::PRelu; }
    bool transposes() const { return !memPerm.empty(); }
    // PRelu's second operand is its slope.
    bool binary() const {
        return op == VectorLayerOp::Add || op == VectorLayerOp::Mul || op == VectorLayerOp::Sub ||
               op == VectorLayerOp::Div || op == VectorLayerOp::PRelu;
    }
    // The hard activations read alpha, beta, 0 and 1 from a constant pool in memory into scalar
    // registers (flw), as compiled code does, and use them as vector-scalar operands (.vf forms).
    bool hard() const { return op == VectorLayerOp::HardSigmoid || op == VectorLayerOp::HardSwish; }
    // LeakyRelu keeps the larger of x and alpha·x when alpha ≤ 1, else the smaller.
    OpKind leakyKeep() const { return alpha <= 1.0 ? OpKind::Max : OpKind::Min; }
    // Tanh and Sigmoid: a rational approximation whose constants (clamp, −clamp, 0.5, 1, then the
    // coefficients) come from a pool in memory into FP registers.
    bool rational() const { return op == VectorLayerOp::Tanh || op == VectorLayerOp::Sigmoid; }
    bool softmax() const { return op == VectorLayerOp::Softmax; }
    // Work goes by (output pixel, channel strip) rather than by strips of the flat tensor.
    bool perPixel() const { return pooling() || (binary() && second == SecondOperand::Channel); }
    std::uint64_t inputs() const { return std::uint64_t{s.h} * s.w * s.channels; }  // the first operand
    // Elements of the second operand in memory (none for a constant or a unary op).
    std::uint64_t secondElements() const {
        if (!binary() || second == SecondOperand::Constant)
            return 0;
        return second == SecondOperand::Channel ? s.channels : inputs();
    }
    std::uint64_t outputs() const {
        return pooling() ? std::uint64_t{s.outH()} * s.outW() * s.channels : inputs();
    }
    // Arithmetic as the ONNX accounting counts it (OnnxLayers.h): one op per element, a window's
    // taps per pooled output element.
    std::uint64_t flops() const {
        return pooling() ? outputs() * s.taps() : op == VectorLayerOp::Copy ? 0 : outputs();
    }
};

// A row of a layer list whose `op` is one of vectorLayerOps(): h, w, channels; a pool's k (or kh,
// kw), stride, pad (or pad_h, pad_w) — a global pool's window is the whole image; Clip's min and
// max (default: ReLU6's 0 and 6); HardSigmoid's alpha and beta (ONNX's 0.2, 0.5); LeakyRelu's alpha
// (ONNX's 0.01); a Transpose's `input_dims` and `perm` (both or neither); Add's, Sub's, Mul's, Div's
// and PRelu's `broadcast` (none, channel: C values over every
// pixel, constant: `value`; PRelu's slopes); Sub's and Div's `reversed` (the second operand first). PRelu
// runs as max(x, slope·x), which is PRelu for slopes up to 1 (learnt slopes are small: 0.25 at
// initialisation); a constant slope above 1 is refused.
RvvVectorLayer readVectorLayer(config::Reader& r, const std::string& op);

// A Transpose's rows: runs of the output's innermost dimension, contiguous in the output and
// `stride` elements apart in the input. The input's innermost dimension (`innerRun` elements,
// consecutive in the input) steps the output `innerRowStep` rows at a time where it is not the
// output's innermost (stride ≠ 1; else 0, 0).
struct TransposeRows {
    std::uint64_t rows = 0, length = 0, stride = 0;
    std::uint64_t innerRun = 0, innerRowStep = 0;
    // Tiled order: row ℓ of the order in which the input's innermost dimension runs fastest
    // (ℓ = m·innerRun + j, j along it) is output row (m / step)·innerRun·step + j·step + m % step.
    std::uint64_t tiledRow(std::uint64_t l) const {
        const std::uint64_t m = l / innerRun, j = l % innerRun;
        return m / innerRowStep * innerRun * innerRowStep + j * innerRowStep + m % innerRowStep;
    }
};
TransposeRows transposeRows(const RvvVectorLayer& l);
// Sets l.memDims and l.memPerm from l.inputDims and l.perm (readVectorLayer calls it).
void simplifyTranspose(RvvVectorLayer& l);
// The input element (its offset in memory order) that a Transpose's output element `i` (in
// memory order) copies.
std::uint64_t transposeSource(const RvvVectorLayer& l, std::uint64_t i);

// What one thread of a vector layer emits, chunk by chunk. Registers: v0 the result or
// accumulator, v8 and v16 the operands (v16 a bound or a pool's reciprocal, v24 the upper bound)
// at LMUL 8; scalar registers `regs` for the pointers, the count and vl.
struct VectorLayerRegs {
    std::uint8_t srcA, srcB, dst, count, vl;
    std::uint8_t firstConstant;  // the hard activations' 4 constants in scalar registers from here
    std::uint8_t firstFpConstant = scalarReg(32);  // the rational ops' constants: f0, f1, …
};

class RvvVectorLayerEmitter {
public:
    RvvVectorLayerEmitter(const RvvVectorLayer& layer, DType dtype, std::uint8_t space, std::uint32_t vlmax,
                          std::uint64_t inA, std::uint64_t inB, std::uint64_t out, Slice items,
                          VectorLayerRegs regs, std::uint64_t constants = 0)
        : l_(layer), dtype_(dtype), space_(space), vlmax_(vlmax), inA_(inA), inB_(inB), out_(out),
          constants_(constants), items_(items), regs_(regs),
          rows_(layer.transposes() ? transposeRows(layer) : TransposeRows{}) {}
    // Appends the next few items' ops; false when the thread's slice is done.
    bool emit(std::vector<Op>& out);

    // Work items of a layer, which the threads split: strips of vlmax elements, or a pool's
    // output pixels × channel strips.
    static std::uint64_t items(const RvvVectorLayer& layer, std::uint32_t vlmax);

private:
    void elementwiseStrip(std::vector<Op>& out, std::uint64_t item);
    struct PixelStrip {
        std::uint64_t pixel, c0;
        std::uint32_t vl;
    };
    PixelStrip pixelStrip(std::vector<Op>& out, std::uint64_t item);
    void poolItem(std::vector<Op>& out, std::uint64_t item);
    void channelItem(std::vector<Op>& out, std::uint64_t item);
    void transposeStrip(std::vector<Op>& out, std::uint64_t item);
    void softmaxPixel(std::vector<Op>& out, std::uint64_t pixel);
    void constants(std::vector<Op>& out);
    void rationalActivation(std::vector<Op>& out, std::uint32_t vl);

    const RvvVectorLayer& l_;
    DType dtype_;
    std::uint8_t space_;
    std::uint32_t vlmax_;
    std::uint64_t inA_, inB_, out_, constants_;
    Slice items_;
    VectorLayerRegs regs_;
    TransposeRows rows_;      // a Transpose's rows, found once
    std::uint64_t next_ = 0;  // items of the slice emitted
    bool started_ = false;
    std::uint64_t reciprocalOf_ = 0;  // the tap count v16 holds 1/count of (average pools)
};

// The constant pool of a hard activation (alpha, beta, 0, 1) or a rational one (clamp, −clamp,
// 0.5, 1, p, q[1…]), in the order the loop loads it; empty for the other layers.
std::vector<double> vectorLayerConstants(const RvvVectorLayer& l, DType dtype);

// The layer's output element `i` (NHWC) from its test inputs as the emitted loop computes it.

// `divide`: how the core divides (Div, Tanh, Sigmoid).
double vectorLayerReference(const RvvVectorLayer& l, DType dtype, std::uint64_t i, std::uint64_t saltA,
                            std::uint64_t saltB, DivideIn divide = divIn);

}  // namespace tessim
