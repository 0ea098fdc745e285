#!/usr/bin/env python3
"""Fits the rational tanh approximation the vector layers run (workloads/conv/RvvVectorLayers.cpp).

tanh(x) ≈ x·p(y)/q(y), y = x², q(0) = 1, on 0 ≤ x ≤ clamp (the input clamped first, so that
tanh(clamp) rounds to 1 in the type). Linearised least squares over Chebyshev nodes, reweighted by
1/q (Loeb's iteration), so that the fit approaches the quotient's error rather than p − f·q. Then
evaluates the loop's own sequence — Horner in y, a multiply and an add per coefficient, one divide,
every op rounded in the type — over |x| ≤ 12 and prints the largest error against tanh.

  /usr/bin/python3 analysis/fits/tanh_rational.py

Needs numpy (python3-numpy, which .ci/setup installs).
"""
import numpy as np
import numpy.polynomial.polynomial as poly

# (type, numerator degree in y, denominator degree in y, clamp)
FITS = [("f32", 5, 3, 8.5), ("f16", 2, 2, 6.0)]


def fit(dp, dq, clamp, nodes=4000, rounds=30):
    k = np.arange(nodes)
    x = clamp * (0.5 - 0.5 * np.cos(np.pi * (k + 0.5) / nodes))
    y, f = x * x, np.tanh(x) / x
    w = np.ones_like(x)
    for _ in range(rounds):
        a = np.hstack([y[:, None] ** np.arange(dp + 1), -(f * y)[:, None] * y[:, None] ** np.arange(dq)])
        sol, *_ = np.linalg.lstsq(a * (x * w)[:, None], f * x * w, rcond=None)
        p, q = sol[:dp + 1], np.concatenate([[1.0], sol[dp + 1:]])
        w = 1.0 / np.abs(poly.polyval(y, q))
    return p, q


def loop(a, t, p, q, clamp):
    """The emitted sequence: vfmin/vfmax, vfmul, Horner (vfmul.vf/vv, vfadd.vf), vfmul, vfdiv."""
    c = t(clamp)
    x = np.maximum(np.minimum(t(a), c), t(-c))
    y = t(x * x)
    pc, qc = [t(v) for v in p], [t(v) for v in q]
    num = t(y * pc[-1])
    for k in range(len(p) - 2, 0, -1):
        num = t(t(num + pc[k]) * y)
    num = t(num + pc[0])
    den = t(y * qc[-1])
    for k in range(len(q) - 2, 0, -1):
        den = t(t(den + qc[k]) * y)
    den = t(den + t(1.0))
    return t(t(num * x) / den)


def main():
    xs = np.linspace(-12.0, 12.0, 240001)
    for name, dp, dq, clamp in FITS:
        p, q = fit(dp, dq, clamp)
        t = np.float16 if name == "f16" else np.float32
        a = xs.astype(t)
        err = np.max(np.abs(loop(a, t, p, q, clamp).astype(np.float64) - np.tanh(a.astype(np.float64))))
        assert np.min(poly.polyval(np.linspace(0, clamp * clamp, 10001), q)) > 0, "q has a root"
        print(f"{name}: clamp {clamp}, p {dp + 1} and q {dq + 1} coefficients, largest |error| {err:.2e}")
        print("  p = {" + ", ".join(repr(float(v)) for v in p) + "}")
        print("  q = {" + ", ".join(repr(float(v)) for v in q) + "}")


if __name__ == "__main__":
    main()
