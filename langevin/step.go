package langevin

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Policy decides the injected noise of a Langevin step.
type Policy int

const (
	// SGLD injects √(2ητ)ξ whatever the gradient noise: the chain runs
	// hotter than τ by the gradient noise.
	SGLD Policy = iota
	// Corrected injects √2·ĉ_j ξ_j with η²ŝ_j² + 2ĉ_j² = 2τη per coordinate,
	// counting the gradient noise as part of the temperature (f-reSGLD).
	// Where the gradient noise alone exceeds the budget, ĉ_j = 0 and the
	// coordinate is counted as clamped.
	Corrected
	// CorrectedFull injects noise of covariance (2τη·I − η²Σ̂)⁺, Σ̂ the full
	// covariance of a minibatch gradient estimated from its per-example
	// gradients, so that the total noise is 2τη·I in every direction, not
	// only on the diagonal (see LowRank). Where the gradient noise alone
	// exceeds the budget along an eigen-direction of Σ̂, that direction gets
	// no noise and is counted as clamped. Its steps are taken by
	// (*LowRank).Step, not by Step, which needs only per-coordinate
	// variances.
	CorrectedFull
)

func (p Policy) String() string {
	switch p {
	case SGLD:
		return "sgld"
	case Corrected:
		return "corrected"
	case CorrectedFull:
		return "corrected-full"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// Step moves theta in place by one Langevin step at temperature tau with step
// size eta: θ_j ← θ_j − η g_j + √(v_j) ξ_j, where v_j = 2τη under SGLD and
// v_j = max(0, 2τη − η²ŝ_j²) under Corrected. grad holds the gradient draw
// and gradVar its per-coordinate variance ŝ² (ignored under SGLD). scratch
// is work space of len(theta); its contents are overwritten.
//
// It returns the number of clamped coordinates (where η²ŝ_j² > 2τη) and
// whether the new state is finite. A NaN, infinite or negative ŝ_j² is not
// a clamp but a broken report: it makes θ_j NaN, so the step is not finite
// (see BadVariance for naming the culprit).
func Step(theta, grad, gradVar, scratch []float64, eta, tau float64, pol Policy, rng *rand.Rand) (clamped int, finite bool) {
	if pol == CorrectedFull {
		panic("langevin: Step cannot take a CorrectedFull step: use (*LowRank).Step with the minibatch's rows")
	}
	theta, xi := theta[:len(grad)], scratch[:len(grad)]
	clamped = inject(xi, gradVar, eta, tau, pol, rng)
	// x − x is NaN exactly when x is NaN or ±Inf; unlike a running sum,
	// the test carries no dependency from one coordinate to the next.
	finite = true
	for j, g := range grad {
		x := theta[j] - eta*g + xi[j]
		theta[j] = x
		if x-x != 0 {
			finite = false
		}
	}
	return clamped, finite
}

// inject fills xi with the step's injected noise and returns the number of
// clamped coordinates. Each normal is drawn in a loop with few live values:
// a call inside the update loop would spill its many live values around
// every call, which costs about half as much again as the draws themselves.
func inject(xi, gradVar []float64, eta, tau float64, pol Policy, rng *rand.Rand) (clamped int) {
	budget := 2 * tau * eta
	if pol == SGLD {
		sd := math.Sqrt(budget)
		for j := range xi {
			xi[j] = sd * rng.NormFloat64()
		}
		return 0
	}
	// Variances often repeat across coordinates: take each run of equal
	// ones at a time, with one root and a loop that does nothing but draw.
	// Clamped coordinates draw nothing.
	gradVar = gradVar[:len(xi)]
	eta2 := eta * eta
	for j := 0; j < len(xi); {
		s2 := gradVar[j]
		k := j + 1
		for k < len(xi) && gradVar[k] == s2 {
			k++
		}
		v := budget - eta2*s2
		sd := 0.0
		switch {
		case !(s2 >= 0 && s2 <= math.MaxFloat64):
			// A NaN, infinite or negative variance is a broken report,
			// not a clamp: poison the coordinate so that the step is not
			// finite and the caller stops.
			sd = math.NaN()
		case v > 0:
			sd = math.Sqrt(v)
		case v < 0:
			clamped += k - j // over budget: inject nothing
		}
		run := xi[j:k]
		if sd > 0 {
			for i := range run {
				run[i] = sd * rng.NormFloat64()
			}
		} else {
			for i := range run {
				run[i] = sd // 0, or a NaN that makes its coordinate NaN
			}
		}
		j = k
	}
	return clamped
}

// StepMove is Step that also measures the move d = θ' − θ, in the same
// pass over θ, for a watch on divergence (a pass of its own would read θ
// and the last move once more at every step). last holds the chain's previous move on entry
// and d on return; dot is d·last and n2 is |d|², the sums taken in an
// order of their own (two partial sums each).
func StepMove(theta, grad, gradVar, scratch, last []float64, eta, tau float64, pol Policy, rng *rand.Rand) (clamped int, finite bool, dot, n2 float64) {
	if pol == CorrectedFull {
		panic("langevin: StepMove cannot take a CorrectedFull step: use (*LowRank).Step with the minibatch's rows")
	}
	p := len(grad)
	theta, xi, last := theta[:p], scratch[:p], last[:p]
	clamped = inject(xi, gradVar, eta, tau, pol, rng)
	// Two independent partial sums each, so that the loop is not bound by
	// the latency of one chain of additions.
	var dot0, dot1, n20, n21 float64
	j := 0
	for ; j+1 < p; j += 2 {
		t0, t1 := theta[j], theta[j+1]
		x0 := t0 - eta*grad[j] + xi[j]
		x1 := t1 - eta*grad[j+1] + xi[j+1]
		d0, d1 := x0-t0, x1-t1
		dot0 += d0 * last[j]
		dot1 += d1 * last[j+1]
		n20 += d0 * d0
		n21 += d1 * d1
		theta[j], theta[j+1] = x0, x1
		last[j], last[j+1] = d0, d1
	}
	if j < p {
		t0 := theta[j]
		x0 := t0 - eta*grad[j] + xi[j]
		d0 := x0 - t0
		dot0 += d0 * last[j]
		n20 += d0 * d0
		theta[j], last[j] = x0, d0
	}
	dot, n2 = dot0+dot1, n20+n21
	// |d|² is finite only if every x and every θ before the step were: a
	// non-finite x makes its d ±Inf or NaN. Only a non-finite |d|² (or an
	// overflowing one) needs the state itself checked.
	finite = true
	if n2-n2 != 0 {
		for _, x := range theta {
			if x-x != 0 {
				finite = false
			}
		}
	}
	return clamped, finite, dot, n2
}

// BadVariance returns the first coordinate j whose gradient variance ŝ_j²
// is NaN, infinite or negative, the reports Step refuses, or −1 if there is
// none. A sampler calls it after a step that was not finite, to say whether
// the variance or the state is to blame.
func BadVariance(gradVar []float64) int {
	for j, v := range gradVar {
		if !(v >= 0 && v <= math.MaxFloat64) {
			return j
		}
	}
	return -1
}
