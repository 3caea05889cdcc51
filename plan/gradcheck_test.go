package plan

import (
	"strings"
	"testing"
)

// flipped is a Gaussian whose gradient has coordinate 2's sign flipped, or
// is scaled by 1.1: both must be caught; the right one passes.
type wrongGrad struct {
	gaussian
	flip, scale float64
}

func (w wrongGrad) Grad(g, x []float64) {
	w.gaussian.Grad(g, x)
	g[1] *= w.flip * w.scale
}

func TestCheckGradient(t *testing.T) {
	base := gaussian{s: []float64{1, 30, 0.01}}
	if err := CheckGradient(base, nil, nil, 1); err != nil {
		t.Errorf("a right gradient refused: %v", err)
	}
	for _, c := range []struct{ flip, scale float64 }{{-1, 1}, {1, 1.1}, {1, 0.9}} {
		err := CheckGradient(wrongGrad{base, c.flip, c.scale}, []string{"a", "b", "c"}, []float64{1, 20, 0}, 1)
		if err == nil || !strings.Contains(err.Error(), "∂U/∂b") {
			t.Errorf("coordinate b's derivative ×%v: %v", c.flip*c.scale, err)
		}
	}
}
