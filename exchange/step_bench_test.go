package exchange

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
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
				q := energy.NewIsoQuadratic(p, 1)
				cold, hot := energy.NewNoisy(q, 1, 2), energy.NewNoisy(q, 3, 5)
				cfg := Config{Levels: []Level{
					{Tau: 1, Est: cold, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
					{Tau: 10, Est: hot, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
				}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 1, Concurrent: conc}
				s := mustNew(b, cfg, [][]float64{make([]float64, p), make([]float64, p)})
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

// BenchmarkStepByHand is BenchmarkStep's one-dimensional step written out
// by hand: the same draws from the same kind of streams and the same
// arithmetic (noisy gradients, the corrected injected noise, two noisy
// energies, log Ŝ, the acceptance-probability sum and the swap decision),
// without schedules, counters, checks or the divergence watch. Its ratio to
// the floor is what any sampler built from these draws can hope for at
// p = 1. "arithmetic" computes the estimator's draws in line; "estimator"
// asks the same energy.Noisy estimators as BenchmarkStep, through the
// energy.Estimator interface, for gradients and energies.
func BenchmarkStepByHand(b *testing.B) {
	b.Run("arithmetic", func(b *testing.B) { stepByHand(b, false) })
	b.Run("estimator", func(b *testing.B) { stepByHand(b, true) })
}

func stepByHand(b *testing.B, viaEstimator bool) {
	const eta = 0.01
	tau, gradSD, energySD := [2]float64{1, 10}, [2]float64{2, 5}, [2]float64{1, 3}
	q := energy.NewIsoQuadratic(1, 1)
	ests := [2]energy.Estimator{energy.NewNoisy(q, energySD[0], gradSD[0]), energy.NewNoisy(q, energySD[1], gradSD[1])}
	r0, _ := newStream(1, 0)
	r1, _ := newStream(1, 1)
	streams := [2]*rand.Rand{r0, r1}
	srng, _ := newStream(1, 2)
	theta := [2][]float64{{0}, {0}}
	grad, gradVar := []float64{0}, []float64{0}
	at := [2]int{0, 1}
	td := 1/tau[0] - 1/tau[1]
	var probSum float64
	var accepts int
	defer cputime.Lock()()
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cputime.Thread()
	for range b.N {
		for l := range 2 {
			r := at[l]
			x, rng := theta[r], streams[r]
			var g, s2 float64
			if viaEstimator {
				ests[l].Grad(grad, gradVar, x, rng)
				g, s2 = grad[0], gradVar[0]
			} else {
				// ∇U = θ, plus the estimator's noise
				g, s2 = x[0]+gradSD[l]*rng.NormFloat64(), gradSD[l]*gradSD[l]
			}
			sd := math.Sqrt(2*tau[l]*eta - eta*eta*s2)
			x[0] = x[0] - eta*g + sd*rng.NormFloat64()
		}
		x, y := theta[at[0]], theta[at[1]]
		var ux, uy, vx, vy float64
		if viaEstimator {
			ux, vx = ests[0].Energy(x, srng)
			uy, vy = ests[1].Energy(y, srng)
		} else {
			ux = x[0]*x[0]/2 + energySD[0]*srng.NormFloat64()
			uy = y[0]*y[0]/2 + energySD[1]*srng.NormFloat64()
			vx, vy = energySD[0]*energySD[0], energySD[1]*energySD[1]
		}
		lr := td*(ux-uy) - td*td*(vx+vy)/2
		probSum += math.Exp(min(lr, 0))
		if lr >= 0 || -srng.ExpFloat64() < lr {
			at[0], at[1] = at[1], at[0]
			accepts++
		}
	}
	step, stepCPU := time.Since(start), cputime.Thread()-cpu0
	b.StopTimer()
	sink = probSum + float64(accepts)
	cpu0 = cputime.Thread()
	floor := drawNormals(b.N, 6)
	floorCPU := cputime.Thread() - cpu0
	b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "floor-ns/op")
	b.ReportMetric(float64(step)/float64(floor), "x-floor")
	if floorCPU > 0 {
		b.ReportMetric(float64(stepCPU.Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(stepCPU)/float64(floorCPU), "cpu-x-floor")
	}
}
