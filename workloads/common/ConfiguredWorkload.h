// A kernel whose resolved workload and plan (the report's workload.config and plan.config) are
// echoed from what its factory read: every key it read with the value it resolved to (the default
// when absent), then what the kernel derived from them (output shapes, the tiles a planner chose,
// addresses, slices). One list of keys — the reads — so the echo cannot miss or misstate one.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/config/Reader.h"
#include "sim/workload/Workload.h"

namespace tessim {

class ConfiguredWorkload : public Workload {
public:
    // Takes the echo of both readers once the factory has read every key. `name` and
    // `description` are left out: the report names the workload and the plan beside their config.
    void echoFrom(const config::Reader& workload, const config::Reader& plan) {
        workload.unecho("name");
        workload.unecho("description");
        plan.unecho("name");
        plan.unecho("description");
        workloadEcho_ = workload.echo();
        planEcho_ = plan.echo();
    }

    // What the kernel derives follows what it read, whether or not the input named it too, so
    // that a report's configuration fed back (which names every key) echoes in the same order.
    nlohmann::ordered_json resolvedWorkload() const final {
        nlohmann::ordered_json j = withoutDerived(workloadEcho_, [this](auto& d) { deriveWorkload(d); });
        deriveWorkload(j);
        return j;
    }
    nlohmann::ordered_json resolvedPlan() const final {
        nlohmann::ordered_json j = withoutDerived(planEcho_, [this](auto& d) { derivePlan(d); });
        derivePlan(j);
        return j;
    }

protected:
    // What the kernel derived, added to (or replacing, in place) the echo of what was read.
    virtual void deriveWorkload(nlohmann::ordered_json& workload) const { (void)workload; }
    virtual void derivePlan(nlohmann::ordered_json& plan) const { (void)plan; }

private:
    template <class Derive>
    static nlohmann::ordered_json withoutDerived(nlohmann::ordered_json echo, Derive derive) {
        nlohmann::ordered_json derived = nlohmann::ordered_json::object();
        derive(derived);
        for (const auto& item : derived.items())
            echo.erase(item.key());
        return echo;
    }

    nlohmann::ordered_json workloadEcho_ = nlohmann::ordered_json::object();
    nlohmann::ordered_json planEcho_ = nlohmann::ordered_json::object();
};

}  // namespace tessim
