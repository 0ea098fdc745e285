// Division on a vector unit without a divider, as a DSP compiler writes it: a reciprocal estimate
// (op `recip`, 8 significant bits), Newton–Raphson steps on the FMACs (each doubles the bits), then
// the dividend times the reciprocal (TI's fastRTS divsp for the C66x so). Scalar references of the sequence
// DspVectorLayer emits, op for op in the same rounding (fmaIn, mulIn).
#pragma once

#include "sim/ir/ElementArithmetic.h"
#include "sim/ir/Op.h"

namespace tessim {

// Steps that take the estimate's 8 bits past the type's significand: f16 11 bits (one step: 16),
// f32 24 (two: 32), f64 53 (three: 64).
inline unsigned newtonSteps(DType t) {
    return t == DType::F16 ? 1 : t == DType::F64 ? 3 : 2;
}

// r ← recip(b); per step e ← 1 − b·r (fma of −b), r ← r + r·e (fma).
inline double newtonReciprocalIn(DType t, double b) {
    double r = recipEstimateIn(t, b);
    for (unsigned s = 0; s < newtonSteps(t); ++s) {
        const double e = fmaIn(t, -b, r, 1.0);
        r = fmaIn(t, r, e, r);
    }
    return r;
}

// a·r: within about two units in the last place of the rounded quotient.
inline double newtonDivideIn(DType t, double a, double b) {
    return mulIn(t, a, newtonReciprocalIn(t, b));
}

}  // namespace tessim
