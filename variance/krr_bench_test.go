package variance

import (
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
)

// BenchmarkKRRFit is the one-off fit on 100 states.
func BenchmarkKRRFit(b *testing.B) {
	est := sigmoidNoise(1)
	for range b.N {
		observedKRR(est)
	}
}

// BenchmarkKRRPredict is one prediction at a new state, the per-step cost.
func BenchmarkKRRPredict(b *testing.B) {
	k := observedKRR(sigmoidNoise(1))
	theta := []float64{0}
	dst := []float64{0}
	b.ResetTimer()
	for i := range b.N {
		theta[0] = float64(i%16) - 8 // a new state each call: no reuse
		k.GradVar(dst, theta, nil)
	}
}

// observedKRR is a KRR (100 states, 10 features) fitted to est's noise at 100
// states drawn uniformly on [−8, 8].
func observedKRR(est *energy.Noisy) *KRR {
	k, _ := NewKRR(100, 10, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	theta := []float64{0}
	for i := range 100 {
		theta[0] = -8 + 16*rng.Float64()
		k.Observe(i, theta, est, rng)
	}
	return k
}
