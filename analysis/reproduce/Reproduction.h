// Reproductions (`tessim reproduce`): a paper's published claims (configs/papers/<id>.yaml) next
// to simulated values, each from a `tessim run ... --format json` child process, with verdicts:
//   impossible  the published value is below a physical bound (compulsory DDR traffic at INT8 =
//               input + output + weights once each; time below bounds.compute_s); the note names it
//   match       simulated within the quantity's tolerance of the published value
//   trend-match outside the tolerance, but the ordering of this quantity across the paper's rows
//               (pairwise, published vs simulated) is the same
//   mismatch    neither
#pragma once

#include "sim/config/Location.h"
#include "sim/core/SelfExecutable.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

struct ReproRun {
    std::string name, target, workload, plan;
    std::vector<std::string> sets;
    // A program run in place of a workload (`run --program`): the executable, its argv[0] and
    // arguments, and the file its report goes to (its stdout is the program's).
    std::string program, programName, reportFile;
    std::vector<std::string> programArguments;
};

struct ReproClaim {
    std::string id, run, quantity, quantityLabel, unit, row, column;
    std::string relativeTo;  // another run: the simulated value is this run's metric over that run's
    double published = 0.0, simulated = 0.0;
    std::string verdict, note;
    std::string tolerance;             // the band a match must fall in, and where it comes from
    std::vector<std::string> assumes;  // ids of the assumptions its verdict rests on
};

// A choice tessim made where the paper is silent (a workload's shape, a DDR type, a latency):
// what it is, where it is set, and the claims whose verdicts rest on it (a paper file's
// `assumptions:` list).
struct ReproAssumption {
    std::string id, what, where;
    std::vector<std::string> claims;  // claim ids; a trailing * matches every id it begins
    config::Location at;              // of `claims`, for an error
    std::string key;
};

// A trend-match is a claim outside its tolerance whose ordering against the paper's other rows
// holds and whose simulated value is within this factor of the published one, either way; beyond
// it the claim is a mismatch, whatever the ordering (16 ms against a published 85 ms is not a trend).
constexpr double kTrendFactor = 2.0;
bool withinTrendFactor(double simulated, double published);
// simulated / published; NaN where that says nothing (a published 0, a value not finite).
double claimRatio(const ReproClaim& c);
// "; 5.3× the published value, beyond the 2× a trend-match allows" when a trend fails only there.
std::string beyondTrendFactorNote(const ReproClaim& c);

// One arithmetic check of the paper's own figures against each other (PaperArithmetic.h).
struct ConsistencyCheck {
    std::string id, what, source, unit;
    std::vector<std::pair<std::string, double>> values;  // an agreement's values
    double stated = 0.0;   // the stated value, or an agreement's spread (max / min - 1)
    double bound = 0.0;    // what the paper's own figures allow, or the spread allowed
    std::string relation;  // "≤ 1.818", "spread ≤ 10 %"
    bool consistent = true;
    std::string verdict, note;
};

// A published claim with nothing simulated behind it (a paper file's `not_reproduced:` list): it
// is listed with the verdict `not-reproduced` and why, never left out.
struct NotReproduced {
    std::string id, what, unit, source, reason;
    double published = 0.0;
};

// A figure the paper publishes (its header's `published_figures:` list, PublishedFigures.h) and
// the rows that answer it: claims, not-reproduced claims or consistency checks by id, or why none.
struct PublishedFigure {
    std::string figure, source, notReproduced;
    std::vector<std::string> rows;
    config::Location at;  // of `rows`, for an error
    std::string key;
};

struct ReproResult {
    std::string paper, description;
    std::vector<PublishedFigure> figures;  // empty: the paper file lists none
    config::Location figuresAt;            // of `published_figures`
    std::vector<ReproClaim> claims;
    std::vector<NotReproduced> notReproduced;
    std::vector<ReproAssumption> assumptions;
    std::vector<ConsistencyCheck> consistency;    // the paper's own numbers checked against each other
    std::map<std::string, std::string> commands;  // run name → command line
};

// Runs one simulation and returns its tessim.report/1 JSON (throws std::runtime_error on failure).
using ReproRunner = std::function<nlohmann::json(const ReproRun&)>;

namespace config {
class Reader;
}

// A paper file's common keys: name and description into the result, the `consistency` checks
// evaluated, the claims `not_reproduced`; source and provenance are read but not reported.
ReproResult readPaperHeader(config::Reader& r);

// Names on each claim the assumptions whose `claims` match its id, and adds to an `impossible`
// verdict's note what it rests on. ConfigError (at the assumption's `claims`) for a pattern that
// matches no claim.
void applyAssumptions(ReproResult& r);

// Reads the paper file (ConfigError on bad input), runs every needed simulation (in parallel) and
// computes the verdicts.
ReproResult reproducePaper(const std::string& paperPath, const ReproRunner& runner);

// The command line of a run: `<exe> run --target ... --format json` (shell-quoted, for reports).
std::string reproCommand(const std::string& exe, const ReproRun& run);
// The same as arguments (argv[0] = exe), for starting it without a shell.
std::vector<std::string> reproArguments(const std::string& exe, const ReproRun& run);
// Runs the run as a child process (sweep::runProcess: no shell); its stdout is the report, its
// stderr the error of a failed run. A program run's report is read from its reportFile, with the
// program's own output added as "program_stdout" and "program_stderr".
nlohmann::json runChildSimulation(const std::string& exe, const ReproRun& run);

std::string reproMarkdown(const ReproResult& r);
// {"paper": id, "claims": [{"id","quantity","published","simulated","unit","verdict","note","assumes"}],
//  "assumptions": [{"id","what","where","claims"}] (when the paper names some),
//  "not_reproduced": [{"id","what","published","unit","verdict","reason","source"}] and
//  "consistency": [{"id","what","stated","relation","bound","verdict","note"}] (when the paper has them)}
nlohmann::ordered_json reproJson(const ReproResult& r);

}  // namespace tessim
