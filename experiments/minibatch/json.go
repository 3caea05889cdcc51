package minibatch

import (
	"encoding/json"
	"math"
)

// num is a float that writes NaN (a target not reached, a standard error of
// one seed) as JSON null.
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
}

func nums(xs []float64) []num {
	out := make([]num, len(xs))
	for i, x := range xs {
		out[i] = num(x)
	}
	return out
}

func nums2(xs [][]float64) [][]num {
	out := make([][]num, len(xs))
	for i, x := range xs {
		out[i] = nums(x)
	}
	return out
}

// MarshalJSON writes the summary with NaN as null.
func (m MethodSummary) MarshalJSON() ([]byte, error) {
	type plain MethodSummary // without this method
	return json.Marshal(struct {
		plain
		Mean, SE    [][]num
		Reach       []num
		ReachReSGLD []num
		SwapRate    num
	}{plain(m), nums2(m.Mean), nums2(m.SE), nums(m.Reach), nums(m.ReachReSGLD), num(m.SwapRate)})
}
