// Simulator speed: synthetic op streams timed on one engine in timing-only mode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessim {

struct BenchFigure {
    std::string name;
    std::uint64_t ops = 0;
    double wallSeconds = 0.0;
    double simulatedCycles = 0.0;
    double opsPerSecond() const { return wallSeconds > 0 ? static_cast<double>(ops) / wallSeconds : 0.0; }
};

// Cases: "fma-independent", "fma-dependent", "spm-load-store".
const std::vector<std::string>& benchCases();
// Runs one case in this process (elaborates SystemC: once per process).
BenchFigure runBenchCase(const std::string& name, std::uint64_t ops);

}  // namespace tessim
