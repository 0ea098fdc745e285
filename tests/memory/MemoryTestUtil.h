// Helpers for the memory-model tests: a fresh SystemC kernel per test (so the binary also runs
// all tests in one process), configs from YAML text, and closed-form helpers.
#pragma once

#include <string>

#include <systemc>

#include "models/memory/SimpleMemory.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"
#include "sim/core/SimulationSetup.h"

namespace tessim::test {

// A new simulation context: modules of earlier tests (and their elaboration) are forgotten.
inline void freshKernel() {
    initSystemC();
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

// A 1 GiB DRAM-like memory behind a cache under test: 50 ns, 10 GB/s (a 64 B line in 6.4 ns).
inline SimpleMemoryConfig dramBehindCache() {
    SimpleMemoryConfig c;
    c.level = "ddr";
    c.size = 1ULL << 30;
    c.latency = 50'000;
    c.bandwidth = 10e9;
    return c;
}

// Elaborates and starts the kernel at time 0 without advancing it.
inline void elaborate() {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

template <class Config> Config configFrom(const std::string& yaml) {
    config::Node node = config::loadYamlString(yaml, "test.yaml");
    config::Reader r(node);
    Config c = Config::fromYaml(r, "test");
    r.finish();
    return c;
}

}  // namespace tessim::test
