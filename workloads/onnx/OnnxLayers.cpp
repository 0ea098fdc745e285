#include "workloads/onnx/OnnxLayers.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

using config::ConfigError;
using config::Location;
using config::Node;

// A layer of the conv2d kernel, or the reason a MAC node cannot be one.
struct ConvLayer {
    std::uint64_t h = 0, w = 0, channels = 0, filters = 0, kh = 1, kw = 1, strideH = 1, strideW = 1, padH = 0,
                  padW = 0, groups = 1;
};
// Images a batched node runs one after the other (a layer row per image).
constexpr std::int64_t kMaxBatch = 64;

struct Mapped {
    std::optional<ConvLayer> layer;
    // A dilated convolution's phases (see mapConv), each a layer of its own; empty otherwise.
    std::vector<ConvLayer> phases;
    std::uint64_t batch = 1;
    std::string reason;
    std::uint64_t macs = 0;  // known even when refused, where the shapes are
};

const OnnxTensor* known(const OnnxGraph& g, const OnnxNode& n, std::size_t input) {
    if (input >= n.inputs.size() || n.inputs[input].empty())
        return nullptr;
    const OnnxTensor* t = g.tensor(n.inputs[input]);
    return t && t->known() ? t : nullptr;
}
const OnnxTensor* knownOutput(const OnnxGraph& g, const OnnxNode& n) {
    const OnnxTensor* t = n.outputs.empty() ? nullptr : g.tensor(n.outputs[0]);
    return t && t->known() ? t : nullptr;
}

bool allEqual(const std::vector<std::int64_t>& v, std::int64_t value) {
    return std::all_of(v.begin(), v.end(), [&](std::int64_t x) { return x == value; });
}

// A value per axis as the conv2d kernel reads it: `both` where the axes agree, else `rows` and
// `columns` (k or kh/kw, stride or stride_h/stride_w, pad or pad_h/pad_w), each handed to put.
template <class Put>
void putPerAxis(Put put, const char* both, const char* rows, const char* columns, std::uint64_t h,
                std::uint64_t w) {
    if (h == w) {
        put(both, h);
    } else {
        put(rows, h);
        put(columns, w);
    }
}

// The conv2d kernel's limits (workloads/conv: readShape): why a layer is outside them, or "".
std::string outOfRange(const ConvLayer& l) {
    if (l.h == 0 || l.w == 0 || l.channels == 0 || l.filters == 0)
        return fmt::format("an empty tensor ({}×{} image, {} channels, {} filters)", l.h, l.w, l.channels,
                           l.filters);
    if (l.h > 65536 || l.w > 65536)
        return fmt::format("a {}×{} image exceeds the conv2d kernel's 65536", l.h, l.w);
    if (l.channels > 65535 || l.filters > 65535)
        return fmt::format("{} channels / {} filters exceed the conv2d kernel's 65535", l.channels,
                           l.filters);
    if (l.kh == 0 || l.kh > 255 || l.kw == 0 || l.kw > 255 || l.strideH == 0 || l.strideH > 255 ||
        l.strideW == 0 || l.strideW > 255 || l.padH > 255 || l.padW > 255)
        return "kernel or stride outside 1..255, or padding above 255";
    if (l.groups == 0 || l.channels % l.groups != 0 || l.filters % l.groups != 0)
        return fmt::format("group {} does not divide {} channels and {} filters", l.groups, l.channels,
                           l.filters);
    if (l.h + 2 * l.padH < l.kh || l.w + 2 * l.padW < l.kw)
        return "the kernel does not fit the padded input";
    return "";
}

// The input that holds a convolution's or matrix product's weights: 1 (Conv, ConvInteger, Gemm,
// MatMul, MatMulInteger), 3 for the quantised ops (QLinearConv, QLinearMatMul: x, x_scale,
// x_zero_point, w, …); 0 for any other op.
std::size_t macWeightInput(const std::string& op) {
    if (op == "Conv" || op == "ConvInteger" || op == "Gemm" || op == "MatMul" || op == "MatMulInteger")
        return 1;
    return op == "QLinearConv" || op == "QLinearMatMul" ? 3 : 0;
}
bool convolutionOp(const std::string& op) {
    return op == "Conv" || op == "ConvInteger" || op == "QLinearConv";
}

Mapped mapConv(const OnnxGraph& g, const OnnxNode& n) {
    Mapped m;
    const OnnxTensor *x = known(g, n, 0), *w = known(g, n, macWeightInput(n.op));
    if (!x || !w || x->dims.size() != 4 || w->dims.size() != 4) {
        m.reason = "a 2-D Conv with known shapes is needed (input N×C×H×W, weights M×C/group×kH×kW)";
        return m;
    }
    const std::int64_t group = n.intAttribute("group", 1);
    const std::int64_t kh = w->dims[2], kw = w->dims[3];
    std::vector<std::int64_t> strides =
        n.ints.count("strides") ? n.ints.at("strides") : std::vector<std::int64_t>{1, 1};
    std::vector<std::int64_t> dilations =
        n.ints.count("dilations") ? n.ints.at("dilations") : std::vector<std::int64_t>{1, 1};
    std::vector<std::int64_t> pads =
        n.ints.count("pads") ? n.ints.at("pads") : std::vector<std::int64_t>{0, 0, 0, 0};
    const std::string autoPad = n.strings.count("auto_pad") ? n.strings.at("auto_pad") : "NOTSET";
    // Each output element takes C/group·kH·kW MACs (dims of known shapes are never negative).
    if (const OnnxTensor* y = knownOutput(g, n); y && y->dims.size() == 4 && group >= 1)
        m.macs = saturatingProduct(
            saturatingProduct(y->elements(), static_cast<std::uint64_t>(x->dims[1] / group)),
            saturatingProduct(static_cast<std::uint64_t>(kh), static_cast<std::uint64_t>(kw)));
    if (x->dims[0] < 1 || x->dims[0] > kMaxBatch) {
        m.reason = fmt::format("batch {}: a batch of 1 to {} images runs, one layer per image", x->dims[0],
                               kMaxBatch);
        return m;
    }
    m.batch = static_cast<std::uint64_t>(x->dims[0]);
    if (group < 1 || x->dims[1] % group != 0 || x->dims[1] / group != w->dims[1]) {
        m.reason = fmt::format("{} input channels do not match group {} × {} weight channels", x->dims[1],
                               group, w->dims[1]);
        return m;
    }
    if (dilations.size() == 2 &&
        (dilations[0] < 1 || dilations[1] < 1 || dilations[0] > 255 || dilations[1] > 255)) {
        m.reason = fmt::format("dilations {}×{} outside 1..255", dilations[0], dilations[1]);
        return m;
    }
    if (dilations.size() != 2 ||
        (n.ints.count("kernel_shape") && n.ints.at("kernel_shape") != std::vector<std::int64_t>{kh, kw})) {
        m.reason =
            fmt::format("dilations or kernel_shape that do not describe the weights' {}×{} kernel", kh, kw);
        return m;
    }
    const std::int64_t dh = dilations[0], dw = dilations[1];
    if (strides.size() != 2) {
        m.reason = "strides that are not two values (H, W)";
        return m;
    }
    const std::int64_t s[2] = {strides[0], strides[1]};  // H, W
    // Checked before the padding arithmetic below, which they keep far from overflow.
    if (s[0] < 1 || s[0] > 255 || s[1] < 1 || s[1] > 255 || kh < 1 || kh > 255 || kw < 1 || kw > 255 ||
        x->dims[2] > 65536 || x->dims[3] > 65536) {
        m.reason = fmt::format("strides {}×{} or kernel {}×{} outside 1..255, or a {}×{} image above 65536",
                               s[0], s[1], kh, kw, x->dims[2], x->dims[3]);
        return m;
    }
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
        m.reason = fmt::format(
            "auto_pad '{}', which ONNX does not define (NOTSET, SAME_UPPER, SAME_LOWER, VALID)", autoPad);
        return m;
    }
    if (autoPad == "VALID") {
        pads = {0, 0, 0, 0};
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        pads.clear();
        for (std::size_t d = 0; d < 2; ++d) {
            const std::int64_t in = x->dims[2 + d], out = (in + s[d] - 1) / s[d];
            const std::int64_t span = d == 0 ? dh * (kh - 1) + 1 : dw * (kw - 1) + 1;  // the dilated kernel
            const std::int64_t total = std::max<std::int64_t>((out - 1) * s[d] + span - in, 0);
            pads.push_back(autoPad == "SAME_UPPER" ? total / 2 : total - total / 2);
            pads.push_back(total - pads.back());
        }
        pads = {pads[0], pads[2], pads[1], pads[3]};  // begin H, begin W, end H, end W
    }
    // pads: begin H, begin W, end H, end W.
    if (pads.size() != 4) {
        m.reason = "pads that are not four values (begin H, begin W, end H, end W)";
        return m;
    }
    if (*std::min_element(pads.begin(), pads.end()) < 0 ||
        *std::max_element(pads.begin(), pads.end()) > 255) {
        m.reason = fmt::format("{} padding {}, {}, {}, {} (begin H, begin W, end H, end W; 0..255 each)",
                               *std::min_element(pads.begin(), pads.end()) < 0 ? "negative" : "too much",
                               pads[0], pads[1], pads[2], pads[3]);
        return m;
    }
    // The kernel pads both sides of a dimension alike: a dimension padded more on one side runs
    // as its input grown by the difference (zero rows or columns read from memory) with the smaller
    // padding on both sides — the same outputs and MACs.
    const std::int64_t growH = std::abs(pads[0] - pads[2]), growW = std::abs(pads[1] - pads[3]);
    ConvLayer l;
    l.h = static_cast<std::uint64_t>(x->dims[2] + growH);
    l.w = static_cast<std::uint64_t>(x->dims[3] + growW);
    l.channels = static_cast<std::uint64_t>(x->dims[1]);
    l.filters = static_cast<std::uint64_t>(w->dims[0]);
    l.kh = static_cast<std::uint64_t>(kh);
    l.kw = static_cast<std::uint64_t>(kw);
    l.strideH = static_cast<std::uint64_t>(s[0]);
    l.strideW = static_cast<std::uint64_t>(s[1]);
    l.padH = static_cast<std::uint64_t>(std::min(pads[0], pads[2]));
    l.padW = static_cast<std::uint64_t>(std::min(pads[1], pads[3]));
    l.groups = static_cast<std::uint64_t>(group);
    if (std::string r = outOfRange(l); !r.empty()) {
        m.reason = r;
        return m;
    }
    if (dh == 1 && dw == 1) {
        m.layer = l;
        return m;
    }
    // Dilation: output row i reads the padded input's rows s·i + dh·u. With g = gcd(s, dh), the
    // rows i ≡ a (mod dh/g) all read rows ≡ s·a (mod dh): each such class is a convolution of the
    // input subsampled by dh, at stride s/g, through the undilated kernel (the polyphase, or
    // space-to-batch, decomposition accelerators use for atrous convolution); columns alike, each
    // axis with its own stride. So (dh/gh)·(dw/gw) phases, the same MACs in all, the padding inside
    // the phases' inputs; at stride 1, dh·dw phases of stride 1.
    const std::int64_t gh = std::gcd(s[0], dh), gw = std::gcd(s[1], dw);
    const std::int64_t sh = s[0] / gh, sw = s[1] / gw, phasesH = dh / gh, phasesW = dw / gw;
    const std::int64_t hp = x->dims[2] + pads[0] + pads[2], wp = x->dims[3] + pads[1] + pads[3];
    const std::int64_t spanH = dh * (kh - 1) + 1, spanW = dw * (kw - 1) + 1;
    if (hp < spanH || wp < spanW) {
        m.reason = "the dilated kernel does not fit the padded input";
        return m;
    }
    const std::int64_t ho = (hp - spanH) / s[0] + 1, wo = (wp - spanW) / s[1] + 1;
    for (std::int64_t a = 0; a < std::min(phasesH, ho); ++a)
        for (std::int64_t b = 0; b < std::min(phasesW, wo); ++b) {
            const std::int64_t rows = (ho - a + phasesH - 1) / phasesH,
                               cols = (wo - b + phasesW - 1) / phasesW;
            ConvLayer p = l;
            p.h = static_cast<std::uint64_t>(sh * (rows - 1) + kh);
            p.w = static_cast<std::uint64_t>(sw * (cols - 1) + kw);
            p.strideH = static_cast<std::uint64_t>(sh);
            p.strideW = static_cast<std::uint64_t>(sw);
            p.padH = p.padW = 0;
            if (std::string r = outOfRange(p); !r.empty()) {
                m.reason = r;
                return m;
            }
            m.phases.push_back(p);
        }
    return m;
}

// Gemm and MatMul (and the quantised MatMulInteger, QLinearMatMul): M×K times K×N as a 1×1
// convolution of an M×1 image (K channels, N filters).
Mapped mapMatrixProduct(const OnnxGraph& g, const OnnxNode& n) {
    Mapped m;
    const OnnxTensor *a = known(g, n, 0), *b = known(g, n, macWeightInput(n.op));
    if (!a || !b) {
        m.reason = "operand shapes unknown after shape inference";
        return m;
    }
    std::uint64_t rows = 0, k = 0, bk = 0, cols = 0;
    if (n.op == "Gemm") {
        if (a->dims.size() != 2 || b->dims.size() != 2) {
            m.reason = "Gemm operands must be matrices";
            return m;
        }
        const bool ta = n.intAttribute("transA", 0) != 0, tb = n.intAttribute("transB", 0) != 0;
        rows = static_cast<std::uint64_t>(a->dims[ta ? 1 : 0]);
        k = static_cast<std::uint64_t>(a->dims[ta ? 0 : 1]);
        bk = static_cast<std::uint64_t>(b->dims[tb ? 1 : 0]);
        cols = static_cast<std::uint64_t>(b->dims[tb ? 0 : 1]);
    } else {
        if (b->dims.size() < 2 || a->dims.empty()) {
            m.reason = "MatMul with a 1-D operand";
            m.macs = saturatingProduct(a->elements(),
                                       b->dims.empty() ? 1 : static_cast<std::uint64_t>(b->dims.back()));
            return m;
        }
        k = static_cast<std::uint64_t>(a->dims.back());
        bk = static_cast<std::uint64_t>(b->dims[b->dims.size() - 2]);
        cols = static_cast<std::uint64_t>(b->dims.back());
        if (b->dims.size() == 2) {
            rows = a->elements() / std::max<std::uint64_t>(k, 1);
        } else {
            // Batched (…×M×K times …×K×N, attention's Q·Kᵀ): one product per matrix of the batch,
            // each a layer; A's leading dimensions equal B's, or A is one matrix for all of them.
            std::uint64_t batchB = 1, batchA = 1;
            for (std::size_t d = 0; d + 2 < b->dims.size(); ++d)
                batchB = saturatingProduct(batchB, static_cast<std::uint64_t>(b->dims[d]));
            for (std::size_t d = 0; d + 2 < a->dims.size(); ++d)
                batchA = saturatingProduct(batchA, static_cast<std::uint64_t>(a->dims[d]));
            rows = a->dims.size() >= 2 ? static_cast<std::uint64_t>(a->dims[a->dims.size() - 2]) : 1;
            m.macs = saturatingProduct(saturatingProduct(saturatingProduct(batchB, rows), k), cols);
            if (batchA != batchB && batchA != 1) {
                m.reason = fmt::format("a batch of {} matrices against one of {}: only equal batches or one "
                                       "first matrix for all run",
                                       batchA, batchB);
                return m;
            }
            if (batchB < 1 || batchB > static_cast<std::uint64_t>(kMaxBatch)) {
                m.reason =
                    fmt::format("a batch of {} products: 1 to {} run, one layer each", batchB, kMaxBatch);
                return m;
            }
            m.batch = batchB;
        }
    }
    if (k != bk) {
        m.reason = fmt::format("inner dimensions differ ({} and {})", k, bk);
        return m;
    }
    m.macs = saturatingProduct(saturatingProduct(saturatingProduct(m.batch, rows), k), cols);
    ConvLayer l;
    l.h = rows;
    l.w = 1;
    l.channels = k;
    l.filters = cols;
    if (std::string r = outOfRange(l); !r.empty()) {
        m.reason = r;
        return m;
    }
    m.layer = l;
    return m;
}

std::uint64_t saturatingSum(std::uint64_t a, std::uint64_t b) {
    return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max()
                                                             : a + b;
}

std::uint64_t tensorBytes(const OnnxGraph& g, const std::vector<std::string>& names, bool& unknown) {
    std::uint64_t bytes = 0;
    for (const auto& name : names) {
        if (name.empty())
            continue;
        const OnnxTensor* t = g.tensor(name);
        if (!t || !t->known() || t->elementBytes == 0) {
            unknown = true;
            continue;
        }
        bytes = saturatingSum(bytes, saturatingProduct(t->elements(), t->elementBytes));
    }
    return bytes;
}

// The elements of the named tensors (those of unknown shape count 0).
std::uint64_t tensorElements(const OnnxGraph& g, const std::vector<std::string>& names) {
    std::uint64_t elements = 0;
    for (const auto& name : names) {
        const OnnxTensor* t = name.empty() ? nullptr : g.tensor(name);
        if (t && t->known())
            elements = saturatingSum(elements, t->elements());
    }
    return elements;
}

// FLOPs of a node tessim does not simulate (see OnnxLayers.h).
std::uint64_t flopsOf(const OnnxGraph& g, const OnnxNode& n, std::uint64_t macs) {
    static const std::set<std::string> dataMovement{
        "Reshape", "Flatten", "Transpose",       "Concat", "Squeeze", "Unsqueeze", "Identity",
        "Shape",   "Gather",  "Constant",        "Slice",  "Pad",     "Dropout",   "Split",
        "Expand",  "Cast",    "ConstantOfShape", "Tile",   "Resize"};
    static const std::set<std::string> reductions{"GlobalAveragePool", "GlobalMaxPool", "ReduceMean",
                                                  "ReduceSum",         "ReduceMax",     "ReduceMin"};
    if (macWeightInput(n.op) > 0)
        return saturatingProduct(2, macs);
    if (dataMovement.count(n.op))
        return 0;
    const OnnxTensor* out = knownOutput(g, n);
    if (reductions.count(n.op)) {
        const OnnxTensor* in = known(g, n, 0);
        return in ? in->elements() : 0;
    }
    if (!out)
        return 0;
    if (n.op == "BatchNormalization")
        return saturatingProduct(2, out->elements());
    if (n.op == "Softmax" || n.op == "LogSoftmax")
        return saturatingProduct(3, out->elements());
    if (n.op == "MaxPool" || n.op == "AveragePool") {
        std::uint64_t area = 1;
        if (n.ints.count("kernel_shape"))
            for (std::int64_t d : n.ints.at("kernel_shape"))
                area = saturatingProduct(area, static_cast<std::uint64_t>(std::max<std::int64_t>(d, 1)));
        return saturatingProduct(area, out->elements());
    }
    return out->elements();
}

Node scalar(const std::string& text, const Location& at) {
    return Node::makeScalar(text, at);
}

// An element-wise or pooling node as a vector layer row (op, h, w, channels, a pool's window,
// Clip's bounds), or the reason it cannot be one. Element-wise tensors are flat: channels the
// last dimension (NCHW: C, with N·H rows of W), h·w the rest.
struct VectorMapped {
    std::optional<Node> row;
    std::string reason;
    std::uint64_t batch = 1;  // a pool's images (element-wise rows take the batch in their rows)
};

VectorMapped mapVectorNode(const OnnxGraph& g, const OnnxNode& n, const Location& at) {
    VectorMapped m;
    const OnnxTensor* y = knownOutput(g, n);
    const OnnxTensor* x = known(g, n, 0);
    if (!x || !y) {
        m.reason = "operand shapes unknown after shape inference";
        return m;
    }
    Node row = Node::makeMap(at);
    row.set("op", scalar(n.op, at));
    auto set = [&](const char* key, std::uint64_t v) { row.set(key, scalar(std::to_string(v), at)); };
    const bool pool = n.op.find("Pool") != std::string::npos;
    if (!pool) {
        // Add and Mul commute: the operand of the output's shape first, the other second. Sub
        // and Div do not: a broadcast first operand (c − x, c / x) makes the row `reversed`.
        // PRelu's slope (input 1) is broadcast as Sub's second operand is.
        const bool binary =
            n.op == "Add" || n.op == "Mul" || n.op == "Sub" || n.op == "Div" || n.op == "PRelu";
        const bool ordered = n.op == "Sub" || n.op == "Div" || n.op == "PRelu";
        // Concat and Transpose move the output's elements once: a copy through the vector unit.
        const bool copy = n.op == "Concat" || n.op == "Transpose";
        std::size_t full = 0;
        if (const OnnxTensor* in0 = known(g, n, 0); !copy && (!in0 || in0->elements() != y->elements())) {
            const OnnxTensor* in1 = binary ? known(g, n, 1) : nullptr;
            if (!in1 || in1->elements() != y->elements()) {
                m.reason = fmt::format("no operand of the output's {} elements (a broadcast first operand)",
                                       y->elements());
                return m;
            }
            full = 1;
            if (n.op == "PRelu") {
                m.reason = "PRelu with a broadcast input (its slope of the output's shape)";
                return m;
            }
            if (ordered)  // Sub, Div: c − x, c / x
                row.set("reversed", scalar("true", at));
        }
        std::uint64_t h = 1, w = 1, c = 1;
        const auto& d = y->dims;
        if (d.size() == 4) {
            h = static_cast<std::uint64_t>(d[0] * d[2]);
            w = static_cast<std::uint64_t>(d[3]);
            c = static_cast<std::uint64_t>(d[1]);
        } else if (!d.empty()) {
            c = static_cast<std::uint64_t>(d.back());
            h = c ? y->elements() / c : 0;
        }
        if (h == 0 || h > 65536 || w > 65536 || c == 0 || c > 65535) {
            m.reason = fmt::format(
                "a {}×{}×{} tensor outside the vector layers' 65536 rows and 65535 channels", c, h, w);
            return m;
        }
        if (n.op == "Softmax") {
            // Opset 13 reduces over `axis` alone (default −1): each pixel's channels where that is C
            // of N×C×H×W or a tensor's last axis. Earlier opsets reduce over everything from `axis`
            // on (default 1): each row's contiguous run in memory (NHWC too, for C·H·W: the order
            // within the run does not change a softmax). Opset not known: the axes both readings
            // agree on — the last, a matrix's rows, C of N×C×1×1.
            const std::size_t rank = d.size();
            const bool given = n.ints.count("axis") && !n.ints.at("axis").empty();
            const bool opset13 = g.opset >= 13, flattens = g.opset > 0 && g.opset < 13;
            std::int64_t axis = given ? n.ints.at("axis").front() : flattens ? 1 : -1;
            if (axis < 0)
                axis += static_cast<std::int64_t>(rank);
            const bool last = axis == static_cast<std::int64_t>(rank) - 1;
            const bool pixelOfC = rank == 4 && d[2] * d[3] == 1;
            bool channels = (rank == 2 && (!given || axis == 1)) || (given && rank != 4 && last) ||
                            (pixelOfC && (!given || axis == 1 || axis == 3));
            if (opset13)
                channels = rank == 4 ? axis == 1 || (pixelOfC && last) : last;
            if (flattens) {
                channels = axis >= 0 && axis < static_cast<std::int64_t>(rank) && (axis <= 1 || rank != 4);
                std::uint64_t run = 1;
                for (std::size_t a = static_cast<std::size_t>(std::max<std::int64_t>(axis, 0)); a < rank; ++a)
                    run *= static_cast<std::uint64_t>(d[a]);
                if (channels && run > 65535) {
                    m.reason =
                        fmt::format("a Softmax over runs of {} elements, above the vector layers' 65535 "
                                    "channels",
                                    run);
                    return m;
                }
                if (channels && run != c) {
                    c = run;
                    h = y->elements() / run;
                    w = 1;
                }
            }
            if (!channels) {
                m.reason = fmt::format(
                    "a Softmax over axis {} of a rank-{} tensor{}: the K1 runs it over each pixel's channels "
                    "(C "
                    "of N×C×H×W, or the last axis) or, before opset 13, each row's elements from the axis on",
                    given ? std::to_string(n.ints.at("axis").front()) : "(default)", rank,
                    g.opset > 0 ? fmt::format(" (opset {})", g.opset)
                                : ", in a model whose opset is not known (its readings differ)");
                return m;
            }
            if (pixelOfC && !flattens) {  // N×C×1×1: a pixel per image
                h = static_cast<std::uint64_t>(d[0]);
                w = 1;
            }
        }
        set("h", h);
        set("w", w);
        set("channels", c);
        if (n.op == "Transpose" && x->dims.size() > 1) {
            // Its input's dimensions and the permutation (ONNX's default reverses the axes): the
            // K1 reads the input in strided runs.
            std::vector<std::int64_t> perm;
            if (auto it = n.ints.find("perm"); it != n.ints.end() && !it->second.empty())
                perm = it->second;
            else
                for (std::size_t a = x->dims.size(); a-- > 0;)
                    perm.push_back(static_cast<std::int64_t>(a));
            Node dims = Node::makeSequence(at), axes = Node::makeSequence(at);
            for (std::int64_t d : x->dims)
                dims.append(scalar(std::to_string(d), at));
            for (std::int64_t a : perm)
                axes.append(scalar(std::to_string(a), at));
            row.set("input_dims", std::move(dims));
            row.set("perm", std::move(axes));
        }
        if (binary) {
            const std::size_t other = 1 - full;
            const OnnxTensor* b = known(g, n, other);
            std::vector<std::int64_t> dims = b ? b->dims : std::vector<std::int64_t>{};
            while (dims.size() > 1 && dims.front() == 1)
                dims.erase(dims.begin());
            // One value per channel: C×1×1 against N×C×H×W, or the last dimension's values.
            const std::vector<std::int64_t> perChannel =
                d.size() == 4 ? std::vector<std::int64_t>{static_cast<std::int64_t>(c), 1, 1}
                              : std::vector<std::int64_t>{static_cast<std::int64_t>(c)};
            if (!b) {
                m.reason = "operand shapes unknown after shape inference";
                return m;
            } else if (b->elements() == y->elements()) {
            } else if (b->elements() == 1 && g.scalar(n.inputs[other])) {
                if (n.op == "PRelu" && !(*g.scalar(n.inputs[other]) <= 1.0)) {
                    m.reason = fmt::format("PRelu with a slope of {} (the lowering, max(x, slope·x), is "
                                           "PRelu for slopes up to 1)",
                                           *g.scalar(n.inputs[other]));
                    return m;
                }
                if (n.op == "Div" && full == 0 && *g.scalar(n.inputs[other]) == 0.0) {
                    m.reason = "Div by the constant 0";
                    return m;
                }
                row.set("broadcast", scalar("constant", at));
                row.set("value", scalar(fmt::format("{}", *g.scalar(n.inputs[other])), at));
            } else if (dims == perChannel) {
                row.set("broadcast", scalar("channel", at));
            } else {
                m.reason =
                    fmt::format("input {} of {} elements broadcast over the output's {} other than per "
                                "channel or as a constant",
                                other, b->elements(), y->elements());
                return m;
            }
        }
        if (n.op == "HardSigmoid") {
            const double alpha = n.floats.count("alpha") ? n.floats.at("alpha") : 0.2;
            const double beta = n.floats.count("beta") ? n.floats.at("beta") : 0.5;
            row.set("alpha", scalar(fmt::format("{}", alpha), at));
            row.set("beta", scalar(fmt::format("{}", beta), at));
        }
        if (n.op == "LeakyRelu")
            row.set("alpha",
                    scalar(fmt::format("{}", n.floats.count("alpha") ? n.floats.at("alpha") : 0.01), at));
        if (n.op == "Clip") {
            // Bounds: inputs 1 and 2 (opset 11+) or the min/max attributes; absent: unbounded.
            double bound[2] = {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
            for (std::size_t i = 0; i < 2; ++i) {
                const char* key = i == 0 ? "min" : "max";
                if (n.inputs.size() > i + 1 && !n.inputs[i + 1].empty()) {
                    const double* v = g.scalar(n.inputs[i + 1]);
                    if (!v) {
                        m.reason = fmt::format("Clip's {} is not a constant initializer", key);
                        return m;
                    }
                    bound[i] = *v;
                } else if (n.floats.count(key)) {
                    bound[i] = n.floats.at(key);
                }
            }
            row.set("min", scalar(fmt::format("{}", bound[0]), at));
            row.set("max", scalar(fmt::format("{}", bound[1]), at));
        }
        m.row = std::move(row);
        return m;
    }
    if (x->dims.size() != 4 || x->dims[0] < 1 || x->dims[0] > kMaxBatch) {
        m.reason = fmt::format("a pool over N×C×H×W images, N from 1 to {}, is needed", kMaxBatch);
        return m;
    }
    m.batch = static_cast<std::uint64_t>(x->dims[0]);
    if (x->dims[2] > 65536 || x->dims[3] > 65536 || x->dims[1] > 65535) {
        m.reason = "an image above 65536 rows or columns, or 65535 channels";
        return m;
    }
    set("h", static_cast<std::uint64_t>(x->dims[2]));
    set("w", static_cast<std::uint64_t>(x->dims[3]));
    set("channels", static_cast<std::uint64_t>(x->dims[1]));
    if (n.op == "MaxPool" || n.op == "AveragePool") {
        const std::vector<std::int64_t> kernel =
            n.ints.count("kernel_shape") ? n.ints.at("kernel_shape") : std::vector<std::int64_t>{};
        const std::vector<std::int64_t> strides =
            n.ints.count("strides") ? n.ints.at("strides") : std::vector<std::int64_t>{1, 1};
        std::vector<std::int64_t> pads =
            n.ints.count("pads") ? n.ints.at("pads") : std::vector<std::int64_t>{0, 0, 0, 0};
        const std::string autoPad = n.strings.count("auto_pad") ? n.strings.at("auto_pad") : "NOTSET";
        if (autoPad == "VALID")
            pads = {0, 0, 0, 0};
        if (kernel.size() != 2 || kernel[0] < 1 || kernel[0] > 255 || kernel[1] < 1 || kernel[1] > 255) {
            m.reason = "a 2-D kernel_shape within 1..255 is needed";
        } else if (strides.size() != 2 || strides[0] < 1 || strides[0] > 255 || strides[1] < 1 ||
                   strides[1] > 255) {
            m.reason = "strides that are not two values within 1..255";
        } else if (autoPad != "NOTSET" && autoPad != "VALID") {
            m.reason = fmt::format("auto_pad {} (explicit pads run)", autoPad);
        } else if (pads.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3] || pads[0] < 0 ||
                   pads[1] < 0 || pads[0] >= kernel[0] || pads[1] >= kernel[1]) {
            m.reason = "padding that differs between the sides of a dimension or is not below the window";
        } else if (n.ints.count("dilations") && !allEqual(n.ints.at("dilations"), 1)) {
            m.reason = "dilation other than 1";
        } else if (n.intAttribute("ceil_mode", 0) != 0) {
            m.reason = "ceil_mode 1";
        } else if (n.op == "AveragePool" && n.intAttribute("count_include_pad", 0) != 0) {
            m.reason = "count_include_pad 1";
        } else if (n.outputs.size() > 1 && !n.outputs[1].empty()) {
            m.reason = "MaxPool's Indices output";
        } else if (x->dims[2] + 2 * pads[0] < kernel[0] || x->dims[3] + 2 * pads[1] < kernel[1]) {
            m.reason = "the window does not fit the padded input";
        }
        if (!m.reason.empty())
            return m;
        const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
        putPerAxis(set, "k", "kh", "kw", u(kernel[0]), u(kernel[1]));
        putPerAxis(set, "stride", "stride_h", "stride_w", u(strides[0]), u(strides[1]));
        putPerAxis(set, "pad", "pad_h", "pad_w", u(pads[0]), u(pads[1]));
    }
    m.row = std::move(row);
    return m;
}

// Layer i of a batch of n images: the node's name, with `.b<i>` when n > 1.
std::string imageName(const std::string& name, std::uint64_t i, std::uint64_t n) {
    return n > 1 ? fmt::format("{}.b{}", name, i) : name;
}

// Ops that give a view of their input: an NCHW tensor flattened or reshaped moves no byte.
bool viewOnly(const std::string& op) {
    return op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

}  // namespace

const std::set<std::string>& vectorNodeOps() {
    static const std::set<std::string> ops{
        "Relu",          "Clip",   "HardSigmoid", "HardSwish",   "LeakyRelu",
        "Add",           "Mul",    "Sub",         "Div",         "Tanh",
        "Sigmoid",       "PRelu",  "MaxPool",     "AveragePool", "GlobalAveragePool",
        "GlobalMaxPool", "Concat", "Transpose",   "Softmax"};
    return ops;
}

bool isOnnxModelPath(const std::string& path) {
    if (path.size() <= 5)
        return false;
    std::string ext = path.substr(path.size() - 5);
    for (auto& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext == ".onnx";
}

config::Node onnxWorkloadTree(const OnnxGraph& graph) {
    const Location at{graph.path, 0, 0};
    Node root = Node::makeMap(at);
    root.set("kernel", scalar("onnx", at));
    root.set("name", scalar(std::filesystem::path(graph.path).stem().string(), at));
    root.set("source", scalar(graph.path, at));
    // A quantised model (QLinear or integer ops, quantise/dequantise nodes) is an INT8 network:
    // each chip runs it in its own type for INT8 (the npu's array in INT8; f32 where a chip
    // computes INT8 models in floating point), the report naming the model's.
    for (const OnnxNode& n : graph.nodes)
        if (n.op.rfind("QLinear", 0) == 0 || n.op == "ConvInteger" || n.op == "MatMulInteger" ||
            n.op == "QuantizeLinear" || n.op == "DequantizeLinear") {
            root.set("dtype", scalar("i8", at));
            break;
        }
    Node layers = Node::makeSequence(at), left = Node::makeSequence(at);
    bool anyMacLayer = false;
    std::map<std::string, std::string> macOutputs;  // a Conv/Gemm layer's output tensor → its name
    std::map<std::string, std::size_t> consumers;   // nodes reading each tensor
    for (const OnnxNode& n : graph.nodes)
        for (const auto& in : n.inputs)
            ++consumers[in];
    std::string firstRefusal;  // why the first Conv, Gemm or MatMul left out is, for the error below
    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const OnnxNode& n = graph.nodes[i];
        const std::string name = n.name.empty() ? fmt::format("{}_{}", n.op, i) : n.name;
        Mapped m;
        if (convolutionOp(n.op))
            m = mapConv(graph, n);
        else if (macWeightInput(n.op) > 0)
            m = mapMatrixProduct(graph, n);
        else if (viewOnly(n.op))
            m.reason = "a view of its input: moves no data";
        else if (n.op == "QuantizeLinear" || n.op == "DequantizeLinear")
            m.reason = "a quantisation boundary (float ↔ INT8), not simulated: an INT8 pipeline folds it "
                       "into the layers beside it, or it runs once on constant weights";
        else if (!vectorNodeOps().count(n.op))
            m.reason = "tessim lowers Conv, Gemm and MatMul (and QLinearConv, ConvInteger, QLinearMatMul, "
                       "MatMulInteger) as conv2d layers and Relu, Clip, HardSigmoid, "
                       "HardSwish, LeakyRelu, PRelu, Tanh, Sigmoid, Add, Sub, Mul, Div, MaxPool, "
                       "AveragePool, GlobalAveragePool, "
                       "GlobalMaxPool, Concat, "
                       "Transpose, Softmax as vector "
                       "layers";
        bool unknown = false;
        const std::uint64_t bytes = viewOnly(n.op) ? 0
                                                   : saturatingSum(tensorBytes(graph, n.inputs, unknown),
                                                                   tensorBytes(graph, n.outputs, unknown));
        // The same tensors' elements: a report gives the bytes in the type its layers ran in.
        const std::uint64_t elements =
            viewOnly(n.op) ? 0
                           : saturatingSum(tensorElements(graph, n.inputs), tensorElements(graph, n.outputs));
        if (vectorNodeOps().count(n.op)) {
            VectorMapped v = mapVectorNode(graph, n, at);
            if (v.row) {
                // The node's cost at the model's types (per image), for a chip that lists it as not
                // simulated.
                v.row->set("flops", scalar(std::to_string(flopsOf(graph, n, 0) / v.batch), at));
                v.row->set("bytes", scalar(std::to_string(bytes / v.batch), at));
                v.row->set("elements", scalar(std::to_string(elements / v.batch), at));
                for (std::uint64_t b = 0; b < v.batch; ++b) {
                    Node row = *v.row;
                    row.set("name", scalar(imageName(name, b, v.batch), at));
                    layers.append(std::move(row));
                }
                continue;
            }
            m.reason = v.reason;
        }
        if (n.op == "BatchNormalization") {
            // Folded into the Conv or Gemm it follows when nothing else reads that layer's output:
            // its scale and shift become the layer's weights and bias, leaving nothing to run.
            const std::string in = n.inputs.empty() ? std::string() : n.inputs[0];
            if (auto it = macOutputs.find(in); it != macOutputs.end() && consumers[in] == 1) {
                Node row = Node::makeMap(at);
                row.set("op", scalar(n.op, at));
                row.set("node", scalar(name, at));
                row.set("flops", scalar("0", at));
                row.set("bytes", scalar("0", at));
                row.set("elements", scalar("0", at));
                row.set("reason",
                        scalar(fmt::format("folded into '{}' (its scale and shift become the layer's "
                                           "weights and bias): nothing left to run",
                                           it->second),
                               at));
                left.append(std::move(row));
                continue;
            }
        }
        if (m.layer || !m.phases.empty()) {
            // The layer, or a dilated convolution's phases (`<node>.phase<i>`), per image.
            std::vector<std::pair<std::string, ConvLayer>> parts;
            if (m.layer)
                parts.emplace_back("", *m.layer);
            for (std::size_t i = 0; i < m.phases.size(); ++i)
                parts.emplace_back(fmt::format(".phase{}", i), m.phases[i]);
            if (!n.outputs.empty())
                macOutputs[n.outputs[0]] = name;
            for (std::uint64_t b = 0; b < m.batch; ++b)
                for (const auto& [suffix, l] : parts) {
                    Node row = Node::makeMap(at);
                    row.set("name", scalar(imageName(name, b, m.batch) + suffix, at));
                    row.set("op", scalar(n.op, at));
                    const auto set = [&](const char* key, std::uint64_t value) {
                        row.set(key, scalar(std::to_string(value), at));
                    };
                    for (auto [key, value] : {std::pair<const char*, std::uint64_t>{"h", l.h},
                                              {"w", l.w},
                                              {"channels", l.channels},
                                              {"filters", l.filters}})
                        set(key, value);
                    putPerAxis(set, "stride", "stride_h", "stride_w", l.strideH, l.strideW);
                    putPerAxis(set, "k", "kh", "kw", l.kh, l.kw);
                    putPerAxis(set, "pad", "pad_h", "pad_w", l.padH, l.padW);
                    if (l.groups > 1)
                        row.set("groups", scalar(std::to_string(l.groups), at));
                    layers.append(std::move(row));
                }
            anyMacLayer = true;
            continue;
        }
        if (firstRefusal.empty() && macWeightInput(n.op) > 0)
            firstRefusal = fmt::format("; {} '{}': {}", n.op, name, m.reason);
        Node row = Node::makeMap(at);
        row.set("op", scalar(n.op, at));
        row.set("node", scalar(name, at));
        row.set("flops", scalar(std::to_string(flopsOf(graph, n, m.macs)), at));
        row.set("bytes", scalar(std::to_string(bytes), at));
        row.set("elements", scalar(std::to_string(elements), at));
        row.set("reason",
                scalar(unknown ? m.reason + "; tensors of unknown shape counted as 0 bytes" : m.reason, at));
        left.append(std::move(row));
    }
    if (!anyMacLayer)
        throw ConfigError(
            at, "",
            fmt::format("the model has no Conv, Gemm or MatMul node that tessim can map to the MAC "
                        "array ({} nodes, none simulated{})",
                        graph.nodes.size(), firstRefusal));
    root.set("layers", std::move(layers));
    root.set("not_simulated", std::move(left));
    return root;
}

config::Node loadOnnxModel(const std::string& path) {
    return onnxWorkloadTree(readOnnxGraph(path));
}

}  // namespace tessim
