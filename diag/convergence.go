package diag

import (
	"math"
)

// The functions in this file follow R's posterior package, version 1.4.0
// (Vehtari, Gelman, Simpson, Carpenter and Bürkner 2021, "Rank-normalization,
// folding, and localization: an improved R̂ for assessing convergence of
// MCMC"), to the rounding of floating point. chains[c][i] is draw i of chain
// c for one parameter; chains of unequal lengths, or none, give NaN.
//
// A result posterior reports as NA is NaN here. Posterior returns NA where
// the series a statistic is computed from (the split chains, their ranks,
// their indicators) has a NaN or infinite value or a range below the machine
// epsilon, and for an ESS where the split chains have fewer than 3 draws;
// the quantile ESSs (so tail ESS and the quantiles' MCSEs) check the draws
// themselves too. So a single infinite draw leaves R̂ and bulk ESS (computed
// from ranks) defined, and makes the mean's ESS and MCSE NaN. How posterior
// splits chains of 1–3 draws is reproduced too (see buildSplitViews).

// Rhat is the split rank-normalised R̂: the larger of the bulk R̂ (of the
// rank-normalised split chains) and the tail R̂ (of the same for the draws
// folded about their median), as posterior::rhat.
func Rhat(chains [][]float64) float64 {
	return with(chains, (*draws).rhat)
}

// RhatBasic is the split R̂ of the draws themselves, without rank
// normalisation, as posterior::rhat_basic.
func RhatBasic(chains [][]float64) float64 {
	return with(chains, func(d *draws) float64 { return rhatOf(d.split) })
}

// ESSBulk is the effective sample size of the rank-normalised split chains,
// as posterior::ess_bulk.
func ESSBulk(chains [][]float64) float64 {
	return with(chains, (*draws).essBulk)
}

// ESSTail is the smaller of the effective sample sizes of the 5% and 95%
// quantiles, as posterior::ess_tail.
func ESSTail(chains [][]float64) float64 {
	return with(chains, (*draws).essTail)
}

// ESSMean is the effective sample size of the split chains themselves, the
// one the MCSE of the mean uses, as posterior::ess_mean.
func ESSMean(chains [][]float64) float64 {
	return with(chains, (*draws).essMean)
}

// ESSSd is the effective sample size of the split chains of the absolute
// deviations from the mean, |x − mean|, as posterior 1.4.0's ess_sd.
func ESSSd(chains [][]float64) float64 {
	return with(chains, (*draws).essSd)
}

// ESSQuantile is the effective sample size of the indicator that a draw is
// at most the pooled prob-quantile, as posterior::ess_quantile; prob = 1 is
// taken as (S − 1/2)/S for S draws, as posterior does.
func ESSQuantile(chains [][]float64, prob float64) float64 {
	return with(chains, func(d *draws) float64 { return d.essQuantile(prob) })
}

// with runs f on chains laid out in pooled scratch, or returns NaN for
// chains that cannot be laid out.
func with(chains [][]float64, f func(*draws) float64) float64 {
	d := drawsPool.Get().(*draws)
	defer drawsPool.Put(d)
	if !d.load(chains) {
		return math.NaN()
	}
	return f(d)
}

// rhat is NaN for a NaN draw (posterior's ranks are then NA) and otherwise
// NaN only where the ranks are all tied.
func (d *draws) rhat() float64 {
	if d.nan {
		return math.NaN()
	}
	zb, okb := d.zBulk()
	bulk := math.NaN()
	if okb {
		bulk = rhatOfChecked(zb, true)
	}
	tail := math.NaN()
	if zf, okf := d.zFolded(); okf {
		tail = rhatOfChecked(zf, true)
	}
	return nanMax(bulk, tail)
}

func (d *draws) essBulk() float64 {
	if d.nan {
		return math.NaN()
	}
	zb, ok := d.zBulk()
	if !ok {
		return math.NaN()
	}
	return essOfChecked(zb, &d.acov, true)
}

func (d *draws) essMean() float64 { return essOf(d.split, &d.acov) }

func (d *draws) essSd() float64 {
	return essOf(d.centred(func(y float64) float64 { return math.Abs(y) }), &d.acov)
}

// essSquares is posterior's ess_mean((x − mean)²), the ESS mcse_sd uses.
func (d *draws) essSquares() float64 {
	return essOf(d.centred(func(y float64) float64 { return y * y }), &d.acov)
}

// essQuantile is NaN, as posterior's, when any draw is NaN or infinite or
// all draws are within the machine epsilon.
func (d *draws) essQuantile(prob float64) float64 {
	if d.bad || !(prob >= 0 && prob <= 1) {
		return math.NaN()
	}
	if prob == 1 {
		s := float64(len(d.all))
		prob = (s - 0.5) / s
	}
	q := quantile7(d.sorted, prob)
	if !d.indicatorVaries(q) {
		return math.NaN() // posterior: the indicator is constant
	}
	return essIndicator(d.split, q, &d.acov)
}

// eps is R's .Machine$double.eps, posterior's tolerance for constant draws.
const eps = 0x1p-52

// quantileMedian is R's median of sorted draws.
func quantileMedian(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// meanVar is R's mean (with its correcting second pass) and var (n − 1
// denominator; NaN for one value).
func meanVar(xs []float64) (mean, v float64) {
	n := float64(len(xs))
	var s float64
	for _, x := range xs {
		s += x
	}
	mean = s / n
	if math.IsInf(mean, 0) {
		return mean, math.NaN()
	}
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
