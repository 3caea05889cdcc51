package diag

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// essOf is posterior's .ess of (already split) chains: Geyer's initial
// positive sequence of the multi-chain autocorrelations, made monotone, with
// the last even lag added (which lowers the variance for antithetic chains)
// and the effective size capped at S·log10(S) for S draws.
func essOf(chains [][]float64) float64 {
	m := len(chains)
	if m == 0 {
		return math.NaN()
	}
	n := len(chains[0])
	if n < 3 || badDraws(chains) {
		return math.NaN()
	}
	acov := make([][]float64, m)
	means := make([]float64, m)
	for c, ch := range chains {
		acov[c] = autocovariance(ch)
		means[c], _ = meanVar(ch)
	}
	meanAcov := func(t int) float64 {
		var s float64
		for c := range acov {
			s += acov[c][t]
		}
		return s / float64(m)
	}
	nf := float64(n)
	meanVar0 := meanAcov(0) * nf / (nf - 1)
	varPlus := meanVar0 * (nf - 1) / nf
	if m > 1 {
		_, vb := meanVar(means)
		varPlus += vb
	}
	rho := make([]float64, n)
	t := 0
	even := 1.0
	rho[0] = even
	odd := 1 - (meanVar0-meanAcov(1))/varPlus
	rho[1] = odd
	for t < n-5 && !math.IsNaN(even+odd) && even+odd > 0 {
		t += 2
		even = 1 - (meanVar0-meanAcov(t))/varPlus
		odd = 1 - (meanVar0-meanAcov(t+1))/varPlus
		if even+odd >= 0 {
			rho[t] = even
			rho[t+1] = odd
		}
	}
	maxT := t
	if even > 0 {
		rho[maxT] = even
	}
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	s := float64(m) * nf
	var sum float64
	for _, r := range rho[:maxT] {
		sum += r
	}
	tau := -1 + 2*sum + rho[maxT]
	tau = math.Max(tau, 1/math.Log10(s))
	return s / tau
}

// autocovariance is the biased autocovariance of xs at lags 0..n−1 by FFT of
// the centred draws padded to twice R's next "good" FFT size, as posterior's
// autocovariance.
func autocovariance(xs []float64) []float64 {
	n := len(xs)
	mt2 := 2 * fftGoodSize(n)
	mean, _ := meanVar(xs)
	y := make([]float64, mt2)
	for i, x := range xs {
		y[i] = x - mean
	}
	f := fourier.NewFFT(mt2)
	c := f.Coefficients(nil, y)
	for i, v := range c {
		c[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	ac := f.Sequence(y, c)
	scale := float64(n) * float64(n) * 2
	out := make([]float64, n)
	for i := range out {
		out[i] = ac[i] / scale
	}
	return out
}

// fftGoodSize is the least N' ≥ n with no prime factor above 5 (2 for n ≤ 2).
func fftGoodSize(n int) int {
	if n <= 2 {
		return 2
	}
	for ; ; n++ {
		m := n
		for m%2 == 0 {
			m /= 2
		}
		for m%3 == 0 {
			m /= 3
		}
		for m%5 == 0 {
			m /= 5
		}
		if m <= 1 {
			return n
		}
	}
}
