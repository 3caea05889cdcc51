package finitemix

import (
	"math"
	"math/rand/v2"
	"testing"
)

// fastExp is within expRelErr of math.Exp over its range, exactly 0 and
// +Inf beyond it, and NaN for NaN.
func TestFastExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var worst float64
	check := func(x float64) {
		want, got := math.Exp(x), fastExp(x)
		if e := math.Abs(got-want) / want; !(e <= expRelErr) {
			t.Fatalf("fastExp(%v) = %v, math.Exp %v: relative error %.3g", x, got, want, e)
		} else {
			worst = math.Max(worst, e)
		}
	}
	for range 1_000_000 {
		check(1400*rng.Float64() - 699.999)
		check(80 * (rng.Float64() - 0.5))
	}
	for _, x := range []float64{0, -0.0, 1, -1, math.Ln2 / 64, -math.Ln2 / 64, math.Ln2/64 + 1e-17, 699.99, -699.99, 1e-300, -1e-300} {
		check(x)
	}
	t.Logf("largest relative error %.3g", worst)
	for _, c := range []struct{ x, want float64 }{{-700, 0}, {-1e10, 0}, {math.Inf(-1), 0}, {700.5, math.Inf(1)}, {math.Inf(1), math.Inf(1)}} {
		if got := fastExp(c.x); got != c.want {
			t.Errorf("fastExp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := fastExp(math.NaN()); !math.IsNaN(got) {
		t.Errorf("fastExp(NaN) = %v", got)
	}
}

var expSink float64

func BenchmarkFastExp(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"fast", fastExp}, {"math", math.Exp}} {
		b.Run(c.name, func(b *testing.B) {
			x, s := -3.0, 0.0
			for b.Loop() {
				s += c.f(x)
				x -= 1e-9
			}
			expSink = s
		})
	}
}
