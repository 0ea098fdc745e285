// Banked on-chip SRAM (NPU buffer, FT-Matrix2000 AM/SM, K1 TCM). Words of `bank_width` bytes are
// interleaved over `banks` banks (word w lives in bank w mod banks); each bank delivers one word
// per cycle, so an access takes as many cycles as its busiest bank has distinct words. `ports`
// independent request ports serve accesses concurrently. Energy is charged per bank word read or
// written, so it scales with the width an access touches.
//
// YAML (impl: scratchpad): size, banks, bank_width, ports (1), clock, latency (cycles or
// duration, ≥ 1 cycle: issue to data of a conflict-free access), level (name), energy:
// {read, write: per bank-word access; array: the SRAM array model that derives them, leakage and
// area from size, banks, bank_width and ports (sim/energy/SramArrayModel.h)}, static_power.
#pragma once

#include <vector>

#include "models/memory/Memory.h"
#include "sim/config/Reader.h"
#include "sim/core/ReservationTimeline.h"

namespace tessim {

struct ScratchpadConfig {
    std::string level;
    std::uint64_t size = 0;
    unsigned banks = 1;
    unsigned bankWidth = 8;  // bytes per bank word
    unsigned ports = 1;
    ClockDomain clock;
    std::uint64_t latencyCycles = 1;
    double readJoulesPerWord = 0.0;
    double writeJoulesPerWord = 0.0;
    double staticWatts = 0.0;
    double areaMm2 = 0.0;  // from the SRAM array model; 0 when the energy section names none

    static ScratchpadConfig fromYaml(config::Reader& r, const std::string& name);
    double peakBandwidth() const { return static_cast<double>(banks) * bankWidth * clock.hz(); }
};

// Bank occupancy of one access: the cycles its busiest bank needs, the cycles a conflict-free
// access of the same words would need, and the distinct words touched.
struct BankFootprint {
    std::uint64_t cycles = 0;
    std::uint64_t idealCycles = 0;
    std::uint64_t words = 0;
    std::uint64_t conflictCycles() const { return cycles - idealCycles; }
};

class Scratchpad : public Memory {
public:
    Scratchpad(sc_core::sc_module_name name, const ScratchpadConfig& config);
    double peakBandwidth() const override { return config_.peakBandwidth(); }
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const override;
    void resetTiming() override;
    const ScratchpadConfig& config() const { return config_; }

    // Bank footprint of an access of `bytes` at `addr`, or of a strided access (ext given).
    BankFootprint footprint(std::uint64_t addr, std::uint64_t bytes, const AccessExtension* ext);
    std::uint64_t conflictCycles() const { return conflictCycles_; }
    std::uint64_t conflictedAccesses() const { return conflictedAccesses_; }

protected:
    Tick access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) override;

private:
    ScratchpadConfig config_;
    std::vector<ReservationTimeline> ports_;
    // Scratch space for strided footprints: words per bank and the last word seen per bank.
    std::vector<std::uint64_t> bankWords_;
    std::vector<std::uint64_t> bankLastWord_;
    std::uint64_t reads_ = 0, writes_ = 0;
    std::uint64_t wordsRead_ = 0, wordsWritten_ = 0;
    std::uint64_t conflictCycles_ = 0, conflictedAccesses_ = 0;
    std::uint64_t busyCycles_ = 0;
};

}  // namespace tessim
