#include "models/memory/Interconnect.h"

#include <algorithm>

#include "models/memory/CycleParameter.h"
#include "models/memory/Memory.h"

namespace tessim {

InterconnectConfig InterconnectConfig::fromYaml(config::Reader& r, const std::string& impl) {
    using namespace config;
    InterconnectConfig c;
    c.crossbar = impl == "crossbar";
    c.width = r.get<Bytes>("width", Range<Bytes>{Bytes{1}, Bytes{1 << 16}}).value;
    c.clock =
        ClockDomain::fromHz(r.get<Frequency>("clock", Range<Frequency>{Frequency{1e3}, Frequency{1e11}}).hz);
    c.latencyCycles = readCycles(r, "latency", c.clock, 0);
    r.oneOf("arbitration", {"fcfs"}, std::string("fcfs"));
    c.splitChannels = r.oneOf("channels", {"shared", "split"}, std::string("shared")) == "split";
    if (auto e = r.optionalChild("energy"))
        c.joulesPerByte = e->get<Energy>("per_byte", Energy{0.0}).joules;
    c.staticWatts = r.get<Power>("static_power", Power{0.0}).watts;
    return c;
}

const std::vector<std::string>& interconnectImpls() {
    static const std::vector<std::string> impls{"bus", "crossbar"};
    return impls;
}

std::unique_ptr<Interconnect> makeInterconnect(const std::string& impl, config::Reader& r,
                                               const std::string& name) {
    if (impl != "bus" && impl != "crossbar")
        r.fail("impl", "unknown interconnect model '" + impl + "' (expected one of: bus, crossbar)");
    return std::make_unique<Interconnect>(name.c_str(), InterconnectConfig::fromYaml(r, impl));
}

Interconnect::Interconnect(sc_core::sc_module_name name, const InterconnectConfig& config)
    : sc_core::sc_module(name), socket("socket"), downstream("downstream"), config_(config),
      paths_(config.channelsPerPath()) {
    route_.fill(-1);
    socket.register_b_transport(this, &Interconnect::bTransport);
    socket.register_transport_dbg(this, &Interconnect::transportDbg);
}

void Interconnect::attach(Memory& memory, std::uint8_t space) {
    downstream.bind(memory.socket);
    route_[space] = static_cast<int>(spaces_.size());
    spaces_.push_back(space);
    if (config_.crossbar)
        paths_.resize(spaces_.size() * config_.channelsPerPath());
}

void Interconnect::resetTiming() {
    for (auto& p : paths_)
        p = ReservationTimeline{};
    transfers_ = bytesRead_ = bytesWritten_ = busyCycles_ = 0;
}

int Interconnect::route(const tlm::tlm_generic_payload& gp) const {
    const AccessExtension* ext = gp.get_extension<AccessExtension>();
    if (ext && route_[ext->space] >= 0)
        return route_[ext->space];
    return spaces_.size() == 1 ? 0 : -1;
}

void Interconnect::bTransport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    int target = route(gp);
    if (target < 0) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const Tick period = config_.clock.period;
    const AccessExtension* ext = gp.get_extension<AccessExtension>();
    std::uint64_t bytes =
        ext && ext->strided() ? std::uint64_t{ext->elements} * ext->elementBytes : gp.get_data_length();
    std::uint64_t cycles = std::max<std::uint64_t>(1, (bytes + config_.width - 1) / config_.width);
    const Tick dur = cycles * period, lat = config_.latencyCycles * period;
    ReservationTimeline& path =
        paths_[(config_.crossbar ? static_cast<std::size_t>(target) : 0) * config_.channelsPerPath() +
               (config_.splitChannels && gp.is_write() ? 1 : 0)];
    Tick t = alignUp(absoluteAfter(delay), period);
    Tick done;
    if (gp.is_write()) {
        // The data crosses first; the memory sees it when the last beat arrives.
        Tick start = path.reserve(t, dur);
        sc_core::sc_time d = delayUntil(start + dur + lat);
        downstream[static_cast<unsigned>(target)]->b_transport(gp, d);
        done = absoluteAfter(d);
        bytesWritten_ += bytes;
    } else {
        sc_core::sc_time d = delayUntil(t + lat);
        downstream[static_cast<unsigned>(target)]->b_transport(gp, d);
        if (gp.is_response_error())
            return;
        Tick ready = absoluteAfter(d);
        Tick earliest = std::max(t + lat, ready > dur ? alignUp(ready - dur, period) : 0);
        Tick start = path.reserve(earliest, dur);
        done = std::max(ready, start + dur) + lat;
        bytesRead_ += bytes;
    }
    ++transfers_;
    busyCycles_ += cycles;
    delay = delayUntil(done);
}

unsigned Interconnect::transportDbg(int, tlm::tlm_generic_payload& gp) {
    int target = route(gp);
    if (target < 0)
        return 0;
    return downstream[static_cast<unsigned>(target)]->transport_dbg(gp);
}

void Interconnect::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(name());
    node.add("transfers", transfers_, "transactions");
    node.add("bytes_read", bytesRead_, "B", "bytes carried from memories to initiators");
    node.add("bytes_written", bytesWritten_, "B", "bytes carried from initiators to memories");
    double busy = ticksToSeconds(config_.clock.at(busyCycles_));
    node.add("busy", busy, "s", "data-path time (summed over paths)");
    node.add("utilisation", seconds > 0 ? busy / (seconds * static_cast<double>(paths_.size())) : 0.0,
             "ratio");
    Tick wait = 0;
    for (const auto& p : paths_)
        wait += p.waitTicks();
    node.add("arbitration_wait", ticksToSeconds(wait), "s", "time transfers waited for a busy data path");
    energy.addEvents(name(), "byte", bytesRead_ + bytesWritten_, config_.joulesPerByte);
    energy.addStaticPower(name(), config_.staticWatts);
}

}  // namespace tessim
