package models_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// data caches the synthetic data sets across benchmark runs: generating 10⁶
// examples takes longer than the benchmark itself.
var data = map[[2]int]*models.Logistic{}

func synthetic(b *testing.B, N, p int) *models.Logistic {
	k := [2]int{N, p}
	if l, ok := data[k]; ok {
		return l
	}
	l, _, err := models.SyntheticLogistic(N, p, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	data[k] = l
	return l
}

// sizes is the grid of the per-step benchmarks: N varies at fixed n·p, n at
// fixed N and p, p at fixed N and n; the last two match the low-rank
// correction's benchmark in package langevin.
var sizes = []benchSize{
	{10_000, 100, 10}, {100_000, 100, 10}, {1_000_000, 100, 10},
	{100_000, 10, 10}, {100_000, 1000, 10},
	{10_000, 100, 100}, {10_000, 100, 1000},
	{10_000, 10, 100}, {10_000, 10, 1000},
}

type benchSize struct{ N, n, p int }

// eachSize runs bench on each of sizes, a sub-benchmark named by its N, n
// and p, with the synthetic data of N examples and p features (l) and a
// size-n minibatch of them (mb).
func eachSize(b *testing.B, bench func(b *testing.B, sz benchSize, l *models.Logistic, mb *energy.Minibatch)) {
	for _, sz := range sizes {
		b.Run(fmt.Sprintf("N=%d/n=%d/p=%d", sz.N, sz.n, sz.p), func(b *testing.B) {
			l := synthetic(b, sz.N, sz.p)
			mb, err := energy.NewMinibatch(l, sz.n)
			if err != nil {
				b.Fatal(err)
			}
			bench(b, sz, l, mb)
		})
	}
}

// BenchmarkFReSGLDStep times one step of a two-chain f-reSGLD ladder on
// synthetic logistic regression, both chains on size-n minibatches with
// their own variance reports, and a swap attempted at every step: two
// gradient draws and two energy draws, 4n per-example terms a step.
func BenchmarkFReSGLDStep(b *testing.B) {
	eachSize(b, func(b *testing.B, sz benchSize, l *models.Logistic, cold *energy.Minibatch) {
		hot, _ := energy.NewMinibatch(l, sz.n)
		cfg, err := exchange.FReSGLDMethod.Config(exchange.Setup{
			Tau1: 1, Tau2: 10,
			// η·N·max|x|²/4 well below 1: the chains stay finite.
			Eta:  langevin.Constant{Step: 0.01 / float64(sz.N*sz.p)},
			Cold: cold, Hot: hot, PerStep: true, Seed: 1,
			// The step's cost, not the swaps' law, is measured.
			Energies: exchange.Energies{Gaussian: true},
		})
		if err != nil {
			b.Fatal(err)
		}
		init := [][]float64{make([]float64, sz.p), make([]float64, sz.p)}
		s, err := exchange.New(cfg, init)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchSteps(b, s, 4*sz.n*sz.p)
	})
}

// BenchmarkMinibatchGrad times one gradient draw with its variance report.
func BenchmarkMinibatchGrad(b *testing.B) {
	eachSize(b, func(b *testing.B, sz benchSize, _ *models.Logistic, mb *energy.Minibatch) {
		rng := rand.New(rand.NewPCG(1, 2))
		theta, grad, gv := make([]float64, sz.p), make([]float64, sz.p), make([]float64, sz.p)
		b.ReportAllocs()
		defer cputime.Lock()()
		c0 := cputime.Thread()
		for b.Loop() {
			mb.Grad(grad, gv, theta, rng)
		}
		reportCPU(b, c0, sz.n*sz.p)
	})
}

// benchSteps times s.Step over the benchmark's loop on a locked thread,
// its allocations reported and its CPU by reportCPU (work per step).
func benchSteps(b *testing.B, s *exchange.Sampler, work int) {
	b.ReportAllocs()
	defer cputime.Lock()()
	c0 := cputime.Thread()
	for b.Loop() {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, c0, work)
}

// reportCPU reports the thread's CPU time per op since c0, and per
// per-example term and coordinate (units of n·p work).
func reportCPU(b *testing.B, c0 time.Duration, work int) {
	if c0 == 0 {
		return
	}
	cpu := float64((cputime.Thread() - c0).Nanoseconds()) / float64(b.N)
	b.ReportMetric(cpu, "cpu-ns/op")
	b.ReportMetric(cpu/float64(work), "cpu-ns/term-coord")
}

// untouched hides Logistic's Touch, to measure what the prefetch pass buys.
type untouched struct{ l *models.Logistic }

func (u untouched) Dim() int                                  { return u.l.Dim() }
func (u untouched) Len() int                                  { return u.l.Len() }
func (u untouched) Term(grad, theta []float64, i int) float64 { return u.l.Term(grad, theta, i) }
func (u untouched) Prior(grad, theta []float64) float64       { return u.l.Prior(grad, theta) }

// BenchmarkTouch compares gradient draws with and without the pass that
// fetches the minibatch's rows together before the arithmetic.
func BenchmarkTouch(b *testing.B) {
	for _, N := range []int{10_000, 100_000, 1_000_000} {
		for _, touch := range []bool{true, false} {
			b.Run(fmt.Sprintf("N=%d/n=100/p=10/touch=%v", N, touch), func(b *testing.B) {
				l := synthetic(b, N, 10)
				var t energy.Terms = l
				if !touch {
					t = untouched{l}
				}
				mb, err := energy.NewMinibatch(t, 100)
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				theta, grad, gv := make([]float64, 10), make([]float64, 10), make([]float64, 10)
				defer cputime.Lock()()
				c0 := cputime.Thread()
				for b.Loop() {
					mb.Grad(grad, gv, theta, rng)
				}
				reportCPU(b, c0, 100*10)
			})
		}
	}
}
