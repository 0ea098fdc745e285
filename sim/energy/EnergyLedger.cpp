#include "sim/energy/EnergyLedger.h"

namespace tessim {

EnergyLedger::Component& EnergyLedger::component(const std::string& name) {
    for (auto& c : components_)
        if (c.name == name)
            return c;
    components_.push_back(Component{name, {}, 0.0});
    return components_.back();
}

const EnergyLedger::Component* EnergyLedger::findComponent(const std::string& name) const {
    for (const auto& c : components_)
        if (c.name == name)
            return &c;
    return nullptr;
}

void EnergyLedger::addEvents(const std::string& comp, const std::string& event, std::uint64_t count,
                             double joulesPerEvent) {
    auto& c = component(comp);
    for (auto& e : c.events) {
        if (e.name == event && e.joulesEach == joulesPerEvent) {
            e.count += count;
            return;
        }
    }
    c.events.push_back(Event{event, count, joulesPerEvent});
}

void EnergyLedger::addStaticPower(const std::string& comp, double watts) {
    component(comp).staticWatts += watts;
}

void EnergyLedger::addArea(const std::string& comp, double mm2) {
    for (auto& [name, area] : areas_) {
        if (name == comp) {
            area += mm2;
            return;
        }
    }
    areas_.emplace_back(comp, mm2);
}

nlohmann::ordered_json EnergyLedger::areaJson() const {
    nlohmann::ordered_json byComponent = nlohmann::ordered_json::object();
    double total = 0.0;
    for (const auto& [name, area] : areas_) {
        byComponent[name] = area;
        total += area;
    }
    return nlohmann::ordered_json{{"total", total}, {"by_component", byComponent}};
}

double EnergyLedger::dynamicJoules(const std::string& comp) const {
    const auto* c = findComponent(comp);
    if (!c)
        return 0.0;
    double j = 0.0;
    for (const auto& e : c->events)
        j += static_cast<double>(e.count) * e.joulesEach;
    return j;
}

double EnergyLedger::staticJoules(const std::string& comp, double seconds) const {
    const auto* c = findComponent(comp);
    return c ? c->staticWatts * seconds : 0.0;
}

double EnergyLedger::totalJoules(double seconds) const {
    double total = 0.0;
    for (const auto& c : components_)
        total += dynamicJoules(c.name) + staticJoules(c.name, seconds);
    return total;
}

std::vector<std::string> EnergyLedger::components() const {
    std::vector<std::string> names;
    for (const auto& c : components_)
        names.push_back(c.name);
    return names;
}

nlohmann::ordered_json EnergyLedger::toJson(double seconds) const {
    nlohmann::ordered_json byComponent = nlohmann::ordered_json::object();
    for (const auto& c : components_) {
        nlohmann::ordered_json e;
        e["dynamic"] = dynamicJoules(c.name);
        e["static"] = staticJoules(c.name, seconds);
        nlohmann::ordered_json events = nlohmann::ordered_json::object();
        for (const auto& ev : c.events)
            events[ev.name] = ev.count;
        e["events"] = events;
        byComponent[c.name] = e;
    }
    nlohmann::ordered_json j;
    // The total is the sum of the reported parts, added in the same order, so they agree exactly.
    double total = 0.0;
    for (const auto& c : components_)
        total += byComponent[c.name]["dynamic"].get<double>() + byComponent[c.name]["static"].get<double>();
    j["total"] = total;
    j["by_component"] = byComponent;
    return j;
}

void EnergyLedger::addToStats(StatsTree& stats) const {
    for (const auto& c : components_) {
        auto& node = stats.child(c.name);
        for (const auto& ev : c.events)
            node.add(ev.name, ev.count, "events", "event count used for energy");
        if (c.staticWatts > 0)
            node.add("static_power", c.staticWatts, "W", "static power");
    }
}

}  // namespace tessim
