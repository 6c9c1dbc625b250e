"""Fits the polynomial behind the flash kernel's 2^x (Spans::exp2_nonpositive, simd_spans.hpp).

p(r) = 1 + r·q(r) on r in [-1/2, 1/2], with q of degree DEGREE - 1, so that p(0) is exactly 1 (a
row's max keeps a weight of exactly 1). The fit minimises the largest relative error |p/2^r - 1|:
least squares weighted by Lawson's rule, which moves the weights toward where the error peaks
until the error equioscillates (a minimax fit). Prints the coefficients as the kernel's float32
literals, highest degree first, and the relative errors in float64 and in float32 Horner steps
with fused multiply-adds (the kernel's arithmetic; simd_test.cpp holds the bound).

  python3 scripts/fit-exp2.py [DEGREE]     (NumPy; 5 is the kernel's)
"""

import sys

import numpy as np

DEGREE = int(sys.argv[1]) if len(sys.argv) > 1 else 5
LAWSON_STEPS = 400


def fit(degree):
    # Chebyshev points crowd the ends, where the error of a polynomial fit peaks.
    r = 0.5 * np.cos(np.linspace(0.0, np.pi, 4001))
    # Relative error of 1 + r·q(r): (1 + r·q(r)) / 2^r - 1 = A·c - b, linear in q's coefficients c.
    a = np.vander(r, degree) * (r / 2.0**r)[:, None]
    b = 1.0 - 1.0 / 2.0**r
    weights = np.ones_like(r)
    for _ in range(LAWSON_STEPS):
        c = np.linalg.lstsq(a * weights[:, None], b * weights, rcond=None)[0]
        weights *= np.sqrt(np.abs(a @ c - b))
        weights /= weights.max()
    return [*c, 1.0]


def horner_float32(coefficients, r):
    # Each step a fused multiply-add: exact in float64 for float32 operands, then rounded once.
    p = np.full_like(r, coefficients[0])
    for c in coefficients[1:]:
        p = (p.astype(np.float64) * r.astype(np.float64) + np.float64(c)).astype(np.float32)
    return p


coefficients = fit(DEGREE)
as_float32 = [np.float32(c) for c in coefficients]
r = np.linspace(-0.5, 0.5, 400001)
print("coefficients (float32):", ", ".join(f"{float(c):.8e}" for c in as_float32))
print(f"relative error, float64: {np.abs(np.polyval(coefficients, r) / 2.0**r - 1).max():.3g}")
r32 = r.astype(np.float32)
error32 = np.abs(horner_float32(as_float32, r32).astype(np.float64) / 2.0 ** r32.astype(np.float64) - 1)
print(f"relative error, float32 fused Horner: {error32.max():.3g}")
