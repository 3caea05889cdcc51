// Package diag holds distances between samples and exact answers, the
// summaries the studies report, and the convergence diagnostics of several
// chains as R's posterior package computes them (R̂, bulk and tail ESS,
// MCSE).
package diag

import (
	"math"
	"sort"
)

// Grid1D is a density tabulated at the centres of len(Dens) equal cells on
// [Lo, Hi], normalised so that Σ Dens·h = 1 with h the cell width. Within a
// cell the density is taken constant (midpoint rule), so the CDF is
// piecewise linear.
type Grid1D struct {
	Lo, Hi float64
	Dens   []float64
}

// Tempered1D tabulates π_τ(x) ∝ exp(−U(x)/τ) on cells equal cells over
// [lo, hi]. Choose the range so that the mass outside is negligible: it is
// lost from the normalisation.
func Tempered1D(u func(float64) float64, tau, lo, hi float64, cells int) Grid1D {
	g := Grid1D{Lo: lo, Hi: hi, Dens: make([]float64, cells)}
	h := g.H()
	logs := make([]float64, cells)
	mx := math.Inf(-1)
	for i := range logs {
		logs[i] = -u(lo+(float64(i)+0.5)*h) / tau
		mx = math.Max(mx, logs[i])
	}
	var z float64
	for i, l := range logs {
		g.Dens[i] = math.Exp(l - mx) // shift by the maximum: no overflow at small τ
		z += g.Dens[i] * h
	}
	for i := range g.Dens {
		g.Dens[i] /= z
	}
	return g
}

// H is the cell width.
func (g Grid1D) H() float64 { return (g.Hi - g.Lo) / float64(len(g.Dens)) }

// At is the density at x (0 outside [Lo, Hi]).
func (g Grid1D) At(x float64) float64 {
	i := int(math.Floor((x - g.Lo) / g.H()))
	if i < 0 || i >= len(g.Dens) || x > g.Hi {
		return 0
	}
	return g.Dens[i]
}

// CDF is the exact distribution function.
func (g Grid1D) CDF(x float64) float64 { return g.cdf(g.cumulative(), x) }

// cumulative returns c with c[i] the mass of cells 0..i−1.
func (g Grid1D) cumulative() []float64 {
	c := make([]float64, len(g.Dens)+1)
	h := g.H()
	for i, d := range g.Dens {
		c[i+1] = c[i] + d*h
	}
	return c
}

// empirical is what W1 and W2 compare: the samples sorted (a copy), their
// number, g's cell width and its cells' cumulative masses.
func (g Grid1D) empirical(samples []float64) (xs []float64, n, h float64, cum []float64) {
	xs = append([]float64(nil), samples...)
	sort.Float64s(xs)
	return xs, float64(len(xs)), g.H(), g.cumulative()
}

func (g Grid1D) cdf(cum []float64, x float64) float64 {
	if x <= g.Lo {
		return 0
	}
	if x >= g.Hi {
		return 1
	}
	h := g.H()
	t := (x - g.Lo) / h
	i := min(int(t), len(g.Dens)-1)
	return math.Min(cum[i]+g.Dens[i]*(t-float64(i))*h, 1)
}

// Quantile is the inverse of CDF for q in [0, 1].
func (g Grid1D) Quantile(q float64) float64 {
	h := g.H()
	var c float64
	for i, d := range g.Dens {
		m := d * h
		if c+m >= q && m > 0 {
			return g.Lo + (float64(i)+(q-c)/m)*h
		}
		c += m
	}
	return g.Hi
}

// Mean is the mean of the density.
func (g Grid1D) Mean() float64 {
	h := g.H()
	var m float64
	for i, d := range g.Dens {
		m += (g.Lo + (float64(i)+0.5)*h) * d * h
	}
	return m
}

// TV is the total variation distance between the histogram of samples and
// the exact masses on bins equal bins over [Lo, Hi]; samples outside the
// range count as mass the exact density does not have. bins must divide
// len(Dens) for the bins to be unions of cells; otherwise masses are taken
// from the CDF.
func (g Grid1D) TV(samples []float64, bins int) float64 {
	if len(samples) == 0 {
		return 1
	}
	counts := make([]float64, bins)
	var outside float64
	w := (g.Hi - g.Lo) / float64(bins)
	for _, x := range samples {
		i := int(math.Floor((x - g.Lo) / w))
		if x == g.Hi {
			i = bins - 1
		}
		if i < 0 || i >= bins || math.IsNaN(x) {
			outside++
			continue
		}
		counts[i]++
	}
	n := float64(len(samples))
	tv := outside / n
	cum := g.cumulative()
	for i, c := range counts {
		exact := g.cdf(cum, g.Lo+float64(i+1)*w) - g.cdf(cum, g.Lo+float64(i)*w)
		tv += math.Abs(c/n - exact)
	}
	return tv / 2
}

// W1 is the Wasserstein-1 distance ∫|F_n(x) − F(x)| dx between the empirical
// distribution of samples and the density, computed exactly: between
// consecutive breakpoints (sample values and cell edges) F_n is constant and
// F linear, so each piece integrates in closed form.
func (g Grid1D) W1(samples []float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	xs, n, h, cum := g.empirical(samples)
	// Breakpoints: cell edges and samples, merged.
	lo, hi := math.Min(g.Lo, xs[0]), math.Max(g.Hi, xs[len(xs)-1])
	var total float64
	i := 0 // samples ≤ current x
	x := lo
	F := g.cdf(cum, lo)
	for x < hi {
		for i < len(xs) && xs[i] <= x {
			i++
		}
		next := hi
		if i < len(xs) && xs[i] < next {
			next = xs[i]
		}
		if x >= g.Lo && x < g.Hi {
			edge := g.Lo + (math.Floor((x-g.Lo)/h)+1)*h
			if edge <= x { // rounding
				edge += h
			}
			next = math.Min(next, edge)
		} else if x < g.Lo {
			next = math.Min(next, g.Lo)
		}
		Fn := float64(i) / n
		F2 := g.cdf(cum, next)
		total += absLinearIntegral(F-Fn, F2-Fn, next-x)
		x, F = next, F2
	}
	return total
}

// absLinearIntegral is ∫_0^w |a + (b − a) t/w| dt.
func absLinearIntegral(a, b, w float64) float64 {
	if w <= 0 {
		return 0
	}
	if a*b >= 0 {
		return w * (math.Abs(a) + math.Abs(b)) / 2
	}
	// The line crosses zero at t0 = w·a/(a − b).
	t0 := w * a / (a - b)
	return (math.Abs(a)*t0 + math.Abs(b)*(w-t0)) / 2
}

// MeanSE is the mean of xs and its standard error s/√n (NaN when n < 2).
func MeanSE(xs []float64) (mean, se float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}
