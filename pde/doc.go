// Package pde solves the heat equation of the paper's inverse problem and
// differentiates its sensor reading with respect to the unknown source
// centre.
//
// The problem is u_t = Δu + f on the unit square for t ∈ [0, T], with the
// manufactured solution of the paper, a Gaussian bump centred at x0:
//
//	u(x, t) = β exp(−|x − x0|²/α) e^{−t},   β = 1/(2πh²), α = 2h².
//
// The source is f = u_t − Δu and the exact solution also gives the initial
// state and the Dirichlet boundary data (the bump is not zero on the
// boundary). The solver knows nothing of the closed form beyond these data:
// it steps the equation by Crank–Nicolson on a uniform finite-difference
// grid, and its sensor reading converges to the exact u(x_s, T; x0) at
// second order, which the tests measure.
//
// Each Crank–Nicolson step solves (I − Δt/2·L)u^{m+1} = (I + Δt/2·L)u^m +
// Δt/2·(c^m + c^{m+1}), where L is the five-point Laplacian on the interior
// nodes and c is the source plus the boundary data moved to the right-hand
// side. The two-dimensional discrete sine transform diagonalises L, so the
// solver keeps the state in sine coefficients, where the implicit solve is a
// division per mode, and each step costs one transform of the new
// right-hand side. The transform is applied as two dense products with the
// sine matrix, O(n³) for n² interior nodes but faster than FFT-based
// transforms at the grids a sampler can afford per step (n ≲ 64).
//
// The gradient of the reading with respect to x0 comes from the discrete
// adjoint: one backward sweep of the same scheme, driven by the sensor's
// interpolation weights, gives both the reading and its gradient for the
// cost of one forward solve.
package pde
