// The modulo scheduler against closed forms: resource bound, recurrence bound, and an achieved
// II equal to the larger of the two when nothing else constrains the body.
#include <gtest/gtest.h>

#include "workloads/ftm/ModuloScheduler.h"

using namespace tessim;

namespace {

// Units: 0 = FMAC ×3, 1 = load/store ×2; one slot class of 6.
const ModuloResources kResources{{3, 2}, {6}};

ModuloOp op(unsigned unit, std::vector<ModuloDependence> after = {}) {
    ModuloOp o;
    o.resource = unit;
    o.after = std::move(after);
    return o;
}

}  // namespace

TEST(ModuloScheduler, IndependentOpsRunAtTheResourceBound) {
    // 10 FMAs on 3 FMACs: ⌈10/3⌉ = 4; 5 loads on 2 units: 3.
    std::vector<ModuloOp> body;
    for (int i = 0; i < 10; ++i)
        body.push_back(op(0));
    for (int i = 0; i < 5; ++i)
        body.push_back(op(1));
    ModuloSchedule s = moduloSchedule(body, kResources);
    EXPECT_EQ(s.resourceBound, 4u);
    EXPECT_EQ(s.recurrenceBound, 1u);
    EXPECT_EQ(s.ii, 4u);
}

TEST(ModuloScheduler, SlotClassBoundsTheBundle) {
    // 9 FMAs + 6 loads = 15 vector ops in 6 slots: ⌈15/6⌉ = 3 = the FMAC bound ⌈9/3⌉.
    std::vector<ModuloOp> body;
    for (int i = 0; i < 9; ++i)
        body.push_back(op(0));
    for (int i = 0; i < 6; ++i)
        body.push_back(op(1));
    EXPECT_EQ(moduloSchedule(body, {{3, 2}, {5}}).resourceBound, 3u);  // loads: ⌈6/2⌉ = 3 as well
    EXPECT_EQ(moduloSchedule(body, {{3, 2}, {4}}).resourceBound, 4u);  // slots: ⌈15/4⌉ = 4
}

TEST(ModuloScheduler, AnAccumulatorChainSetsTheRecurrenceBound) {
    // load → fma → fma (+ the second fma feeds the first of the next iteration), FMA latency 4:
    // the cycle fma₀ → fma₁ → fma₀' has latency 8 over distance 1.
    std::vector<ModuloOp> body{op(1), op(0, {{0, 3, 0}}), op(0, {{1, 4, 0}})};
    body[1].after.push_back({2, 4, 1});
    ModuloSchedule s = moduloSchedule(body, kResources);
    EXPECT_EQ(s.recurrenceBound, 8u);
    EXPECT_EQ(s.resourceBound, 1u);
    EXPECT_EQ(s.ii, 8u);
    EXPECT_GE(s.start[2], s.start[1] + 4);
    EXPECT_GE(s.start[1] + s.ii, s.start[2] + 4);
}

TEST(ModuloScheduler, EveryDependenceHoldsInTheFlatSchedule) {
    // A chain of 12 dependent FMAs across two iterations' distance, plus independent loads.
    std::vector<ModuloOp> body;
    body.push_back(op(1));
    for (unsigned i = 1; i <= 12; ++i)
        body.push_back(op(0, {{i - 1, i == 1 ? 3u : 4u, 0}}));
    body[1].after.push_back({12, 4, 3});
    ModuloSchedule s = moduloSchedule(body, kResources);
    EXPECT_GE(s.ii, std::max(s.resourceBound, s.recurrenceBound));
    for (std::size_t j = 0; j < body.size(); ++j)
        for (const auto& d : body[j].after)
            EXPECT_GE(static_cast<long long>(s.start[j]), static_cast<long long>(s.start[d.from]) +
                                                              d.latency -
                                                              static_cast<long long>(s.ii) * d.distance);
}
