// The shape of a tensor-train (TT) fully connected layer and the chain of einsums that computes it.
// W (out × in) is held as d cores G_c[r_c][n_c][m_c][r_{c+1}] with in = Π n_c, out = Π m_c and
// r_0 = r_d = 1. The layer runs the cores last to first; einsum t (core c = d−1−t) reads
// Input[b][k], k = (n_c, r_{c+1}), and writes Output[m][b][r] with m = m_c and r = r_c, where the
// rows b are the batch and the modes not yet contracted or already produced. Every reshape between
// two einsums is a reinterpretation of the same flat array, so the chain copies nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessim {

// One einsum of the chain: Output[m][b][r] = Σ_k G[m][r][k] · Input[b][k], k over n·r1.
struct TtEinsum {
    unsigned core = 0;     // index c of the core it contracts
    std::uint64_t m = 0;   // output mode m_c
    std::uint64_t b = 0;   // rows: batch · Π_{j<c} n_j · Π_{j>c} m_j
    std::uint64_t r = 0;   // kept rank r_c
    std::uint64_t n = 0;   // input mode n_c
    std::uint64_t r1 = 0;  // contracted rank r_{c+1}

    std::uint64_t k() const { return n * r1; }
    std::uint64_t flops() const { return 2 * m * b * r * k(); }
    std::uint64_t coreElements() const { return m * r * k(); }
    std::uint64_t inputElements() const { return b * k(); }
    std::uint64_t outputElements() const { return m * b * r; }
};

struct TtShape {
    std::vector<std::uint64_t> in;     // n_0 … n_{d−1}
    std::vector<std::uint64_t> out;    // m_0 … m_{d−1}
    std::vector<std::uint64_t> ranks;  // r_0 … r_d, r_0 = r_d = 1

    unsigned d() const { return static_cast<unsigned>(in.size()); }
    std::uint64_t inSize() const;
    std::uint64_t outSize() const;
    // Σ_c r_c · n_c · m_c · r_{c+1}: the elements of every core.
    std::uint64_t parameters() const;
    std::uint64_t coreElements(unsigned c) const { return ranks[c] * in[c] * out[c] * ranks[c + 1]; }
    // The einsums in execution order (core d−1 first).
    std::vector<TtEinsum> einsums(std::uint64_t batch) const;
    std::uint64_t flops(std::uint64_t batch) const;
    // Elements of the largest intermediate (the ping-pong buffers between einsums).
    std::uint64_t largestIntermediate(std::uint64_t batch) const;
    // "[2,2,2,7,14]x[5,5,3,2,2] r[1,8,8,8,8,1]"
    std::string describe() const;
};

// "[a, b, c]"
std::string listText(const std::vector<std::uint64_t>& values);

}  // namespace tessim
