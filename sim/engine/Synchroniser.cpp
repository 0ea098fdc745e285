#include "sim/engine/Synchroniser.h"

#include <algorithm>

#include "sim/core/MemoryAccess.h"

namespace tessim {

Synchroniser::Synchroniser(const EngineConfig& config, SyncHub& hub) : config_(config), hub_(hub) {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(ticksToScTime(config_.quantum));
}

void Synchroniser::start() {
    keeper_.reset();
    nextCheck_ = config_.clock.cyclesCeil(nowTicks() + config_.quantum);
}

void Synchroniser::checkQuantum(std::uint64_t cycle) {
    const Tick local = config_.clock.at(cycle);
    const Tick now = nowTicks();
    if (local >= now + config_.quantum) {
        // Running ahead skews no one when no other process has anything to do before the
        // engine's local time (an engine alone, or every other process waiting for an event):
        // then look again a quantum later instead of switching to the kernel for nothing.
        if (sc_core::sc_time_to_pending_activity().value() >= local - now) {
            nextCheck_ = cycle + config_.clock.cyclesCeil(config_.quantum);
            return;
        }
        synchronise(cycle);
    }
    nextCheck_ = config_.clock.cyclesCeil(nowTicks() + config_.quantum);
}

void Synchroniser::synchronise(std::uint64_t cycle) {
    const Tick local = config_.clock.at(cycle);
    const Tick now = nowTicks();
    if (local > now) {
        keeper_.set(ticksToScTime(local - now));
        keeper_.sync();
    }
}

void Synchroniser::catchUp(std::uint64_t cycle) {
    const Tick local = config_.clock.at(cycle);
    const Tick now = nowTicks();
    if (local <= now || sc_core::sc_time_to_pending_activity().value() >= local - now)
        return;
    synchronise(cycle);
    nextCheck_ = config_.clock.cyclesCeil(nowTicks() + config_.quantum);
}

std::uint64_t Synchroniser::rendezvous(SyncRule rule, std::uint32_t tag, std::uint32_t count,
                                       std::uint64_t cycle) {
    // Arrive in SystemC time: the last arrival's time is the release time.
    synchronise(cycle);
    const ClockDomain& clock = config_.clock;
    if (rule == SyncRule::Barrier) {
        hub_.barrier(tag, count);
        return clock.cyclesCeil(nowTicks()) + config_.barrierLatency;
    }
    if (rule == SyncRule::Join) {
        const Tick forked = hub_.join(tag, count);
        return std::max(clock.cyclesCeil(nowTicks()),
                        config_.forkLatency ? clock.cyclesCeil(forked) + config_.forkLatency : 0);
    }
    hub_.signal(tag);
    return clock.cyclesCeil(nowTicks());
}

std::uint64_t Synchroniser::dmaDone(DmaControlIf& dma, std::uint32_t tag, std::uint64_t cycle,
                                    std::uint16_t initiator) const {
    return config_.clock.cyclesCeil(dma.completion(tag, config_.clock.at(cycle), initiator));
}

}  // namespace tessim
