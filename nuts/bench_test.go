package nuts

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// diagGauss is U(x) = ½Σλ_j x_j² with U and ∇U in one pass: a target
// whose gradient is as cheap as a gradient gets, so that the sampler's
// own work shows.
type diagGauss struct{ lambda []float64 }

func (d diagGauss) Dim() int { return len(d.lambda) }
func (d diagGauss) UGrad(g, x []float64) float64 {
	var u float64
	for j, l := range d.lambda {
		g[j] = l * x[j]
		u += 0.5 * g[j] * x[j]
	}
	return u
}
func (d diagGauss) U(x []float64) float64 {
	var u float64
	for j, l := range d.lambda {
		u += 0.5 * l * x[j] * x[j]
	}
	return u
}
func (d diagGauss) Grad(g, x []float64) { d.UGrad(g, x) }

// BenchmarkStep times a transition on a 100-D Gaussian (precisions 1 to
// 100) after Stan's warmup, with the diagonal and the dense metric, and
// reports beside ns/op (one transition) its leapfrog steps and the floor:
// the time of that many gradient evaluations alone.
func BenchmarkStep(b *testing.B) {
	const p = 100
	lam := make([]float64, p)
	for j := range lam {
		lam[j] = 1 + 99*float64(j)/(p-1)
	}
	e := diagGauss{lam}
	x := make([]float64, p)
	for j := range x {
		x[j] = 0.1
	}
	for _, dense := range []bool{false, true} {
		name := "diag100"
		if dense {
			name = "dense100"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(61, 1))
			cfg := DefaultConfig()
			cfg.Dense = dense
			tu, th, _, err := Warmup(e, x, 1000, rng, cfg)
			if err != nil {
				b.Fatal(err)
			}
			k, err := NewKernel(e, tu, Config{})
			if err != nil {
				b.Fatal(err)
			}
			k.Step(th, rng)
			gradNs := gradTime(e, th)
			g0 := k.GradEvals()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				k.Step(th, rng)
			}
			b.StopTimer()
			leaps := float64(k.GradEvals()-g0) / float64(b.N)
			b.ReportMetric(leaps, "leapfrog/op")
			b.ReportMetric(gradNs, "ns/grad")
			b.ReportMetric(leaps*gradNs, "floor-ns/op")
		})
	}
}

// gradTime is the time of one gradient evaluation of e at x in ns: the
// least over 10 timings of 20000, the least being the one a loaded
// machine disturbed least.
func gradTime(e diagGauss, x []float64) float64 {
	g := make([]float64, len(x))
	best := math.Inf(1)
	for range 10 {
		start := time.Now()
		for range 20000 {
			e.UGrad(g, x)
		}
		best = min(best, float64(time.Since(start).Nanoseconds())/20000)
	}
	return best
}
