// Each paper file's header lists the figures its seed publishes (`published_figures:`): every
// shipped paper has the list, every claim answers one of its figures, every row it names exists,
// and the report shows each figure with the verdicts of the rows that answer it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include <unistd.h>

#include "analysis/reproduce/PublishedFigures.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"

namespace {

using tessim::ReproResult;

ReproResult headerOf(const std::string& path) {
    const tessim::config::Node root = tessim::config::loadYamlFile(path);
    tessim::config::Reader r(root);
    return tessim::readPaperHeader(r);
}

// The claim ids of a paper file (`claims[].id`), whatever its reproduction kind.
std::set<std::string> claimIdsOf(const std::string& path) {
    const tessim::config::Node root = tessim::config::loadYamlFile(path);
    const tessim::config::Reader r(root);
    std::set<std::string> ids;
    for (const auto& c : r.children("claims"))
        ids.insert(c.get<std::string>("id"));
    return ids;
}

TEST(PublishedFigures, EveryShippedPaperListsItsFiguresAndEveryClaimAnswersOne) {
    const std::string papers = std::string(TESSIM_SOURCE_DIR) + "/configs/papers/";
    // Figures per seed: the table and text of 001, the abstract, text and figures 8-10 of 003,
    // sections 2-4 and the abstract of 000, section 3.2's arithmetic and the text of 002.
    const std::pair<const char*, std::size_t> expected[] = {
        {"npu-tiling", 19}, {"ftm2000-conv", 11}, {"k1-ttd", 15}, {"tt-tr", 16}};
    for (const auto& [paper, count] : expected) {
        const std::string path = papers + paper + ".yaml";
        const ReproResult h = headerOf(path);
        EXPECT_EQ(h.figures.size(), count) << paper;
        std::set<std::string> named;
        for (const auto& f : h.figures) {
            EXPECT_FALSE(f.figure.empty()) << paper;
            EXPECT_FALSE(f.source.empty()) << paper << ": " << f.figure;
            EXPECT_NE(f.rows.empty(), f.notReproduced.empty()) << paper << ": " << f.figure;
            named.insert(f.rows.begin(), f.rows.end());
        }
        for (const auto& id : claimIdsOf(path))
            EXPECT_TRUE(named.count(id)) << paper << ": claim " << id << " answers no published figure";
        for (const auto& n : h.notReproduced)
            EXPECT_TRUE(named.count(n.id)) << paper << ": " << n.id;
    }
}

ReproResult twoClaims() {
    ReproResult r;
    r.paper = "p";
    tessim::ReproClaim a, b;
    a.id = "a";
    a.verdict = "match";
    b.id = "b";
    b.verdict = "mismatch";
    r.claims = {a, b};
    tessim::ConsistencyCheck c;
    c.id = "c";
    c.verdict = "inconsistent";
    r.consistency = {c};
    return r;
}

tessim::PublishedFigure figure(const std::string& text, std::vector<std::string> rows) {
    tessim::PublishedFigure f;
    f.figure = text;
    f.source = "s";
    f.rows = std::move(rows);
    f.key = "published_figures[0].rows";
    return f;
}

TEST(PublishedFigures, TheReportShowsEachFigureWithItsRowsVerdicts) {
    ReproResult r = twoClaims();
    r.figures = {figure("x 2x faster", {"a", "c"}), figure("y", {"b"})};
    tessim::PublishedFigure none;
    none.figure = "z";
    none.source = "s";
    none.notReproduced = "no model";
    r.figures.push_back(none);
    EXPECT_NO_THROW(tessim::checkPublishedFigures(r));
    const std::string md = tessim::publishedFiguresMarkdown(r);
    EXPECT_NE(md.find("(3; 2 answered by the rows above, 1 with nothing to check them against)"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| x 2x faster | s | a (match), c (inconsistent) |"), std::string::npos) << md;
    EXPECT_NE(md.find("| z | s | not-reproduced: no model |"), std::string::npos) << md;
    const auto j = tessim::publishedFiguresJson(r);
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0]["rows"][1]["verdict"], "inconsistent");
    EXPECT_EQ(j[2]["verdict"], "not-reproduced");
    EXPECT_EQ(j[2]["reason"], "no model");
}

TEST(PublishedFigures, AnUnknownRowOrAClaimOutsideTheListIsAnError) {
    auto errorOf = [](const ReproResult& r) {
        try {
            tessim::checkPublishedFigures(r);
        } catch (const tessim::config::ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    ReproResult unknown = twoClaims();
    unknown.figures = {figure("x", {"a", "b", "nope"})};
    EXPECT_NE(errorOf(unknown).find(
                  "published_figures[0].rows: 'nope' is no claim, not-reproduced claim or consistency check"),
              std::string::npos)
        << errorOf(unknown);
    ReproResult uncovered = twoClaims();
    uncovered.figures = {figure("x", {"a"})};
    EXPECT_NE(errorOf(uncovered).find("published_figures: claim 'b' answers none of the published figures"),
              std::string::npos)
        << errorOf(uncovered);
    // A paper that lists no figures is not checked.
    EXPECT_EQ(errorOf(twoClaims()), "no error");
}

TEST(PublishedFigures, AFigureNeedsRowsOrAReasonNotBoth) {
    const std::string path = "/tmp/tessim-figures-" + std::to_string(::getpid()) + ".yaml";
    auto errorFor = [&](const std::string& entry) {
        std::ofstream(path) << "name: p\npublished_figures:\n  - " << entry << "\n";
        try {
            headerOf(path);
        } catch (const tessim::config::ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(errorFor("{figure: f, source: s, rows: [a], not_reproduced: r}")
                  .find("published_figures[0].not_reproduced: a published figure names the rows"),
              std::string::npos)
        << errorFor("{figure: f, source: s, rows: [a], not_reproduced: r}");
    EXPECT_NE(
        errorFor("{figure: f, source: s}").find("published_figures[0].figure: a published figure names"),
        std::string::npos)
        << errorFor("{figure: f, source: s}");
    EXPECT_NE(
        errorFor("{figure: f, source: s, rows: []}").find("published_figures[0].rows: expected the ids"),
        std::string::npos)
        << errorFor("{figure: f, source: s, rows: []}");
    EXPECT_NE(errorFor("{figure: f, rows: [a]}").find("published_figures[0].source"), std::string::npos)
        << errorFor("{figure: f, rows: [a]}");
    std::remove(path.c_str());
}

}  // namespace
