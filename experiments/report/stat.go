// Package report holds the formatting shared by the reproduction studies'
// tables and summaries.
package report

import (
	"math"
	"strconv"
)

// Stat is a mean over seeds and its standard error.
type Stat struct{ Mean, SE float64 }

// MarshalJSON writes null for a NaN, which JSON cannot hold.
func (s Stat) MarshalJSON() ([]byte, error) {
	f := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "null"
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	return []byte(`{"mean":` + f(s.Mean) + `,"se":` + f(s.SE) + `}`), nil
}

func (s Stat) String() string {
	if math.IsNaN(s.Mean) {
		return "—"
	}
	if math.IsNaN(s.SE) {
		return G(s.Mean)
	}
	return G(s.Mean) + " ± " + G(s.SE)
}

// G formats x with about four significant digits, in fixed or
// exponent notation by its magnitude.
func G(x float64) string {
	a := math.Abs(x)
	switch {
	case a == 0:
		return "0"
	case a >= 1e4:
		return strconv.FormatFloat(x, 'g', 4, 64)
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 0.01:
		return strconv.FormatFloat(x, 'f', 4, 64)
	}
	return strconv.FormatFloat(x, 'e', 2, 64)
}
