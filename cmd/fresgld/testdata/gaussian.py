#!/usr/bin/env python3
"""Linear regression with known noise and a Gaussian prior, as a fresgld
model process (protocol 1): a model whose posterior is exactly Gaussian,

    U_i(β) = (y_i − x_i·β)²/(2σ²),   U_0(β) = |β|²/(2 s0²),

posterior N(μ, Σ) with Σ = (XᵀX/σ² + I/s0²)⁻¹ and μ = Σ Xᵀy/σ². The CSV
file has a header; its last column is y, the others the features as they
are (no intercept is added, nothing is standardised). Standard library only.
"""
import sys
from itertools import repeat
from operator import add, itemgetter, mul, sub

SIGMA = 1.0  # noise sd σ
S0 = 10.0  # prior sd s0


def moments(v):
    first = v[0]
    d = list(map(sub, v[1:], repeat(first)))
    return [first, sum(d), sum(map(mul, d, d))]


def residuals(cols, y, beta):
    """r_i = y_i − x_i·β."""
    r = list(y)
    for c, b in zip(cols, beta):
        r = list(map(sub, r, map(mul, c, repeat(b))))
    return r


def answer(tok, X, Y, p):
    method, grad = tok[0], tok[1] == "1"
    nums = tok[2:] if method == "prior" else tok[4:]
    beta = [float(v) for v in nums[:p]]
    out = [sum(b * b for b in beta) / (2 * S0**2)]
    if grad:
        out += [b / S0**2 for b in beta]
    if method == "prior":
        return out
    diff, n = tok[2] == "1", tok[3]
    other = [float(v) for v in nums[p:2 * p]] if diff else None
    cols, y = X, Y
    if n != "all":
        idx = [int(v) for v in nums[(2 if diff else 1) * p:]]
        pick = itemgetter(*idx) if len(idx) > 1 else lambda c: (c[idx[0]],)
        cols, y = [pick(c) for c in X], pick(Y)
    r = residuals(cols, y, beta)
    us = [v * v / (2 * SIGMA**2) for v in r]
    slopes = [-v / SIGMA**2 for v in r]  # ∇U_i = slope_i x_i
    if diff:
        r2 = residuals(cols, y, other)
        us = list(map(sub, us, [v * v / (2 * SIGMA**2) for v in r2]))
        slopes = list(map(add, slopes, [v / SIGMA**2 for v in r2]))
    out += moments(us)
    if grad:
        g = [moments(list(map(mul, slopes, c))) for c in cols]
        out += [m[0] for m in g] + [m[1] for m in g] + [m[2] for m in g]
    return out


def main():
    with open(sys.argv[1]) as f:
        names = f.readline().strip().split(",")[:-1]
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    p = len(names)
    X = [[r[j] for r in rows] for j in range(p)]
    Y = [r[-1] for r in rows]
    print("fresgld-model 1 text", p, len(Y), " ".join(names), flush=True)
    sys.stdin.readline()
    for line in sys.stdin:
        try:
            out = answer(line.split(), X, Y, p)
            sys.stdout.write("ok " + " ".join(map(repr, out)) + "\n")
        except Exception as e:
            sys.stdout.write("error " + str(e).replace("\n", " ") + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
