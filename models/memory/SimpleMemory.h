// The simplest memory model: fixed access latency plus a data path of given bandwidth modelled
// as one reservation timeline. Used by the minimal target and as a stand-in where a detailed
// model is not wanted. YAML (impl: simple): level, size, latency, bandwidth, and energy:
// {read_energy_per_byte, write_energy_per_byte, static_power} (usually an energy-table section).
#pragma once

#include "models/memory/Memory.h"
#include "sim/config/Reader.h"
#include "sim/core/ReservationTimeline.h"

namespace tessim {

struct SimpleMemoryConfig {
    std::string name;
    std::string level;
    std::uint64_t size = 0;
    Tick latency = 0;
    double bandwidth = 1e9;  // B/s
    double readJoulesPerByte = 0.0;
    double writeJoulesPerByte = 0.0;
    double staticWatts = 0.0;

    static SimpleMemoryConfig fromYaml(config::Reader& r, const std::string& name);
};

class SimpleMemory : public Memory {
public:
    SimpleMemory(sc_core::sc_module_name name, const SimpleMemoryConfig& config);
    double peakBandwidth() const override { return config_.bandwidth; }
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const override;
    void resetTiming() override;

protected:
    Tick access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) override;

private:
    SimpleMemoryConfig config_;
    ReservationTimeline port_;
    std::uint64_t reads_ = 0;
    std::uint64_t writes_ = 0;
};

}  // namespace tessim
