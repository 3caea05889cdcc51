package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/energy"
)

// thinnedSwapStates returns two states on either side of e's point, along
// fixed directions, at the distance where the thinning's Φ = Σ_i max(0,
// −c·ρ_i) is ln 2, so that it passes with probability 1/2 (Φ grows as the
// cube of the distance: a bisection on it).
func thinnedSwapStates(l *Logistic, e *energy.Expansion, c float64) (x, y []float64) {
	m := e.Point()
	x, y = make([]float64, len(m)), make([]float64, len(m))
	at := func(r float64) float64 {
		for j := range m {
			x[j] = m[j] + r*float64(j+1)/2
			y[j] = m[j] - r*float64(len(m)-j)/2
		}
		var phi float64
		for i := range l.Len() {
			phi += max(0, -c*e.Remainder(i, x, y))
		}
		return phi
	}
	lo, hi := 0.0, 0.01
	for at(hi) < math.Ln2 {
		lo, hi = hi, 2*hi
	}
	for range 50 {
		if r := (lo + hi) / 2; at(r) < math.Ln2 {
			lo = r
		} else {
			hi = r
		}
	}
	at(hi)
	return x, y
}

// The thinned swap between power-ladder levels λ > λ_hot, at λ < 1 as well
// as at 1, draws its factors at c = λ − λ_hot, each checked against its
// definition here without the sampler's arithmetic:
//
//   - a passed test returns c·Q, Q = Σ_i [U_i(x) − U_i(y) − ρ_i] read from
//     every example, to 10⁻⁹ (deterministic);
//   - it passes with probability exp(−Φ), Φ = Σ_i max(0, −c·ρ_i), set to
//     ln 2 by the states' distance; over 20,000 draws the pass rate's
//     binomial se is √(P(1 − P)/n) = 0.0035, and it must lie within 4;
//   - it reads, on average, Λ·(1 − e^{−Φ})/Φ examples (events come at
//     rate Λ = c·(M/6)·(‖Δ_x‖³_A + ‖Δ_y‖³_A)·Σ_i w_i until the first kept one,
//     at rate Φ: the mean number up to that stopping time is Λ times its
//     mean, E[min(1, T)], T ~ Exp(Φ)); the draws are independent, so the
//     mean's se is the counts' sd/√n, and it must lie within 4 of them.
//
// A normal error beyond 4 happens once in 16,000; two seeds each. What it
// catches: the quadratic's factor at a wrong power (λ, λ_hot or 1 in
// place of c: a wrong lr on every pass), the remainders' φ at a wrong
// power (the pass rate: at c = 0.25 read as λ = 0.3, Φ = 0.83, P = 0.44,
// 18 se off), and the thinning's intensity at a wrong power (the events'
// mean: λ in place of c makes it 1.2 to 1.4 times too large, λ_hot or c²
// too small, both tens of se off), in SwapLogRatio or in the expansion's
// Intensity and ThinAt. An intensity too large keeps the law (events are
// thinned more), so only the count sees it; one too small can let a φ_i
// pass its bound, which ThinAt refuses.
func TestThinnedSlabSwapFactorsAtPowers(t *testing.T) {
	l := slabRows(t, 200, 5, SlabPrior{W: 0.3, Spike: 0.02, Slab: 1}, false)
	e := slabExpansion(t, l, false)
	const draws, z = 20_000, 4
	p := float64(l.P)
	for _, pair := range [][2]float64{{1, 0.3}, {0.5, 0.1}, {0.3, 0.05}} {
		lam, hot := pair[0], pair[1]
		c := lam - hot
		x, y := thinnedSwapStates(l, e, c)
		var d, rho, phi float64
		for i := range l.Len() {
			d += l.Term(nil, x, i) - l.Term(nil, y, i)
			r := e.Remainder(i, x, y)
			rho += r
			phi += max(0, -c*r)
		}
		rx, ry := e.Radius(x), e.Radius(y)
		rate := c * l.ThirdBound() / 6 * (rx*rx*rx + ry*ry*ry) * e.Weight()
		if !(3*rate < 2*float64(l.Len())) {
			t.Fatalf("λ %g, λ_hot %g: Λ = %.3g takes the full pass", lam, hot, rate)
		}
		wantLR, wantPass := c*(d-rho), math.Exp(-phi)
		wantEvents := rate * (1 - wantPass) / phi
		k := l.NewThinnedSlabMove(e, lam)
		for _, seed := range []uint64{1, 2} {
			rng := rand.New(rand.NewPCG(seed, 9))
			passed, events := 0, make([]float64, draws)
			for q := range draws {
				lr, cost, err := k.SwapLogRatio(rng, hot, x, y)
				if err != nil {
					t.Fatal(err)
				}
				events[q] = (cost - 3*p) / 3
				if math.IsInf(lr, -1) {
					continue
				}
				passed++
				if !(math.Abs(lr-wantLR) <= 1e-9*(1+math.Abs(wantLR))) {
					t.Fatalf("λ %g, λ_hot %g: a passed test returns %v, want c·Q = %v", lam, hot, lr, wantLR)
				}
			}
			got := float64(passed) / draws
			se := math.Sqrt(wantPass * (1 - wantPass) / draws)
			mean, sd := stat.MeanStdDev(events, nil)
			seN := sd / math.Sqrt(draws)
			t.Logf("λ %g, λ_hot %g, seed %d: pass rate %.4f against %.4f (%.1f se); %.3f examples read against %.3f (%.1f se), Λ = %.3g",
				lam, hot, seed, got, wantPass, (got-wantPass)/se, mean, wantEvents, (mean-wantEvents)/seN, rate)
			if !(math.Abs(got-wantPass) <= z*se) {
				t.Errorf("λ %g, λ_hot %g, seed %d: pass rate %.4f, want exp(−Φ) = %.4f ± %.4f", lam, hot, seed, got, wantPass, z*se)
			}
			if !(math.Abs(mean-wantEvents) <= z*seN) {
				t.Errorf("λ %g, λ_hot %g, seed %d: %.3f examples read a test, want Λ(1 − e^{−Φ})/Φ = %.3f ± %.3f", lam, hot, seed, mean, wantEvents, z*seN)
			}
		}
	}
}
