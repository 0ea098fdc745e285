// One point as a process: the command line that runs it and the result row its exit makes.
#pragma once

#include <string>
#include <vector>

#include "run/sweep/PointSet.h"
#include "run/sweep/ProcessPool.h"
#include "run/sweep/ResultRow.h"
#include "run/sweep/SweepSpec.h"

namespace tessim::sweep {

/// `/proc/self/exe run`: each point re-executes this very binary.
std::vector<std::string> defaultRunCommand();

/// prefix + --target T --workload W [--plan P] --set k=v (fixed, then swept) --format json
std::vector<std::string> pointCommand(const SweepSpec& spec, const Point& point,
                                      const std::vector<std::string>& prefix);

/// ok with the metrics of the report on stdout; error with the point's stderr (or why the
/// report is unusable); timeout. Messages are one line and depend only on the point.
ResultRow pointResult(const SweepSpec& spec, const Point& point, const ProcessResult& process,
                      double timeoutSeconds);

/// A point's stderr as one line: its last few non-empty lines joined with " | ".
std::string stderrSummary(const std::string& err);

/// Environment entries for point processes (keeps SystemC's banner off their stdout).
std::vector<std::string> pointEnvironment();

}  // namespace tessim::sweep
