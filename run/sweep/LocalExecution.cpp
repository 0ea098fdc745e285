#include "run/sweep/LocalExecution.h"

#include "run/sweep/PointRun.h"
#include "run/sweep/ProcessPool.h"

namespace tessim::sweep {

bool runPointsLocally(const SweepSpec& spec, const std::vector<Point>& points,
                      const std::vector<size_t>& pending, const ExecutionSettings& settings,
                      const RowSink& sink, const Tick& tick) {
    ProcessPool pool(settings.jobs, settings.timeoutSeconds, pointEnvironment());
    size_t next = 0;
    while (next < pending.size() || pool.running() > 0) {
        if (!tick(pool.running())) {
            pool.killAll();
            return false;
        }
        while (next < pending.size() && !pool.full()) {
            size_t index = pending[next++];
            pool.start(index, pointCommand(spec, points[index], settings.command));
        }
        // A short wait keeps the progress display and the stop check lively.
        for (auto& finished : pool.wait(0.2)) {
            sink(pointResult(spec, points[finished.tag], finished.result, settings.timeoutSeconds));
        }
    }
    tick(0);
    return true;
}

}  // namespace tessim::sweep
