#include "analysis/tensornet/NpuGemmChain.h"

#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/tensornet/TnWorkloads.h"
#include "sim/ir/Op.h"

namespace tessim::tn {

namespace {

// The chain's ranks with the ring's ends: r_0 = r_d = R (1 for a TT).
std::vector<std::uint64_t> fullChainRanks(const ContractionPlan& plan) {
    std::vector<std::uint64_t> r = plan.chain.ranks;
    r.front() = r.back() = plan.ringRank;
    return r;
}

std::int64_t requantise(std::int64_t acc, const Requant& q, std::size_t step) {
    if (!q.enabled)
        return acc;
    if (acc < std::numeric_limits<std::int32_t>::min() || acc > std::numeric_limits<std::int32_t>::max())
        throw std::invalid_argument(fmt::format("step {}: accumulator {} exceeds INT32", step, acc));
    if (step >= q.shifts.size())
        throw std::invalid_argument(fmt::format("no requantisation shift for step {}", step));
    return requantizeI8(static_cast<std::int32_t>(acc), q.multiplier, q.shifts[step]);
}

// The state before a step: S[row][I][a][r][J] (see the header), sizes of each index.
struct State {
    std::uint64_t rows = 0, ni = 1, na = 1, nr = 1, nj = 1;
    std::vector<std::int64_t> v;
    std::uint64_t at(std::uint64_t row, std::uint64_t i, std::uint64_t a, std::uint64_t r,
                     std::uint64_t j) const {
        return (((row * ni + i) * na + a) * nr + r) * nj + j;
    }
};

// One step's geometry: core c of n inputs, m outputs, ranks r0 (kept) and r1 (contracted).
struct Step {
    std::size_t t = 0;
    unsigned c = 0;
    bool first = false, last = false;
    std::uint64_t n = 0, m = 0, r0 = 1, r1 = 1;
    const std::vector<std::int64_t>* core = nullptr;

    // G_c[r0][ic][jc][r1] at the step's indices: before the first step the contracted rank index is
    // the ring index a, kept; in the last the kept rank index is a, contracted (the trace).
    std::int64_t g(std::uint64_t rKept, std::uint64_t ic, std::uint64_t jc, std::uint64_t rIn) const {
        return (*core)[((rKept * n + ic) * m + jc) * r1 + rIn];
    }
    // The state after the step.
    State next(const State& s) const {
        State o;
        o.rows = s.rows;
        o.ni = s.ni / n;
        o.na = last ? 1 : (first ? r1 : s.na);
        o.nr = last ? 1 : r0;
        o.nj = m * s.nj;
        o.v.assign(o.rows * o.ni * o.na * o.nr * o.nj, 0);
        return o;
    }
};

std::vector<Step> steps(const ContractionPlan& plan, const ChainData& data) {
    const TtShape& s = plan.chain;
    const unsigned d = s.d();
    const auto ranks = fullChainRanks(plan);
    if (data.cores.size() != d)
        throw std::invalid_argument(fmt::format("{} cores given for a chain of {}", data.cores.size(), d));
    std::vector<Step> out;
    for (unsigned t = 0; t < d; ++t) {
        Step st;
        st.t = t;
        st.c = d - 1 - t;
        st.first = t == 0;
        st.last = t + 1 == d;
        st.n = s.in[st.c];
        st.m = s.out[st.c];
        st.r0 = ranks[st.c];
        st.r1 = ranks[st.c + 1];
        st.core = &data.cores[st.c];
        if (st.core->size() != st.r0 * st.n * st.m * st.r1)
            throw std::invalid_argument(fmt::format("core {} holds {} values, not {}", st.c, st.core->size(),
                                                    st.r0 * st.n * st.m * st.r1));
        out.push_back(st);
    }
    return out;
}

State inputState(const ContractionPlan& plan, std::uint64_t rows, const ChainData& data) {
    State s;
    s.rows = rows;
    s.ni = plan.chain.inSize();
    if (data.x.size() != rows * s.ni)
        throw std::invalid_argument(
            fmt::format("x holds {} values, not {} rows of {}", data.x.size(), rows, s.ni));
    s.v = data.x;
    return s;
}

std::vector<std::int64_t> outputOf(const State& s) {
    if (s.ni != 1 || s.na != 1 || s.nr != 1)
        throw std::invalid_argument("the chain ended with indices left to contract");
    return s.v;
}

}  // namespace

ChainData chainTestData(const ContractionPlan& plan, std::uint64_t rows, std::uint64_t seed) {
    // A 64-bit LCG (Knuth's MMIX constants): deterministic on every platform.
    std::uint64_t state = seed * 2 + 1;
    auto next = [&](std::int64_t lo, std::int64_t hi) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return lo + static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
    };
    ChainData d;
    const auto ranks = fullChainRanks(plan);
    for (unsigned c = 0; c < plan.chain.d(); ++c) {
        std::vector<std::int64_t> core(ranks[c] * plan.chain.in[c] * plan.chain.out[c] * ranks[c + 1]);
        for (auto& v : core)
            v = next(-3, 3);
        d.cores.push_back(std::move(core));
    }
    d.x.resize(rows * plan.chain.inSize());
    for (auto& v : d.x)
        v = next(-8, 7);
    return d;
}

std::vector<std::int64_t> runGemmChain(const ContractionPlan& plan, std::uint64_t rows, const ChainData& data,
                                       const Requant& requant) {
    const auto gemms = planGemms(plan);
    State s = inputState(plan, rows, data);
    for (const Step& st : steps(plan, data)) {
        State o = st.next(s);
        const std::uint64_t niOut = s.ni / st.n;
        // Rows (row, I', a, J); contracted (ic, a, r); columns (jc, r', a'). The ring index a rides
        // in the rows of a middle step, is contracted in the last and produced by the first.
        const std::uint64_t rowA = (!st.first && !st.last) ? s.na : 1;
        const std::uint64_t kA = st.last && !st.first ? s.na : 1;
        const std::uint64_t kR = s.nr;
        const std::uint64_t colR = st.last ? 1 : st.r0;
        const std::uint64_t colA = st.first && !st.last ? st.r1 : 1;
        const Gemm shape{rows * niOut * rowA * s.nj, st.n * kA * kR, st.m * colR * colA};
        const Gemm& g = gemms.at(st.t);
        if (g.m != shape.m || g.k != shape.k || g.n != shape.n)
            throw std::invalid_argument(
                fmt::format("step {}: the planned GEMM is {} x {} x {}, the state needs {} x {} x {}", st.t,
                            g.m, g.k, g.n, shape.m, shape.k, shape.n));
        // The gathers: A (M × K) from the state, W (K × N) from the core.
        std::vector<std::int64_t> A(shape.m * shape.k), W(shape.k * shape.n);
        for (std::uint64_t row = 0; row < rows; ++row)
            for (std::uint64_t ip = 0; ip < niOut; ++ip)
                for (std::uint64_t ar = 0; ar < rowA; ++ar)
                    for (std::uint64_t j = 0; j < s.nj; ++j) {
                        const std::uint64_t mi = ((row * niOut + ip) * rowA + ar) * s.nj + j;
                        for (std::uint64_t ic = 0; ic < st.n; ++ic)
                            for (std::uint64_t ak = 0; ak < kA; ++ak)
                                for (std::uint64_t r = 0; r < kR; ++r) {
                                    const std::uint64_t ki = (ic * kA + ak) * kR + r;
                                    A[mi * shape.k + ki] =
                                        s.v[s.at(row, ip * st.n + ic, rowA > 1 ? ar : ak, r, j)];
                                }
                    }
        for (std::uint64_t ic = 0; ic < st.n; ++ic)
            for (std::uint64_t ak = 0; ak < kA; ++ak)
                for (std::uint64_t r = 0; r < kR; ++r)
                    for (std::uint64_t jc = 0; jc < st.m; ++jc)
                        for (std::uint64_t rk = 0; rk < colR; ++rk)
                            for (std::uint64_t ac = 0; ac < colA; ++ac) {
                                const std::uint64_t ki = (ic * kA + ak) * kR + r;
                                const std::uint64_t ni = (jc * colR + rk) * colA + ac;
                                // The kept rank index: a in the last step, else r'; the contracted
                                // one: a' in the first step, else r.
                                W[ki * shape.n + ni] = st.g(st.last ? ak : rk, ic, jc, st.first ? ac : r);
                            }
        // C = A · W, requantised, scattered into the next state.
        for (std::uint64_t mi = 0; mi < shape.m; ++mi) {
            const std::uint64_t j = mi % s.nj;
            const std::uint64_t ar = mi / s.nj % rowA;
            const std::uint64_t ip = mi / s.nj / rowA % niOut;
            const std::uint64_t row = mi / s.nj / rowA / niOut;
            for (std::uint64_t ni = 0; ni < shape.n; ++ni) {
                std::int64_t acc = 0;
                for (std::uint64_t ki = 0; ki < shape.k; ++ki)
                    acc += A[mi * shape.k + ki] * W[ki * shape.n + ni];
                const std::uint64_t ac = ni % colA, rk = ni / colA % colR, jc = ni / colA / colR;
                o.v[o.at(row, ip, st.first ? ac : ar, rk, jc * s.nj + j)] = requantise(acc, requant, st.t);
            }
        }
        s = std::move(o);
    }
    return outputOf(s);
}

std::vector<std::int64_t> runEinsumChain(const ContractionPlan& plan, std::uint64_t rows,
                                         const ChainData& data, const Requant& requant) {
    State s = inputState(plan, rows, data);
    for (const Step& st : steps(plan, data)) {
        State o = st.next(s);
        // S'[row][I'][a'][r'][jc, J] = Σ_(ic, r[, a]) G · S[row][I', ic][a][r][J]
        for (std::uint64_t row = 0; row < o.rows; ++row)
            for (std::uint64_t ip = 0; ip < o.ni; ++ip)
                for (std::uint64_t a2 = 0; a2 < o.na; ++a2)
                    for (std::uint64_t r2 = 0; r2 < o.nr; ++r2)
                        for (std::uint64_t jc = 0; jc < st.m; ++jc)
                            for (std::uint64_t j = 0; j < s.nj; ++j) {
                                std::int64_t acc = 0;
                                for (std::uint64_t ic = 0; ic < st.n; ++ic)
                                    for (std::uint64_t a = 0; a < s.na; ++a)
                                        for (std::uint64_t r = 0; r < s.nr; ++r) {
                                            if (!st.last && a != (st.first ? 0 : a2))
                                                continue;  // a is carried, not summed, before the last step
                                            const std::int64_t gv =
                                                st.g(st.last ? a : r2, ic, jc, st.first ? a2 : r);
                                            acc += gv * s.v[s.at(row, ip * st.n + ic, a, r, j)];
                                        }
                                o.v[o.at(row, ip, a2, r2, jc * s.nj + j)] = requantise(acc, requant, st.t);
                            }
        s = std::move(o);
    }
    return outputOf(s);
}

std::vector<std::int64_t> runDense(const ContractionPlan& plan, std::uint64_t rows, const ChainData& data) {
    const TtShape& s = plan.chain;
    const auto ranks = fullChainRanks(plan);
    const std::uint64_t R = plan.ringRank;
    // P[(i_0..i_c)][(j_0..j_c)][a0][r_(c+1)], grown one core at a time from P[a0][r] = δ(a0, r).
    std::vector<std::int64_t> P(R * R, 0);
    for (std::uint64_t a = 0; a < R; ++a)
        P[a * R + a] = 1;
    std::uint64_t ni = 1, nj = 1;
    for (unsigned c = 0; c < s.d(); ++c) {
        const std::uint64_t n = s.in[c], m = s.out[c], r0 = ranks[c], r1 = ranks[c + 1];
        const auto& G = data.cores.at(c);
        std::vector<std::int64_t> next(ni * n * nj * m * R * r1, 0);
        for (std::uint64_t i = 0; i < ni; ++i)
            for (std::uint64_t j = 0; j < nj; ++j)
                for (std::uint64_t a0 = 0; a0 < R; ++a0)
                    for (std::uint64_t a = 0; a < r0; ++a) {
                        const std::int64_t pv = P[((i * nj + j) * R + a0) * r0 + a];
                        for (std::uint64_t ii = 0; ii < n; ++ii)
                            for (std::uint64_t jj = 0; jj < m; ++jj)
                                for (std::uint64_t b = 0; b < r1; ++b)
                                    next[((((i * n + ii) * nj * m) + j * m + jj) * R + a0) * r1 + b] +=
                                        pv * G[((a * n + ii) * m + jj) * r1 + b];
                    }
        P = std::move(next);
        ni *= n;
        nj *= m;
    }
    std::vector<std::int64_t> y(rows * nj, 0);
    for (std::uint64_t row = 0; row < rows; ++row)
        for (std::uint64_t o = 0; o < nj; ++o)
            for (std::uint64_t i = 0; i < ni; ++i) {
                std::int64_t w = 0;
                for (std::uint64_t a = 0; a < R; ++a)
                    w += P[((i * nj + o) * R + a) * R + a];
                y[row * nj + o] += data.x[row * ni + i] * w;
            }
    return y;
}

}  // namespace tessim::tn
