// `tessim validate`'s run: the schedule runs under checks (CheckedOpStream per engine, the hazard
// detector as an access observer, the functional reference), and refusals that are findings about
// the schedule become errors instead of failures.
#include "run/pipeline/ScheduleValidation.h"

#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "models/targets/ConfiguredTarget.h"
#include "sim/config/ConfigError.h"
#include "sim/ir/ScheduleFileStream.h"
#include "sim/validate/CheckedOpStream.h"
#include "sim/validate/HazardDetector.h"

namespace tessim {
namespace {

// The engine and op named on line `line` of a JSON Lines schedule ("" when unreadable).
std::pair<std::string, std::string> scheduleLineOp(const std::string& path, int line) {
    std::ifstream in(path, std::ios::binary);
    std::string text;
    for (int i = 0; i < line && std::getline(in, text); ++i) {
    }
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
        return {};
    auto field = [&](const char* key) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
    };
    return {field("engine"), field("op")};
}

// A refusal that is a finding about the schedule: what a plan asks beyond the target (capacity,
// register-budget), or, by the field the schedule reader refused, a DMA descriptor that moves
// nothing, multicasts nowhere or names a channel the DMA lacks (dma-descriptor), a register beyond
// the engine's file (register-budget). Empty: bad input, not a finding.
ValidationError findingOf(const config::ConfigError& e, const std::string& scheduleFile) {
    ValidationError finding;
    finding.message = e.what();
    if (e.shortfall() == config::Shortfall::Capacity) {
        finding.kind = "capacity";
        return finding;
    }
    if (e.shortfall() == config::Shortfall::Registers) {
        finding.kind = "register-budget";
        return finding;
    }
    if (scheduleFile.empty() || e.location().file != scheduleFile)
        return finding;
    static const std::set<std::string> descriptorFields{"row_bytes",        "rows",    "planes",
                                                        "multicast_stride", "channel", "group"};
    static const std::set<std::string> registerFields{"vd",  "vs0", "vs1", "vs2",  "sd",
                                                      "ss0", "ss1", "ss2", "saddr"};
    const auto [engine, op] = scheduleLineOp(scheduleFile, e.location().line);
    if (descriptorFields.count(e.key()) || (e.key() == "op" && (op == "dma_start" || op == "dma_wait")))
        finding.kind = "dma-descriptor";
    else if (registerFields.count(e.key()))
        finding.kind = "register-budget";
    finding.engine = engine;
    return finding;
}

// Findings about ops of a replayed schedule name the ops' lines (one pass over the file).
void nameScheduleLines(ValidationLog& log, const std::string& scheduleFile) {
    std::vector<ScheduleFileStream::OpRef> ops;
    for (const auto& e : log.errors()) {
        if (e.opIndex && !e.opEngine.empty())
            ops.push_back({e.opEngine, *e.opIndex});
        if (e.otherOpIndex && !e.otherOpEngine.empty())
            ops.push_back({e.otherOpEngine, *e.otherOpIndex});
    }
    if (ops.empty())
        return;
    const std::vector<int> lines = ScheduleFileStream::linesOf(scheduleFile, ops);
    std::size_t next = 0;
    for (auto& e : log.errors()) {
        if (e.opIndex && !e.opEngine.empty() && lines[next++] > 0)
            e.line = lines[next - 1];
        if (e.otherOpIndex && !e.otherOpEngine.empty() && lines[next++] > 0)
            e.otherLine = lines[next - 1];
    }
}

}  // namespace

nlohmann::ordered_json validateSchedule(const RunRequest& run, bool noHazards, std::ostream& diagnostics) {
    ValidationLog log;
    HazardDetector hazards;
    RunRequest request = run;
    request.onElaborated = [&](ConfiguredTarget& target) {
        std::map<std::string, std::string> backing;
        for (const auto& s : target.info().spaces)
            if (!s.role)
                backing[s.name] = target.backingMemoryName(s.id);
        hazards.attach(target.initiators(), target.info(), backing);
    };
    if (!noHazards)
        request.observer = &hazards;
    request.wrapStream = [&](const std::string& engine, std::unique_ptr<OpStream> stream,
                             const TargetInfo& target) -> std::unique_ptr<OpStream> {
        for (const auto& e : target.engines)
            if (e.name == engine)
                return std::make_unique<CheckedOpStream>(std::move(stream), e, target, log);
        return stream;
    };
    nlohmann::ordered_json report;
    bool ran = false;
    try {
        report = runSimulation(request);
        ran = true;
    } catch (const config::ConfigError& e) {
        ValidationError finding = findingOf(e, request.scheduleFile);
        if (finding.kind.empty())
            throw;
        log.add(std::move(finding), "refused");
    }
    if (ran && !noHazards)
        hazards.analyse(log);
    if (ran && report.contains("functional") && report["functional"].value("mismatches", 0) > 0) {
        ValidationError err;
        err.kind = "functional-mismatch";
        const auto& f = report["functional"];
        err.message = fmt::format("{} of {} output elements differ from the reference; first: {}",
                                  f["mismatches"].get<std::uint64_t>(), f.value("elements", 0),
                                  f.value("first_mismatch", std::string("?")));
        if (f.contains("first_mismatch_at") && !noHazards) {
            const auto& at = f["first_mismatch_at"];
            const std::string memory = at["memory"].get<std::string>();
            const auto address = at["address"].get<std::uint64_t>();
            const std::string writer = hazards.lastWriter(memory, address);
            err.message += writer.empty()
                               ? fmt::format(" ({} byte {:#x}: nothing wrote it)", memory, address)
                               : fmt::format(" ({} byte {:#x}, last written by {})", memory, address, writer);
        }
        log.add(err, "functional");
    }
    if (!request.scheduleFile.empty())
        nameScheduleLines(log, request.scheduleFile);
    nlohmann::ordered_json out;
    out["valid"] = log.empty();
    out["errors"] = log.toJson();
    if (ran) {
        out["checked"] = {{"hazard_windows", hazards.windows()},
                          {"functional", report.contains("functional")},
                          {"seconds", report["seconds"]}};
        if (const std::optional<int> status = programExitStatus(report))
            out["checked"]["program_exit_status"] = *status;
    }
    for (const auto& e : log.errors())
        diagnostics << (e.line ? fmt::format("{}:{}: ", request.scheduleFile, *e.line) : std::string())
                    << e.kind << ": " << e.message
                    << (e.repeats ? fmt::format(" (and {} more like it)", e.repeats) : std::string()) << '\n';
    if (ran && request.functional && !report.contains("functional"))
        diagnostics << "note: this kernel has no functional reference (it computes nothing to compare): "
                       "--functional compared no outputs\n";
    if (log.empty())
        diagnostics << "valid: no errors found\n";
    return out;
}

}  // namespace tessim
