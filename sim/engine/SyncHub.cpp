#include "sim/engine/SyncHub.h"

namespace tessim {

void SyncHub::barrier(std::uint32_t id, std::uint32_t participants) {
    auto& b = barriers_[id];
    if (++b.arrived >= participants) {
        b.arrived = 0;
        ++b.generation;
        b.released->notify(sc_core::SC_ZERO_TIME);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        return;
    }
    std::uint64_t gen = b.generation;
    while (b.generation == gen)
        sc_core::wait(*b.released);
}

void SyncHub::signal(std::uint32_t id) {
    auto& e = events_[id];
    ++e.signals;
    e.signalTimes.push_back(sc_core::sc_time_stamp().value());
    e.changed->notify(sc_core::SC_ZERO_TIME);
}

std::uint64_t SyncHub::join(std::uint32_t id, std::uint32_t count) {
    auto& e = events_[id];
    while (e.signals < count)
        sc_core::wait(*e.changed);
    return count == 0 ? 0 : e.signalTimes[count - 1];
}

}  // namespace tessim
