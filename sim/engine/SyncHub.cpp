#include "sim/engine/SyncHub.h"

#include <fmt/format.h>

namespace tessim {

std::string SyncHub::waiter() {
    const sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
    const sc_core::sc_object* owner = self.valid() ? self.get_parent_object() : nullptr;
    return owner ? owner->name() : (self.valid() ? self.name() : "?");
}

std::vector<std::string> SyncHub::waiting() const {
    std::vector<std::string> out;
    for (const auto& [engine, w] : waits_) {
        if (w.barrier) {
            auto it = barriers_.find(w.id);
            const std::uint32_t arrived = it == barriers_.end() ? 0 : it->second.arrived;
            out.push_back(
                fmt::format("{}: barrier {} (count {}, {} arrived)", engine, w.id, w.count, arrived));
        } else {
            auto it = events_.find(w.id);
            const std::uint64_t signals = it == events_.end() ? 0 : it->second.signals;
            out.push_back(
                fmt::format("{}: join {} (count {}, {} fork signals)", engine, w.id, w.count, signals));
        }
    }
    return out;
}

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
    const std::string me = waiter();
    waits_[me] = Wait{true, id, participants};
    while (b.generation == gen)
        sc_core::wait(*b.released);
    waits_.erase(me);
}

void SyncHub::signal(std::uint32_t id) {
    auto& e = events_[id];
    ++e.signals;
    e.signalTimes.push_back(sc_core::sc_time_stamp().value());
    e.changed->notify(sc_core::SC_ZERO_TIME);
}

std::uint64_t SyncHub::join(std::uint32_t id, std::uint32_t count) {
    auto& e = events_[id];
    if (e.signals < count) {
        const std::string me = waiter();
        waits_[me] = Wait{false, id, count};
        while (e.signals < count)
            sc_core::wait(*e.changed);
        waits_.erase(me);
    }
    return count == 0 ? 0 : e.signalTimes[count - 1];
}

}  // namespace tessim
