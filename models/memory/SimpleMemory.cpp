#include "models/memory/SimpleMemory.h"

#include <cmath>

namespace tessim {

SimpleMemoryConfig SimpleMemoryConfig::fromYaml(config::Reader& r, const std::string& name) {
    using namespace config;
    SimpleMemoryConfig c;
    c.name = name;
    c.level = r.get<std::string>("level", name);
    c.size = r.get<Bytes>("size", Range<Bytes>{Bytes{1}, Bytes{~0ULL}}).value;
    // At most 1 ms, as every clocked timing parameter (models/memory/CycleParameter.cpp).
    c.latency =
        secondsToTicks(r.get<Duration>("latency", Range<Duration>{Duration{0.0}, Duration{1e-3}}).seconds);
    c.bandwidth =
        r.get<Bandwidth>("bandwidth", Range<Bandwidth>{Bandwidth{1.0}, Bandwidth{1e15}}).bytes_per_s;
    Reader e = r.child("energy");
    c.readJoulesPerByte = e.get<Energy>("read_energy_per_byte").joules;
    c.writeJoulesPerByte = e.get<Energy>("write_energy_per_byte", Energy{c.readJoulesPerByte}).joules;
    c.staticWatts = e.get<Power>("static_power", Power{0.0}).watts;
    return c;
}

SimpleMemory::SimpleMemory(sc_core::sc_module_name name, const SimpleMemoryConfig& config)
    : Memory(name, config.level, config.size), config_(config) {}

Tick SimpleMemory::access(tlm::tlm_generic_payload& gp, AccessExtension*, Tick arrival) {
    std::uint64_t bytes = gp.get_data_length();
    Tick transfer = static_cast<Tick>(std::ceil(static_cast<double>(bytes) / config_.bandwidth * 1e12));
    Tick start = port_.reserve(arrival, transfer);
    noteWait(start - arrival);
    if (gp.is_read()) {
        bytesRead_ += bytes;
        ++reads_;
    } else {
        bytesWritten_ += bytes;
        ++writes_;
    }
    return start + transfer + config_.latency;
}

void SimpleMemory::resetTiming() {
    Memory::resetTiming();
    port_ = ReservationTimeline{};
    reads_ = writes_ = 0;
}

void SimpleMemory::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(name());
    node.add("reads", reads_, "accesses");
    node.add("writes", writes_, "accesses");
    node.add("bytes_read", bytesRead_, "B");
    node.add("bytes_written", bytesWritten_, "B");
    node.add("busy", ticksToSeconds(port_.busyTicks()), "s", "time the data path was transferring");
    node.add("utilisation", seconds > 0 ? ticksToSeconds(port_.busyTicks()) / seconds : 0.0, "ratio");
    energy.addEvents(name(), "read_byte", bytesRead_, config_.readJoulesPerByte);
    energy.addEvents(name(), "write_byte", bytesWritten_, config_.writeJoulesPerByte);
    energy.addStaticPower(name(), config_.staticWatts);
    collectUntimed(node);
    collectByInitiator(node);
}

}  // namespace tessim
