// Emitting a modulo-scheduled loop as bundles: the loop control in the scalar slots (a counter,
// its compare with the trip count, the back-edge branch) and the walk over the flat schedule that
// issues, cycle by cycle, every op of every iteration in flight.
#pragma once

#include <algorithm>

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "sim/ir/Op.h"
#include "workloads/common/LoopOps.h"
#include "workloads/ftm/ModuloScheduler.h"

namespace tessim {

// A plan part (a scheduled loop body) made once per key in the process: layers of one shape (a
// depthwise layer's groups) plan their loop once. Guarded: a process may plan on several threads.
template <typename Key, typename Value> class PlanMemo {
public:
    template <typename Make> Value get(const Key& key, Make make) {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (const auto it = cache_.find(key); it != cache_.end())
                return it->second;
        }
        Value made = make();
        const std::lock_guard<std::mutex> lock(mutex_);
        cache_.emplace(key, made);
        return made;
    }

private:
    std::mutex mutex_;
    std::map<Key, Value> cache_;
};

// Loop control registers, above the kernel elements'.
constexpr std::uint8_t kLoopCounterReg = kScalarRegBase + 60;
constexpr std::uint8_t kLoopFlagReg = kScalarRegBase + 61;

inline Op bundleStart(Op op) {
    op.flags |= Op::kBundleStart;
    return op;
}

// The dependences of the control ops: each reads its register before the next iteration's
// producer writes it again.
inline void chainLoopControl(std::vector<ModuloOp>& mops, unsigned count, unsigned compare, unsigned branch) {
    mops[compare].after.push_back({count, 1, 0});
    mops[branch].after.push_back({compare, 1, 0});
    mops[count].after.push_back({count, 1, 1});
    mops[count].after.push_back({compare, 1, 1});
    mops[compare].after.push_back({branch, 1, 1});
}

inline Op loopCounterReset() {
    return bundleStart(scalarOp(OpKind::SMul, DType::I32, kLoopCounterReg, kLoopCounterReg, 0));
}
inline Op loopCount() {
    return scalarOp(OpKind::SAdd, DType::I32, kLoopCounterReg, kLoopCounterReg, 1);
}
inline Op loopCompare(std::uint64_t iterations) {
    return scalarOp(OpKind::SCompare, DType::I32, kLoopFlagReg, kLoopCounterReg,
                    static_cast<double>(iterations));
}
inline Op loopBranch(std::uint64_t i, std::uint64_t iterations) {
    return branchOp(DType::I32, kLoopFlagReg, i + 1 < iterations);
}

// Per op, the issue cycle of its last consumer in the same iteration (0 when none): how long the
// value it writes lives, for allocateRotating.
inline std::vector<unsigned> lastUses(const std::vector<ModuloOp>& ops, const ModuloSchedule& schedule) {
    std::vector<unsigned> lastUse(ops.size(), 0);
    for (std::size_t j = 0; j < ops.size(); ++j)
        for (const auto& d : ops[j].after)
            if (d.distance == 0)
                lastUse[d.from] = std::max(lastUse[d.from], schedule.start[j]);
    return lastUse;
}

// Rotating registers for the value op j writes, which lives from its issue to its last consumer's
// (lastUse): one copy per II begun, registers [next, next + copies) (next advanced).
inline void allocateRotating(const ModuloSchedule& schedule, unsigned j, unsigned lastUse,
                             std::vector<unsigned>& copies, std::vector<unsigned>& base, unsigned& next) {
    const unsigned start = schedule.start[j];
    const unsigned life = lastUse > start ? lastUse - start : 0;
    copies[j] = life / schedule.ii + 1;
    base[j] = next;
    next += copies[j];
}

// The ops of the schedule by their issue cycle modulo II.
inline std::vector<std::vector<unsigned>> opsByResidue(const ModuloSchedule& schedule, std::size_t ops) {
    std::vector<std::vector<unsigned>> byResidue(schedule.ii);
    for (std::size_t j = 0; j < ops; ++j)
        byResidue[schedule.start[j] % schedule.ii].push_back(static_cast<unsigned>(j));
    return byResidue;
}

// Up to 64 cycles of the loop from `cycle` on (advanced), each cycle one bundle of the ops that
// `materialise(j, i, op)` fills for op j of iteration i (false: nothing to do there); `op` arrives
// default-constructed.
template <typename Materialise>
void emitModuloCycles(const ModuloSchedule& schedule, const std::vector<std::vector<unsigned>>& byResidue,
                      std::uint64_t iterations, std::uint64_t cycles, std::uint64_t& cycle,
                      std::vector<Op>& out, Materialise&& materialise) {
    const unsigned ii = schedule.ii;
    for (unsigned n = 0; n < 64 && cycle < cycles; ++n, ++cycle) {
        bool opened = false;
        for (unsigned j : byResidue[cycle % ii]) {
            const unsigned st = schedule.start[j];
            if (cycle < st)
                continue;
            const std::uint64_t i = (cycle - st) / ii;
            if (i >= iterations)
                continue;
            Op& op = out.emplace_back();  // filled in place: no copy of a whole Op per op
            if (!materialise(j, i, op)) {
                out.pop_back();
                continue;
            }
            if (!opened) {
                op.flags |= Op::kBundleStart;
                opened = true;
            }
        }
    }
}

}  // namespace tessim
