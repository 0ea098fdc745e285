// Energy = event counts × energy per event + static power × time, per component. Components
// record the same counts that the statistics report, so energy can always be traced to events.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/stats/StatsTree.h"

namespace tessim {

class EnergyLedger {
public:
    void addEvents(const std::string& component, const std::string& event, std::uint64_t count,
                   double joulesPerEvent);
    void addStaticPower(const std::string& component, double watts);
    // Silicon area of a component (memories with an area model); reported beside energy.
    void addArea(const std::string& component, double mm2);

    // Joules after a run of `seconds`.
    double dynamicJoules(const std::string& component) const;
    double staticJoules(const std::string& component, double seconds) const;
    double totalJoules(double seconds) const;
    std::vector<std::string> components() const;

    // energy_j: {"total": J, "by_component": {name: {"dynamic", "static", "events": {...}}}}
    nlohmann::ordered_json toJson(double seconds) const;
    void addToStats(StatsTree& stats) const;
    bool hasArea() const { return !areas_.empty(); }
    // area_mm2: {"total": mm², "by_component": {name: mm²}}
    nlohmann::ordered_json areaJson() const;

private:
    struct Event {
        std::string name;
        std::uint64_t count;
        double joulesEach;
    };
    struct Component {
        std::string name;
        std::vector<Event> events;
        double staticWatts = 0.0;
    };
    Component& component(const std::string& name);
    const Component* findComponent(const std::string& name) const;
    std::vector<Component> components_;
    std::vector<std::pair<std::string, double>> areas_;
};

}  // namespace tessim
