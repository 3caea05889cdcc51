package ladder

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fresgld/fresgld/models"
)

func TestQuadrantWeights(t *testing.T) {
	q := quadrantWeights(models.FourModes())
	// Component (+3, +3) (weight 0.4) stays in its quadrant with
	// probability Φ(3)²; the quadrant also receives the leaks of its two
	// neighbours (Φ(3)Φ(−3) each) and of the opposite mode (Φ(−3)²).
	in, out := distuv.UnitNormal.CDF(3), distuv.UnitNormal.CDF(-3)
	want := 0.4*in*in + (0.2+0.3)*in*out + 0.1*out*out
	if !(math.Abs(q[3]-want) <= 1e-15) {
		t.Errorf("q(+,+) = %v, want %v", q[3], want)
	}
	var s float64
	for _, x := range q {
		s += x
	}
	if !(math.Abs(s-1) <= 1e-12) {
		t.Errorf("quadrant weights sum to %v", s)
	}
	for k, x := range []([]float64){{-1, -1}, {-1, 1}, {1, -1}, {1, 1}} {
		if quadrant(append(x, 0, 0, 0)) != k {
			t.Errorf("quadrant(%v) = %d, want %d", x, quadrant(x), k)
		}
	}
}
