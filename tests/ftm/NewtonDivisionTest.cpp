// The vector DSP's divide (workloads/ftm/NewtonDivision.h): a reciprocal estimate and Newton–Raphson
// steps, then the dividend times the reciprocal, each op rounded in the type as the FMACs round it.
// Over the test data's range its quotients lie within two units in the last place of the correctly
// rounded one in f16, f32 and f64; with a step fewer they do not (the step count is what it needs).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "workloads/common/TestData.h"
#include "workloads/ftm/NewtonDivision.h"

namespace tessim {
namespace {

// The spacing of t's values at v (one unit in the last place).
double ulp(DType t, double v) {
    const int bits = t == DType::F16 ? 11 : t == DType::F32 ? 24 : 53;
    int e = 0;
    std::frexp(v, &e);
    return std::ldexp(1.0, e - bits);
}

// The worst error of a divide over n test pairs, in units in the last place of the exact quotient.
template <class Divide> double worstUlps(DType t, Divide divide, std::uint64_t n) {
    double worst = 0.0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const double a = testValue(t, i, 1), b = testValue(t, i, 2);
        const double exact = roundTo(t, a / b);
        if (b == 0.0 || !std::isfinite(exact) || std::fabs(exact) < ulp(t, 1.0) * 1e-3)
            continue;
        worst = std::max(worst, std::fabs(divide(a, b) - exact) / ulp(t, exact));
    }
    return worst;
}

TEST(NewtonDivision, QuotientsLieWithinTwoUnitsInTheLastPlace) {
    for (const DType t : {DType::F16, DType::F32, DType::F64}) {
        SCOPED_TRACE(dtypeName(t));
        const double full = worstUlps(
            t, [t](double a, double b) { return newtonDivideIn(t, a, b); }, 20000);
        EXPECT_LE(full, 2.0);
        // One step fewer falls short of the type's precision.
        const double short_ = worstUlps(
            t,
            [t](double a, double b) {
                double r = recipEstimateIn(t, b);
                for (unsigned s = 1; s < newtonSteps(t); ++s)
                    r = fmaIn(t, r, fmaIn(t, -b, r, 1.0), r);
                return mulIn(t, a, r);
            },
            20000);
        EXPECT_GT(short_, 2.0);
        std::printf("%s: worst %.2f ulp, %.2f with a step fewer\n", dtypeName(t).data(), full, short_);
    }
}

}  // namespace
}  // namespace tessim
