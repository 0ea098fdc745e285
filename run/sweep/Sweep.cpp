#include "run/sweep/Sweep.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <unistd.h>

#include "run/sweep/LocalExecution.h"
#include "run/sweep/MpiExecution.h"
#include "run/sweep/Pareto.h"
#include "run/sweep/PlotScript.h"
#include "run/sweep/PointRun.h"
#include "run/sweep/PointSet.h"
#include "run/sweep/ProcessPool.h"
#include "run/sweep/Progress.h"
#include "run/sweep/ResultsStore.h"
#include "run/sweep/SweepSpec.h"
#include "run/sweep/ValueText.h"
#include "sim/config/ConfigError.h"
#include "sim/report/HumanUnits.h"

namespace tessim::sweep {
namespace {

volatile std::sig_atomic_t gInterrupted = 0;

void onInterrupt(int) {
    gInterrupted = 1;
}

// SIGINT/SIGTERM/SIGHUP stop the sweep cleanly (points killed, rows kept) while it runs.
class InterruptGuard {
public:
    InterruptGuard() {
        gInterrupted = 0;
        struct sigaction action {};
        action.sa_handler = onInterrupt;
        sigemptyset(&action.sa_mask);
        for (size_t i = 0; i < kSignals.size(); ++i)
            ::sigaction(kSignals[i], &action, &saved_[i]);
    }
    ~InterruptGuard() {
        for (size_t i = 0; i < kSignals.size(); ++i)
            ::sigaction(kSignals[i], &saved_[i], nullptr);
    }

private:
    static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
    std::array<struct sigaction, 3> saved_{};
};

nlohmann::ordered_json identityOf(const SweepSpec& spec) {
    nlohmann::ordered_json id;
    id["schema"] = "tessim.sweep-results/1";
    id["target"] = spec.target;
    id["workload"] = spec.workload;
    id["plan"] = spec.plan;
    id["set"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : spec.fixed)
        id["set"][k] = v;
    id["parameters"] = spec.parameterKeys();
    id["metrics"] = spec.metrics;
    return id;
}

std::string describeParams(const ParameterValues& params) {
    std::string text;
    for (const auto& [k, v] : params)
        text += (text.empty() ? "" : " ") + k + "=" + v;
    return text;
}

std::string cellText(const ResultRow& row, const std::string& key) {
    for (const auto& [k, v] : row.params) {
        if (k == key)
            return v;
    }
    for (const auto& [k, v] : row.metrics) {
        if (k == key) {
            // For eyes: 1.221 ms, 3.000 MiB (results.csv keeps SI base units).
            if (v.is_number())
                return humanReportValue(v.get<double>(), k);
            return metricText(v);
        }
    }
    return "";
}

void printTable(std::ostream& out, const std::vector<const ResultRow*>& rows,
                const std::vector<std::string>& columns, size_t limit) {
    std::vector<std::string> header{"id"};
    header.insert(header.end(), columns.begin(), columns.end());
    std::vector<std::vector<std::string>> cells{header};
    for (size_t i = 0; i < rows.size() && i < limit; ++i) {
        std::vector<std::string> line{rows[i]->id};
        for (const auto& c : columns)
            line.push_back(cellText(*rows[i], c));
        cells.push_back(std::move(line));
    }
    std::vector<size_t> width(header.size(), 0);
    for (const auto& line : cells) {
        for (size_t c = 0; c < line.size(); ++c)
            width[c] = std::max(width[c], line[c].size());
    }
    for (const auto& line : cells) {
        std::string text = " ";
        for (size_t c = 0; c < line.size(); ++c) {
            text += " " + line[c] + std::string(width[c] - line[c].size(), ' ');
        }
        while (!text.empty() && text.back() == ' ')
            text.pop_back();
        out << text << '\n';
    }
    if (rows.size() > limit)
        out << "  ... " << rows.size() - limit << " more\n";
}

struct Tally {
    size_t ok = 0;
    size_t error = 0;
    size_t timeout = 0;
};

}  // namespace

int runSweep(const SweepOptions& options, std::ostream& out, std::ostream& err) {
    SweepSpec spec = loadSweepSpec(options.specPath);
    size_t duplicates = 0;
    std::vector<Point> points = generatePoints(spec, &duplicates);

    ExecutionSettings settings;
    settings.command = !options.command.empty()         ? options.command
                       : !spec.testPointCommand.empty() ? spec.testPointCommand
                                                        : defaultRunCommand();
    settings.jobs = options.jobs > 0 ? options.jobs : availableCores();
    settings.timeoutSeconds = options.timeoutSeconds.value_or(spec.timeoutSeconds.value_or(0.0));
    std::string outDir = options.outDir.empty() ? "out/sweeps/" + spec.name : options.outDir;
    // A base target, workload or plan that no library holds is an error at its line in the sweep
    // file (the points' command line only carries it).
    auto atBaseKey = [&spec](const auto& check) {
        try {
            check();
        } catch (const config::ConfigError& e) {
            if (e.location().file != "<command line>" || e.location().line != 0)
                throw;
            for (const auto& [key, where] : spec.baseWhere)
                if (e.detail().rfind("no " + key + " named", 0) == 0 ||
                    e.detail().rfind(key + " file", 0) == 0)
                    throw config::ConfigError(where, "base." + key, e.detail());
            throw;
        }
    };
    // A misspelt key fails every point: refused here, before any point runs.
    if (options.checkFirstPoint && options.command.empty() && spec.testPointCommand.empty() &&
        !points.empty())
        atBaseKey([&] { options.checkFirstPoint(pointCommand(spec, points.front(), {})); });
    InterruptGuard interrupts;

    std::unique_ptr<MpiSession> mpi;
    if (options.mpi) {
        mpi = std::make_unique<MpiSession>();
        if (mpi->rank() != 0) {
            // Workers follow rank 0's verdict on the results directory.
            if (mpi->broadcast(0) != 0)
                return 0;
            runMpiWorker(*mpi, spec, points, settings, [](size_t) { return gInterrupted == 0; });
            return 0;
        }
    }
    bool distributed = mpi && mpi->size() > 1;

    std::unique_ptr<ResultsStore> store;
    try {
        ResultColumns columns{spec.parameterKeys(), spec.metrics};
        nlohmann::ordered_json identity = identityOf(spec);
        if (options.inputsDigest && options.command.empty() && spec.testPointCommand.empty())
            atBaseKey([&] { identity["inputs"] = options.inputsDigest(pointCommand(spec, Point{}, {})); });
        store = std::make_unique<ResultsStore>(outDir, columns, identity, options.resume);
    } catch (...) {
        if (distributed)
            mpi->broadcast(1);
        throw;
    }
    if (distributed)
        mpi->broadcast(0);

    std::vector<size_t> pending;
    for (size_t i = 0; i < points.size(); ++i) {
        if (!store->doneIds().count(points[i].id))
            pending.push_back(i);
    }
    if (duplicates > 0) {
        err << fmt::format("note: {} duplicate points (equal parameters) run once\n", duplicates);
    }
    bool terminal = options.terminal.value_or(::isatty(2) == 1);
    Progress progress(err, terminal, points.size(), points.size() - pending.size(), options.progressInterval);
    auto started = std::chrono::steady_clock::now();
    RowSink sink = [&](const ResultRow& row) {
        store->append(row);
        progress.pointFinished(row.status);
    };
    Tick tick = [&](size_t running) {
        progress.tick(running);
        return gInterrupted == 0;
    };
    bool completed = distributed ? coordinateMpiPoints(*mpi, pending, sink, tick)
                                 : runPointsLocally(spec, points, pending, settings, sink, tick);
    progress.finish();
    store->sync();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!completed) {
        err << fmt::format("sweep interrupted: {} rows kept in {}; run it again with --resume "
                           "to finish\n",
                           store->rows().size(), outDir);
        return 130;
    }

    // The summary and the front cover this sweep's points (the files keep every row).
    std::set<std::string> ids;
    std::vector<std::string> order;
    for (const Point& p : points) {
        ids.insert(p.id);
        order.push_back(p.id);
    }
    store->rewriteInOrder(order);
    std::vector<ResultRow> rows;
    Tally tally;
    for (const ResultRow& row : store->rows()) {
        if (!ids.count(row.id))
            continue;
        rows.push_back(row);
        (row.status == PointStatus::Ok      ? tally.ok
         : row.status == PointStatus::Error ? tally.error
                                            : tally.timeout)++;
    }

    out << fmt::format(
        "sweep '{}': {} points: {} ok, {} error, {} timeout ({} run now{}) in "
        "{:.1f} s, {}{} jobs\n",
        spec.name, points.size(), tally.ok, tally.error, tally.timeout, pending.size(),
        store->resumedCount() > 0 ? fmt::format(", {} from an earlier run", store->resumedCount()) : "", wall,
        distributed ? fmt::format("{} MPI workers x ", mpi->size() - 1) : std::string(), settings.jobs);
    out << "results: " << store->csvPath() << ", " << store->jsonlPath() << '\n';
    std::vector<const ResultRow*> failed;
    for (const auto& row : rows) {
        if (row.status != PointStatus::Ok)
            failed.push_back(&row);
    }
    if (!failed.empty()) {
        out << "failed points:\n";
        for (size_t i = 0; i < failed.size() && i < 10; ++i) {
            out << fmt::format("  {} {:7} {}: {}\n", failed[i]->id, statusName(failed[i]->status),
                               describeParams(failed[i]->params), failed[i]->message);
        }
        if (failed.size() > 10)
            out << "  ... " << failed.size() - 10 << " more\n";
    }

    if (!spec.objectives.empty()) {
        std::vector<size_t> front = paretoFront(rows, spec.objectives);
        std::string csv = csvHeader(store->columns());
        std::vector<const ResultRow*> frontRows;
        for (size_t i : front) {
            csv += csvLine(rows[i], store->columns());
            frontRows.push_back(&rows[i]);
        }
        std::string paretoPath = outDir + "/pareto.csv";
        writeFileAtomically(paretoPath, csv);
        std::string over;
        std::vector<std::string> shown = spec.parameterKeys();
        for (const Objective& o : spec.objectives) {
            over += (over.empty() ? "" : ", ") +
                    std::string(o.direction == Direction::Minimize ? "min " : "max ") + o.key;
            if (std::find(shown.begin(), shown.end(), o.key) == shown.end())
                shown.push_back(o.key);
        }
        out << fmt::format("pareto front ({}): {} of {} ok points -> {}\n", over, front.size(), tally.ok,
                           paretoPath);
        printTable(out, frontRows, shown, 20);
    }

    int status = tally.error + tally.timeout > 0 ? 1 : 0;
    if (options.plot) {
        if (spec.plots.empty())
            err << "note: --plot: the sweep file lists no plots\n";
        for (const PlotRequest& plot : spec.plots) {
            out.flush();
            if (runPlotScript(plotScriptArguments(store->csvPath(), plot, outDir + "/plots"), err) != 0) {
                status = std::max(status, 1);
            }
        }
    }
    return status;
}

}  // namespace tessim::sweep
