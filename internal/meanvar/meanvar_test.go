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

// ColumnSD reads column j alone: the 5×2 matrix whose first column is
// 1, 2, 3, 4, 10 (squared deviations 50, over n = 5) and whose second is
// constant.
func TestColumnSD(t *testing.T) {
	x := []float64{1, 7, 2, 7, 3, 7, 4, 7, 10, 7}
	if sd := ColumnSD(x, 5, 2, 0); sd != math.Sqrt(10) {
		t.Errorf("column 0: sd %v, want √10", sd)
	}
	if sd := ColumnSD(x, 5, 2, 1); sd != 0 {
		t.Errorf("constant column: sd %v, want 0", sd)
	}
}
