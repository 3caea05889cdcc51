package mala

import "math"

// BatchMeans is the mean of a chain's values xs and its Monte Carlo standard
// error by non-overlapping batch means: the chain is cut into b batches (the
// remainder at the end dropped) and the se is the sd of the batch means over
// √b. It is consistent for correlated chains when batches are much longer
// than the autocorrelation time. ESS = Var(xs)/se².
func BatchMeans(xs []float64, b int) (mean, se float64) {
	n := len(xs) / b
	if b < 2 || n < 1 {
		return math.NaN(), math.NaN()
	}
	bm := make([]float64, b)
	for k := range bm {
		var s float64
		for _, x := range xs[k*n : (k+1)*n] {
			s += x
		}
		bm[k] = s / float64(n)
		mean += bm[k] / float64(b)
	}
	var ss float64
	for _, m := range bm {
		ss += (m - mean) * (m - mean)
	}
	return mean, math.Sqrt(ss / float64(b-1) / float64(b))
}
