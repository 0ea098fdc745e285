#include "workloads/conv/RvvVectorLayers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/ir/ElementArithmetic.h"
#include "workloads/common/LoopOps.h"
#include "workloads/common/TestData.h"
#include "workloads/common/VectorOps.h"
#include "workloads/conv/ConvShapeReader.h"

namespace tessim {
namespace {

constexpr unsigned kLmul = 8;
constexpr std::uint8_t kResult = 0, kOperandA = 8, kOperandB = 16, kUpper = 24;

struct OpName {
    const char* name;
    VectorLayerOp op;
};
constexpr OpName kOps[] = {{"Relu", VectorLayerOp::Relu},
                           {"Clip", VectorLayerOp::Clip},
                           {"HardSigmoid", VectorLayerOp::HardSigmoid},
                           {"HardSwish", VectorLayerOp::HardSwish},
                           {"LeakyRelu", VectorLayerOp::LeakyRelu},
                           {"Add", VectorLayerOp::Add},
                           {"Mul", VectorLayerOp::Mul},
                           {"Sub", VectorLayerOp::Sub},
                           {"Div", VectorLayerOp::Div},
                           {"Tanh", VectorLayerOp::Tanh},
                           {"Sigmoid", VectorLayerOp::Sigmoid},
                           {"Softmax", VectorLayerOp::Softmax},
                           {"PRelu", VectorLayerOp::PRelu},
                           {"Concat", VectorLayerOp::Copy},
                           {"Transpose", VectorLayerOp::Copy},
                           {"MaxPool", VectorLayerOp::MaxPool},
                           {"AveragePool", VectorLayerOp::AveragePool},
                           {"GlobalAveragePool", VectorLayerOp::GlobalAveragePool},
                           {"GlobalMaxPool", VectorLayerOp::GlobalMaxPool}};

std::uint64_t strips(std::uint64_t n, std::uint32_t vlmax) {
    return (n + vlmax - 1) / vlmax;
}

// analysis/fits/tanh_rational.py's fits; f64 runs the f32 one.
const RationalTanh kTanhF32{8.5,
                            {0.9999998938438419, 0.12945074809576076, 0.0029488283031104084,
                             9.529893550543849e-06, -1.3595117333547319e-08, 2.0424412161546002e-11},
                            {1.0, 0.4627835953713354, 0.023877292510180392, 0.0002320208237320309}};
const RationalTanh kTanhF16{6.0,
                            {0.9996189545007107, 0.09842518591761362, 0.0005657298392504201},
                            {1.0, 0.43065089321387245, 0.011689807124119902}};

// Where the rational ops' pool holds what (vectorLayerConstants).
constexpr unsigned kClamp = 0, kNegClamp = 1, kHalf = 2, kOne = 3, kFirstP = 4;

// exp by scaling and squaring: f16 clamps where exp rounds to 0 (−17) and squares fewer times (its
// rounding doubles with each square).
const ExpBySquaring kExpF32{-87.0, 8, 7};
const ExpBySquaring kExpF16{-17.0, 4, 6};
// Where Softmax's pool holds what: the clamp, 2^−squarings, then 1/degree! … 1/1!, 1 (also the
// dividend of the sum's reciprocal).
constexpr unsigned kExpLowest = 0, kExpScale = 1, kExpFirstCoefficient = 2;

// Memory order of a tensor's axes: NHWC for rank 4 (ONNX's N, C, H, W), else ONNX's own. Ranks
// are at most kMaxTransposeRank (readTranspose): fixed arrays, as the streams ask per row.
constexpr std::size_t kMaxTransposeRank = 8;
using AxisArray = std::array<std::uint64_t, kMaxTransposeRank>;
AxisArray memoryOrder(std::size_t rank) {
    AxisArray order{};
    for (unsigned a = 0; a < rank; ++a)
        order[a] = a;
    if (rank == 4)
        order = {0, 2, 3, 1};
    return order;
}

// Elements between neighbours along each of the `rank` axes of a row-major tensor.
template <class Dims> AxisArray rowMajorStrides(const Dims& dims, std::size_t rank) {
    AxisArray strides{};
    std::uint64_t step = 1;
    for (std::size_t j = rank; j-- > 0;) {
        strides[j] = step;
        step *= dims[j];
    }
    return strides;
}

// A Transpose's `input_dims` and `perm` (both or neither): a permutation of the axes of a tensor
// with the layer's h·w·channels elements.
void readTranspose(config::Reader& r, RvvVectorLayer& l) {
    const auto dims = r.get<std::vector<std::int64_t>>("input_dims");
    const auto perm = r.get<std::vector<std::int64_t>>("perm");
    if (dims.empty() || dims.size() > kMaxTransposeRank)
        r.fail("input_dims", fmt::format("expected 1 to 8 dimensions, got {}", dims.size()));
    std::uint64_t elements = 1;
    for (std::int64_t d : dims) {
        if (d < 1 || d > (1 << 30))
            r.fail("input_dims", fmt::format("a dimension of {} (expected 1 to 2^30)", d));
        elements *= static_cast<std::uint64_t>(d);
        l.inputDims.push_back(static_cast<std::uint64_t>(d));
    }
    if (elements != l.inputs())
        r.fail("input_dims",
               fmt::format("{} elements, but the layer's h × w × channels is {}", elements, l.inputs()));
    std::vector<bool> seen(dims.size(), false);
    if (perm.size() != dims.size())
        r.fail("perm", fmt::format("{} axes for a tensor of {} dimensions", perm.size(), dims.size()));
    for (std::int64_t a : perm) {
        if (a < 0 || static_cast<std::size_t>(a) >= dims.size() || seen[static_cast<std::size_t>(a)])
            r.fail("perm", fmt::format("expected a permutation of 0…{}", dims.size() - 1));
        seen[static_cast<std::size_t>(a)] = true;
        l.perm.push_back(static_cast<unsigned>(a));
    }
    simplifyTranspose(l);
}

}  // namespace

// The permutation as it moves memory (RvvVectorLayer::memDims, memPerm): output memory axis j is
// output axis order[j], which runs along input axis perm[order[j]], at input memory position
// pos[perm[order[j]]]. Axes of one element move nothing: dropped, so that an output whose
// innermost axis has one element (NHWC's C after N ↔ C at batch 1) runs along its next axis.
// Neighbours that stay neighbours are kept apart: the vector DSPs tile by output rows, which a merge
// would lengthen beyond a block.
void simplifyTranspose(RvvVectorLayer& l) {
    const std::size_t rank = l.perm.size();
    const AxisArray order = memoryOrder(rank);
    AxisArray pos{};
    for (std::size_t j = 0; j < rank; ++j)
        pos[order[j]] = j;
    AxisArray kept{};  // an input memory axis → its index among those of more than one element
    l.memDims.clear();
    for (std::size_t j = 0; j < rank; ++j)
        if (l.inputDims[order[j]] > 1) {
            kept[j] = l.memDims.size();
            l.memDims.push_back(l.inputDims[order[j]]);
        }
    l.memPerm.clear();
    bool identity = true;
    for (std::size_t j = 0; j < rank; ++j) {
        const std::uint64_t a = pos[l.perm[order[j]]];
        if (l.inputDims[order[a]] == 1)
            continue;
        identity = identity && kept[a] == l.memPerm.size();
        l.memPerm.push_back(static_cast<unsigned>(kept[a]));
    }
    if (identity) {  // the output is the input in order: a copy
        l.memDims.clear();
        l.memPerm.clear();
    }
}

TransposeRows transposeRows(const RvvVectorLayer& l) {
    const std::vector<std::uint64_t>& dims = l.memDims;
    const std::size_t rank = l.memPerm.size();
    AxisArray outDims{};
    for (std::size_t j = 0; j < rank; ++j)
        outDims[j] = dims[l.memPerm[j]];
    TransposeRows t;
    t.length = outDims[rank - 1];  // the output's innermost axis
    t.rows = l.outputs() / t.length;
    t.stride = rowMajorStrides(dims, rank)[l.memPerm[rank - 1]];
    if (t.stride != 1) {
        // The input's innermost axis runs along output axis o, which steps o's stride / length rows.
        std::size_t o = 0;
        while (l.memPerm[o] != rank - 1)
            ++o;
        t.innerRun = dims[rank - 1];
        t.innerRowStep = rowMajorStrides(outDims, rank)[o] / t.length;
    }
    return t;
}

std::uint64_t transposeSource(const RvvVectorLayer& l, std::uint64_t i) {
    const std::size_t rank = l.memPerm.size();
    const AxisArray strides = rowMajorStrides(l.memDims, rank);
    std::uint64_t source = 0;
    for (std::size_t j = rank; j-- > 0;) {
        const std::uint64_t extent = l.memDims[l.memPerm[j]];
        source += (i % extent) * strides[l.memPerm[j]];
        i /= extent;
    }
    return source;
}

const ExpBySquaring& expBySquaring(DType dtype) {
    return dtype == DType::F16 ? kExpF16 : kExpF32;
}

// The pool's Taylor coefficients 1/k!, highest first.
std::vector<double> expCoefficients(const ExpBySquaring& e) {
    std::vector<double> c(e.degree + 1);
    double factorial = 1.0;
    for (unsigned k = 1; k <= e.degree; ++k)
        factorial *= k;
    for (unsigned k = e.degree + 1; k-- > 0;) {
        c[e.degree - k] = 1.0 / factorial;
        factorial /= std::max(1u, k);
    }
    return c;
}

double expBySquaringIn(DType dtype, double x) {
    const ExpBySquaring& e = expBySquaring(dtype);
    auto k = [&](double v) { return roundTo(dtype, v); };
    const std::vector<double> c = expCoefficients(e);
    const double y =
        mulIn(dtype, std::max(x, k(e.lowest)), k(std::ldexp(1.0, -static_cast<int>(e.squarings))));
    double p = fmaIn(dtype, y, k(c[0]), k(c[1]));
    for (std::size_t i = 2; i < c.size(); ++i)
        p = fmaIn(dtype, p, y, k(c[i]));
    for (unsigned s = 0; s < e.squarings; ++s)
        p = mulIn(dtype, p, p);
    return p;
}

const RationalTanh& rationalTanh(DType dtype) {
    return dtype == DType::F16 ? kTanhF16 : kTanhF32;
}

// Horner in y = x², a multiply and an add per coefficient, as the loop runs it.
double rationalActivation(bool sigmoid, DType dtype, double x, DivideIn divide) {
    const RationalTanh& r = rationalTanh(dtype);
    auto k = [&](double v) { return roundTo(dtype, v); };
    if (sigmoid)
        x = mulIn(dtype, x, 0.5);
    x = std::max(std::min(x, k(r.clamp)), k(-r.clamp));
    const double y = mulIn(dtype, x, x);
    double num = mulIn(dtype, y, k(r.p.back()));
    for (std::size_t i = r.p.size() - 2; i > 0; --i)
        num = mulIn(dtype, addIn(dtype, num, k(r.p[i])), y);
    num = addIn(dtype, num, k(r.p[0]));
    double den = mulIn(dtype, y, k(r.q.back()));
    for (std::size_t i = r.q.size() - 2; i > 0; --i)
        den = mulIn(dtype, addIn(dtype, den, k(r.q[i])), y);
    den = addIn(dtype, den, 1.0);
    const double t = divide(dtype, mulIn(dtype, num, x), den);
    return sigmoid ? addIn(dtype, mulIn(dtype, t, 0.5), 0.5) : t;
}

const std::vector<std::string>& vectorLayerOps() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& o : kOps)
            v.emplace_back(o.name);
        return v;
    }();
    return names;
}

bool isVectorLayerOp(const std::string& op) {
    const auto& v = vectorLayerOps();
    return std::find(v.begin(), v.end(), op) != v.end();
}

RvvVectorLayer readVectorLayer(config::Reader& r, const std::string& op) {
    using config::Range;
    RvvVectorLayer l;
    l.opName = op;
    for (const auto& o : kOps)
        if (op == o.name)
            l.op = o.op;
    ConvShape& s = l.s;
    s.h = r.get<std::uint32_t>("h", Range<std::uint32_t>{1, 1 << 16});
    s.w = r.get<std::uint32_t>("w", Range<std::uint32_t>{1, 1 << 16});
    s.channels = r.get<std::uint32_t>("channels", Range<std::uint32_t>{1, 65535});
    s.filters = s.groups = s.channels;
    s.kh = s.kw = s.strideH = s.strideW = 1;
    if (l.op == VectorLayerOp::MaxPool || l.op == VectorLayerOp::AveragePool) {
        readWindow(r, s);
        // ONNX requires a pad smaller than the window: every output then covers an input element.
        if (s.padH >= s.kh || s.padW >= s.kw)
            r.fail(s.padH >= s.kh ? (r.has("pad_h") ? "pad_h" : "pad") : (r.has("pad_w") ? "pad_w" : "pad"),
                   fmt::format("a pool's padding {}×{} must be smaller than its {}×{} window", s.padH, s.padW,
                               s.kh, s.kw));
        if (s.h + 2 * s.padH < s.kh || s.w + 2 * s.padW < s.kw)
            r.fail(r.has("k") ? "k" : "kh", fmt::format("a {}×{} window does not fit the padded {}×{} input",
                                                        s.kh, s.kw, s.h + 2 * s.padH, s.w + 2 * s.padW));
    } else if (l.pooling()) {
        s.kh = s.h;
        s.kw = s.w;
    }
    if (l.binary()) {
        const std::string b = r.oneOf("broadcast", {"none", "channel", "constant"}, std::string("none"));
        l.second = b == "channel"    ? SecondOperand::Channel
                   : b == "constant" ? SecondOperand::Constant
                                     : SecondOperand::Tensor;
        if (l.second == SecondOperand::Constant)
            l.constant = r.get<double>("value");
        if (l.op == VectorLayerOp::Sub || l.op == VectorLayerOp::Div)
            l.reversed = r.get<bool>("reversed", false);
        if (l.op == VectorLayerOp::Div && l.second == SecondOperand::Constant && l.constant == 0.0 &&
            !l.reversed)
            r.fail("value", "a Div by the constant 0");
        if (l.op == VectorLayerOp::PRelu && l.second == SecondOperand::Constant && !(l.constant <= 1.0))
            r.fail("value",
                   fmt::format("PRelu runs as max(x, slope·x), which is PRelu for slopes up to 1, not "
                               "{} (that needs a compare and a merge)",
                               l.constant));
    }
    if (op == "Transpose" && (r.has("perm") || r.has("input_dims")))
        readTranspose(r, l);
    if (l.op == VectorLayerOp::HardSigmoid) {
        l.alpha = r.get<double>("alpha", 0.2);
        l.beta = r.get<double>("beta", 0.5);
    }
    if (l.op == VectorLayerOp::LeakyRelu) {
        l.alpha = r.get<double>("alpha", 0.01);
        if (!std::isfinite(l.alpha))
            r.fail("alpha", "expected a finite slope");
    }
    if (l.op == VectorLayerOp::HardSwish) {
        l.alpha = 1.0 / 6.0;
        l.beta = 0.5;
    }
    if (l.op == VectorLayerOp::Clip) {
        l.lo = r.get<double>("min", 0.0);
        l.hi = r.get<double>("max", 6.0);
        if (!(l.lo <= l.hi))
            r.fail("max", fmt::format("Clip's max {} is below its min {}", l.hi, l.lo));
    }
    return l;
}

std::uint64_t RvvVectorLayerEmitter::items(const RvvVectorLayer& l, std::uint32_t vlmax) {
    if (l.transposes()) {
        const TransposeRows t = transposeRows(l);
        return t.rows * strips(t.length, vlmax);
    }
    if (l.softmax())
        return std::uint64_t{l.s.h} * l.s.w;  // a pixel each
    if (l.perPixel())
        return std::uint64_t{l.s.outH()} * l.s.outW() * strips(l.s.channels, vlmax);
    return strips(l.outputs(), vlmax);
}

// Clip's bounds, or Relu's zero, splat once per layer (the loop keeps them in registers).
void RvvVectorLayerEmitter::constants(std::vector<Op>& out) {
    auto splat = [&](std::uint8_t reg, double value) {
        Op b = vectorOp(OpKind::Broadcast, dtype_, vlmax_);
        b.dst = reg;
        b.imm = value;
        out.push_back(b);
    };
    out.push_back(vsetvlOp(dtype_, vlmax_, regs_.vl, kLmul));
    if (l_.op == VectorLayerOp::Relu)
        splat(kOperandB, 0.0);
    if (l_.op == VectorLayerOp::LeakyRelu)
        splat(kOperandB, l_.alpha);
    if (l_.binary() && l_.second == SecondOperand::Constant)
        splat(kOperandB, l_.constant);
    if (l_.op == VectorLayerOp::Clip) {
        splat(kOperandB, l_.lo);
        splat(kUpper, l_.hi);
    }
    // flw of each constant of the pool (vectorLayerConstants) into consecutive scalar registers,
    // used as vector-scalar operands (.vf forms): the hard activations' from firstConstant, the
    // rational ones' from f0.
    const std::size_t pool = vectorLayerConstants(l_, dtype_).size();
    const std::uint8_t first = l_.rational() || l_.softmax() ? regs_.firstFpConstant : regs_.firstConstant;
    for (std::size_t i = 0; i < pool; ++i) {
        Op load;
        load.kind = OpKind::ScalarLoad;
        load.dtype = dtype_;
        load.dst = static_cast<std::uint8_t>(first + i);
        load.space = space_;
        load.addr = constants_ + i * dtypeBytes(dtype_);
        out.push_back(load);
    }
}

bool RvvVectorLayerEmitter::emit(std::vector<Op>& out) {
    if (next_ >= items_.count)
        return false;
    if (!started_) {
        started_ = true;
        constants(out);
        // The loop's count: the thread's elements (a stream) or items (per pixel), counted down.
        const std::uint64_t first = items_.first * vlmax_;
        const bool byItem = l_.perPixel() || l_.transposes() || l_.softmax();
        const double count =
            byItem
                ? static_cast<double>(items_.count)
                : static_cast<double>(std::min(l_.outputs(), (items_.first + items_.count) * vlmax_) - first);
        out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.count, scalarReg(0), count));
        const unsigned elem = dtypeBytes(dtype_);
        if (l_.binary() && l_.second == SecondOperand::Channel)  // the channel values' base
            out.push_back(
                scalarOp(OpKind::SAdd, DType::I32, regs_.srcB, scalarReg(0), static_cast<double>(inB_)));
        if (l_.transposes()) {  // the output runs on, the input is found row by row
            const TransposeRows& t = rows_;
            const std::uint64_t perRow = strips(t.length, vlmax_);
            const std::uint64_t firstOut = items_.first / perRow * t.length + items_.first % perRow * vlmax_;
            out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.dst, scalarReg(0),
                                   static_cast<double>(out_ + firstOut * elem)));
        } else if (!l_.perPixel()) {
            out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.srcA, scalarReg(0),
                                   static_cast<double>(inA_ + first * elem)));
            if (l_.secondElements() > 0)
                out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.srcB, scalarReg(0),
                                       static_cast<double>(inB_ + first * elem)));
            out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.dst, scalarReg(0),
                                   static_cast<double>(out_ + first * elem)));
        }
    }
    // A few items per chunk: chunks stay small whatever the layer.
    for (unsigned n = 0; n < 8 && next_ < items_.count; ++n, ++next_) {
        if (l_.transposes())
            transposeStrip(out, items_.first + next_);
        else if (l_.softmax())
            softmaxPixel(out, items_.first + next_);
        else if (l_.pooling())
            poolItem(out, items_.first + next_);
        else if (l_.perPixel())
            channelItem(out, items_.first + next_);
        else
            elementwiseStrip(out, items_.first + next_);
    }
    return true;
}

// vsetvli; vle (one or two operands); the operation; vse; the pointers and the count advanced by
// vl; bnez.
void RvvVectorLayerEmitter::elementwiseStrip(std::vector<Op>& out, std::uint64_t item) {
    const unsigned elem = dtypeBytes(dtype_);
    const std::uint64_t e0 = item * vlmax_;
    const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax_, l_.outputs() - e0));
    const std::uint64_t left = std::min(l_.outputs(), (items_.first + items_.count) * vlmax_) - e0;
    Op setvl = vsetvlOp(dtype_, static_cast<std::uint32_t>(std::min<std::uint64_t>(left, 1u << 30)), regs_.vl,
                        kLmul);
    setvl.src[0] = regs_.count;
    out.push_back(setvl);
    Op a = vectorLoad(dtype_, kOperandA, space_, inA_ + e0 * elem, vl);
    a.base = regs_.srcA;
    out.push_back(a);
    if (l_.secondElements() > 0) {
        Op b = vectorLoad(dtype_, kOperandB, space_, inB_ + e0 * elem, vl);
        b.base = regs_.srcB;
        out.push_back(b);
    }
    auto binary = [&](OpKind kind, std::uint8_t x, std::uint8_t y) {
        Op op = vectorOp(kind, dtype_, vl);
        op.dst = kResult;
        op.src[0] = x;
        op.src[1] = y;
        out.push_back(op);
    };
    std::uint8_t result = kResult;
    switch (l_.op) {
    case VectorLayerOp::Copy: result = kOperandA; break;  // stored as loaded
    case VectorLayerOp::Relu: binary(OpKind::Max, kOperandA, kOperandB); break;
    case VectorLayerOp::LeakyRelu:  // vfmul.vv by the splat slope, vfmax.vv (vfmin for a slope > 1)
        binary(OpKind::Mul, kOperandA, kOperandB);
        binary(l_.leakyKeep(), kResult, kOperandA);
        break;
    case VectorLayerOp::Clip:
        binary(OpKind::Max, kOperandA, kOperandB);
        binary(OpKind::Min, kResult, kUpper);
        break;
    case VectorLayerOp::HardSigmoid:
    case VectorLayerOp::HardSwish: {
        // vfmv.v.v + vfmadd.vf (alpha·x + beta), vfmax.vf 0, vfmin.vf 1; HardSwish then · x.
        const auto k = [&](unsigned i) { return static_cast<std::uint8_t>(regs_.firstConstant + i); };
        Op fma = vectorOp(OpKind::Fma, dtype_, vl);
        fma.dst = kResult;
        fma.src[0] = kOperandA;
        fma.src[1] = k(0);
        fma.src[2] = k(1);
        out.push_back(fma);
        binary(OpKind::Max, kResult, k(2));
        binary(OpKind::Min, kResult, k(3));
        if (l_.op == VectorLayerOp::HardSwish)
            binary(OpKind::Mul, kResult, kOperandA);
        break;
    }
    case VectorLayerOp::Tanh:
    case VectorLayerOp::Sigmoid: rationalActivation(out, vl); break;
    default:  // Add, Sub, Mul, Div (reversed: vfsub.vv / vfdiv.vv with the operands swapped); PRelu:
              // vfmul.vv by the slopes, vfmax.vv with x
        if (l_.reversed)
            binary(l_.binaryKind(), kOperandB, kOperandA);
        else
            binary(l_.binaryKind(), kOperandA, kOperandB);
        if (l_.keepsLargerWithX())
            binary(OpKind::Max, kResult, kOperandA);
        break;
    }
    Op store = vectorStore(dtype_, result, space_, out_ + e0 * elem, vl);
    store.base = regs_.dst;
    out.push_back(store);
    const double step = static_cast<double>(vl) * elem;
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.srcA, regs_.srcA, step));
    if (l_.secondElements() > 0)
        out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.srcB, regs_.srcB, step));
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.dst, regs_.dst, step));
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.count, regs_.count, -static_cast<double>(vl)));
    out.push_back(branchOp(DType::I32, regs_.count, left > vl));
}

// x in v8 → the result in v0 (RationalTanh): the sigmoid's vfmul.vf by 0.5 first; vfmin.vf and
// vfmax.vf (the clamp); vfmul.vv (y = x², v16); Horner for p (v24) and q (v0) with vfmul.vf/.vv
// and vfadd.vf; vfmul.vv by x; vfdiv.vv; the sigmoid's vfmul.vf and vfadd.vf by 0.5 last.
void RvvVectorLayerEmitter::rationalActivation(std::vector<Op>& out, std::uint32_t vl) {
    const RationalTanh& r = rationalTanh(dtype_);
    const auto k = [&](std::size_t i) { return static_cast<std::uint8_t>(regs_.firstFpConstant + i); };
    const auto pAt = [&](std::size_t i) { return k(kFirstP + i); };
    const auto qAt = [&](std::size_t i) { return k(kFirstP + r.p.size() + i - 1); };  // q[0] = 1 is kOne
    auto op = [&](OpKind kind, std::uint8_t dst, std::uint8_t a, std::uint8_t b) {
        Op o = vectorOp(kind, dtype_, vl);
        o.dst = dst;
        o.src[0] = a;
        o.src[1] = b;
        out.push_back(o);
    };
    const bool sigmoid = l_.op == VectorLayerOp::Sigmoid;
    if (sigmoid)
        op(OpKind::Mul, kOperandA, kOperandA, k(kHalf));
    op(OpKind::Min, kOperandA, kOperandA, k(kClamp));
    op(OpKind::Max, kOperandA, kOperandA, k(kNegClamp));
    op(OpKind::Mul, kOperandB, kOperandA, kOperandA);
    op(OpKind::Mul, kUpper, kOperandB, pAt(r.p.size() - 1));
    for (std::size_t i = r.p.size() - 2; i > 0; --i) {
        op(OpKind::Add, kUpper, kUpper, pAt(i));
        op(OpKind::Mul, kUpper, kUpper, kOperandB);
    }
    op(OpKind::Add, kUpper, kUpper, pAt(0));
    op(OpKind::Mul, kResult, kOperandB, qAt(r.q.size() - 1));
    for (std::size_t i = r.q.size() - 2; i > 0; --i) {
        op(OpKind::Add, kResult, kResult, qAt(i));
        op(OpKind::Mul, kResult, kResult, kOperandB);
    }
    op(OpKind::Add, kResult, kResult, k(kOne));
    op(OpKind::Mul, kUpper, kUpper, kOperandA);
    op(OpKind::Div, kResult, kUpper, kResult);
    if (sigmoid) {
        op(OpKind::Mul, kResult, kResult, k(kHalf));
        op(OpKind::Add, kResult, kResult, k(kHalf));
    }
}

// Item `item` of a per-pixel layer as (output pixel, first channel of its strip, strip length),
// with the vsetvli that sets the strip's vl.
RvvVectorLayerEmitter::PixelStrip RvvVectorLayerEmitter::pixelStrip(std::vector<Op>& out,
                                                                    std::uint64_t item) {
    const std::uint64_t perPixel = strips(l_.s.channels, vlmax_);
    PixelStrip p{item / perPixel, item % perPixel * vlmax_, 0};
    p.vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax_, l_.s.channels - p.c0));
    out.push_back(vsetvlOp(dtype_, p.vl, regs_.vl, kLmul));
    return p;
}

// One output pixel's strip of channels: the first tap loaded into the accumulator, each further
// tap loaded and maxed or added into it, an average scaled by 1/taps; stored; the count down.
void RvvVectorLayerEmitter::poolItem(std::vector<Op>& out, std::uint64_t item) {
    const ConvShape& s = l_.s;
    const unsigned elem = dtypeBytes(dtype_);
    // Plain locals, not a structured binding: the tap lambda captures them (C++17 lambdas cannot
    // capture structured bindings; clang refuses it).
    const PixelStrip strip = pixelStrip(out, item);
    const std::uint64_t pixel = strip.pixel, c0 = strip.c0;
    const std::uint32_t vl = strip.vl;
    const std::uint64_t origin = inA_ + c0 * elem;
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.srcA, scalarReg(0), static_cast<double>(origin)));
    std::uint64_t taps = 0;
    forEachInputTap(s, pixel, [&](std::uint64_t at, std::uint64_t) {
        Op load =
            vectorLoad(dtype_, taps == 0 ? kResult : kOperandA, space_, origin + at * s.channels * elem, vl);
        load.base = regs_.srcA;
        out.push_back(load);
        if (taps++ > 0) {
            Op op = vectorOp(l_.maximum() ? OpKind::Max : OpKind::Add, dtype_, vl);
            op.dst = kResult;
            op.src[0] = kResult;
            op.src[1] = kOperandA;
            out.push_back(op);
        }
    });
    if (!l_.maximum()) {
        if (taps != reciprocalOf_) {
            reciprocalOf_ = taps;
            Op b = vectorOp(OpKind::Broadcast, dtype_, vlmax_);
            b.dst = kOperandB;
            b.imm = 1.0 / static_cast<double>(taps);
            out.push_back(b);
        }
        Op scale = vectorOp(OpKind::Mul, dtype_, vl);
        scale.dst = kResult;
        scale.src[0] = kResult;
        scale.src[1] = kOperandB;
        out.push_back(scale);
    }
    out.push_back(vectorStore(dtype_, kResult, space_, out_ + (pixel * s.channels + c0) * elem, vl));
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.count, regs_.count, -1.0));
    out.push_back(branchOp(DType::I32, regs_.count, item + 1 < items_.first + items_.count));
}

// One output pixel's strip of channels of an Add or Mul whose second operand is one value per
// channel: the pixel's strip and the channels' values loaded (an L1 hit after the first pixel),
// combined, stored; the count down.
void RvvVectorLayerEmitter::channelItem(std::vector<Op>& out, std::uint64_t item) {
    const ConvShape& s = l_.s;
    const unsigned elem = dtypeBytes(dtype_);
    const auto [pixel, c0, vl] = pixelStrip(out, item);
    const std::uint64_t at = (pixel * s.channels + c0) * elem;
    out.push_back(
        scalarOp(OpKind::SAdd, DType::I32, regs_.srcA, scalarReg(0), static_cast<double>(inA_ + at)));
    Op a = vectorLoad(dtype_, kOperandA, space_, inA_ + at, vl);
    a.base = regs_.srcA;
    out.push_back(a);
    Op b = vectorLoad(dtype_, kOperandB, space_, inB_ + c0 * elem, vl);
    b.base = regs_.srcB;
    out.push_back(b);
    Op op = vectorOp(l_.binaryKind(), dtype_, vl);
    op.dst = kResult;
    op.src[0] = l_.reversed ? kOperandB : kOperandA;
    op.src[1] = l_.reversed ? kOperandA : kOperandB;
    out.push_back(op);
    if (l_.keepsLargerWithX()) {  // PRelu: max(x, slope·x)
        Op keep = vectorOp(OpKind::Max, dtype_, vl);
        keep.dst = kResult;
        keep.src[0] = kResult;
        keep.src[1] = kOperandA;
        out.push_back(keep);
    }
    out.push_back(vectorStore(dtype_, kResult, space_, out_ + at, vl));
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.count, regs_.count, -1.0));
    out.push_back(branchOp(DType::I32, regs_.count, item + 1 < items_.first + items_.count));
}

// One strip of a row of a Transpose: the row's first input element's address at its start; a
// strided load (vlse, unit stride where the row runs along the input's innermost axis) and a
// unit-stride store; the pointers and the count advanced; bnez.
void RvvVectorLayerEmitter::transposeStrip(std::vector<Op>& out, std::uint64_t item) {
    const unsigned elem = dtypeBytes(dtype_);
    const TransposeRows& t = rows_;
    const std::uint64_t perRow = strips(t.length, vlmax_);
    const std::uint64_t row = item / perRow, e0 = item % perRow * vlmax_;
    const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax_, t.length - e0));
    out.push_back(vsetvlOp(dtype_, vl, regs_.vl, kLmul));
    const std::uint64_t source = inA_ + (transposeSource(l_, row * t.length) + e0 * t.stride) * elem;
    if (e0 == 0 || item == items_.first)  // a row's start, or where the thread's slice starts
        out.push_back(
            scalarOp(OpKind::SAdd, DType::I32, regs_.srcA, scalarReg(0), static_cast<double>(source)));
    Op load = vectorLoad(dtype_, kOperandA, space_, source, vl);
    load.stride = t.stride == 1 ? 0 : static_cast<std::int64_t>(t.stride * elem);
    load.base = regs_.srcA;
    out.push_back(load);
    Op store = vectorStore(dtype_, kOperandA, space_, out_ + (row * t.length + e0) * elem, vl);
    store.base = regs_.dst;
    out.push_back(store);
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.srcA, regs_.srcA,
                           static_cast<double>(vl * t.stride * elem)));
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.dst, regs_.dst, static_cast<double>(vl) * elem));
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.count, regs_.count, -1.0));
    out.push_back(branchOp(DType::I32, regs_.count, item + 1 < items_.first + items_.count));
}

// One pixel of a Softmax over its C channels, in three passes over strips of vlmax: the largest
// (vle, vfredmax into f_max); exp(x − max) by scaling and squaring (vle, vfsub.vf, vfmax.vf by the
// clamp, vfmul.vf by 2^−n, vfmadd.vf then vfmacc by the coefficients, n vfmul.vv), stored and summed
// (vfredusum into f_sum); the sum's reciprocal (fdiv), and each stored exp scaled by it (vle,
// vfmul.vf, vse; in f16 divided by the sum, vfdiv.vf). The count down and bnez after the pixel.
void RvvVectorLayerEmitter::softmaxPixel(std::vector<Op>& out, std::uint64_t pixel) {
    const unsigned elem = dtypeBytes(dtype_);
    const std::uint64_t channels = l_.s.channels;
    const std::uint64_t base = pixel * channels * elem;
    const ExpBySquaring& e = expBySquaring(dtype_);
    const std::size_t pool = vectorLayerConstants(l_, dtype_).size();
    const auto k = [&](std::size_t i) { return static_cast<std::uint8_t>(regs_.firstFpConstant + i); };
    const std::uint8_t fMax = k(pool), fSum = k(pool + 1), fRecip = k(pool + 2);
    auto strips3 = [&](auto body) {
        for (std::uint64_t c0 = 0; c0 < channels; c0 += vlmax_) {
            const auto vl = static_cast<std::uint32_t>(std::min<std::uint64_t>(vlmax_, channels - c0));
            out.push_back(vsetvlOp(dtype_, vl, regs_.vl, kLmul));
            body(c0, vl);
        }
    };
    auto vop = [&](OpKind kind, std::uint8_t dst, std::uint8_t a, std::uint8_t b, std::uint32_t vl,
                   std::uint8_t c = kNoReg) {
        Op op = vectorOp(kind, dtype_, vl);
        op.dst = dst;
        op.src[0] = a;
        op.src[1] = b;
        op.src[2] = c;
        out.push_back(op);
    };
    auto reduce = [&](std::uint8_t dst, std::uint8_t from, bool first, bool max, std::uint32_t vl) {
        Op r = vectorOp(OpKind::Reduce, dtype_, vl);
        r.dst = dst;
        r.src[0] = from;
        r.src[1] = first ? kNoReg : dst;
        if (max)
            r.count = kReduceMax;
        out.push_back(r);
    };
    out.push_back(
        scalarOp(OpKind::SAdd, DType::I32, regs_.srcA, scalarReg(0), static_cast<double>(inA_ + base)));
    out.push_back(
        scalarOp(OpKind::SAdd, DType::I32, regs_.dst, scalarReg(0), static_cast<double>(out_ + base)));
    strips3([&](std::uint64_t c0, std::uint32_t vl) {
        Op x = vectorLoad(dtype_, kOperandA, space_, inA_ + base + c0 * elem, vl);
        x.base = regs_.srcA;
        out.push_back(x);
        reduce(fMax, kOperandA, c0 == 0, true, vl);
    });
    strips3([&](std::uint64_t c0, std::uint32_t vl) {
        Op x = vectorLoad(dtype_, kOperandA, space_, inA_ + base + c0 * elem, vl);
        x.base = regs_.srcA;
        out.push_back(x);
        vop(OpKind::Sub, kOperandA, kOperandA, fMax, vl);
        vop(OpKind::Max, kOperandA, kOperandA, k(kExpLowest), vl);
        vop(OpKind::Mul, kOperandA, kOperandA, k(kExpScale), vl);
        vop(OpKind::Fma, kOperandB, kOperandA, k(kExpFirstCoefficient), vl, k(kExpFirstCoefficient + 1));
        for (unsigned i = 2; i <= e.degree; ++i)
            vop(OpKind::Fma, kOperandB, kOperandB, kOperandA, vl, k(kExpFirstCoefficient + i));
        for (unsigned s = 0; s < e.squarings; ++s)
            vop(OpKind::Mul, kOperandB, kOperandB, kOperandB, vl);
        Op store = vectorStore(dtype_, kOperandB, space_, out_ + base + c0 * elem, vl);
        store.base = regs_.dst;
        out.push_back(store);
        reduce(fSum, kOperandB, c0 == 0, false, vl);
    });
    // f16: the scalar FPU has no f16 (no Zfh): each exp divided by the sum (vfdiv.vf) instead.
    const bool divideEach = dtype_ == DType::F16;
    if (!divideEach) {
        Op recip = scalarOp(OpKind::FDiv, dtype_, fRecip, k(kExpFirstCoefficient + e.degree), 0.0);
        recip.src[1] = fSum;
        out.push_back(recip);
    }
    strips3([&](std::uint64_t c0, std::uint32_t vl) {
        Op y = vectorLoad(dtype_, kOperandB, space_, out_ + base + c0 * elem, vl);
        y.base = regs_.dst;
        out.push_back(y);
        if (divideEach)
            vop(OpKind::Div, kOperandB, kOperandB, fSum, vl);
        else
            vop(OpKind::Mul, kOperandB, kOperandB, fRecip, vl);
        Op store = vectorStore(dtype_, kOperandB, space_, out_ + base + c0 * elem, vl);
        store.base = regs_.dst;
        out.push_back(store);
    });
    out.push_back(scalarOp(OpKind::SAdd, DType::I32, regs_.count, regs_.count, -1.0));
    out.push_back(branchOp(DType::I32, regs_.count, pixel + 1 < items_.first + items_.count));
}

std::vector<double> vectorLayerConstants(const RvvVectorLayer& l, DType dtype) {
    if (l.hard())
        return {l.alpha, l.beta, 0.0, 1.0};
    if (l.softmax()) {
        const ExpBySquaring& e = expBySquaring(dtype);
        std::vector<double> pool{e.lowest, std::ldexp(1.0, -static_cast<int>(e.squarings))};
        const std::vector<double> c = expCoefficients(e);
        pool.insert(pool.end(), c.begin(), c.end());
        return pool;
    }
    if (!l.rational())
        return {};
    const RationalTanh& r = rationalTanh(dtype);
    std::vector<double> pool{r.clamp, -r.clamp, 0.5, 1.0};
    pool.insert(pool.end(), r.p.begin(), r.p.end());
    pool.insert(pool.end(), r.q.begin() + 1, r.q.end());
    return pool;
}

double vectorLayerReference(const RvvVectorLayer& l, DType dtype, std::uint64_t i, std::uint64_t saltA,
                            std::uint64_t saltB, DivideIn divide) {
    if (l.softmax()) {  // the pixel's largest, its exps summed in channel order, the reciprocal
        const std::uint64_t channels = l.s.channels, first = i / channels * channels;
        double largest = testValue(dtype, first, saltA);
        for (std::uint64_t c = 1; c < channels; ++c)
            largest = std::max(largest, testValue(dtype, first + c, saltA));
        double sum = 0.0, mine = 0.0;
        for (std::uint64_t c = 0; c < channels; ++c) {
            const double e =
                expBySquaringIn(dtype, addIn(dtype, testValue(dtype, first + c, saltA), -largest));
            sum = addIn(dtype, sum, e);
            if (first + c == i)
                mine = e;
        }
        return dtype == DType::F16 ? divIn(dtype, mine, sum) : mulIn(dtype, mine, divIn(dtype, 1.0, sum));
    }
    if (!l.pooling()) {
        double a = testValue(dtype, l.transposes() ? transposeSource(l, i) : i, saltA);
        switch (l.op) {
        case VectorLayerOp::Copy: return a;
        case VectorLayerOp::Relu: return roundTo(dtype, std::max(a, 0.0));
        case VectorLayerOp::LeakyRelu: {
            const double scaled = mulIn(dtype, a, roundTo(dtype, l.alpha));
            return l.alpha <= 1.0 ? std::max(a, scaled) : std::min(a, scaled);
        }
        case VectorLayerOp::Clip:
            return roundTo(dtype, std::min(std::max(a, roundTo(dtype, l.lo)), roundTo(dtype, l.hi)));
        case VectorLayerOp::Tanh:
        case VectorLayerOp::Sigmoid:
            return rationalActivation(l.op == VectorLayerOp::Sigmoid, dtype, a, divide);
        case VectorLayerOp::HardSigmoid:
        case VectorLayerOp::HardSwish: {
            const double hs = std::min(
                std::max(fmaIn(dtype, a, roundTo(dtype, l.alpha), roundTo(dtype, l.beta)), 0.0), 1.0);
            return l.op == VectorLayerOp::HardSwish ? mulIn(dtype, hs, a) : hs;
        }
        default: {
            double b = l.second == SecondOperand::Constant  ? roundTo(dtype, l.constant)
                       : l.second == SecondOperand::Channel ? testValue(dtype, i % l.s.channels, saltB)
                                                            : testValue(dtype, i, saltB);
            if (l.op == VectorLayerOp::PRelu)
                return std::max(a, mulIn(dtype, a, b));
            if (l.reversed)  // Sub, Div: b − a, b / a
                std::swap(a, b);
            return l.op == VectorLayerOp::Add   ? addIn(dtype, a, b)
                   : l.op == VectorLayerOp::Sub ? addIn(dtype, a, -b)
                   : l.op == VectorLayerOp::Div ? divide(dtype, a, b)
                                                : mulIn(dtype, a, b);
        }
        }
    }
    const ConvShape& s = l.s;
    const std::uint64_t pixel = i / s.channels, c = i % s.channels;
    double acc = 0.0;
    std::uint64_t taps = 0;
    forEachInputTap(s, pixel, [&](std::uint64_t at, std::uint64_t) {
        const double x = testValue(dtype, at * s.channels + c, saltA);
        acc = taps++ == 0 ? x : l.maximum() ? roundTo(dtype, std::max(acc, x)) : addIn(dtype, acc, x);
    });
    return l.maximum() ? acc : mulIn(dtype, acc, roundTo(dtype, 1.0 / static_cast<double>(taps)));
}

}  // namespace tessim
