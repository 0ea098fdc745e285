#include "analysis/tensornet/TnLayer.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "workloads/tt/TensorTrainShape.h"

namespace tessim::tn {

namespace {

std::uint64_t product(const std::vector<std::uint64_t>& v) {
    std::uint64_t p = 1;
    for (auto x : v)
        p *= x;
    return p;
}

void requireProduct(const char* what, std::uint64_t size, const std::vector<std::uint64_t>& modes) {
    if (modes.empty() || product(modes) != size)
        throw std::invalid_argument(fmt::format("the {} modes {} multiply to {}, not {}", what,
                                                listText(modes), product(modes), size));
    for (auto m : modes)
        if (m == 0)
            throw std::invalid_argument(fmt::format("the {} modes {} hold a 0", what, listText(modes)));
}

void dropOnes(std::vector<std::uint64_t>& in, std::vector<std::uint64_t>& out) {
    std::vector<std::uint64_t> i2, o2;
    for (std::size_t c = 0; c < in.size(); ++c)
        if (in[c] * out[c] > 1) {
            i2.push_back(in[c]);
            o2.push_back(out[c]);
        }
    in = std::move(i2);
    out = std::move(o2);
}

// Separate cores: one per output mode (input 1), then one per input mode (output 1).
void appendSeparateModes(TnLayer& l, const std::vector<std::uint64_t>& outModes,
                         const std::vector<std::uint64_t>& inModes) {
    for (auto m : outModes) {
        l.out.push_back(m);
        l.in.push_back(1);
    }
    for (auto n : inModes) {
        l.out.push_back(1);
        l.in.push_back(n);
    }
}

}  // namespace

const char* formatName(Format f) {
    return f == Format::TT ? "TT" : "TR";
}

std::uint64_t TnLayer::inSize() const {
    return product(in);
}

std::uint64_t TnLayer::outSize() const {
    return product(out);
}

std::uint64_t TnLayer::parameters() const {
    std::uint64_t p = 0;
    for (unsigned c = 0; c < d(); ++c)
        p += coreParameters(c);
    return p;
}

std::uint64_t TnLayer::reconstructionFlops() const {
    std::uint64_t flops = 0, done = 1;  // done: Π n_j·m_j of the cores already merged
    for (unsigned c = 1; c < d(); ++c) {
        done *= in[c - 1] * out[c - 1];
        flops += 2 * ranks[0] * done * ranks[c] * in[c] * out[c] * ranks[c + 1];
    }
    return flops + (ranks[0] > 1 ? denseParameters() * (ranks[0] - 1) : 0);
}

double TnLayer::compression() const {
    return static_cast<double>(denseParameters()) / static_cast<double>(parameters());
}

double TnLayer::imbalance() const {
    std::uint64_t lo = 0, hi = 0;
    for (auto x : weightDims) {
        if (x <= 1)
            continue;
        lo = lo ? std::min(lo, x) : x;
        hi = std::max(hi, x);
    }
    return lo ? static_cast<double>(hi) / static_cast<double>(lo) : 1.0;
}

std::string TnLayer::describe() const {
    return fmt::format("{} {}x{} r{}", formatName(format), listText(out), listText(in), listText(ranks));
}

void TnLayer::validate() const {
    if (in.empty() || in.size() != out.size())
        throw std::invalid_argument(fmt::format(
            "{}: {} input and {} output factors: give one of each per core", name, in.size(), out.size()));
    if (ranks.size() != in.size() + 1)
        throw std::invalid_argument(
            fmt::format("{}: {} cores need {} ranks r_0 … r_d, not {}", name, d(), d() + 1, ranks.size()));
    for (unsigned c = 0; c < d(); ++c)
        if (in[c] == 0 || out[c] == 0)
            throw std::invalid_argument(fmt::format("{}: core {} has a factor 0", name, c));
    for (auto r : ranks)
        if (r == 0)
            throw std::invalid_argument(fmt::format("{}: rank 0 in {}", name, listText(ranks)));
    if (format == Format::TT && (ranks.front() != 1 || ranks.back() != 1))
        throw std::invalid_argument(
            fmt::format("{}: a tensor train has r_0 = r_d = 1, not {}", name, listText(ranks)));
    if (format == Format::TR && ranks.front() != ranks.back())
        throw std::invalid_argument(
            fmt::format("{}: a tensor ring has r_0 = r_d, not {}", name, listText(ranks)));
    if (format == Format::TR && d() < 2)
        throw std::invalid_argument(fmt::format("{}: a tensor ring needs at least 2 cores", name));
    // Every step's FLOPs are at most 2 · rows · in · out · r_max³ (the ring rank included): keep that
    // inside 64-bit counts.
    double bound = 2.0 * static_cast<double>(std::max<std::uint64_t>(rows, 1));
    for (unsigned c = 0; c < d(); ++c)
        bound *= static_cast<double>(in[c]) * static_cast<double>(out[c]);
    const double rMax = static_cast<double>(*std::max_element(ranks.begin(), ranks.end()));
    if (bound * rMax * rMax * rMax * d() > 9.0e18)
        throw std::invalid_argument(
            fmt::format("{}: {} rows of a {} x {} layer with ranks up to {} are too large to "
                        "count in 64 bits",
                        name, rows, outSize(), inSize(), rMax));
}

std::vector<std::uint64_t> fullRanks(Format format, unsigned d, const std::vector<std::uint64_t>& given) {
    std::vector<std::uint64_t> r = given;
    if (format == Format::TT) {
        if (r.size() + 1 == d) {
            r.insert(r.begin(), 1);
            r.push_back(1);
        }
        if (r.size() != d + 1)
            throw std::invalid_argument(fmt::format(
                "a tensor train of {} cores has {} inner ranks (or {} with the outer 1s), not {} ({})", d,
                d - 1, d + 1, given.size(), listText(given)));
    } else {
        if (r.size() == d && d > 0)
            r.push_back(r.front());
        if (r.size() != d + 1)
            throw std::invalid_argument(fmt::format(
                "a tensor ring of {} cores has {} ranks r_0 … r_{} (or {} with r_d = r_0), not {} ({})", d, d,
                d - 1, d + 1, given.size(), listText(given)));
    }
    return r;
}

TnLayer convCores(const std::string& name, Format format, std::uint64_t o, std::uint64_t i, std::uint64_t kh,
                  std::uint64_t kw, std::vector<std::uint64_t> outModes, std::vector<std::uint64_t> inModes,
                  Spatial spatial, std::uint64_t rows) {
    if (outModes.empty())
        outModes = {o};
    if (inModes.empty())
        inModes = {i};
    requireProduct("output-channel", o, outModes);
    requireProduct("input-channel", i, inModes);
    if (kh == 0 || kw == 0)
        throw std::invalid_argument(name + ": a kernel dimension is 0");
    TnLayer l;
    l.name = name;
    l.format = format;
    l.rows = rows;
    l.weightDims = {o, i, kh, kw};
    appendSeparateModes(l, outModes, inModes);
    if (spatial == Spatial::Split) {
        l.in.insert(l.in.end(), {kh, kw});
        l.out.insert(l.out.end(), {1, 1});
    } else {
        l.in.push_back(kh * kw);
        l.out.push_back(1);
    }
    dropOnes(l.in, l.out);
    return l;
}

TnLayer convLayer(const std::string& name, Format format, std::uint64_t o, std::uint64_t i, std::uint64_t kh,
                  std::uint64_t kw, std::vector<std::uint64_t> outModes, std::vector<std::uint64_t> inModes,
                  Spatial spatial, const std::vector<std::uint64_t>& ranks, std::uint64_t rows) {
    TnLayer l = convCores(name, format, o, i, kh, kw, std::move(outModes), std::move(inModes), spatial, rows);
    l.ranks = fullRanks(format, l.d(), ranks);
    l.validate();
    return l;
}

TnLayer fcLayer(const std::string& name, Format format, std::uint64_t o, std::uint64_t i,
                std::vector<std::uint64_t> outModes, std::vector<std::uint64_t> inModes, Pairing pairing,
                const std::vector<std::uint64_t>& ranks, std::uint64_t rows) {
    if (outModes.empty())
        outModes = {o};
    if (inModes.empty())
        inModes = {i};
    requireProduct("output", o, outModes);
    requireProduct("input", i, inModes);
    TnLayer l;
    l.name = name;
    l.format = format;
    l.rows = rows;
    l.weightDims = {o, i};
    if (pairing == Pairing::Matrix) {
        if (outModes.size() != inModes.size())
            throw std::invalid_argument(fmt::format("{}: TT-matrix pairing needs as many output as input "
                                                    "modes, not {} and {}",
                                                    name, listText(outModes), listText(inModes)));
        l.out = outModes;
        l.in = inModes;
    } else {
        appendSeparateModes(l, outModes, inModes);
        dropOnes(l.in, l.out);
    }
    l.ranks = fullRanks(format, l.d(), ranks);
    l.validate();
    return l;
}

std::uint64_t convOutputPixels(std::uint64_t h, std::uint64_t w, std::uint64_t kh, std::uint64_t kw,
                               std::uint64_t stride, std::uint64_t pad) {
    if (stride == 0 || h + 2 * pad < kh || w + 2 * pad < kw)
        throw std::invalid_argument(
            fmt::format("a {}x{} kernel does not fit a {}x{} input with padding {}", kh, kw, h, w, pad));
    return ((h + 2 * pad - kh) / stride + 1) * ((w + 2 * pad - kw) / stride + 1);
}

std::vector<std::uint64_t> balancedFactors(std::uint64_t n) {
    std::uint64_t a = 1;
    for (std::uint64_t f = 1; f * f <= n; ++f)
        if (n % f == 0)
            a = f;
    if (a == 1)
        return {n};
    return {a, n / a};
}

}  // namespace tessim::tn
