// Contraction planning of TT and TR layers: the FLOPs of each order against closed forms, the chosen
// order never worse than left to right (seeded random shapes), and every candidate, run as its
// chain of einsums on random cores, equal to the dense layer reconstructed from the same cores.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/tensornet/ContractionPlan.h"
#include "analysis/tensornet/TnLayer.h"

namespace tessim::tn {
namespace {

TnLayer randomLayer(std::mt19937_64& rng, Format f) {
    const unsigned d = 2 + rng() % 4;
    std::vector<std::uint64_t> in, out, ranks;
    for (unsigned c = 0; c < d; ++c) {
        const unsigned kind = rng() % 3;  // an input factor, an output factor, or both
        in.push_back(kind == 1 ? 1 : 1 + rng() % 6);
        out.push_back(kind == 0 ? 1 : 1 + rng() % 6);
    }
    for (unsigned j = 0; j <= d; ++j)
        ranks.push_back(1 + rng() % 9);
    if (f == Format::TT)
        ranks.front() = ranks.back() = 1;
    else
        ranks.back() = ranks.front();
    TnLayer l;
    l.name = "random";
    l.format = f;
    l.in = in;
    l.out = out;
    l.ranks = ranks;
    l.rows = 1 + rng() % 50;
    return l;
}

TEST(ContractionPlan, TwoCoreTrainFlopsMatchClosedForms) {
    // in [n0, n1], out [m0, m1], rank r, B rows. Right to left: core 1 on B·n0 rows, then core 0 on
    // B·m1 rows; left to right: core 0 on B·n1 rows, then core 1 on B·m0 rows.
    TnLayer l;
    l.format = Format::TT;
    l.in = {3, 5};
    l.out = {4, 2};
    l.ranks = {1, 6, 1};
    l.rows = 7;
    const std::uint64_t B = 7, n0 = 3, n1 = 5, m0 = 4, m1 = 2, r = 6;
    const auto plans = contractionCandidates(l, 4);
    // Both directions from core 0, and both broken before core 1 (r_1 = 6 chains carried).
    ASSERT_EQ(plans.size(), 4u);
    const ContractionPlan& ltr = plans[0];
    const ContractionPlan& rtl = plans[1];
    EXPECT_EQ(ltr.ringRank, 1u);
    EXPECT_EQ(plans[2].ringRank, r);
    EXPECT_EQ(plans[2].name(Format::TT), "train@1 left-to-right");
    EXPECT_EQ(plans[3].flops, plans[3].chain.flops(B) * r);
    EXPECT_TRUE(ltr.leftToRight);
    EXPECT_EQ(rtl.flops, 2 * m1 * (B * n0) * r * n1 + 2 * m0 * (B * m1) * (n0 * r));
    EXPECT_EQ(ltr.flops, 2 * m0 * (B * n1) * r * n0 + 2 * m1 * (B * m0) * (n1 * r));
    EXPECT_EQ(rtl.peakIntermediate, m1 * B * n0 * r);
    // Traffic per step: input, core and output elements at 4 B.
    EXPECT_EQ(rtl.steps[0].trafficBytes, (B * n0 * n1 + m1 * r * n1 + m1 * B * n0 * r) * 4);
    EXPECT_EQ(leftToRightPlan(l, 4).flops, ltr.flops);
}

// A train may start at any core as a ring may (its mode order free): broken before core k, the
// rank r_k rides through every step, 1 at core 0.
TEST(ContractionPlan, RingFlopsAreTheRingRankTimesTheChain) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        const TnLayer l = randomLayer(rng, trial % 2 ? Format::TT : Format::TR);
        for (const auto& p : contractionCandidates(l, 1)) {
            EXPECT_EQ(p.ringRank, l.ranks[p.breakAt]);
            EXPECT_EQ(p.flops, p.chain.flops(l.rows) * p.ringRank) << l.describe() << " " << p.name(l.format);
        }
        EXPECT_EQ(contractionCandidates(l, 1).size(), 2u * l.d());
    }
}

// Two cores meet at r_0 = 1 once a train is broken before core 1: that order ties in FLOPs with
// one from an end, and the tie goes to the single chain (four chains ran 2.6× slower on k1).
TEST(ContractionPlan, AFlopTieGoesToFewerChains) {
    TnLayer l;
    l.name = "balanced";
    l.format = Format::TT;
    l.in = {4, 8};
    l.out = {4, 8};
    l.ranks = {1, 4, 1};
    l.rows = 16;
    const auto plans = contractionCandidates(l, 4);
    bool tie = false;
    for (const auto& p : plans)
        for (const auto& q : plans)
            tie = tie || (p.flops == q.flops && p.ringRank == 1 && q.ringRank > 1);
    ASSERT_TRUE(tie);
    const ContractionPlan chosen = chooseContraction(l, Objective::Flops, 4);
    EXPECT_EQ(chosen.ringRank, 1u) << chosen.name(l.format);
    EXPECT_EQ(chosen.breakAt, 0u);
}

TEST(ContractionPlan, ChosenOrderIsNeverWorseThanLeftToRight) {
    std::mt19937_64 rng(2026);
    for (int trial = 0; trial < 500; ++trial) {
        const Format f = trial % 2 ? Format::TR : Format::TT;
        const TnLayer l = randomLayer(rng, f);
        const ContractionPlan ltr = leftToRightPlan(l, 4);
        const ContractionPlan byFlops = chooseContraction(l, Objective::Flops, 4);
        const ContractionPlan byPeak = chooseContraction(l, Objective::Peak, 4);
        EXPECT_LE(byFlops.flops, ltr.flops) << l.describe();
        EXPECT_LE(byPeak.peakIntermediate, ltr.peakIntermediate) << l.describe();
        for (const auto& p : contractionCandidates(l, 4)) {
            EXPECT_LE(byFlops.flops, p.flops) << l.describe();
            EXPECT_LE(byPeak.peakIntermediate, p.peakIntermediate) << l.describe();
        }
    }
}

// Random cores G_c[r_c][n_c][m_c][r_(c+1)], the dense W by its definition (trace of the chain of
// matrices; for a train the trace of a 1×1), and y = W·x for every row.
struct Cores {
    std::vector<std::vector<double>> g;
};

Cores randomCores(const TnLayer& l, std::mt19937_64& rng) {
    Cores k;
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (unsigned c = 0; c < l.d(); ++c) {
        k.g.emplace_back(l.coreParameters(c));
        for (auto& v : k.g.back())
            v = u(rng);
    }
    return k;
}

double core(const TnLayer& l, const Cores& k, unsigned c, std::uint64_t a, std::uint64_t n, std::uint64_t m,
            std::uint64_t b) {
    return k.g[c][((a * l.in[c] + n) * l.out[c] + m) * l.ranks[c + 1] + b];
}

// Mixed-radix digits of `index` over `sizes` (first size outermost).
std::vector<std::uint64_t> digits(std::uint64_t index, const std::vector<std::uint64_t>& sizes) {
    std::vector<std::uint64_t> d(sizes.size());
    for (std::size_t c = sizes.size(); c-- > 0;) {
        d[c] = index % sizes[c];
        index /= sizes[c];
    }
    return d;
}

double denseWeight(const TnLayer& l, const Cores& k, std::uint64_t o, std::uint64_t i) {
    const auto id = digits(i, l.in), od = digits(o, l.out);
    const std::uint64_t R = l.ranks[0];
    double w = 0.0;
    for (std::uint64_t a = 0; a < R; ++a) {
        std::vector<double> v(R, 0.0);  // row a of the running product
        v[a] = 1.0;
        for (unsigned c = 0; c < l.d(); ++c) {
            std::vector<double> next(l.ranks[c + 1], 0.0);
            for (std::uint64_t p = 0; p < l.ranks[c]; ++p)
                for (std::uint64_t q = 0; q < l.ranks[c + 1]; ++q)
                    next[q] += v[p] * core(l, k, c, p, id[c], od[c], q);
            v = next;
        }
        w += v[a];
    }
    return w;
}

// The plan's chain run einsum by einsum (Out[m][b][r] = Σ_k G[m][r][k] · In[b][k], the last core
// first), once per ring index, on x laid out in the chain's mode order; y in the chain's order.
std::vector<double> runPlan(const TnLayer& l, const Cores& k, const ContractionPlan& p,
                            const std::vector<double>& x) {
    const unsigned d = l.d();
    std::vector<std::uint64_t> chainIn, chainOut;
    for (unsigned c : p.cores) {
        chainIn.push_back(l.in[c]);
        chainOut.push_back(l.out[c]);
    }
    // x in chain order: x_chain[b][i in chain order].
    std::vector<double> xc(x.size());
    for (std::uint64_t b = 0; b < l.rows; ++b)
        for (std::uint64_t i = 0; i < l.inSize(); ++i) {
            const auto id = digits(i, l.in);
            std::uint64_t j = 0;
            for (unsigned c = 0; c < d; ++c)
                j = j * chainIn[c] + id[p.cores[c]];
            xc[b * l.inSize() + j] = x[b * l.inSize() + i];
        }
    std::vector<double> y(l.outSize() * l.rows, 0.0);
    const auto einsums = p.chain.einsums(l.rows);
    for (std::uint64_t a = 0; a < p.ringRank; ++a) {
        std::vector<double> cur = xc;
        for (const TtEinsum& e : einsums) {
            const unsigned layerCore = p.cores[e.core];
            // The chain core's rank axes: reversed in a left-to-right plan; the ring ends fixed at a.
            auto g = [&](std::uint64_t r, std::uint64_t n, std::uint64_t m, std::uint64_t r1) {
                const bool first = e.core == 0, last = e.core + 1 == d;
                if (p.ringRank > 1) {
                    if (first)
                        r = a;
                    if (last)
                        r1 = a;
                }
                return p.leftToRight ? core(l, k, layerCore, r1, n, m, r)
                                     : core(l, k, layerCore, r, n, m, r1);
            };
            std::vector<double> next(e.outputElements(), 0.0);
            for (std::uint64_t m = 0; m < e.m; ++m)
                for (std::uint64_t b = 0; b < e.b; ++b)
                    for (std::uint64_t r = 0; r < e.r; ++r) {
                        double s = 0.0;
                        for (std::uint64_t n = 0; n < e.n; ++n)
                            for (std::uint64_t r1 = 0; r1 < e.r1; ++r1)
                                s += g(r, n, m, r1) * cur[b * e.k() + n * e.r1 + r1];
                        next[(m * e.b + b) * e.r + r] = s;
                    }
            cur = next;
        }
        for (std::size_t i = 0; i < y.size(); ++i)
            y[i] += cur[i];
    }
    // y_chain[o in chain order][b] back to the layer's order.
    std::vector<double> out(y.size());
    for (std::uint64_t o = 0; o < l.outSize(); ++o) {
        const auto od = digits(o, l.out);
        std::uint64_t j = 0;
        for (unsigned c = 0; c < d; ++c)
            j = j * chainOut[c] + od[p.cores[c]];
        for (std::uint64_t b = 0; b < l.rows; ++b)
            out[o * l.rows + b] = y[j * l.rows + b];
    }
    return out;
}

TEST(ContractionPlan, EveryCandidateComputesTheDenseLayerOfItsCores) {
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int trial = 0; trial < 60; ++trial) {
        TnLayer l = randomLayer(rng, trial % 2 ? Format::TR : Format::TT);
        l.rows = 1 + rng() % 3;
        const Cores k = randomCores(l, rng);
        std::vector<double> x(l.rows * l.inSize());
        for (auto& v : x)
            v = u(rng);
        std::vector<double> want(l.outSize() * l.rows, 0.0);
        for (std::uint64_t o = 0; o < l.outSize(); ++o)
            for (std::uint64_t i = 0; i < l.inSize(); ++i) {
                const double w = denseWeight(l, k, o, i);
                for (std::uint64_t b = 0; b < l.rows; ++b)
                    want[o * l.rows + b] += w * x[b * l.inSize() + i];
            }
        for (const auto& p : contractionCandidates(l, 4)) {
            const auto got = runPlan(l, k, p, x);
            for (std::size_t i = 0; i < want.size(); ++i)
                ASSERT_NEAR(got[i], want[i], 1e-9 * (1.0 + std::fabs(want[i])))
                    << l.describe() << " " << p.name(l.format) << " element " << i;
        }
    }
}

}  // namespace
}  // namespace tessim::tn
