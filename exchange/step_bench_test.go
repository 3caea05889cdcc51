package exchange

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/target"
)

var benchDims = []int{1, 100, 10000}

// BenchmarkStep times one two-chain f-reSGLD step on U = ½|θ|² with the
// paper's kind of noisy estimator (Gaussian noise on the gradient and the
// energy, known variances) and a swap attempt every step. Per step it draws
// 4p + 2 normals: p gradient-noise and p injected per chain, one per energy.
func BenchmarkStep(b *testing.B) {
	for _, conc := range []bool{false, true} {
		for _, p := range benchDims {
			name := fmt.Sprintf("p=%d", p)
			if conc {
				name += "/concurrent"
			}
			b.Run(name, func(b *testing.B) {
				q := target.NewIsoQuadratic(p, 1)
				cold, hot := target.NewNoisy(q, 1, 2), target.NewNoisy(q, 3, 5)
				cfg := Config{Levels: []Level{
					{Tau: 1, Est: cold, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
					{Tau: 10, Est: hot, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
				}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 1, Concurrent: conc}
				s, err := New(cfg, [][]float64{make([]float64, p), make([]float64, p)})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				for range 100 { // past first-step setup
					s.Step()
				}
				defer cputime.Lock()()
				b.ReportAllocs()
				b.ResetTimer()
				start, cpu0 := time.Now(), cputime.Thread()
				for range b.N {
					if err := s.Step(); err != nil {
						b.Fatal(err)
					}
				}
				step, stepCPU := time.Since(start), cputime.Thread()-cpu0
				b.StopTimer()
				// The floor, timed in the same run so that the ratio is
				// immune to the machine's load drifting between runs.
				cpu0 = cputime.Thread()
				floor := drawNormals(b.N, 4*p+2)
				floorCPU := cputime.Thread() - cpu0
				b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "floor-ns/op")
				b.ReportMetric(float64(step)/float64(floor), "x-floor")
				if conc {
					handsOff := 0.0 // what the pool chose at the end (1: hand-off)
					if s.HandsOff() {
						handsOff = 1
					}
					b.ReportMetric(handsOff, "handsoff")
				}
				if !conc && floorCPU > 0 {
					// CPU time of this thread: immune to time spent
					// descheduled on a shared machine. (Concurrent runs
					// spend CPU on other threads too, so only wall time.)
					b.ReportMetric(float64(stepCPU.Nanoseconds())/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(stepCPU)/float64(floorCPU), "cpu-x-floor")
				}
			})
		}
	}
}

var sink float64

// drawNormals times n rounds of m normal draws from the generator the
// sampler uses: the floor, the cost no sampler on this estimator can avoid.
func drawNormals(n, m int) time.Duration {
	rng := rand.New(rand.NewPCG(1, 0))
	start := time.Now()
	var s float64
	for range n {
		for range m {
			s += rng.NormFloat64()
		}
	}
	sink = s
	return time.Since(start)
}
