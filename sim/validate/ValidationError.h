// One finding of `tessim validate`: what is wrong with a schedule, where and when. The errors of
// a run are collected in a ValidationLog, which caps repeats so a systematic bug reads as one
// diagnostic with a count rather than a million.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

// Kinds, as they appear in the report: capacity, bounds, alignment, register-budget,
// dma-descriptor, raw-hazard, war-hazard, waw-hazard, functional-mismatch.
struct ValidationError {
    std::string kind;
    std::string message;
    std::string engine;                    // the engine (or DMA channel) at fault, "" when none
    std::optional<std::uint64_t> opIndex;  // index of the op in the stream of opEngine
    std::string opEngine;          // the engine whose op it is (a DMA transfer: the engine that started it)
    std::optional<double> timeNs;  // simulated time the problem shows
    std::string memory;            // memory the bytes belong to, "" when none
    std::optional<std::uint64_t> address;  // first byte (offset in the memory)
    std::optional<std::uint64_t> bytes;
    std::string other;                          // hazards: the second party
    std::optional<double> otherTimeNs;          // hazards: when the second party began
    std::optional<std::uint64_t> otherOpIndex;  // hazards: the second party's op, of otherOpEngine
    std::string otherOpEngine;
    std::optional<int> line;  // a replayed schedule: the line of the op, and of the other's op
    std::optional<int> otherLine;
    std::uint64_t repeats = 0;  // further occurrences folded into this one

    nlohmann::ordered_json toJson() const;
};

class ValidationLog {
public:
    // Occurrences with the same key after the first only count (key: kind + the parties).
    void add(ValidationError error, const std::string& dedupKey);
    const std::vector<ValidationError>& errors() const { return errors_; }
    std::vector<ValidationError>& errors() { return errors_; }
    bool empty() const { return errors_.empty(); }
    nlohmann::ordered_json toJson() const;

private:
    std::vector<ValidationError> errors_;
    std::map<std::string, std::size_t> byKey_;
};

// "1.414 µs"-style text for diagnostics.
std::string formatNs(double ns);

}  // namespace tessim
