// What the vector-DSP convolutions (shuffle, im2col) share as workloads: the resolved workload,
// the compulsory DDR traffic, the test data and the functional check against a direct
// convolution, and the throughput figures of their reports.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sim/workload/Workload.h"
#include "workloads/ftm/DspConvProblem.h"

namespace tessim {

class DspConvWorkload : public Workload {
public:
    explicit DspConvWorkload(DspConvProblem problem) : problem_(std::move(problem)) {}

    nlohmann::ordered_json resolvedWorkload() const override;
    std::map<std::string, std::uint64_t> compulsoryBytes() const override;
    void initialise(FunctionalMemory& memory) override;
    FunctionalCheck check(FunctionalMemory& memory) override;

protected:
    // flops, flop_per_second and fmac_utilisation of `fmacs` FMACs of `lanes` lanes on every core.
    void addThroughputStats(StatsTree& stats, std::uint64_t cycles, double seconds, unsigned fmacs,
                            unsigned lanes) const;

private:
    // Padded coordinates: zero outside the map.
    double input(std::uint64_t c, std::uint64_t y, std::uint64_t x) const;
    // The schedule's order: the first product, then one FMA per kernel element, channel by channel,
    // each in row-major order.
    double reference(std::uint32_t f, std::uint32_t r, std::uint32_t o) const;
    void write(FunctionalMemory& memory, std::uint64_t addr, std::uint64_t count, std::uint64_t salt) const;

    DspConvProblem problem_;
};

}  // namespace tessim
