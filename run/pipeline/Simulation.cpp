#include "run/pipeline/Simulation.h"

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/riscv/ProgramWorkload.h"
#include "models/targets/ConfiguredTarget.h"
#include "run/pipeline/ConfigLibrary.h"
#include "run/pipeline/HostTimeWatchdog.h"
#include "run/report/NodeJson.h"
#include "run/report/Report.h"
#include "sim/config/CommandLineSets.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/core/AccessTraceWriter.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"
#include "sim/ir/OpJsonl.h"
#include "sim/ir/ScheduleFileStream.h"
#include "sim/report/TraceSink.h"
#include "sim/workload/BundlePacker.h"
#include "workloads/WorkloadFactory.h"
#include "workloads/onnx/OnnxLayers.h"
#include "workloads/scalesim/ScaleSimConfig.h"
#include "workloads/scalesim/ScaleSimTopology.h"

namespace tessim {

ResolvedInputs resolveInputs(const RunRequest& request) {
    ResolvedInputs in;
    // SCALE-Sim inputs (.cfg architecture, .csv topology) and ONNX models (.onnx) are converted to
    // target/workload trees.
    if (isScaleSimConfigPath(request.target))
        in.target = loadScaleSimTarget(request.target,
                                       config::loadYamlFile(resolveLibraryPath(LibraryKind::Target, "npu")));
    else
        in.target = config::loadYamlFile(resolveLibraryPath(LibraryKind::Target, request.target));
    if (!request.workload.empty()) {
        if (isScaleSimTopologyPath(request.workload)) {
            in.workload = loadScaleSimTopology(request.workload);
        } else if (isOnnxModelPath(request.workload)) {
            in.workload = loadOnnxModel(request.workload);
        } else {
            const std::string path = resolveLibraryPath(LibraryKind::Workload, request.workload);
            in.workload = config::loadYamlFile(path);
            // Otherwise the run would go on as if no --workload had been given.
            if (in.workload.isNull())
                throw config::ConfigError({path, 1, 1}, "",
                                          "the workload file is empty: a workload is a map with at least "
                                          "'kernel'");
        }
    }
    if (isScaleSimConfigPath(request.target))
        applyScaleSimInterface(request.target, in.workload);  // CALC: SCALE-Sim's ideal interface
    if (!request.plan.empty())
        in.plan = config::loadYamlFile(resolvePlanPath(request.plan, in.workload));
    else
        for (const auto& assignment : request.sets)
            if (assignment.rfind("plan.strategy=", 0) == 0)
                if (auto path = libraryPlanForStrategy(assignment.substr(14), in.workload); !path.empty())
                    in.plan = config::loadYamlFile(path);
    config::applyCommandLineSets(request.sets, {&in.target, &in.workload, &in.plan});
    return in;
}

namespace {

// The names the report gives the workload and the plan: a file's own `name`, else what was asked for.
std::string workloadNameOf(const RunRequest& request, const ResolvedInputs& in) {
    if (!in.workload.isNull()) {
        const auto* n = in.workload.find("name");
        return n && n->isScalar() ? n->scalar() : request.workload;
    }
    return request.program.empty() ? std::string() : "program:" + request.program;
}

std::string planNameOf(const RunRequest& request, const ResolvedInputs& in) {
    if (in.plan.isNull())
        return "default";
    const auto* n = in.plan.find("name");
    return n && n->isScalar() ? n->scalar() : request.plan;
}

// A schedule that `tessim emit` wrote says what it was made for. A replay that names another
// workload or shape would report one workload's time against another's bounds, and --functional
// without a workload would check nothing: both are refused.
void checkScheduleOrigin(const RunRequest& request, const ResolvedInputs& in, const Workload* workload,
                         const ScheduleOrigin& origin) {
    const std::string& schedule = request.scheduleFile;
    if (!workload) {
        if (request.functional)
            throw config::ConfigError(
                {"<command line>", 0, 0}, "--functional",
                origin.workload.empty()
                    ? std::string("checks a workload's results: add --workload with the shape this schedule "
                                  "was made for")
                    : fmt::format("checks a workload's results: add --workload {} with the shape in the "
                                  "schedule's header (made_for.workload_config)",
                                  origin.workload));
        return;
    }
    if (origin.workload.empty())
        return;
    const std::string name = workloadNameOf(request, in);
    if (name != origin.workload)
        throw config::ConfigError({schedule, 1, 1}, "made_for.workload",
                                  fmt::format("the schedule was made for workload '{}', this run's is '{}': "
                                              "emit one for '{}', or replay it without --workload",
                                              origin.workload, name, name));
    const auto made = nlohmann::json::parse(origin.workloadConfig.dump());
    const auto ours = nlohmann::json::parse(workload->resolvedWorkload().dump());
    if (made == ours)
        return;
    const auto patch = nlohmann::json::diff(made, ours);
    const nlohmann::json::json_pointer at(patch.at(0).at("path").get<std::string>());
    std::string key = at.to_string();
    std::replace(key.begin(), key.end(), '/', '.');
    auto valueIn = [&](const nlohmann::json& j) {
        return j.contains(at) ? j.at(at).dump() : std::string("nothing");
    };
    throw config::ConfigError(
        {schedule, 1, 1}, "made_for.workload_config" + key,
        fmt::format("the schedule was made for workload{} = {}, this run's workload has {}: "
                    "emit it again for this shape, or replay it without --workload",
                    key, valueIn(made), valueIn(ours)));
}

// Everything a run builds, in the order SystemC needs it.
struct Elaboration {
    std::unique_ptr<ConfiguredTarget> target;
    std::unique_ptr<Workload> workload;
    std::vector<EngineStream> streams;
};

Elaboration elaborate(const RunRequest& request, const ResolvedInputs& in) {
    initSystemC();
    Elaboration e;
    e.target = std::make_unique<ConfiguredTarget>(in.target);
    if (request.program.empty() && !request.programName.empty())
        throw config::ConfigError({"<command line>", 0, 0}, "",
                                  "--program-name names a --program's argv[0]: add --program");
    if (!request.program.empty()) {
        if (!in.workload.isNull() || !in.plan.isNull() || !request.scheduleFile.empty())
            throw config::ConfigError(
                {"<command line>", 0, 0}, "",
                "--program runs a program in place of a workload: drop --workload, --plan "
                "and --schedule");
        e.workload = makeProgramWorkload({request.program, request.programArguments, request.programName,
                                          request.maxCycles, request.timeoutSeconds,
                                          request.programStdoutToStderr, request.programCores},
                                         e.target->info());
    } else if (!in.workload.isNull()) {
        e.workload = makeWorkload(in.workload, in.plan, e.target->info());
    } else if (request.scheduleFile.empty()) {
        throw config::ConfigError({"<command line>", 0, 0}, "",
                                  "a run needs --workload (or --schedule, or --program)");
    }
    if (!request.scheduleFile.empty()) {
        ScheduleOrigin origin;
        e.streams = readSchedule(request.scheduleFile, e.target->info(), &origin);
        checkScheduleOrigin(request, in, e.workload.get(), origin);
    } else {
        e.streams = e.workload->streams();
        if (!e.workload->formsBundles())
            for (EngineStream& s : e.streams)
                if (const EngineInfo* engine = e.target->info().findEngine(s.engine))
                    s.stream = packForEngine(std::move(s.stream), *engine);
    }
    return e;
}

// Per-layer results of a multi-layer workload: each layer runs from the previous mark its engine
// reached (or cycle 0) to its own mark. Layers end with every op and DMA complete, so the windows
// of one engine do not overlap and together cover [0, last mark).
// A generated schedule always carries its layer marks (`required`); a replayed one may have lost
// them in editing, and then the run reports totals only.
// The last layer also holds the run's tail after its mark: the DDR writes still posted when the
// engines finished (its own write-back), so the windows cover the whole run.
nlohmann::ordered_json layerResults(nlohmann::ordered_json layers, ConfiguredTarget& target, bool required) {
    if (layers.empty())
        return nullptr;
    const ClockDomain& main = target.info().mainClock;
    std::map<std::string, EngineMark> previous;
    for (auto& l : layers) {
        const bool last = &l == &layers.back();
        const std::string name = l.at("engine").get<std::string>();
        const auto tag = l.at("mark").get<std::uint32_t>();
        Engine* engine = target.findEngine(name);
        if (!engine)
            throw std::runtime_error("layer '" + l.at("name").get<std::string>() + "': no engine '" + name +
                                     "'");
        const auto& marks = engine->marks();
        auto it = std::find_if(marks.begin(), marks.end(), [&](const EngineMark& m) { return m.tag == tag; });
        if (it == marks.end() && !required)
            return nullptr;
        if (it == marks.end())
            throw std::runtime_error(fmt::format("layer '{}': engine {} never reached mark {}",
                                                 l.at("name").get<std::string>(), name, tag));
        const EngineMark start = previous[name];  // a copy: the loop below moves previous on
        const ClockDomain& clock = engine->config().clock;
        const Tick t0 = clock.at(start.cycle), mark = clock.at(it->cycle);
        const Tick t1 = last ? std::max(mark, target.kernelEnd()) : mark;
        const std::uint64_t total = clock.cyclesCeil(t1) - start.cycle;
        const std::uint64_t compute = it->stalls[StallReason::Compute] - start.stalls[StallReason::Compute];
        l.erase("mark");
        l["start_cycle"] = main.cyclesCeil(t0);
        l["end_cycle"] = main.cyclesCeil(t1);
        l["cycles"] = main.cyclesCeil(t1) - main.cyclesCeil(t0);
        l["seconds"] = ticksToSeconds(t1 - t0);
        l["stall_fraction"] = total ? 1.0 - static_cast<double>(compute) / static_cast<double>(total) : 0.0;
        // DDR bytes of the layer: what its executed DMA transfers moved from and to DDR-level
        // spaces, so replayed schedules report the same as generated ones; of every engine that
        // marks the layer too (the cores of a layer split over them, a vector processor beside an
        // array), each from its own previous mark.
        std::uint64_t ddrRead = 0, ddrWrite = 0;
        for (const EngineInfo& info : target.info().engines) {
            const Engine* other = target.findEngine(info.name);
            if (!other)
                continue;
            const auto& own = other->marks();
            const auto at =
                std::find_if(own.begin(), own.end(), [&](const EngineMark& m) { return m.tag == tag; });
            if (at == own.end())
                continue;
            EngineMark& from = previous[info.name];
            for (const auto& space : target.info().spaces) {
                if (space.level != "ddr")
                    continue;
                ddrRead += at->dma.read[space.id] - from.dma.read[space.id];
                ddrWrite += at->dma.written[space.id] - from.dma.written[space.id];
            }
            from = *at;
        }
        l["ddr_read_bytes"] = ddrRead;
        l["ddr_write_bytes"] = ddrWrite;
    }
    return layers;
}

// The bytes a workload must read from main memory pass every level behind the caches its ops
// address (the caches start cold): each such level gets at least that many compulsory bytes, so
// cached targets have an L2 and a DDR bound beside the L1's. What it must write and the caches in
// front of a level cannot hold (the instances the run reached: a thread's own L1, its cluster's
// L2) must be written into that level before the kernel ends, and adds to its compulsory bytes.
void addLevelsBehindCaches(const TargetInfo& info, const std::set<std::uint8_t>& reached,
                           std::uint64_t coldRead, std::map<std::string, std::uint64_t>& compulsory,
                           std::map<std::string, std::uint64_t>& compulsoryWrite) {
    const std::map<std::string, std::uint64_t> own = compulsory, ownWrite = compulsoryWrite;
    for (const auto& [level, bytes] : own) {
        const auto w = ownWrite.find(level);
        const std::uint64_t written = w == ownWrite.end() ? 0 : std::min(w->second, bytes);
        if (coldRead == 0 && written == 0)
            continue;
        // The level's caches the run reached (all of them where it reached none).
        std::set<int> front;
        for (const MemorySpaceInfo* s : levelInstances(info, reached, level))
            if (s->next >= 0)
                front.insert(s->id);
        std::uint64_t held = 0;  // bytes the caches in front can hold
        for (int hops = 0; !front.empty() && hops < 16; ++hops) {
            std::set<int> next;
            for (int id : front) {
                const MemorySpaceInfo& s = info.spaces[static_cast<std::size_t>(id)];
                held += s.cacheBytes;
                if (s.next >= 0)
                    next.insert(s.next);
            }
            if (next.empty())
                break;
            const std::string& behind = info.spaces[static_cast<std::size_t>(*next.begin())].level;
            const std::uint64_t overflow = written > held ? written - held : 0;
            if (coldRead + overflow > 0)
                compulsory[behind] = std::max(compulsory[behind], coldRead + overflow);
            if (overflow > 0)
                compulsoryWrite[behind] = std::max(compulsoryWrite[behind], overflow);
            // Only caches pass on what they cannot hold.
            front.clear();
            for (int id : next)
                if (info.spaces[static_cast<std::size_t>(id)].cacheBytes > 0)
                    front.insert(id);
        }
    }
}

// A replayed schedule is reported against the workload's bounds only if it does that workload:
// an empty schedule, or one for a smaller shape, would beat them.
void checkScheduleMovesCompulsoryBytes(const std::string& schedule, const RunOutcome& outcome) {
    auto tooFew = [&](const char* verb, std::uint64_t done, const std::string& level, std::uint64_t must) {
        return config::ConfigError(
            {schedule, 0, 0}, "",
            fmt::format("the schedule {}s {} B at {}, less than the {} B the workload '{}' must {} there at "
                        "least: it is not a schedule of this workload (empty, or for another shape), and its "
                        "time would beat the workload's bounds",
                        verb, done, level, must, outcome.workloadName, verb));
    };
    for (const auto& [level, bytes] : outcome.compulsory) {
        std::uint64_t moved = 0, written = 0;
        for (const auto& t : outcome.traffic)
            if (t.level == level) {
                moved += t.usefulRead + t.usefulWrite;
                written += t.usefulWrite;
            }
        if (moved < bytes)
            throw tooFew("move", moved, level, bytes);
        const auto mustWrite = outcome.compulsoryWrite.find(level);
        if (mustWrite != outcome.compulsoryWrite.end() && written < std::min(mustWrite->second, bytes))
            throw tooFew("write", written, level, mustWrite->second);
    }
}

// A replayed schedule is input: an error that an op raised as it ran names the op's line, as an
// error in reading the line would.
void rethrowNamingScheduleLine(const std::string& schedule, const ConfiguredTarget& target) {
    std::optional<OpFailure> failed;
    auto atLine = [&](const std::string& what) {
        const std::string engine = target.initiators().name(failed->engine());
        const int line = ScheduleFileStream::linesOf(schedule, {{engine, failed->op()}}).front();
        return config::ConfigError({schedule, line, 0}, "", what);
    };
    try {
        rethrowProcessFailure(&failed);
    } catch (const config::ConfigError&) {
        throw;  // it names its place already
    } catch (const std::runtime_error& e) {
        if (!failed || schedule.empty())
            throw;
        throw atLine(e.what());
    } catch (const sc_core::sc_report& r) {
        if (!failed || schedule.empty())
            throw;
        throw atLine(r.get_msg());
    }
}

// The engines still waiting once the simulation stopped are deadlocked: an error naming each with
// what it waits for (and, replaying a schedule, the line of the op it waits in).
void checkNoEngineWaits(const std::string& schedule, const ConfiguredTarget& target) {
    const auto stuck = target.unfinishedEngines();
    if (stuck.empty())
        return;
    std::vector<int> lines(stuck.size(), 0);
    if (!schedule.empty()) {
        std::vector<ScheduleFileStream::OpRef> ops;
        for (const auto& w : stuck)
            ops.push_back({w.engine, w.op});
        lines = ScheduleFileStream::linesOf(schedule, ops);
    }
    std::vector<std::string> waits;
    for (std::size_t i = 0; i < stuck.size(); ++i)
        waits.push_back(lines[i] > 0 ? fmt::format("{} at {}:{}", stuck[i].waits, schedule, lines[i])
                                     : stuck[i].waits);
    const std::string what =
        fmt::format("deadlock: the simulation stopped with engines still waiting ({}): a barrier's count is "
                    "never reached or a join waits for forks that never come",
                    fmt::join(waits, "; "));
    if (schedule.empty())
        throw std::runtime_error(what);
    const auto named = std::find_if(lines.begin(), lines.end(), [](int line) { return line > 0; });
    throw config::ConfigError({schedule, named == lines.end() ? 0 : *named, 0}, "", what);
}

}  // namespace

void checkRunInputs(const RunRequest& request) {
    ResolvedInputs in = resolveInputs(request);
    elaborate(request, in);
}

std::uint64_t emitSchedule(const RunRequest& request, std::ostream& out) {
    ResolvedInputs in = resolveInputs(request);
    Elaboration e = elaborate(request, in);
    ScheduleOrigin origin;
    if (e.workload && request.program.empty() && request.scheduleFile.empty())
        origin = {workloadNameOf(request, in), e.workload->resolvedWorkload(), planNameOf(request, in),
                  e.workload->resolvedPlan()};
    return writeSchedule(out, e.streams, e.target->info(), origin);
}

nlohmann::ordered_json runSimulation(const RunRequest& request) {
    ResolvedInputs in = resolveInputs(request);
    Elaboration e = elaborate(request, in);
    ConfiguredTarget& target = *e.target;
    TraceSink trace;
    if (!request.traceFile.empty()) {
        target.setTrace(&trace);
        if (e.workload)
            e.workload->setTrace(&trace);
    }
    std::unique_ptr<AccessTraceWriter> accessTrace;
    if (!request.accessTraceFile.empty()) {
        accessTrace = std::make_unique<AccessTraceWriter>(request.accessTraceFile, target.initiators());
        target.setAccessObserver(accessTrace.get());
    }
    if (request.onElaborated)
        request.onElaborated(target);
    if (request.observer)
        target.setAccessObserver(request.observer);
    target.setFunctional(request.functional);
    for (auto& s : e.streams) {
        Engine* engine = target.findEngine(s.engine);
        if (!engine)
            throw std::runtime_error("schedule names engine '" + s.engine + "' that target '" +
                                     target.info().name + "' lacks");
        engine->setStream(request.wrapStream
                              ? request.wrapStream(s.engine, std::move(s.stream), target.info())
                              : std::move(s.stream));
    }
    if (request.functional && e.workload)
        e.workload->initialise(target.functionalMemory());

    try {
        // A program checks its own --timeout (and names its pc); any other run is watched here.
        const HostTimeWatchdog watchdog(request.program.empty() ? request.timeoutSeconds : 0.0,
                                        "the run of " + target.info().name,
                                        HostTimeWatchdog::progressInterval());
        sc_core::sc_start();
        rethrowNamingScheduleLine(request.scheduleFile, target);
        checkNoEngineWaits(request.scheduleFile, target);
        target.completePostedWrites();
    } catch (const sc_core::sc_report& r) {
        throw std::runtime_error(r.get_msg());
    }

    RunOutcome outcome;
    outcome.targetName = target.info().name;
    outcome.targetResolved = targetToJson(target.resolvedTree(), target.resolvedEnergyTable());
    outcome.workloadResolved = e.workload ? e.workload->resolvedWorkload() : nlohmann::ordered_json();
    outcome.planResolved = e.workload ? e.workload->resolvedPlan() : nlohmann::ordered_json();
    outcome.workloadName = workloadNameOf(request, in);
    outcome.planName = planNameOf(request, in);
    if (!request.scheduleFile.empty())
        outcome.planName = "schedule:" + request.scheduleFile;
    outcome.kernelEnd = target.kernelEnd();
    outcome.info = target.info();
    for (Engine* engine : target.engines()) {
        EngineOutcome eo;
        eo.name = engine->config().name;
        eo.mainCompute = engine->config().isMainCompute && engine->hasStream();
        std::uint64_t endCycle = engine->config().clock.cyclesCeil(outcome.kernelEnd);
        eo.stalls = engine->stalls(endCycle);
        eo.work = engine->workDone();
        eo.peakWorkPerSecond = engine->peakWorkPerCycle() * engine->config().clock.hz();
        outcome.engines.push_back(eo);
    }
    if (e.workload)
        for (const UntimedTraffic& u : e.workload->untimedTraffic())
            target.countUntimedTraffic(u.memory, u.readBytes, u.writeBytes);
    // The kernel window's energy, collected before the caches write back what is still dirty (the
    // report gives it on targets with caches only: without them the window is the whole run).
    const double seconds = ticksToSeconds(outcome.kernelEnd);
    outcome.hasCaches = target.hasCaches();
    if (outcome.hasCaches) {
        StatsTree scratch;
        target.collect(scratch, outcome.kernelEnergy, seconds);
    }
    target.writeBackDirtyLines();
    outcome.traffic = target.traffic();
    outcome.dirtyAtEndBytes = target.dirtyAtEndBytes();
    outcome.writebackAfterEnd = target.writebackEnd() - outcome.kernelEnd;
    if (e.workload) {
        outcome.compulsory = e.workload->compulsoryBytes();
        outcome.compulsoryWrite = e.workload->compulsoryWriteBytes();
        addLevelsBehindCaches(outcome.info, cachesReached(outcome), e.workload->coldReadBytes(),
                              outcome.compulsory, outcome.compulsoryWrite);
    }
    // `tessim validate` (which wraps the streams) reports a short schedule by what is wrong in it.
    if (!request.scheduleFile.empty() && e.workload && !request.wrapStream)
        checkScheduleMovesCompulsoryBytes(request.scheduleFile, outcome);
    target.collect(outcome.stats, outcome.energy, seconds);
    if (e.workload)
        e.workload->collectStats(outcome.stats, outcome.info.mainClock.cyclesCeil(outcome.kernelEnd),
                                 seconds);
    if (request.functional && e.workload)
        outcome.functional = e.workload->check(target.functionalMemory());
    if (e.workload) {
        outcome.layers = layerResults(e.workload->layers(), target, request.scheduleFile.empty());
        outcome.notSimulated = e.workload->notSimulated();
        outcome.profile = e.workload->profile(outcome.kernelEnd);
    }
    if (!request.traceFile.empty())
        trace.write(request.traceFile);
    return buildReport(outcome);
}

std::optional<int> programExitStatus(const nlohmann::ordered_json& report) {
    const auto workload = report.find("workload");
    if (workload == report.end() || !workload->is_object())
        return std::nullopt;
    const auto config = workload->find("config");
    if (config == workload->end() || !config->is_object() || config->value("kernel", "") != "program")
        return std::nullopt;
    return report.at("stats").at("workload").at("exit_status").at("value").get<int>();
}

bool runsScaleSimTopology(const RunRequest& request) {
    return isScaleSimTopologyPath(request.workload);
}

}  // namespace tessim
