#include "workloads/ftm/ShuffleConvPlan.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "sim/workload/PlanEngine.h"
#include "workloads/ftm/ModuloLoop.h"

namespace tessim {
namespace shuffle {
namespace {

// The loop body of one pass of kp kernel rows with `unroll` chunks per iteration, scheduled.
Body buildBody(const ShuffleParams& p, unsigned kp, unsigned unroll, unsigned extraSlots, bool partial) {
    Body b;
    b.kp = kp;
    b.unroll = unroll;
    // Input-row order: the K/S output rows an input row feeds accumulate at once; output-row order:
    // one.
    b.rowSlots = (p.outputRowOrder ? 1 : (kp + p.sh - 1) / p.sh) + extraSlots;
    // The lane phases and slides work along a row: the column stride and the kernel's width.
    const unsigned s = p.sw, k = p.kw;
    // The input rows an iteration reads: one (input-row order), or the pass's kp (output-row order).
    const unsigned inputRows = p.outputRowOrder ? kp : 1;
    std::vector<ModuloOp> mops;
    enum Unit : unsigned { Fmac, Lsu, Shuffle, Bcast, Salu, Bru };
    ModuloResources res{{p.fmacs, p.lsus, p.shufflers, std::max(1u, p.broadcasters),
                         std::max(1u, p.scalarAlus), std::max(1u, p.branchUnits)},
                        {p.vectorSlots, std::max(1u, p.scalarSlots)}};
    auto add = [&](BodyOp op, unsigned unit) {
        b.ops.push_back(op);
        ModuloOp m;
        m.resource = unit;
        m.slot = unit == Bcast || unit == Salu || unit == Bru ? 1 : 0;
        mops.push_back(m);
        return static_cast<unsigned>(b.ops.size() - 1);
    };
    // operand[r][u][kx]: the vector chunk u's FMAs of kernel column kx read from input row r of the
    // iteration, and its latency.
    std::vector<std::vector<std::vector<unsigned>>> operand(
        inputRows, std::vector<std::vector<unsigned>>(unroll, std::vector<unsigned>(k)));
    auto operandLatency = operand;
    const unsigned phaseLatency = p.dealPhases ? p.slideLatency : p.loadLatency + kMemoryLatency;
    for (unsigned r = 0; r < inputRows; ++r) {
        // phase[ph][u]: the vector of lane phase ph of chunk u (chunk `unroll` supplies the lanes the
        // slides shift in), and the latency after which it can be read.
        std::vector<std::vector<unsigned>> phase(s, std::vector<unsigned>(unroll + 1));
        if (p.dealPhases) {
            // Only the phases and chunks the kernel reads: K ≤ S needs neither the next chunk nor
            // phases K…S − 1.
            const unsigned chunks = k > s ? unroll + 1 : unroll, phases = std::min(s, k);
            std::vector<std::vector<unsigned>> load(chunks, std::vector<unsigned>(s));
            for (unsigned u = 0; u < chunks; ++u)
                for (unsigned t = 0; t < s; ++t)
                    load[u][t] = add({BodyRole::Load, t, u, r, 0}, Lsu);
            for (unsigned u = 0; u < chunks; ++u)
                for (unsigned ph = 0; ph < phases; ++ph) {
                    phase[ph][u] = add({BodyRole::Deal, ph, u, r, 0}, Shuffle);
                    for (unsigned t = 0; t < s; ++t)
                        mops[phase[ph][u]].after.push_back({load[u][t], p.loadLatency + kMemoryLatency, 0});
                }
        } else {
            for (unsigned ph = 0; ph < s; ++ph)
                for (unsigned u = 0; u <= unroll; ++u)
                    phase[ph][u] = add({BodyRole::Load, ph, u, r, 0}, Lsu);
        }
        for (unsigned u = 0; u < unroll; ++u)
            for (unsigned kx = 0; kx < k; ++kx) {
                const unsigned ph = kx % s, q = kx / s;
                if (q == 0) {
                    operand[r][u][kx] = phase[ph][u];
                    operandLatency[r][u][kx] = phaseLatency;
                    continue;
                }
                unsigned sl = add({BodyRole::Slide, ph, u, r, kx}, Shuffle);
                mops[sl].after.push_back({phase[ph][u], phaseLatency, 0});
                mops[sl].after.push_back({phase[ph][u + 1], phaseLatency, 0});
                operand[r][u][kx] = sl;
                operandLatency[r][u][kx] = p.slideLatency;
            }
    }
    // Explicit broadcasts: each kernel element of the pass into a vector register once per
    // iteration, shared by the iteration's chunks.
    std::vector<unsigned> bcast(kp * k, 0);
    if (p.explicitBroadcast)
        for (unsigned j = 0; j < kp; ++j)
            for (unsigned kx = 0; kx < k; ++kx)
                bcast[j * k + kx] = add({BodyRole::Broadcast, 0, 0, j, kx}, Bcast);
    std::vector<unsigned> partialOp(unroll, 0), firstFma(unroll, 0), lastFma(unroll, 0);
    std::vector<std::vector<unsigned>> fmaOf(unroll, std::vector<unsigned>(kp * k));
    for (unsigned u = 0; u < unroll; ++u) {
        if (partial)
            partialOp[u] = add({BodyRole::Partial, 0, u, 0, 0}, Lsu);
        for (unsigned j = 0; j < kp; ++j)
            for (unsigned kx = 0; kx < k; ++kx) {
                unsigned f = add({BodyRole::Fma, 0, u, j, kx}, Fmac);
                fmaOf[u][j * k + kx] = f;
                const unsigned r = p.outputRowOrder ? j : 0;
                mops[f].after.push_back({operand[r][u][kx], operandLatency[r][u][kx], 0});
                if (p.explicitBroadcast)
                    mops[f].after.push_back({bcast[j * k + kx], p.broadcastLatency, 0});
                if (kx > 0)
                    mops[f].after.push_back({fmaOf[u][j * k + kx - 1], p.fmaLatency, 0});
                else if (j > 0 && p.outputRowOrder)  // the row's previous kernel row, this iteration
                    mops[f].after.push_back({fmaOf[u][j * k - 1], p.fmaLatency, 0});
                else if (j == 0 && partial)
                    mops[f].after.push_back({partialOp[u], p.loadLatency + kMemoryLatency, 0});
            }
        firstFma[u] = fmaOf[u][0];
        lastFma[u] = fmaOf[u][kp * k - 1];
    }
    std::vector<unsigned> storeOp(unroll);
    for (unsigned u = 0; u < unroll; ++u) {
        storeOp[u] = add({BodyRole::Store, 0, u, 0, 0}, Lsu);
        mops[storeOp[u]].after.push_back({lastFma[u], p.fmaLatency, 0});
    }
    // Loop-carried: in input-row order a row's kernel row j+1 follows its kernel row j one
    // iteration later; a row slot is written again only after the row that held it has been stored.
    const unsigned reuse = p.outputRowOrder ? b.rowSlots : b.rowSlots * p.sh - kp + 1;
    for (unsigned u = 0; u < unroll; ++u) {
        for (unsigned j = 0; j + 1 < kp && !p.outputRowOrder; ++j)
            mops[fmaOf[u][(j + 1) * k]].after.push_back({fmaOf[u][j * k + k - 1], p.fmaLatency, 1});
        const unsigned opener = partial ? partialOp[u] : firstFma[u];
        mops[opener].after.push_back({storeOp[u], 1, reuse});
    }
    // Loop control in the scalar slots: the counter, its compare with the trip count and the
    // back-edge branch on the compare's flag; each reads its register before the next iteration's
    // producer writes it again.
    const unsigned count = add({BodyRole::Count, 0, 0, 0, 0}, Salu);
    const unsigned compare = add({BodyRole::Compare, 0, 0, 0, 0}, Salu);
    const unsigned branch = add({BodyRole::Branch, 0, 0, 0, 0}, Bru);
    chainLoopControl(mops, count, compare, branch);
    b.schedule = moduloSchedule(mops, res);
    // Rotating registers: a value lives from its producer's issue to its last consumer's.
    const std::vector<unsigned> lastUse = lastUses(mops, b.schedule);
    b.copies.assign(b.ops.size(), 0);
    b.base.assign(b.ops.size(), 0);
    unsigned next = unroll * b.rowSlots;
    for (std::size_t j = 0; j < b.ops.size(); ++j) {
        if (b.ops[j].role != BodyRole::Load && b.ops[j].role != BodyRole::Deal &&
            b.ops[j].role != BodyRole::Slide && b.ops[j].role != BodyRole::Broadcast)
            continue;
        allocateRotating(b.schedule, static_cast<unsigned>(j), lastUse[j], b.copies, b.base, next);
    }
    b.vectorRegisters = next;
    b.byResidue = opsByResidue(b.schedule, b.ops.size());
    b.fmas = static_cast<std::uint64_t>(unroll) * kp * k;
    const BodyRole phaseRole = p.dealPhases ? BodyRole::Deal : BodyRole::Load;
    b.sources.assign(b.ops.size(), {0, 0, 0});
    for (std::size_t j = 0; j < b.ops.size(); ++j) {
        const BodyOp& o = b.ops[j];
        if (o.role == BodyRole::Slide)
            b.sources[j] = {b.find(phaseRole, o.p, o.u, o.j, 0), b.find(phaseRole, o.p, o.u + 1, o.j, 0), 0};
        else if (o.role == BodyRole::Deal)
            for (unsigned t = 0; t < s; ++t)
                b.sources[j][t] = b.find(BodyRole::Load, t, o.u, o.j, 0);
        else if (o.role == BodyRole::Fma) {
            const unsigned r = p.outputRowOrder ? o.j : 0;  // the input row of the iteration it reads
            b.sources[j] = {o.kx / s == 0 ? b.find(phaseRole, o.kx % s, o.u, r, 0)
                                          : b.find(BodyRole::Slide, o.kx % s, o.u, r, o.kx),
                            b.find(BodyRole::Broadcast, 0, 0, o.j, o.kx), 0};
        }
    }
    return b;
}

// The unroll and row slots with the most chunks per cycle whose registers fit (ties: fewer
// registers). More row slots let a row's accumulator wait longer before it is reused.
Body planBody(const ShuffleParams& p, unsigned kp, unsigned requested, bool partial,
              const config::Reader& pl) {
    Body best;
    bool found = false;
    const unsigned first = requested > 0 ? requested : 1;
    const unsigned last = requested > 0 ? requested : std::min(kMaxUnroll, p.chunks);
    for (unsigned u = first; u <= last; ++u)
        for (unsigned extra = 1; extra <= 6; ++extra) {
            Body b = buildBody(p, kp, u, extra, partial);
            if (b.vectorRegisters > p.vectorRegisters)
                break;
            const double rate = static_cast<double>(u) / b.schedule.ii;
            const double bestRate = found ? static_cast<double>(best.unroll) / best.schedule.ii : 0.0;
            if (!found || rate > bestRate + 1e-12 ||
                (rate > bestRate - 1e-12 && b.vectorRegisters < best.vectorRegisters)) {
                best = std::move(b);
                found = true;
            }
        }
    if (!found)
        pl.fail("unroll",
                fmt::format("unroll {} of a {}-row pass does not fit {} vector registers", first, kp,
                            p.vectorRegisters),
                config::Shortfall::Registers);
    return best;
}

}  // namespace

// planBody, once per distinct set of the figures it depends on: a network's layers of one shape (a
// depthwise layer's groups, hundreds of them) plan their loop once per process.
Body cachedPlanBody(const ShuffleParams& p, unsigned kp, unsigned requested, bool partial,
                    const config::Reader& pl) {
    using Key = std::array<unsigned, 23>;
    static PlanMemo<Key, Body> memo;
    const Key key{kp,
                  requested,
                  partial,
                  std::min(kMaxUnroll, p.chunks),
                  p.sh,
                  p.sw,
                  p.kw,
                  p.fmacs,
                  p.lsus,
                  p.shufflers,
                  p.vectorSlots,
                  p.broadcasters,
                  p.scalarSlots,
                  p.scalarAlus,
                  p.branchUnits,
                  p.fmaLatency,
                  p.loadLatency,
                  p.slideLatency,
                  p.broadcastLatency,
                  p.explicitBroadcast,
                  p.vectorRegisters,
                  p.dealPhases,
                  p.outputRowOrder};
    return memo.get(key, [&] { return planBody(p, kp, requested, partial, pl); });
}

unsigned largestFittingPass(const ShuffleParams& p, unsigned maxRows) {
    for (unsigned kp = maxRows; kp > 1; --kp) {
        const bool partial = p.channels > 1 || kp < p.kh;
        if (buildBody(p, kp, 1, 1, partial).vectorRegisters <= p.vectorRegisters)
            return kp;
    }
    return 1;
}

}  // namespace shuffle
}  // namespace tessim
