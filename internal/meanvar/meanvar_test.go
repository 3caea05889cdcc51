package meanvar

import (
	"math"
	"testing"
)

// The moments of 1, 2, 3, 4, 10: mean 4, variance 50/4 = 12.5.
func TestMoments(t *testing.T) {
	x := []float64{1, 2, 3, 4, 10}
	if m, v := Of(x); m != 4 || v != 12.5 {
		t.Errorf("Of = %v, %v; want 4, 12.5", m, v)
	}
	if m, se := MeanSE(x); m != 4 || se != math.Sqrt(12.5/5) {
		t.Errorf("MeanSE = %v, %v; want 4, √2.5", m, se)
	}
	if m, sd := MeanSD(x); m != 4 || sd != math.Sqrt(12.5) {
		t.Errorf("MeanSD = %v, %v; want 4, √12.5", m, sd)
	}
	if _, v := Of([]float64{3}); !math.IsNaN(v) {
		t.Errorf("Of a single value: variance %v, want NaN", v)
	}
}
