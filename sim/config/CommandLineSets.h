// `--set root.dotted.key=value` on the command line: each assignment goes to the tree its root
// (target, workload or plan) names, as YAML, located at its argument ("<command line>":1:N).
#pragma once

#include <string>
#include <vector>

#include "sim/config/Node.h"

namespace tessim::config {

struct CommandLineTrees {
    Node* target = nullptr;
    Node* workload = nullptr;  // a Null node when the run has no workload
    Node* plan = nullptr;
};

/// Applies `sets` in order. A malformed assignment, another root, or workload.… without a
/// workload is a ConfigError at its argument.
void applyCommandLineSets(const std::vector<std::string>& sets, const CommandLineTrees& trees);

}  // namespace tessim::config
