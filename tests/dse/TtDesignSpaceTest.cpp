// The tensor-train design space: the aligned-permutation step against brute-force enumeration,
// the seed's 600× example, pruning counts that never grow, the seed's threads per FLOPs rule, and
// `tessim dse` end to end on a small layer.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/dse/TtDesignSpace.h"
#include "common/ProcessRunner.h"

namespace tessim {
namespace {

TEST(TtDesignSpace, TheSeedsExampleStandsForSixHundredOrderings) {
    // [5,5,3,2,2] × [2,2,2,7,14]: (5!)² / (2!·2!·3!) = 600.
    EXPECT_DOUBLE_EQ(alignmentReduction({2, 2, 2, 7, 14}, {5, 5, 3, 2, 2}), 600.0);
    EXPECT_DOUBLE_EQ(alignmentReduction({2, 3, 5}, {7, 11, 13}), 36.0);  // all distinct: (3!)²
}

TEST(TtDesignSpace, AlignedCountEqualsBruteForceEnumeration) {
    struct Case {
        std::uint64_t in, out;
        unsigned d;
    };
    for (const Case& c : {Case{24, 36, 3}, Case{64, 48, 4}, Case{784, 300, 5}, Case{120, 90, 2}}) {
        const auto inOrdered = orderedFactorisations(c.in, c.d),
                   outOrdered = orderedFactorisations(c.out, c.d);
        // Brute force: every ordered pair, brought to its aligned form, counted once.
        std::set<std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>>> aligned;
        double reductions = 0;
        for (auto n : inOrdered) {
            std::sort(n.begin(), n.end());
            for (auto m : outOrdered) {
                std::sort(m.rbegin(), m.rend());
                aligned.insert({n, m});
            }
        }
        const auto inSorted = sortedFactorisations(c.in, c.d), outSorted = sortedFactorisations(c.out, c.d);
        EXPECT_EQ(aligned.size(), inSorted.size() * outSorted.size()) << c.in << "x" << c.out;
        for (const auto& [n, m] : aligned)
            reductions += alignmentReduction(n, m);
        EXPECT_DOUBLE_EQ(reductions, static_cast<double>(inOrdered.size() * outOrdered.size()))
            << c.in << "x" << c.out;
        for (const auto& f : inSorted) {
            std::uint64_t p = 1;
            for (auto x : f)
                p *= x;
            EXPECT_EQ(p, c.in);
            EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
        }
    }
}

TEST(TtDesignSpace, StepCountsNeverIncrease) {
    for (auto [in, out] : {std::pair<std::uint64_t, std::uint64_t>{784, 300}, {768, 3072}, {400, 120}}) {
        TtSpaceOptions o;
        o.in = in;
        o.out = out;
        const TtSpace s = exploreTtSpace(o);
        ASSERT_EQ(s.steps.size(), 5u);
        for (std::size_t i = 1; i < s.steps.size(); ++i)
            EXPECT_LE(s.steps[i].count, s.steps[i - 1].count) << in << "x" << out << " " << s.steps[i].name;
        EXPECT_EQ(s.steps.back().count, static_cast<double>(s.survivors.size()));
        EXPECT_DOUBLE_EQ(s.orderedPairs, s.orderingsOfAligned);
        for (const auto& shape : s.survivors) {
            EXPECT_LT(shape.flops(1), 2 * in * out);
            EXPECT_LT(shape.parameters(), in * out);
            for (std::size_t r = 1; r + 1 < shape.ranks.size(); ++r)
                EXPECT_EQ(shape.ranks[r] % 8, 0u);
        }
    }
}

TEST(TtDesignSpace, ThreadsFollowTheSeedsFlopsRanges) {
    const std::vector<double> t{2e6, 4e6, 8e6};
    EXPECT_EQ(threadsForFlops(1.9e6, t, 4), 1u);
    EXPECT_EQ(threadsForFlops(2e6, t, 4), 2u);
    EXPECT_EQ(threadsForFlops(5e6, t, 4), 3u);
    EXPECT_EQ(threadsForFlops(8e6, t, 4), 4u);
    EXPECT_EQ(threadsForFlops(9e9, t, 2), 2u);
}

TEST(TtDse, RanksSimulatedSurvivorsAgainstTheDenseLayer) {
    const std::string dir = (std::filesystem::temp_directory_path() / "tessim-dse-test").string();
    std::filesystem::remove_all(dir);
    const std::string args = "dse --target k1 --workload fc --set workload.in=400 --set workload.out=120 "
                             "--set workload.batch=1 --max-cores 3 --simulate 4 --top 3 --jobs 2 --out " +
                             dir;
    auto r = test::runTessim(args);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("| aligned permutations |"), std::string::npos) << r.out;
    std::ifstream in(std::filesystem::path(dir) / "dse.json");
    const auto j = nlohmann::json::parse(in);
    const auto& steps = j["steps"];
    ASSERT_GE(steps.size(), 6u);
    for (std::size_t i = 1; i < steps.size(); ++i)
        EXPECT_LE(steps[i]["count"].get<double>(), steps[i - 1]["count"].get<double>());
    EXPECT_EQ(steps.back()["count"].get<double>(), 4.0);
    const auto& best = j["best"];
    ASSERT_EQ(best.size(), 3u);
    const double dense = j["dense"]["seconds"].get<double>();
    for (std::size_t i = 0; i < best.size(); ++i) {
        EXPECT_NEAR(best[i]["speedup"].get<double>(), dense / best[i]["seconds"].get<double>(), 1e-9);
        EXPECT_LT(best[i]["flops"].get<double>(), 2.0 * 400 * 120);
        if (i > 0) {
            EXPECT_GE(best[i]["seconds"].get<double>(), best[i - 1]["seconds"].get<double>());
        }
    }
    // The best solution rerun with each optimisation added in turn.
    const auto& breakdown = j["breakdown"];
    ASSERT_EQ(breakdown.size(), 6u);
    EXPECT_EQ(breakdown[0]["plan"], "tt/naive");
    EXPECT_EQ(breakdown[3]["plan"], "tt/blocked");
    EXPECT_GT(breakdown[0]["seconds"].get<double>(), breakdown[3]["seconds"].get<double>());
    EXPECT_GT(breakdown[0]["loads_stores"].get<double>(), breakdown[3]["loads_stores"].get<double>());
    // Resumed: the same ranking from the finished runs.
    auto again = test::runTessim(args + " --resume");
    ASSERT_EQ(again.exitCode, 0) << again.err;
    EXPECT_EQ(again.out, r.out);
    std::filesystem::remove_all(dir);
}

TEST(TtDse, TakesOnlyADenseFcLayer) {
    auto r = test::runTessim("dse --target k1 --workload axpy");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("takes an fc workload, not 'axpy'"), std::string::npos) << r.err;
    r = test::runTessim("dse --target k1 --workload tt-lenet300");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("the exploration chooses the TT shape"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
}

// A prime side has no factorisation into cores, and sides that factor only into different core
// counts have no common shape: an empty space is an error, not a table of zeros.
TEST(TtDse, ASpaceWithoutATensorTrainShapeIsRefused) {
    auto r = test::runTessim("dse --target k1 --workload fc --set workload.in=97 --set workload.out=89");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(
        r.err.find("<command line>:1:1: error: in: 97 has no factorisation into 2–5 factors of at least 2"),
        std::string::npos)
        << r.err;
    // 9 = 3·3 has no three factors of at least 2.
    r = test::runTessim(
        "dse --target k1 --workload fc --set workload.in=8 --set workload.out=9 --min-cores 3");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("error: out: 9 has no factorisation into 3–5 factors"), std::string::npos) << r.err;
}

TEST(TtDse, ALayerTooSmallToFactoriseIsRefusedWithItsKey) {
    auto r = test::runTessim("dse --target k1 --workload fc --set workload.in=1");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("<command line>:1:1: error: in: 1 is out of range: it must be at least 2"),
              std::string::npos)
        << r.err;
}

}  // namespace
}  // namespace tessim
