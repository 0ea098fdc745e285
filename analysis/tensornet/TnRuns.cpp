#include "analysis/tensornet/TnRuns.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace tessim::tn {

Measurement measure(const nlohmann::json& report) {
    try {
        Measurement m;
        m.seconds = report.at("seconds").get<double>();
        m.energyJ = report.at("energy_j").at("total").get<double>();
        m.cycles = report.at("cycles").get<std::uint64_t>();
        return m;
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("a run's report lacks seconds, cycles or energy_j.total: ") +
                                 e.what());
    }
}

std::string runKey(const ReproRun& run) {
    std::string key = run.target + '\n' + run.workload + '\n' + run.plan;
    for (const auto& s : run.sets)
        key += '\n' + s;
    return key;
}

std::map<std::string, Measurement> runMeasured(const std::vector<ReproRun>& all, const ReproRunner& runner,
                                               unsigned jobs) {
    // Runs with the same description are simulated once (a model repeats its layers, and a
    // simulation is deterministic); every name gets the measurement of its description.
    std::vector<ReproRun> runs;
    std::map<std::string, std::string> firstOfKey;            // description → the name simulated for it
    std::vector<std::pair<std::string, std::string>> copies;  // name → name simulated
    for (const auto& run : all) {
        const auto [it, added] = firstOfKey.emplace(runKey(run), run.name);
        if (added)
            runs.push_back(run);
        else
            copies.emplace_back(run.name, it->second);
    }
    if (jobs == 0)
        jobs = std::max(1u, std::thread::hardware_concurrency());
    std::map<std::string, Measurement> results;
    std::mutex lock;
    std::atomic<std::size_t> next{0};
    std::size_t failed = runs.size();  // the first run that failed, in the runs' order
    std::string failure;
    auto worker = [&] {
        for (std::size_t i = next++; i < runs.size(); i = next++) {
            try {
                const Measurement m = measure(runner(runs[i]));
                std::lock_guard<std::mutex> g(lock);
                results[runs[i].name] = m;
            } catch (const std::exception& e) {
                // The error reported does not depend on which thread failed first.
                std::lock_guard<std::mutex> g(lock);
                if (i < failed) {
                    failed = i;
                    failure = e.what();
                }
            }
        }
    };
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < std::min<std::size_t>(jobs, std::max<std::size_t>(1, runs.size())); ++j)
        threads.emplace_back(worker);
    for (auto& t : threads)
        t.join();
    if (failed < runs.size())
        throw std::runtime_error(failure);
    for (const auto& [name, simulated] : copies)
        results[name] = results.at(simulated);
    return results;
}

}  // namespace tessim::tn
