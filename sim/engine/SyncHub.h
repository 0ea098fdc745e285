// Barriers and fork/join events between engines. Engines synchronise their decoupled local time
// with the kernel before they arrive, so the SystemC time of the last arrival is the release time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

namespace tessim {

class SyncHub {
public:
    // Blocks the calling SC_THREAD until `participants` threads reached barrier `id`.
    void barrier(std::uint32_t id, std::uint32_t participants);
    void signal(std::uint32_t id);
    // Blocks until event `id` has been signalled at least `count` times; returns the SystemC time
    // (ticks) of the count-th signal, which may lie before the call.
    std::uint64_t join(std::uint32_t id, std::uint32_t count);
    // The engines still blocked here, each with what it waits for ("core1: barrier 3, 1 of 2
    // arrived"), in name order: once the simulation has stopped, these are deadlocked.
    std::vector<std::string> waiting() const;

private:
    struct Wait {
        bool barrier = false;
        std::uint32_t id = 0, count = 0;
    };
    // By the waiting engine's name.
    std::map<std::string, Wait> waits_;
    static std::string waiter();

    struct Barrier {
        std::uint32_t arrived = 0;
        std::uint64_t generation = 0;
        std::unique_ptr<sc_core::sc_event> released = std::make_unique<sc_core::sc_event>();
    };
    struct Event {
        std::uint64_t signals = 0;
        std::vector<std::uint64_t> signalTimes;  // ticks of each signal, in order
        std::unique_ptr<sc_core::sc_event> changed = std::make_unique<sc_core::sc_event>();
    };
    std::map<std::uint32_t, Barrier> barriers_;
    std::map<std::uint32_t, Event> events_;
};

}  // namespace tessim
