// A paper file's header lists every figure its seed publishes, so that a reproduction's coverage
// can be read off and checked: each figure names the rows that answer it (claims, not-reproduced
// claims, consistency checks) or says why nothing does.
//
//   published_figures:
//     - {figure: "TR 15 % faster than TT on [64,32,3,3]", source: "seed 2.3", rows: [tr-faster-npu,
//     tr-faster-k1]}
//     - {figure: "TR's L2 hit rate 22 % above TT's", source: "seed 2.3", not_reproduced: "no GPU cache
//     model"}
//
// Every row named must be one of the paper's, and every claim and not-reproduced claim must
// answer some figure: a claim outside the list, or a list that names an unknown row, is a
// configuration error at its key.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/reproduce/Reproduction.h"

namespace tessim {

namespace config {
class Reader;
}

// Reads the optional `published_figures` list into r.figures (ConfigError on bad entries).
void readPublishedFigures(const config::Reader& paper, ReproResult& r);

// Checks the list against the paper's rows (see above); nothing when the paper lists no figures.
void checkPublishedFigures(const ReproResult& r);

// The verdict of row `id`: its claim's, "not-reproduced", or its consistency check's.
std::string rowVerdict(const ReproResult& r, const std::string& id);

// "Published figures" for the Markdown report (empty without figures) and its JSON.
std::string publishedFiguresMarkdown(const ReproResult& r);
nlohmann::ordered_json publishedFiguresJson(const ReproResult& r);

}  // namespace tessim
