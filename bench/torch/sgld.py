"""Plain single-thread PyTorch SGLD on minibatch logistic regression.

The peer of fresgld's single-chain SGLD step (models.BenchmarkSGLDLogistic,
bench/torch/main.go): the same data (written by main.go as raw little-endian
float64: X, N×p row-major, then y), the same minibatch size n, prior
θ ~ N(0, σ₀² I) with σ₀ = 1, temperature 1 and step size η. Each step draws n
indices uniformly (with replacement: cheaper than without), gathers the rows
and computes the gradient by hand (no autograd: cheaper), then takes the
Langevin step. It prints the time per step of the loop alone, after a
warm-up, as JSON: wall time and the CPU time of its thread (which time spent
descheduled on a loaded machine does not inflate).

usage: python3 sgld.py DATA N P n ETA STEPS [float64|float32]
"""
import json
import math
import sys
import time

import numpy as np
import torch


def main():
    path, N, p, n, eta, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    dtype = {"float64": torch.float64, "float32": torch.float32}[sys.argv[7] if len(sys.argv) > 7 else "float64"]
    torch.set_num_threads(1)
    torch.manual_seed(1)
    raw = np.fromfile(path, dtype="<f8")
    if raw.size != N * p + N:
        sys.exit(f"{path}: {raw.size} values, want N·p + N = {N * p + N}")
    X = torch.from_numpy(raw[: N * p].reshape(N, p)).to(dtype)
    y = torch.from_numpy(raw[N * p:]).to(dtype)
    theta = torch.zeros(p, dtype=dtype)
    scale, noise = N / n, math.sqrt(2 * eta)

    def step(theta):
        idx = torch.randint(N, (n,))
        xb = X[idx]
        r = torch.sigmoid(xb @ theta) - y[idx]
        grad = theta + scale * (xb.T @ r)  # σ₀ = 1
        return theta - eta * grad + noise * torch.randn(p, dtype=dtype)

    with torch.no_grad():
        for _ in range(min(steps, 500)):  # warm-up
            theta = step(theta)
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(steps):
            theta = step(theta)
        dt, dc = time.perf_counter() - t0, time.thread_time() - c0
    if not bool(torch.isfinite(theta).all()):
        sys.exit("the chain diverged")
    print(json.dumps({"torch": torch.__version__, "dtype": str(dtype), "threads": torch.get_num_threads(), "steps": steps, "ns_per_step": dt / steps * 1e9, "cpu_ns_per_step": dc / steps * 1e9}))


if __name__ == "__main__":
    main()
