package diag

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MCSEMean is the Monte Carlo standard error of the mean, sd/√ESSMean, as
// posterior::mcse_mean.
func MCSEMean(chains [][]float64) float64 {
	_, v := meanVar(pool(chains))
	return math.Sqrt(v) / math.Sqrt(ESSMean(chains))
}

// MCSESd is the Monte Carlo standard error of the sd as posterior 1.4.0's
// mcse_sd computes it: for normal draws and Stirling's approximation,
// sd·√(e·(1 − 1/E)^(E−1) − 1) with E = ESSSd. (Posterior 1.5 changed this
// to a formula without the normality assumption.)
func MCSESd(chains [][]float64) float64 {
	e := ESSSd(chains)
	_, v := meanVar(pool(chains))
	return math.Sqrt(v) * math.Sqrt(math.E*math.Pow(1-1/e, e-1)-1)
}

// MCSEQuantile is the Monte Carlo standard error of the prob-quantile, as
// posterior::mcse_quantile: half the distance between the sorted draws at
// the 15.9% and 84.1% points of the Beta(E·p + 1, E·(1 − p) + 1) distribution
// of the quantile's rank, E = ESSQuantile.
func MCSEQuantile(chains [][]float64, prob float64) float64 {
	e := ESSQuantile(chains, prob)
	if math.IsNaN(e) {
		return math.NaN()
	}
	b := distuv.Beta{Alpha: e*prob + 1, Beta: e*(1-prob) + 1}
	a1 := b.Quantile(0.1586553)
	a2 := b.Quantile(0.8413447)
	s := sortedPool(chains)
	n := len(s)
	i1 := max(int(math.Floor(a1*float64(n))), 1)
	i2 := min(int(math.Ceil(a2*float64(n))), n)
	return (s[i2-1] - s[i1-1]) / 2
}

// Quantile is the prob-quantile of the pooled draws by R's type 7, as
// posterior::quantile2.
func Quantile(chains [][]float64, prob float64) float64 {
	if !(prob >= 0 && prob <= 1) {
		return math.NaN()
	}
	for _, c := range chains {
		for _, x := range c {
			if math.IsNaN(x) {
				return math.NaN()
			}
		}
	}
	return quantile7(sortedPool(chains), prob)
}

// pool is all draws, chain after chain.
func pool(chains [][]float64) []float64 {
	var s []float64
	for _, c := range chains {
		s = append(s, c...)
	}
	return s
}
