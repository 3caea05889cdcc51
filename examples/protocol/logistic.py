#!/usr/bin/env python3
"""Bayesian logistic regression as a fresgld model process (protocol 1).

    fresgld sample --model-cmd 'python3 examples/protocol/logistic.py data/wdbc.csv mean_radius,mean_texture,mean_smoothness,mean_concave_points' --out out/protocol

(from the repository's top directory). The CSV file has a header line and
its last column is the 0/1 label. The features are the columns named in the
optional second argument, comma-separated (all but the label when it is
left out), each standardised (centred and divided by its population sd) as
fresgld logistic standardises them, after an intercept, a column of ones.
The model is fresgld's models.Logistic:

    U_i(θ) = log(1 + e^{z_i}) − y_i z_i,  z_i = x_i·θ,   U_0(θ) = |θ|²/(2σ₀²).

The protocol is in docs/model-protocol.md. Standard library only: the
features are kept column by column, and every loop over examples is map or
sum, which run in C.
"""
import math
import sys
from itertools import repeat
from math import exp, log1p, tanh
from operator import add, itemgetter, mul, neg, sub

SIGMA0 = 1.0  # prior standard deviation σ₀


def read(path, wanted):
    """The names, the columns (intercept first, standardised) and labels."""
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    features = header[:-1]
    names = features if wanted is None else wanted.split(",")
    cols = [[1.0] * len(rows)]
    for name in names:
        if name not in features:
            sys.exit("logistic.py: %s has no feature column %r (it has %s)" % (path, name, ", ".join(features)))
        k = header.index(name)
        col = [float(r[k]) for r in rows]
        m = sum(col) / len(col)
        sd = math.sqrt(sum((v - m) ** 2 for v in col) / len(col))
        if not sd > 0:
            sys.exit("logistic.py: feature %r is constant; it cannot be standardised" % name)
        cols.append([(v - m) / sd for v in col])
    labels = [float(r[-1]) for r in rows]
    if any(y not in (0.0, 1.0) for y in labels):
        sys.exit("logistic.py: the last column of %s must be a 0/1 label" % path)
    return ["intercept"] + names, cols, labels


def logistic(z, y, grad):
    """U_i = log(1 + e^{z_i}) − y_i z_i for each example, and, when grad,
    the slopes σ(z_i) − y_i: log(1 + e^z) = max(z, 0) + log1p(e^{−|z|}),
    without overflow, and σ(z) = (1 + tanh(z/2))/2, without 0/0."""
    a = list(map(abs, z))
    r = map(log1p, map(exp, map(neg, a)))
    relu = map(mul, map(add, z, a), repeat(0.5))  # max(z, 0)
    us = list(map(sub, map(add, relu, r), map(mul, y, z)))
    if not grad:
        return us, None
    half = map(mul, map(tanh, map(mul, z, repeat(0.5))), repeat(0.5))
    return us, list(map(sub, map(add, half, repeat(0.5)), y))


def linear(cols, theta):
    """z = X θ, column by column."""
    z = list(map(mul, cols[0], repeat(theta[0])))
    for c, t in zip(cols[1:], theta[1:]):
        z = list(map(add, z, map(mul, c, repeat(t))))
    return z


def moments(v):
    """First value, sum and sum of squares of the others about it."""
    first = v[0]
    d = list(map(sub, v[1:], repeat(first)))
    return [first, sum(d), sum(map(mul, d, d))]


def answer(tok, X, Y, p):
    if len(tok) < 2:
        raise ValueError("malformed request " + " ".join(tok))
    method, grad = tok[0], tok[1] == "1"
    if method == "prior":
        theta = [float(v) for v in tok[2:]]
    elif method == "terms":
        diff, n = tok[2] == "1", tok[3]
        nums = tok[4:]
        theta = [float(v) for v in nums[:p]]
        other = [float(v) for v in nums[p:2 * p]] if diff else None
        idx = None if n == "all" else [int(v) for v in nums[(2 if diff else 1) * p:]]
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
    cols, y = X, Y
    if idx is not None:  # the listed examples' columns
        pick = itemgetter(*idx) if len(idx) > 1 else lambda c: (c[idx[0]],)
        cols, y = [pick(c) for c in X], pick(Y)
    us, slopes = logistic(linear(cols, theta), y, grad)
    if diff:  # differences between the two states
        us2, slopes2 = logistic(linear(cols, other), y, grad)
        us = list(map(sub, us, us2))
        if grad:
            slopes = list(map(sub, slopes, slopes2))
    out += moments(us)
    if grad:  # ∇U_i = slope_i x_i: G, then GSum, then GSq, each over j
        g = [moments(list(map(mul, slopes, c))) for c in cols]
        out += [m[0] for m in g] + [m[1] for m in g] + [m[2] for m in g]
    return out


def main():
    names, X, Y = read(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    p = len(names)
    print("fresgld-model 1 text", p, len(Y), " ".join(names), flush=True)
    sys.stdin.readline()  # "fresgld 1 text"
    for line in sys.stdin:
        try:
            out = answer(line.split(), X, Y, p)
            # repr gives the shortest decimal that reads back exactly.
            sys.stdout.write("ok " + " ".join(map(repr, out)) + "\n")
        except Exception as e:  # the request is named in fresgld's error
            sys.stdout.write("error " + str(e).replace("\n", " ") + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
