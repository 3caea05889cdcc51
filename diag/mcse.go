package diag

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PooledMean is the mean of every chain's draws pooled, summed chain by
// chain in order and divided by their number: the estimate whose error
// MCSEMean is.
func PooledMean(chains [][]float64) float64 {
	var s float64
	var n int
	for _, xs := range chains {
		for _, x := range xs {
			s += x
			n++
		}
	}
	return s / float64(n)
}

// MCSEMean is the Monte Carlo standard error of the mean, sd/√ESSMean, as
// posterior::mcse_mean.
func MCSEMean(chains [][]float64) float64 {
	return with(chains, func(d *draws) float64 { return mcseMean(d.sdAll(), d.essMean()) })
}

// MCSESd is the Monte Carlo standard error of the sd as posterior 1.4.0's
// mcse_sd computes it, without assuming normal draws (Kenney and Keeping
// 1951): with y = x − mean, the variance of the variance estimate
// (mean(y⁴) − mean(y²)²)/E, E the ESS of y², carried to the sd by the first
// order Taylor approximation, √(varvar/mean(y²)/4). (Posterior before 1.2.2
// assumed normality and used Stirling's approximation; its NEWS.md.)
func MCSESd(chains [][]float64) float64 {
	return with(chains, (*draws).mcseSd)
}

// MCSEQuantile is the Monte Carlo standard error of the prob-quantile, as
// posterior::mcse_quantile: half the distance between the sorted draws at
// the 15.9% and 84.1% points of the Beta(E·p + 1, E·(1 − p) + 1)
// distribution of the quantile's rank, E = ESSQuantile.
func MCSEQuantile(chains [][]float64, prob float64) float64 {
	return with(chains, func(d *draws) float64 { return d.mcseQuantile(prob, d.essQuantile(prob)) })
}

// Quantile is the prob-quantile of the pooled draws by R's type 7, as
// posterior::quantile2; NaN if a draw is NaN.
func Quantile(chains [][]float64, prob float64) float64 {
	return with(chains, func(d *draws) float64 { return d.quantile(prob) })
}

func (d *draws) quantile(prob float64) float64 {
	if d.nan || !(prob >= 0 && prob <= 1) {
		return math.NaN()
	}
	return quantile7(d.sorted, prob)
}

// sdAll is R's sd of all draws.
func (d *draws) sdAll() float64 {
	return math.Sqrt(d.vr)
}

func mcseMean(sd, essMean float64) float64 {
	return sd / math.Sqrt(essMean)
}

func (d *draws) mcseSd() float64 {
	ess := d.essSquares()
	var m2, m4 float64
	for _, x := range d.all {
		y := x - d.mean
		y2 := y * y
		m2 += y2
		m4 += y2 * y2
	}
	s := float64(len(d.all))
	m2 /= s
	m4 /= s
	varvar := (m4 - m2*m2) / ess
	return math.Sqrt(varvar / m2 / 4)
}

// mcseQuantile is posterior's .mcse_quantile given the quantile's ESS.
func (d *draws) mcseQuantile(prob, ess float64) float64 {
	if math.IsNaN(ess) {
		return math.NaN()
	}
	b := distuv.Beta{Alpha: ess*prob + 1, Beta: ess*(1-prob) + 1}
	a1 := b.Quantile(0.1586553)
	a2 := b.Quantile(0.8413447)
	s := d.sorted
	n := float64(len(s))
	i1 := max(int(math.Floor(a1*n)), 1)
	i2 := min(int(math.Ceil(a2*n)), len(s))
	return (s[i2-1] - s[i1-1]) / 2
}
