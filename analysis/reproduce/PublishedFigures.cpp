#include "analysis/reproduce/PublishedFigures.h"

#include <set>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Reader.h"

namespace tessim {

void readPublishedFigures(const config::Reader& paper, ReproResult& r) {
    if (!paper.has("published_figures"))
        return;
    r.figuresAt = paper.node("published_figures").location();
    for (const config::Reader& c : paper.children("published_figures")) {
        PublishedFigure f;
        f.figure = c.get<std::string>("figure");
        f.source = c.get<std::string>("source");
        const bool rows = c.has("rows"), reason = c.has("not_reproduced");
        if (rows == reason)
            c.fail(rows ? "not_reproduced" : "figure",
                   "a published figure names the rows that answer it (rows: [ids]) or why none does "
                   "(not_reproduced: reason), one of the two");
        if (rows) {
            f.rows = c.get<std::vector<std::string>>("rows");
            f.at = c.node("rows").location();
            f.key = c.self().path() + ".rows";
            if (f.rows.empty())
                c.fail("rows", "expected the ids of the claims or checks that answer the figure");
        } else {
            f.notReproduced = c.get<std::string>("not_reproduced");
        }
        c.finish();
        r.figures.push_back(std::move(f));
    }
    if (r.figures.empty())
        paper.fail("published_figures", "expected a list of the paper's published figures");
}

void checkPublishedFigures(const ReproResult& r) {
    if (r.figures.empty())
        return;
    std::set<std::string> rows, answered;
    for (const auto& c : r.claims)
        rows.insert(c.id);
    for (const auto& n : r.notReproduced)
        rows.insert(n.id);
    for (const auto& c : r.consistency)
        rows.insert(c.id);
    for (const auto& f : r.figures)
        for (const auto& id : f.rows) {
            if (!rows.count(id))
                throw config::ConfigError(
                    f.at, f.key,
                    fmt::format("'{}' is no claim, not-reproduced claim or consistency check of paper '{}'",
                                id, r.paper));
            answered.insert(id);
        }
    auto require = [&](const std::string& id, const char* what) {
        if (!answered.count(id))
            throw config::ConfigError(
                r.figuresAt, "published_figures",
                fmt::format(
                    "{} '{}' answers none of the published figures: name it in the rows of the figure "
                    "it checks",
                    what, id));
    };
    for (const auto& c : r.claims)
        require(c.id, "claim");
    for (const auto& n : r.notReproduced)
        require(n.id, "not-reproduced claim");
}

std::string rowVerdict(const ReproResult& r, const std::string& id) {
    for (const auto& c : r.claims)
        if (c.id == id)
            return c.verdict;
    for (const auto& n : r.notReproduced)
        if (n.id == id)
            return "not-reproduced";
    for (const auto& c : r.consistency)
        if (c.id == id)
            return c.verdict;
    return "?";
}

std::string publishedFiguresMarkdown(const ReproResult& r) {
    if (r.figures.empty())
        return {};
    std::size_t reproduced = 0;
    for (const auto& f : r.figures)
        reproduced += f.notReproduced.empty() ? 1 : 0;
    std::string s = fmt::format(
        "\nThe paper's published figures ({}; {} answered by the rows above, {} with nothing to check them "
        "against):\n\n| figure | source | answered by |\n|---|---|---|\n",
        r.figures.size(), reproduced, r.figures.size() - reproduced);
    for (const auto& f : r.figures) {
        std::string by;
        for (const auto& id : f.rows)
            by += fmt::format("{}{} ({})", by.empty() ? "" : ", ", id, rowVerdict(r, id));
        if (!f.notReproduced.empty())
            by = "not-reproduced: " + f.notReproduced;
        s += fmt::format("| {} | {} | {} |\n", f.figure, f.source, by);
    }
    return s;
}

nlohmann::ordered_json publishedFiguresJson(const ReproResult& r) {
    nlohmann::ordered_json figures = nlohmann::ordered_json::array();
    for (const auto& f : r.figures) {
        nlohmann::ordered_json j{{"figure", f.figure}, {"source", f.source}};
        if (f.notReproduced.empty()) {
            j["rows"] = nlohmann::ordered_json::array();
            for (const auto& id : f.rows)
                j["rows"].push_back({{"id", id}, {"verdict", rowVerdict(r, id)}});
        } else {
            j["verdict"] = "not-reproduced";
            j["reason"] = f.notReproduced;
        }
        figures.push_back(std::move(j));
    }
    return figures;
}

}  // namespace tessim
