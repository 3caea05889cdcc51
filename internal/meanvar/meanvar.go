// Package meanvar holds the sample moments that tests and tools compute
// alike, written once so that they agree to the last bit: the mean, and
// the variance about it with the n − 1 denominator, in two passes.
package meanvar

import "math"

// Of is the mean of x and its variance with the n − 1 denominator
// (NaN for a single value).
func Of(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, ss / float64(len(x)-1)
}

// MeanSE is the mean of x and its standard error √(variance/n), for
// independent values.
func MeanSE(x []float64) (mean, se float64) {
	mean, v := Of(x)
	return mean, math.Sqrt(v / float64(len(x)))
}

// MeanSD is the mean of x and its sd (n − 1 denominator).
func MeanSD(x []float64) (mean, sd float64) {
	mean, v := Of(x)
	return mean, math.Sqrt(v)
}
