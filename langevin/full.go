package langevin

import "math/rand/v2"

// Step moves theta in place by one Langevin step under CorrectedFull:
// θ ← θ − η·grad + ζ, with ζ drawn as Noise draws it from the per-example
// gradients rows (n×p, row-major) of the minibatch that gave grad, and
// f = N(N − n)/n. It returns the number of eigen-directions of the injected
// covariance 2τη·I − η²Σ̂ clipped to no noise (the gradient noise alone
// exceeded the budget along them) and whether the new state is finite.
func (lr *LowRank) Step(theta, grad, rows []float64, n int, f, eta, tau float64, rng *rand.Rand) (clamped int, finite bool) {
	p := len(grad)
	if len(lr.xi) < p {
		lr.xi = make([]float64, p)
	}
	xi := lr.xi[:p]
	clamped = lr.Noise(xi, rows, n, f, eta, tau, rng)
	finite = true
	for j, g := range grad {
		x := theta[j] - eta*g + xi[j]
		theta[j] = x
		if x-x != 0 { // NaN or ±Inf
			finite = false
		}
	}
	return clamped, finite
}
