package diag

import (
	"math"
)

// W2 is the Wasserstein-2 distance between the empirical distribution of
// samples and the density, computed exactly from quantile functions:
// W2² = ∫_0^1 (F_n⁻¹(q) − F⁻¹(q))² dq. F_n⁻¹ is constant between the
// levels i/n and F⁻¹ is linear between the cumulative masses of the cells,
// so each piece between merged breakpoints integrates in closed form.
func (g Grid1D) W2(samples []float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	xs, n, h, cum := g.empirical(samples)
	total := cum[len(cum)-1]
	var w2 float64
	c := 0   // current cell
	q := 0.0 // current level
	i := 0   // current sample (covers levels [i/n, (i+1)/n))
	for c < len(g.Dens) && i < len(xs) {
		cellEnd := cum[c+1] / total
		sampEnd := float64(i+1) / n
		next := math.Min(cellEnd, sampEnd)
		if next > q {
			y0 := g.quantileIn(cum, total, c, h, q)
			y1 := g.quantileIn(cum, total, c, h, next)
			d0, d1 := y0-xs[i], y1-xs[i]
			w2 += (next - q) * (d0*d0 + d0*d1 + d1*d1) / 3
			q = next
		}
		if cellEnd <= next {
			c++
		}
		if sampEnd <= next {
			i++
		}
	}
	return math.Sqrt(w2)
}

// quantileIn is F⁻¹(q) for a level q inside cell c (clamped to it).
func (g Grid1D) quantileIn(cum []float64, total float64, c int, h, q float64) float64 {
	m := g.Dens[c] * h / total
	if m <= 0 {
		return g.Lo + float64(c)*h
	}
	t := (q - cum[c]/total) / m
	t = math.Max(0, math.Min(1, t))
	return g.Lo + (float64(c)+t)*h
}

// GaussianW2 is the Wasserstein-2 distance between N(m1, v1) and N(m2, v2)
// (variances): √((m1 − m2)² + (√v1 − √v2)²).
func GaussianW2(m1, v1, m2, v2 float64) float64 {
	d := math.Sqrt(v1) - math.Sqrt(v2)
	return math.Hypot(m1-m2, d)
}
