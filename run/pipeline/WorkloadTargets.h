// Which library targets run each library workload as it stands (its own shape, the target's
// default plan): the schedule generator builds on the target without error, so a run would
// start. For `tessim list workloads`; a target that cannot run a workload refuses it the same way.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tessim {

// Library workload name → the library targets (by name, in library order) that run it.
std::map<std::string, std::vector<std::string>> libraryWorkloadTargets();

}  // namespace tessim
