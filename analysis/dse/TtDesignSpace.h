// The design space of tensor-train (TT) shapes for one fully connected layer, and the seed's
// pruning steps in order: every factorisation of `in` and `out` into d factors with every rank
// tuple; aligned permutations only (in factors ascending, out factors descending: each aligned pair
// stands for (d!)²/(k_1!…k_j!) orderings); ranks a multiple of the vector length; FLOPs and memory
// below the dense layer; scalability (long chains whose heaviest einsum is too light to share).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/tt/TensorTrainShape.h"

namespace tessim {

struct TtSpaceOptions {
    std::uint64_t in = 0, out = 0, batch = 1;
    unsigned minCores = 2, maxCores = 5;
    std::vector<std::uint64_t> ranks{4, 8, 12, 16};  // each inner rank from this set
    std::uint32_t vectorLength = 8;                  // elements per vector register
    // Scalability: chains longer than `scalableCores` are kept only when their heaviest einsum
    // has at least `scalableFlops` (the seed: longer than 4, 8e6 FLOPs).
    unsigned scalableCores = 4;
    double scalableFlops = 8e6;
};

struct TtStep {
    std::string name;
    double count = 0;  // solutions left after the step (a count, may exceed 2^53 before pruning)
};

struct TtSpace {
    std::vector<TtStep> steps;
    std::vector<TtShape> survivors;  // after the last step, fewest FLOPs first
    // Σ over aligned pairs of their orderings (d!)²/(k_1!…k_j!), which must equal the number of
    // ordered factorisation pairs: the check of the alignment step.
    double orderingsOfAligned = 0;
    double orderedPairs = 0;
};

// Ordered factorisations of n into d factors ≥ 2.
std::vector<std::vector<std::uint64_t>> orderedFactorisations(std::uint64_t n, unsigned d);
// Factorisations of n into d factors ≥ 2, each non-decreasing (one per multiset).
std::vector<std::vector<std::uint64_t>> sortedFactorisations(std::uint64_t n, unsigned d);
// Distinct orderings of a multiset: d! / Π k_i! over the multiplicities k_i of its values.
double distinctOrderings(const std::vector<std::uint64_t>& values);
// The seed's reduction factor of an aligned pair: (d!)² / (k_1!…k_j!) over both shapes' multiplicities.
double alignmentReduction(const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& out);

// Enumerates and prunes; ConfigError-free: bad options throw std::invalid_argument.
TtSpace exploreTtSpace(const TtSpaceOptions& options);

// The seed's threads per einsum by its FLOPs: < 2e6 one, < 4e6 two, < 8e6 three, else four,
// capped at maxThreads. `thresholds` are the three FLOPs bounds.
unsigned threadsForFlops(double flops, const std::vector<double>& thresholds, unsigned maxThreads);

}  // namespace tessim
