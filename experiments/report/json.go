package report

import (
	"encoding/json"
	"math"
)

// Num is a float that JSON writes as null when it is not finite (a target
// not reached, the standard error of one seed), since JSON has no NaN.
type Num float64

// MarshalJSON writes x, or null when x is NaN or infinite.
func (x Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
}

// Nums converts a slice to Nums.
func Nums(xs []float64) []Num {
	out := make([]Num, len(xs))
	for i, x := range xs {
		out[i] = Num(x)
	}
	return out
}

// Nums2 converts a table to Nums.
func Nums2(xs [][]float64) [][]Num {
	out := make([][]Num, len(xs))
	for i, x := range xs {
		out[i] = Nums(x)
	}
	return out
}
