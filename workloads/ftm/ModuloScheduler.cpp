#include "workloads/ftm/ModuloScheduler.h"

#include "sim/core/IntegerMath.h"
#include <algorithm>
#include <stdexcept>

namespace tessim {
namespace {

unsigned resourceBound(const std::vector<ModuloOp>& body, const ModuloResources& r) {
    std::vector<unsigned> units(r.capacity.size(), 0), slots(r.slotCapacity.size(), 0);
    for (const auto& op : body) {
        ++units.at(op.resource);
        ++slots.at(op.slot);
    }
    unsigned bound = 1;
    for (std::size_t i = 0; i < units.size(); ++i)
        if (units[i] > 0)
            bound = std::max(bound, ceilDiv(units[i], r.capacity[i]));
    for (std::size_t i = 0; i < slots.size(); ++i)
        if (slots[i] > 0)
            bound = std::max(bound, ceilDiv(slots[i], r.slotCapacity[i]));
    return bound;
}

// True when no dependence cycle has latency > ii · distance: longest paths with edge weights
// latency − ii·distance converge (Bellman–Ford finds no positive cycle).
bool recurrenceFeasible(const std::vector<ModuloOp>& body, unsigned ii) {
    const std::size_t n = body.size();
    std::vector<long long> dist(n, 0);
    for (std::size_t round = 0; round <= n; ++round) {
        bool changed = false;
        for (std::size_t j = 0; j < n; ++j)
            for (const auto& d : body[j].after) {
                const long long w =
                    static_cast<long long>(d.latency) - static_cast<long long>(ii) * d.distance;
                if (dist[d.from] + w > dist[j]) {
                    dist[j] = dist[d.from] + w;
                    changed = true;
                }
            }
        if (!changed)
            return true;
    }
    return false;
}

// Feasibility is monotone in II (a cycle's weight Σlatency − II·Σdistance only falls as II grows;
// a cycle of distance 0 is infeasible at every II), so the least feasible II is found by bisection.
unsigned recurrenceBound(const std::vector<ModuloOp>& body) {
    unsigned maxLatency = 1;
    for (const auto& op : body)
        for (const auto& d : op.after)
            maxLatency += d.latency;
    if (!recurrenceFeasible(body, maxLatency))
        throw std::runtime_error("modulo scheduler: a dependence cycle has distance 0");
    unsigned lo = 1, hi = maxLatency;  // hi is feasible
    while (lo < hi) {
        const unsigned mid = lo + (hi - lo) / 2;
        if (recurrenceFeasible(body, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return hi;
}

// List scheduling at one II: each op at the first cycle ≥ its earliest start whose resources
// are free modulo II. A dependence the pass breaks (a loop-carried one, or one whose consumer
// was placed before its producer was pushed back) raises the consumer's earliest start, and the
// pass is repeated; the II fails when that does not settle.
bool tryII(const std::vector<ModuloOp>& body, const ModuloResources& r, unsigned ii,
           std::vector<unsigned>& start) {
    std::vector<long long> minStart(body.size(), 0);
    for (unsigned attempt = 0; attempt < 4 * body.size() + 8; ++attempt) {
        std::vector<std::vector<unsigned>> unitUse(r.capacity.size(), std::vector<unsigned>(ii, 0));
        std::vector<std::vector<unsigned>> slotUse(r.slotCapacity.size(), std::vector<unsigned>(ii, 0));
        start.assign(body.size(), 0);
        for (std::size_t j = 0; j < body.size(); ++j) {
            long long earliest = minStart[j];
            for (const auto& d : body[j].after)
                if (d.from < j)
                    earliest = std::max(earliest, static_cast<long long>(start[d.from]) + d.latency -
                                                      static_cast<long long>(ii) * d.distance);
            bool placed = false;
            // The ii cycles from earliest on, one per row of the modulo reservation table.
            std::vector<unsigned>& units = unitUse[body[j].resource];
            std::vector<unsigned>& slots = slotUse[body[j].slot];
            const unsigned unitCap = r.capacity[body[j].resource], slotCap = r.slotCapacity[body[j].slot];
            unsigned m = static_cast<unsigned>(earliest % ii);
            for (unsigned step = 0; step < ii; ++step, m = m + 1 == ii ? 0 : m + 1)
                if (units[m] < unitCap && slots[m] < slotCap) {
                    ++units[m];
                    ++slots[m];
                    start[j] = static_cast<unsigned>(earliest + step);
                    placed = true;
                    break;
                }
            if (!placed)
                return false;
        }
        bool ok = true;
        for (std::size_t j = 0; j < body.size(); ++j)
            for (const auto& d : body[j].after) {
                const long long need = static_cast<long long>(start[d.from]) + d.latency -
                                       static_cast<long long>(ii) * d.distance;
                if (static_cast<long long>(start[j]) < need) {
                    minStart[j] = std::max(minStart[j], need);
                    ok = false;
                }
            }
        if (ok)
            return true;
    }
    return false;
}

}  // namespace

ModuloSchedule moduloSchedule(const std::vector<ModuloOp>& body, const ModuloResources& resources) {
    ModuloSchedule s;
    s.resourceBound = resourceBound(body, resources);
    s.recurrenceBound = recurrenceBound(body);
    const unsigned lower = std::max(s.resourceBound, s.recurrenceBound);
    unsigned total = 1;
    for (const auto& op : body)
        for (const auto& d : op.after)
            total += d.latency;
    for (unsigned ii = lower; ii <= lower + total + static_cast<unsigned>(body.size()); ++ii)
        if (tryII(body, resources, ii, s.start)) {
            s.ii = ii;
            s.length = body.empty() ? 0 : *std::max_element(s.start.begin(), s.start.end()) + 1;
            return s;
        }
    throw std::runtime_error("modulo scheduler: no schedule found");
}

}  // namespace tessim
