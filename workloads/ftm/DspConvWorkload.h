// What the vector-DSP convolutions (shuffle, im2col) share as workloads: the resolved workload,
// the compulsory DDR traffic, the test data and the functional check against a direct
// convolution, and the throughput figures of their reports.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "workloads/common/ConfiguredWorkload.h"
#include "workloads/ftm/DspConvProblem.h"
#include "workloads/ftm/ModuloScheduler.h"

namespace tessim {

class DspConvWorkload : public ConfiguredWorkload {
public:
    explicit DspConvWorkload(DspConvProblem problem) : problem_(std::move(problem)) {}

    std::map<std::string, std::uint64_t> compulsoryBytes() const override;
    void initialise(FunctionalMemory& memory) override;
    FunctionalCheck check(FunctionalMemory& memory) override;
    bool formsBundles() const override { return true; }  // modulo-scheduled VLIW bundles

protected:
    // Seconds of `loopCycles` on the busiest core, or of the DDR traffic (inputs and weights read,
    // outputs written, `extraDdrBytes` more) at the DDR's peak, whichever is longer: DMA and
    // compute overlap.
    double overlappedEstimate(double loopCycles, double extraDdrBytes) const;
    void deriveWorkload(nlohmann::ordered_json& workload) const override;
    // flops, flop_per_second and fmac_utilisation of `fmacs` FMACs of `lanes` lanes on every core.
    void addThroughputStats(StatsTree& stats, std::uint64_t cycles, double seconds, unsigned fmacs,
                            unsigned lanes) const;
    // What the loop figures mean for this loop.
    struct LoopNotes {
        const char* ii;
        const char* resourceBound;
        const char* recurrenceBound;
    };
    // ii_achieved, its bounds, unroll and loop_fmac_utilisation of the loop `schedule`, which issues
    // `fmas` FMAs per iteration.
    void addLoopStats(StatsTree& stats, const ModuloSchedule& schedule, unsigned unroll, double fmas,
                      unsigned fmacs, const LoopNotes& notes) const;

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
