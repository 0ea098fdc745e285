// Plots are drawn by analysis/plots/tessim_plot.py with Debian's matplotlib: always
// /usr/bin/python3 (a pyenv python3 on PATH usually lacks matplotlib).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "run/sweep/SweepSpec.h"

namespace tessim::sweep {

/// $TESSIM_PLOT_SCRIPT, else analysis/plots/tessim_plot.py of the source tree.
std::string plotScriptPath();

/// The script's arguments for one plot of a results file.
std::vector<std::string> plotScriptArguments(const std::string& resultsCsv, const PlotRequest& plot,
                                             const std::string& outDir);

/// Runs the script (stdout and stderr inherited) and returns its exit status; 2 when python or
/// the script cannot be started.
int runPlotScript(const std::vector<std::string>& args, std::ostream& err);

/// One plot of `kind` into `png` from `data` (the text the script reads: a CSV or a JSON, in a
/// temporary file of this process's own, `extension` its suffix, removed afterwards). Returns the
/// script's exit status; 2 with a message on `err` when the file cannot be written.
int drawPlot(const std::string& kind, const std::string& data, const std::string& extension,
             const std::string& png, std::ostream& err);

}  // namespace tessim::sweep
