// A convolution or fully connected layer whose weight is held as a tensor train (TT) or a tensor ring
// (TR). The weight W (out × in, a conv's [O, I, Kh, Kw] read as O × I·Kh·Kw, the im2col order) is
// reshaped into modes and held as d cores G_c[r_c][n_c][m_c][r_{c+1}], in = Π n_c, out = Π m_c, where
// a core holds an input factor n_c, an output factor m_c, or both (the other being 1):
//   TT: r_0 = r_d = 1, W[o][i] = G_0 · G_1 · … · G_{d−1} (a chain of matrices per (i, o));
//   TR: r_0 = r_d = R, W[o][i] = trace(G_0 · … · G_{d−1}) (the chain closed into a ring).
// The layer is applied to `rows` input vectors: a conv's output pixels, an fc layer's batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessim::tn {

enum class Format { TT, TR };

const char* formatName(Format f);

struct TnLayer {
    std::string name;
    Format format = Format::TT;
    std::vector<std::uint64_t> in, out;  // per core: n_c, m_c (1 where the core holds none)
    std::vector<std::uint64_t> ranks;    // r_0 … r_d
    std::uint64_t rows = 1;
    // The weight's own dimensions before reshaping ([O, I, Kh, Kw] or [O, I]).
    std::vector<std::uint64_t> weightDims;
    // A conv's input size, stride and padding (h = 0: not a conv, or not known): its dense baseline
    // then runs as the convolution itself rather than as the im2col GEMM.
    std::uint64_t convH = 0, convW = 0, stride = 1, pad = 0;

    unsigned d() const { return static_cast<unsigned>(in.size()); }
    std::uint64_t inSize() const;
    std::uint64_t outSize() const;
    std::uint64_t denseParameters() const { return inSize() * outSize(); }
    std::uint64_t coreParameters(unsigned c) const { return ranks[c] * in[c] * out[c] * ranks[c + 1]; }
    // Σ_c r_c · n_c · m_c · r_{c+1}.
    std::uint64_t parameters() const;
    double compression() const;
    // 2 · rows · in · out: the dense layer's multiply-accumulates, as FLOPs.
    std::uint64_t denseFlops() const { return 2 * rows * inSize() * outSize(); }
    // Rebuilding the dense W from the cores, core 0 first (the one-off cost of the "precompute the
    // weight" baseline): Σ_c 2 · r_0 · Π_(j<c) n_j·m_j · r_c · n_c·m_c · r_(c+1), plus the ring's trace.
    std::uint64_t reconstructionFlops() const;
    // max / min of the weight's dimensions larger than 1 (a 1×1 conv [32, 32, 1, 1] is balanced).
    double imbalance() const;
    // "TT [64,1,1,1]x[1,32,3,3] r[1,2,16,4,1]" (out x in, as TtShape describes in x out).
    std::string describe() const;
    // Throws std::invalid_argument naming what is wrong: empty, zero factors, rank count, TT ends not 1,
    // TR ends unequal.
    void validate() const;
};

// How a conv's spatial kernel becomes modes: one core per Kh and Kw, one core for Kh·Kw, or none
// (the 1×1 case needs none: its modes are omitted).
enum class Spatial { Split, Merged };
// How an fc layer's factors become cores: one core per factor (output factors first), or the
// TT-matrix pairing of seed 000 (core c holds in factor c and out factor c).
enum class Pairing { Modes, Matrix };

// The cores of a conv weight [O, I, Kh, Kw] reshaped O = Π outModes, I = Π inModes: one core per
// output factor, then one per input factor, then the spatial ones; factors of 1 are dropped.
// `ranks`: TT: the d − 1 inner ranks (or d + 1 with the outer 1s); TR: d ranks r_0 … r_{d−1} (or d + 1
// with r_d = r_0). Throws std::invalid_argument on a product or count that does not fit.
TnLayer convLayer(const std::string& name, Format format, std::uint64_t o, std::uint64_t i, std::uint64_t kh,
                  std::uint64_t kw, std::vector<std::uint64_t> outModes, std::vector<std::uint64_t> inModes,
                  Spatial spatial, const std::vector<std::uint64_t>& ranks, std::uint64_t rows);

// The cores of convLayer without ranks (ranks empty): what the reshapes give.
TnLayer convCores(const std::string& name, Format format, std::uint64_t o, std::uint64_t i, std::uint64_t kh,
                  std::uint64_t kw, std::vector<std::uint64_t> outModes, std::vector<std::uint64_t> inModes,
                  Spatial spatial, std::uint64_t rows);

TnLayer fcLayer(const std::string& name, Format format, std::uint64_t o, std::uint64_t i,
                std::vector<std::uint64_t> outModes, std::vector<std::uint64_t> inModes, Pairing pairing,
                const std::vector<std::uint64_t>& ranks, std::uint64_t rows);

// Output pixels of a conv: ((h + 2·pad − k) / stride + 1) · ((w + 2·pad − k) / stride + 1).
std::uint64_t convOutputPixels(std::uint64_t h, std::uint64_t w, std::uint64_t kh, std::uint64_t kw,
                               std::uint64_t stride, std::uint64_t pad);

// The full rank list r_0 … r_d of d cores from what a user gives (see convLayer).
std::vector<std::uint64_t> fullRanks(Format format, unsigned d, const std::vector<std::uint64_t>& given);

// n split into two factors a · b, a ≤ b, a the largest divisor ≤ √n (64 → 8·8, 128 → 8·16, 3 → 1·3).
std::vector<std::uint64_t> balancedFactors(std::uint64_t n);

}  // namespace tessim::tn
