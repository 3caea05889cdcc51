package diag

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// The functions in this file follow R's posterior package, version 1.4.0
// (Vehtari, Gelman, Simpson, Carpenter and Bürkner 2021, "Rank-normalization,
// folding, and localization: an improved R̂ for assessing convergence of
// MCMC"), to the rounding of floating point: chains[c][i] is draw i of chain
// c for one parameter, and all chains have equal length. A result posterior
// reports as NA is NaN here: any NaN or infinite draw, draws that are
// constant, or too few draws for the statistic.

// Rhat is the split rank-normalised R̂: the larger of the bulk R̂ (of the
// rank-normalised split chains) and the tail R̂ (of the same for the draws
// folded about their median), as posterior::rhat.
func Rhat(chains [][]float64) float64 {
	if badDraws(chains) {
		return math.NaN()
	}
	bulk := rhatOf(zScale(splitChains(chains)))
	tail := rhatOf(zScale(splitChains(fold(chains))))
	return nanMax(bulk, tail)
}

// RhatBasic is the split R̂ of the draws themselves, without rank
// normalisation, as posterior::rhat_basic.
func RhatBasic(chains [][]float64) float64 {
	return rhatOf(splitChains(chains))
}

// ESSBulk is the effective sample size of the rank-normalised split chains,
// as posterior::ess_bulk.
func ESSBulk(chains [][]float64) float64 {
	if badDraws(chains) {
		return math.NaN()
	}
	return essOf(zScale(splitChains(chains)))
}

// ESSTail is the smaller of the effective sample sizes of the 5% and 95%
// quantiles, as posterior::ess_tail.
func ESSTail(chains [][]float64) float64 {
	return nanMin(ESSQuantile(chains, 0.05), ESSQuantile(chains, 0.95))
}

// ESSMean is the effective sample size of the split chains themselves, the
// one the MCSE of the mean uses, as posterior::ess_mean.
func ESSMean(chains [][]float64) float64 {
	return essOf(splitChains(chains))
}

// ESSSd is the smaller of the effective sample sizes of the draws and of
// their squares, as posterior::ess_sd.
func ESSSd(chains [][]float64) float64 {
	sq := mapDraws(chains, func(x float64) float64 { return x * x })
	return nanMin(essOf(splitChains(chains)), essOf(splitChains(sq)))
}

// ESSQuantile is the effective sample size of the indicator that a draw is
// at most the pooled prob-quantile, as posterior::ess_quantile.
func ESSQuantile(chains [][]float64, prob float64) float64 {
	if badDraws(chains) || !(prob >= 0 && prob <= 1) {
		return math.NaN()
	}
	s := sortedPool(chains)
	if prob == 1 {
		n := float64(len(s))
		prob = (n - 0.5) / n
	}
	q := quantile7(s, prob)
	ind := mapDraws(chains, func(x float64) float64 {
		if x <= q {
			return 1
		}
		return 0
	})
	return essOf(splitChains(ind))
}

// badDraws reports what posterior's should_return_NA does: a NaN or
// infinite draw, or draws whose range is below the machine epsilon.
func badDraws(chains [][]float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for _, c := range chains {
		for _, x := range c {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return true
			}
			lo = math.Min(lo, x)
			hi = math.Max(hi, x)
			n++
		}
	}
	return n == 0 || math.Abs(hi-lo) < eps
}

// eps is R's .Machine$double.eps.
const eps = 0x1p-52

// splitChains halves each chain, dropping the middle draw of an odd length,
// as posterior's .split_chains; chains of one draw stay whole.
func splitChains(chains [][]float64) [][]float64 {
	if len(chains) == 0 || len(chains[0]) <= 1 {
		return chains
	}
	n := len(chains[0])
	h := n / 2
	out := make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		out = append(out, c[:h])
	}
	for _, c := range chains {
		out = append(out, c[n-h:])
	}
	return out
}

// mapDraws applies f to every draw.
func mapDraws(chains [][]float64, f func(float64) float64) [][]float64 {
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
		for i, x := range ch {
			out[c][i] = f(x)
		}
	}
	return out
}

// fold is |x − median| with the median of all draws, as posterior's
// fold_draws.
func fold(chains [][]float64) [][]float64 {
	med := quantileMedian(sortedPool(chains))
	return mapDraws(chains, func(x float64) float64 { return math.Abs(x - med) })
}

// quantileMedian is R's median of sorted draws.
func quantileMedian(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// zScale replaces every draw by Φ⁻¹((r − 3/8)/(S + 1/4)), r its rank among
// all S draws with ties given their average rank, as posterior's z_scale.
func zScale(chains [][]float64) [][]float64 {
	type entry struct {
		x    float64
		c, i int
	}
	var all []entry
	for c, ch := range chains {
		for i, x := range ch {
			all = append(all, entry{x, c, i})
		}
	}
	slices.SortFunc(all, func(a, b entry) int {
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
	}
	s := float64(len(all))
	for lo := 0; lo < len(all); {
		hi := lo + 1
		for hi < len(all) && all[hi].x == all[lo].x {
			hi++
		}
		r := float64(lo+1+hi) / 2 // average of ranks lo+1..hi
		z := mathext.NormalQuantile((r - 3.0/8) / (s - 2*3.0/8 + 1))
		for _, e := range all[lo:hi] {
			out[e.c][e.i] = z
		}
		lo = hi
	}
	return out
}

// rhatOf is posterior's .rhat of (already split) chains: the square root of
// ((n−1)/n·W + B/n)/W, with W the mean within-chain variance and B/n the
// variance of the chain means.
func rhatOf(chains [][]float64) float64 {
	if badDraws(chains) {
		return math.NaN()
	}
	m := len(chains)
	n := float64(len(chains[0]))
	means := make([]float64, m)
	var within float64
	for c, ch := range chains {
		mu, v := meanVar(ch)
		means[c] = mu
		within += v
	}
	within /= float64(m)
	_, vb := meanVar(means)
	between := n * vb
	return math.Sqrt((between/within + n - 1) / n)
}

// meanVar is R's mean and var (n − 1 denominator; NaN for one value), both
// with a correcting second pass as R's mean does.
func meanVar(xs []float64) (mean, v float64) {
	n := float64(len(xs))
	var s float64
	for _, x := range xs {
		s += x
	}
	mean = s / n
	var corr float64
	for _, x := range xs {
		corr += x - mean
	}
	mean += corr / n
	var ss float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return mean, ss / (n - 1)
}

// sortedPool is all draws, sorted.
func sortedPool(chains [][]float64) []float64 {
	var s []float64
	for _, c := range chains {
		s = append(s, c...)
	}
	slices.Sort(s)
	return s
}

// quantile7 is R's quantile of type 7 of sorted draws s, with R's
// arithmetic: (1 − h)·s[lo] + h·s[hi] at index 1 + (n − 1)·prob.
func quantile7(s []float64, prob float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	index := 1 + float64(n-1)*prob
	lo := math.Floor(index)
	hi := math.Ceil(index)
	q := s[int(lo)-1]
	xh := s[int(hi)-1]
	if index > lo && xh != q {
		h := index - lo
		q = (1-h)*q + h*xh
	}
	return q
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}
