// Package barrier holds the communication barrier of a ladder of
// temperatures, estimated from its pairs' rejection rates, and the schedule
// that splits it equally (exchange.Adapt moves a ladder's levels by it).
package barrier

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/interp"
)

// Barrier is the cumulative communication barrier Λ(τ) of a ladder (Syed,
// Bouchard-Côté, Deligiannidis and Doucet 2022), estimated from the rejection
// rates of its adjacent pairs: Λ(τ_0) = 0 at the coldest level and
// Λ(τ_l) = Σ_{j<l} r_j, where r_j is pair j's rejection rate. Between the
// levels it interpolates monotonically (Fritsch–Butland, gonum/interp) in
// ln τ. The rejection rates are those of the swap rule in use, so with noisy
// energies the barrier includes the noise: the noise penalty τδ²V/2 and the
// scatter τδ√V of a noisy log-ratio both grow with the spacing τδ, so noise
// adds to the local barrier like a rougher energy would, and the schedule
// that equalises rejection spaces the noisy levels more closely.
//
// Why ln τ: a Gaussian's barrier density is c/β in the inverse temperature
// β = 1/τ, so its Λ is linear in ln τ and the interpolation is exact for it;
// targets that are near Gaussian at each temperature stay near linear.
type Barrier struct {
	LogTau []float64 // ln τ_l, cold to hot
	Lambda []float64 // Λ at the levels; Lambda[0] = 0
	lo, hi float64   // the coldest and hottest τ, kept exactly
	fit    interp.FritschButland
}

// New builds Λ from the temperatures (cold to hot, strictly
// increasing) and the rejection rate of each adjacent pair.
func New(taus, rejection []float64) (*Barrier, error) {
	K := len(taus)
	if K < 2 || len(rejection) != K-1 {
		return nil, fmt.Errorf("barrier: %d temperatures and %d rejection rates (need K ≥ 2 and K − 1)", K, len(rejection))
	}
	b := &Barrier{LogTau: make([]float64, K), Lambda: make([]float64, K), lo: taus[0], hi: taus[K-1]}
	for l, tau := range taus {
		if !(tau > 0) || math.IsInf(tau, 0) || (l > 0 && !(tau > taus[l-1])) {
			return nil, fmt.Errorf("barrier: temperature %d is %v: need positive, finite, increasing", l, tau)
		}
		b.LogTau[l] = math.Log(tau)
	}
	for j, r := range rejection {
		if !(r >= 0 && r <= 1) {
			return nil, fmt.Errorf("barrier: pair %d's rejection rate is %v, not in [0, 1]", j, r)
		}
		b.Lambda[j+1] = b.Lambda[j] + r
	}
	b.fit.Fit(b.LogTau, b.Lambda) // cannot fail: knots checked above
	return b, nil
}

// Total is Λ̂, the barrier of the whole ladder.
func (b *Barrier) Total() float64 { return b.Lambda[len(b.Lambda)-1] }

// Recommended is the number of levels Syed et al. advise for this barrier,
// about 2Λ̂ and at least 2. Λ̂ = Σ r is the barrier of the ladder as it
// stands: on a coarse ladder a pair's rejection falls short of its
// interval's share of the continuum barrier (a rejection is at most 1), so
// the advice from a coarse ladder is low (on U = θ²/2 from τ = 1 to 1000,
// Λ = 2.20 but four levels give Σ r = 1.83); exchange.Adapt re-estimates after each
// growth.
func (b *Barrier) Recommended() int { return max(2, int(math.Ceil(2*b.Total()))) }

// Schedule returns K temperatures from the same coldest to the same hottest
// that split Λ into K − 1 equal parts, so that every pair of the new ladder
// is expected to reject equally often, at Λ̂/(K − 1). With Λ̂ = 0 (every swap
// accepted) there is nothing to equalise: it spaces the levels geometrically.
func (b *Barrier) Schedule(K int) []float64 {
	lo, hi := b.LogTau[0], b.LogTau[len(b.LogTau)-1]
	taus := make([]float64, K)
	total := b.Total()
	for i := range taus {
		f := float64(i) / float64(K-1)
		x := lo + f*(hi-lo)
		if total > 0 && i > 0 && i < K-1 {
			x = b.invert(f * total)
		}
		taus[i] = math.Exp(x)
	}
	taus[0], taus[K-1] = b.lo, b.hi
	return taus
}

// invert finds ln τ with Λ = y by bisection: Λ is monotone, and sixty
// halvings of the ladder's width reach the last bit of a float64.
func (b *Barrier) invert(y float64) float64 {
	lo, hi := b.LogTau[0], b.LogTau[len(b.LogTau)-1]
	for range 60 {
		mid := (lo + hi) / 2
		if b.fit.Predict(mid) < y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
