#include "sim/report/TraceSink.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace tessim {

void TraceSink::span(const std::string& track, const std::string& name, Tick begin, Tick end) {
    spans_.push_back(Span{track, name, begin, end});
}

void TraceSink::write(const std::string& path) const {
    std::map<std::string, int> trackIds;
    for (const auto& s : spans_)
        trackIds.emplace(s.track, 0);
    int next = 1;
    for (auto& [track, id] : trackIds)
        id = next++;

    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    for (const auto& [track, id] : trackIds) {
        events.push_back(
            {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", id}, {"args", {{"name", track}}}});
    }
    std::vector<const Span*> sorted;
    for (const auto& s : spans_)
        sorted.push_back(&s);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Span* a, const Span* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->track < b->track;
    });
    for (const auto* s : sorted) {
        // Trace-event timestamps are microseconds.
        events.push_back({{"name", s->name},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", trackIds[s->track]},
                          {"ts", static_cast<double>(s->begin) / 1e6},
                          {"dur", static_cast<double>(s->end - s->begin) / 1e6}});
    }
    std::ofstream out(path);
    if (!out)
        throw std::runtime_error("--trace: cannot write trace file '" + path + "': " + std::strerror(errno));
    nlohmann::ordered_json doc;
    doc["traceEvents"] = events;
    doc["displayTimeUnit"] = "ns";
    out << doc.dump() << '\n';
    out.flush();
    if (!out)
        throw std::runtime_error("--trace: cannot write trace file '" + path + "': " + std::strerror(errno));
}

}  // namespace tessim
