#!/usr/bin/env python3
"""Bayesian logistic regression as a fresgld model process (protocol 1).

    fresgld sample --model-cmd 'python3 logistic.py data.csv' ...

data.csv has a header line; its last column is the 0/1 label, the others
the features (add a column of ones for an intercept). The model:

    U_i(θ) = log(1 + e^{z_i}) − y_i z_i,  z_i = x_i·θ,   U_0(θ) = |θ|²/(2σ₀²).

The protocol is in docs/model-protocol.md. Standard library only.
"""
import math
import sys

SIGMA0 = 1.0  # prior standard deviation σ₀


def read(path):
    with open(path) as f:
        names = f.readline().strip().split(",")[:-1]
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    return names, [r[:-1] for r in rows], [r[-1] for r in rows]


def term(x, y, theta, grad):
    """U_i(θ) for features x and label y; ∇U_i(θ) too when grad."""
    z = sum(a * b for a, b in zip(x, theta))
    e = math.exp(-abs(z))
    r = math.log1p(e)  # log(1 + e^{−|z|})
    u = max(z, 0.0) - y * z + r
    if not grad:
        return u, None
    sig = 1 / (1 + e) if z >= 0 else e / (1 + e)
    return u, [(sig - y) * v for v in x]


def moments(values):
    """U, USum, USq of scalars, or G, GSum, GSq of lists: about the first."""
    first = values[0]
    if isinstance(first, list):
        d = [[v - f for v, f in zip(row, first)] for row in values[1:]]
        return first, [sum(c) for c in zip(*d)] or [0.0] * len(first), \
            [sum(v * v for v in c) for c in zip(*d)] or [0.0] * len(first)
    d = [v - first for v in values[1:]]
    return first, sum(d), sum(v * v for v in d)


def answer(tok, X, Y, p):
    if len(tok) < 2:
        raise ValueError("malformed request " + " ".join(tok))
    method, grad = tok[0], tok[1] == "1"
    if method == "prior":
        theta = [float(v) for v in tok[2:]]
        diff, idx = False, []
    elif method == "terms":
        diff, n = tok[2] == "1", tok[3]
        nums = tok[4:]
        theta = [float(v) for v in nums[:p]]
        other = [float(v) for v in nums[p:2 * p]] if diff else None
        idx = range(len(Y)) if n == "all" else [int(v) for v in nums[(2 if diff else 1) * p:]]
    else:
        raise ValueError("unknown request " + method)
    if len(theta) != p:
        raise ValueError("θ has %d coordinates, want %d" % (len(theta), p))
    # The prior at θ opens every reply.
    out = [sum(t * t for t in theta) / (2 * SIGMA0**2)]
    if grad:
        out += [t / SIGMA0**2 for t in theta]
    if method == "prior":
        return out
    us, gs = [], []
    for i in idx:
        u, g = term(X[i], Y[i], theta, grad)
        if diff:  # differences between the two states
            u2, g2 = term(X[i], Y[i], other, grad)
            u -= u2
            if grad:
                g = [a - b for a, b in zip(g, g2)]
        us.append(u)
        gs.append(g)
    out += moments(us)
    if grad:
        for part in moments(gs):
            out += part
    return out


def main():
    names, X, Y = read(sys.argv[1])
    p = len(names)
    print("fresgld-model 1 text", p, len(Y), " ".join(names), flush=True)
    sys.stdin.readline()  # "fresgld 1 text"
    for line in sys.stdin:
        try:
            out = answer(line.split(), X, Y, p)
            # repr gives the shortest decimal that reads back exactly.
            print("ok", " ".join(map(repr, out)), flush=True)
        except Exception as e:  # the request is named in fresgld's error
            print("error", str(e).replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
