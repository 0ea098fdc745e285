// A configured target in a fresh SystemC kernel per call (the previous one is leaked with its
// kernel: SystemC cannot reset a kernel), so one test may run several streams; and one run of a
// stream on one of its engines.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"

namespace tessim::test {

inline std::unique_ptr<ConfiguredTarget>& target() {
    static std::unique_ptr<ConfiguredTarget> t;  // outlives sc_start; one per test process
    return t;
}

// `file` relative to the source tree, e.g. "configs/targets/k1.yaml"; `overrides` as `--set`.
inline ConfiguredTarget& freshTarget(const std::string& file,
                                     const std::vector<std::string>& overrides = {}) {
    initSystemC();
    if (target()) {
        (void)target().release();
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    }
    config::Node root = config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/" + file);
    for (const auto& o : overrides)
        config::applyOverride(root, o, {"<test>", 0, 0});
    target() = std::make_unique<ConfiguredTarget>(root);
    return *target();
}

// Runs `ops` on the current target's engine `engineName` to the end; returns the engine.
inline Engine& runStream(const std::string& engineName, std::vector<Op> ops, bool functional = false) {
    Engine* e = target()->findEngine(engineName);
    e->setFunctional(functional);
    e->setStream(std::make_unique<VectorOpStream>(std::move(ops)));
    sc_core::sc_start();
    rethrowProcessFailure();
    return *e;
}

}  // namespace tessim::test
