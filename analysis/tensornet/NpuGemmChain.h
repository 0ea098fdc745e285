// The npu form of a TT / TR layer executed on the host, value by value: the plan's GEMMs (planGemms,
// the shapes the MAC array runs) on real INT8 data, each output requantised to INT8 as the array does
// (requantizeI8), the reshapes between steps as gathers (the DMA access patterns the timing model
// takes as free). It checks what the timing runs assume: that those GEMM shapes, ring index batched
// as extra filters / rows / channels, compute the layer.
//
// Layout (the chain's terms, plan.chain, run last core first): the state before the step on chain
// core c is S[row][i_0..i_c][a][r_(c+1)][j_(c+1)..j_(d−1)] (a: the ring index, present after the
// first step of a ring); cores are G_c[r_c][n_c][m_c][r_(c+1)] with the ring's end ranks R; the input
// is x[row][i_0..i_(d−1)], the output y[row][j_0..j_(d−1)] (i_0, j_0 most significant).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/tensornet/ContractionPlan.h"

namespace tessim::tn {

struct ChainData {
    std::vector<std::vector<std::int64_t>> cores;  // per chain core, G_c[r_c][n_c][m_c][r_(c+1)]
    std::vector<std::int64_t> x;                   // rows × in
};

// Requantisation of every step's output: none (exact integers, for the dense comparison) or INT8
// with the array's multiplier / 2^shift, the shift per step.
struct Requant {
    bool enabled = false;
    std::int32_t multiplier = 1 << 30;
    std::vector<unsigned> shifts;  // per step
};

// Deterministic small integers for the cores (in [−3, 3]) and the input (in [−8, 7]).
ChainData chainTestData(const ContractionPlan& plan, std::uint64_t rows, std::uint64_t seed);

// The layer as the plan's GEMMs (M × K times K × N from planGemms, gathered and scattered), each
// output requantised when asked: y[row][o]. std::invalid_argument if a GEMM's shape does not match
// the state it is applied to.
std::vector<std::int64_t> runGemmChain(const ContractionPlan& plan, std::uint64_t rows, const ChainData& data,
                                       const Requant& requant);

// The same contractions written as einsums over named indices (no GEMM matrices), the same
// requantisation after each step.
std::vector<std::int64_t> runEinsumChain(const ContractionPlan& plan, std::uint64_t rows,
                                         const ChainData& data, const Requant& requant);

// The dense layer rebuilt from the cores, W[o][i] = trace(G_0 … G_(d−1)) (a TT: R = 1), applied to x
// exactly: y[row][o] = Σ_i x[row][i] · W[o][i].
std::vector<std::int64_t> runDense(const ContractionPlan& plan, std::uint64_t rows, const ChainData& data);

}  // namespace tessim::tn
