package variance

import (
	"math"
	"testing"
)

// A fit evaluates mean + Σ α_i k(θ, x_i) and clips it at zero: one point at
// x = 0 with α = −1.5 and mean 1 gives 1 − 1.5 = −0.5 at θ = 0 (clipped to
// 0), 1 − 1.5·e^{−1/2} ≈ 0.09 at θ = 1 (2h² = 2), and the mean far away. A
// non-finite θ gives NaN, clipped to 0 as well.
func TestKRRPredictClips(t *testing.T) {
	f := &krrFit{p: 1, n: 1, xs: []float64{0}, inv: []float64{1}, h2: 2, h: 1,
		means: []float64{1, 2}, alpha: [][]float64{{-1.5}, nil}, lambda: []float64{1, math.Inf(1)}}
	out := make([]float64, 2)
	for _, c := range []struct{ theta, want float64 }{
		{0, 0}, {1, 1 - 1.5*math.Exp(-0.5)}, {30, 1}, {math.NaN(), 0},
	} {
		f.predict(out, []float64{c.theta})
		if !(math.Abs(out[0]-c.want) <= 1e-15) {
			t.Errorf("θ = %v: prediction %v, want %v", c.theta, out[0], c.want)
		}
		if !math.IsNaN(c.theta) && out[1] != 2 {
			t.Errorf("θ = %v: constant output %v, want its mean 2", c.theta, out[1])
		}
	}
}
