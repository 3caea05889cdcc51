package models

import (
	"math"
	"testing"
)

// PDF is the derivative of CDF: central differences at a step of 10⁻⁵
// sd agree to within the patterns PDF leaves out, 10⁻⁴ of the weight, so
// 10⁻⁴ of the tallest pattern's peak (the differences' own error, h²·f″/6
// plus the CDF's rounding 10⁻¹⁵/h, is below 10⁻⁸ here).
func TestLinRegExactPDF(t *testing.T) {
	x, y := linregData(40, 3, []float64{0.6, 0, -0.3}, 3)
	l, err := NewLinReg(x, y, 3, 1, SlabPrior{W: 0.5, Spike: 0.05, Slab: 1})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := l.Exact()
	if err != nil {
		t.Fatal(err)
	}
	for j := range 3 {
		h := 1e-5 * ex.SD[j]
		peak := 0.0 // the tallest pattern's peak, 1/(√(2π)·its sd)
		for _, c := range ex.comps {
			peak = max(peak, 1/(math.Sqrt(2*math.Pi)*c.sd[j]))
		}
		for k := -30; k <= 30; k++ {
			at := ex.Mean[j] + float64(k)*ex.SD[j]/10
			fd := (ex.CDF(j, at+h) - ex.CDF(j, at-h)) / (2 * h)
			if d := ex.PDF(j, at); !(math.Abs(d-fd) <= 1e-4*peak) {
				t.Errorf("β_%d at %v: PDF %v, dCDF/dx %v", j, at, d, fd)
			}
		}
	}
}
