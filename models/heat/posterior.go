package heat

import (
	"math"

	"github.com/fresgld/fresgld/diag"
)

// Posterior tabulates the exact tempered posterior π_τ(x0) ∝ exp(−U(x0)/τ)
// on the unit square (the support of the uniform prior) as the masses of
// n×n equal cells, with the closed-form forward map: the ground truth the
// samplers are measured against. The ring is σ√τ/|G'(r*)| wide (about
// 0.002 at τ = 0.08 for Paper()), so n must make cells several times
// narrower than that for the midpoint rule to hold; 2400 does.
func (p Problem) Posterior(tau float64, n int) diag.Grid2D {
	s2 := 2 * p.Sigma * p.Sigma * tau
	return diag.Tabulate2D(func(x, y float64) float64 {
		r := p.Y - p.Exact(nil, [2]float64{x, y})
		return -r * r / s2
	}, 0, 1, 0, 1, n, n)
}

// RadialNormaliser is ∫ exp(−U(x0)/τ) dx0 over the plane by quadrature in
// the distance r from the sensor (U depends on x0 only through r):
// 2π ∫_0^R exp(−(y − G(r))²/(2σ²τ)) r dr, by the midpoint rule on m
// intervals of [0, R]. When the tempered posterior's circle lies well
// inside the square this is also its integral over the square, an
// independent check of the two-dimensional grid.
func (p Problem) RadialNormaliser(tau, R float64, m int) float64 {
	s2 := 2 * p.Sigma * p.Sigma * tau
	dr := R / float64(m)
	var z float64
	for k := 0; k < m; k++ {
		r := (float64(k) + 0.5) * dr
		d := p.Y - p.Peak()*math.Exp(-r*r/p.Bump.Alpha())
		z += math.Exp(-d*d/s2) * r
	}
	return 2 * math.Pi * z * dr
}

// Normaliser is the same integral over the unit square by the midpoint rule
// on n×n cells.
func (p Problem) Normaliser(tau float64, n int) float64 {
	s2 := 2 * p.Sigma * p.Sigma * tau
	h := 1 / float64(n)
	var z float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d := p.Y - p.Exact(nil, [2]float64{(float64(i) + 0.5) * h, (float64(j) + 0.5) * h})
			z += math.Exp(-d * d / s2)
		}
	}
	return z * h * h
}
