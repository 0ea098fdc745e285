// Simulator speed: synthetic op streams timed on one engine in timing-only mode, and whole runs
// of library workloads.
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

// Cases: "fma-independent", "fma-dependent", "spm-load-store" (the minimal target's engine);
// "k1-l1-hit-load", "k1-l1-hit-store" (vle32/vse32 at LMUL 1 on k1's core0, a warm 16 KiB buffer
// in its L1: one line per op) and their "-m8" twins (LMUL 8 as memcpy: four lines per op); "k1-memcpy-64mib"
// (a whole `tessim run` of memcpy over 64 MiB on k1: its memory ops and the wall time of the run, elaboration
// and report included; `ops` is ignored); "k1-program-loop" (a whole `tessim run --program` of a
// scalar loop, about `ops` instructions: instructions retired per second) and "k1-program-threads"
// (the same loop on 4 threads, on core0…core3: about `ops` instructions in all).
const std::vector<std::string>& benchCases();
// Runs one case in this process (elaborates SystemC: once per process).
BenchFigure runBenchCase(const std::string& name, std::uint64_t ops);

}  // namespace tessim
