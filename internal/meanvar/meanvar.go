// Package meanvar holds the sample moments that tests and tools compute
// alike, written once so that they agree to the last bit: the mean, and
// the variance about it with the n − 1 denominator, in two passes; and a
// design column's sd about its mean (n denominator), by which the
// logistic checks and the kernel regression scale features.
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

// ColumnSD is the sd, with the n denominator, of column j of the n×p
// row-major matrix x: the scale of a design's feature (the spread of the
// examples at hand, not an estimate of a population's).
func ColumnSD(x []float64, n, p, j int) float64 {
	var m, ss float64
	for i := range n {
		m += x[i*p+j]
	}
	m /= float64(n)
	for i := range n {
		d := x[i*p+j] - m
		ss += d * d
	}
	return math.Sqrt(ss / float64(n))
}
