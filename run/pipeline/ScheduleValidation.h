// `tessim validate`: a schedule (generated, or replayed with RunRequest::scheduleFile) run under
// checks: capacity, bounds, alignment, registers, DMA descriptors, DMA/compute hazards and, with
// RunRequest::functional, the values.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "run/pipeline/Simulation.h"

namespace tessim {

// {"valid", "errors", "checked"}; one readable line per error (FILE:LINE: for a replayed
// schedule's ops) and a closing verdict go to `diagnostics`. Bad input that is no finding about
// the schedule throws, as runSimulation does.
nlohmann::ordered_json validateSchedule(const RunRequest& request, bool noHazards, std::ostream& diagnostics);

}  // namespace tessim
