#include "analysis/dse/TtDesignSpace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace tessim {

namespace {

void ordered(std::uint64_t n, unsigned d, std::vector<std::uint64_t>& prefix,
             std::vector<std::vector<std::uint64_t>>& out) {
    if (d == 1) {
        if (n >= 2) {
            prefix.push_back(n);
            out.push_back(prefix);
            prefix.pop_back();
        }
        return;
    }
    for (std::uint64_t f = 2; f * 2 <= n; ++f) {
        if (n % f)
            continue;
        prefix.push_back(f);
        ordered(n / f, d - 1, prefix, out);
        prefix.pop_back();
    }
}

void sorted(std::uint64_t n, unsigned d, std::uint64_t least, std::vector<std::uint64_t>& prefix,
            std::vector<std::vector<std::uint64_t>>& out) {
    if (d == 1) {
        if (n >= least) {
            prefix.push_back(n);
            out.push_back(prefix);
            prefix.pop_back();
        }
        return;
    }
    for (std::uint64_t f = least; f * f <= n; ++f) {  // f ≤ every later factor
        if (n % f)
            continue;
        prefix.push_back(f);
        sorted(n / f, d - 1, f, prefix, out);
        prefix.pop_back();
    }
}

double factorial(std::uint64_t k) {
    double f = 1;
    for (std::uint64_t i = 2; i <= k; ++i)
        f *= static_cast<double>(i);
    return f;
}

double multiplicityFactorials(const std::vector<std::uint64_t>& values) {
    std::map<std::uint64_t, std::uint64_t> count;
    for (auto v : values)
        ++count[v];
    double p = 1;
    for (const auto& [v, k] : count)
        p *= factorial(k);
    return p;
}

// Every tuple of d−1 inner ranks from `set`, first rank outermost.
std::vector<std::vector<std::uint64_t>> rankTuples(const std::vector<std::uint64_t>& set, unsigned inner) {
    std::vector<std::vector<std::uint64_t>> tuples{{}};
    for (unsigned i = 0; i < inner; ++i) {
        std::vector<std::vector<std::uint64_t>> next;
        for (const auto& t : tuples)
            for (auto r : set) {
                next.push_back(t);
                next.back().push_back(r);
            }
        tuples = std::move(next);
    }
    return tuples;
}

std::uint64_t heaviestEinsum(const TtShape& s, std::uint64_t batch) {
    std::uint64_t h = 0;
    for (const auto& e : s.einsums(batch))
        h = std::max(h, e.flops());
    return h;
}

}  // namespace

std::vector<std::vector<std::uint64_t>> orderedFactorisations(std::uint64_t n, unsigned d) {
    std::vector<std::vector<std::uint64_t>> out;
    std::vector<std::uint64_t> prefix;
    if (d >= 1)
        ordered(n, d, prefix, out);
    return out;
}

std::vector<std::vector<std::uint64_t>> sortedFactorisations(std::uint64_t n, unsigned d) {
    std::vector<std::vector<std::uint64_t>> out;
    std::vector<std::uint64_t> prefix;
    if (d >= 1)
        sorted(n, d, 2, prefix, out);
    return out;
}

double distinctOrderings(const std::vector<std::uint64_t>& values) {
    return factorial(values.size()) / multiplicityFactorials(values);
}

double alignmentReduction(const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& out) {
    return factorial(in.size()) * factorial(out.size()) /
           (multiplicityFactorials(in) * multiplicityFactorials(out));
}

unsigned threadsForFlops(double flops, const std::vector<double>& thresholds, unsigned maxThreads) {
    unsigned t = 1;
    for (double bound : thresholds)
        if (flops >= bound)
            ++t;
    return std::max(1u, std::min(t, maxThreads));
}

TtSpace exploreTtSpace(const TtSpaceOptions& o) {
    if (o.in < 2 || o.out < 2)
        throw std::invalid_argument("in and out must be at least 2");
    if (o.minCores < 2 || o.maxCores < o.minCores || o.maxCores > 8)
        throw std::invalid_argument("the number of cores runs from 2 up to at most 8");
    if (o.ranks.empty() || o.vectorLength == 0)
        throw std::invalid_argument("give at least one rank and a vector length");
    std::vector<std::uint64_t> vlRanks;
    for (auto r : o.ranks)
        if (r % o.vectorLength == 0)
            vlRanks.push_back(r);
    TtSpace space;
    double all = 0, aligned = 0, vl = 0;
    const double dense =
        2.0 * static_cast<double>(o.batch) * static_cast<double>(o.in) * static_cast<double>(o.out);
    const double denseParameters = static_cast<double>(o.in) * static_cast<double>(o.out);
    std::vector<TtShape> cheaper;
    for (unsigned d = o.minCores; d <= o.maxCores; ++d) {
        const auto inOrdered = orderedFactorisations(o.in, d), outOrdered = orderedFactorisations(o.out, d);
        auto inSorted = sortedFactorisations(o.in, d), outSorted = sortedFactorisations(o.out, d);
        const double pairs = static_cast<double>(inOrdered.size()) * static_cast<double>(outOrdered.size());
        const double alignedPairs =
            static_cast<double>(inSorted.size()) * static_cast<double>(outSorted.size());
        all += pairs * std::pow(static_cast<double>(o.ranks.size()), d - 1);
        aligned += alignedPairs * std::pow(static_cast<double>(o.ranks.size()), d - 1);
        vl += alignedPairs * std::pow(static_cast<double>(vlRanks.size()), d - 1);
        space.orderedPairs += pairs;
        for (auto& m : outSorted)
            std::reverse(m.begin(), m.end());  // out factors descending
        for (const auto& n : inSorted)
            for (const auto& m : outSorted)
                space.orderingsOfAligned += alignmentReduction(n, m);
        if (vlRanks.empty())
            continue;
        const auto tuples = rankTuples(vlRanks, d - 1);
        for (const auto& n : inSorted)
            for (const auto& m : outSorted)
                for (const auto& inner : tuples) {
                    TtShape s;
                    s.in = n;
                    s.out = m;
                    s.ranks = {1};
                    s.ranks.insert(s.ranks.end(), inner.begin(), inner.end());
                    s.ranks.push_back(1);
                    if (static_cast<double>(s.flops(o.batch)) < dense &&
                        static_cast<double>(s.parameters()) < denseParameters)
                        cheaper.push_back(std::move(s));
                }
    }
    space.steps.push_back({"factorisations x ranks", all});
    space.steps.push_back({"aligned permutations", aligned});
    space.steps.push_back({"ranks multiple of vl", vl});
    space.steps.push_back({"FLOPs and memory below dense", static_cast<double>(cheaper.size())});
    for (auto& s : cheaper)
        if (s.d() <= o.scalableCores || static_cast<double>(heaviestEinsum(s, o.batch)) >= o.scalableFlops)
            space.survivors.push_back(std::move(s));
    space.steps.push_back({"scalability", static_cast<double>(space.survivors.size())});
    std::stable_sort(space.survivors.begin(), space.survivors.end(), [&](const TtShape& a, const TtShape& b) {
        const auto fa = a.flops(o.batch), fb = b.flops(o.batch);
        if (fa != fb)
            return fa < fb;
        return a.parameters() < b.parameters();
    });
    return space;
}

}  // namespace tessim
