package diag

import (
	"math"
	"testing"
)

func TestGrid2DTV(t *testing.T) {
	// Uniform density on the unit square.
	g := Tabulate2D(func(x, y float64) float64 { return 0 }, 0, 1, 0, 1, 40, 40)
	var tot float64
	for _, m := range g.Mass {
		tot += m
	}
	if !(math.Abs(tot-1) <= 1e-12) {
		t.Fatalf("masses sum to %v", tot)
	}
	// All points in one of 4×4 bins: TV = 1 − 1/16.
	xs, ys := []float64{0.1, 0.2}, []float64{0.1, 0.05}
	if tv := g.TV(xs, ys, 4, 4); !(math.Abs(tv-15.0/16) <= 1e-12) {
		t.Errorf("TV = %v, want %v", tv, 15.0/16)
	}
	// One point per bin at the bin centres: TV = 0.
	xs, ys = nil, nil
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			xs = append(xs, (float64(i)+0.5)/4)
			ys = append(ys, (float64(j)+0.5)/4)
		}
	}
	if tv := g.TV(xs, ys, 4, 4); !(math.Abs(tv) <= 1e-12) {
		t.Errorf("TV = %v, want 0", tv)
	}
	// Outside points: TV = 1.
	if tv := g.TV([]float64{2}, []float64{0.5}, 4, 4); tv != 1 {
		t.Errorf("TV = %v, want 1", tv)
	}
	if tv := g.TV([]float64{0.5}, []float64{0.5}, 3, 4); !math.IsNaN(tv) {
		t.Errorf("TV with bins not dividing cells = %v, want NaN", tv)
	}
}
