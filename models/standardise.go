package models

import (
	"fmt"
	"math"
)

// Standardise returns (y − mean)/sd with y's mean and sd (n − 1 in the
// divisor), or an error naming the first value that is NaN or ±Inf, or
// saying that the values differ only by rounding (50 copies of 0.1 summed
// to a mean that is not 0.1, and an sd of 10⁻¹⁷ then standardised them to
// noise); a constant y gives sd = 0 and z of NaN, which the caller refuses.
// The sums run on y over its largest |value|: values of 10⁻²⁹⁹ squared
// their differences to 0, values of 10²⁰⁰ to +Inf.
func Standardise(y []float64) (z []float64, mean, sd float64, err error) {
	scale := 0.0
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, 0, fmt.Errorf("value %d is %v", i+1, v)
		}
		scale = max(scale, math.Abs(v))
	}
	constant := true
	for _, v := range y {
		constant = constant && v == y[0]
	}
	if constant {
		return nil, y[0], 0, nil
	}
	var mu float64
	for _, v := range y {
		mu += v / scale
	}
	mu /= float64(len(y))
	var ss float64
	for _, v := range y {
		ss += (v/scale - mu) * (v/scale - mu)
	}
	s := math.Sqrt(ss / float64(len(y)-1))
	if s < roundingSpread {
		return nil, 0, 0, fmt.Errorf("the %d values differ only in their last digits (sd %.3g, values of size up to %.3g): no spread to fit", len(y), s*scale, scale)
	}
	z = make([]float64, len(y))
	for i, v := range y {
		z[i] = (v/scale - mu) / s
	}
	return z, mu * scale, s * scale, nil
}

// roundingSpread is the sd, relative to the values' largest size, below
// which their differences are rounding: a few units in the last place of
// a float64 (2.2·10⁻¹⁶).
const roundingSpread = 1e-13
