package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
)

// slabExpansion expands l's data about its all-slab pattern's mode, or,
// far, about a point some 10 posterior sds from it.
func slabExpansion(t *testing.T, l *Logistic, far bool) *energy.Expansion {
	t.Helper()
	slab := make([]bool, l.P)
	for j := range slab {
		slab[j] = true
	}
	mode, err := l.PatternMode(slab)
	if err != nil {
		t.Fatal(err)
	}
	if far {
		for j := range mode {
			mode[j] += 3
		}
	}
	e, err := energy.NewExpansion(l, mode)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// thinnedChain runs the thinned kernel at lambda and returns the inclusion
// of coefficients 1 and 2 and θ_0..θ_2 at each of n sweeps after 500, and
// the examples read a sweep.
func thinnedChain(k *ThinnedSlabMove, l *Logistic, seed uint64, n int) ([][]float64, float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	theta := []float64{0, 0, 0}
	vals := make([][]float64, 5)
	var cost float64
	for s := range n + 500 {
		_, c := k.Step(theta, rng)
		if s < 500 {
			continue
		}
		cost += c
		vals[0] = append(vals[0], l.Slab.Inclusion(theta[1]))
		vals[1] = append(vals[1], l.Slab.Inclusion(theta[2]))
		for j := range 3 {
			vals[2+j] = append(vals[2+j], theta[j])
		}
	}
	return vals, cost / float64(n)
}

// The thinned kernel keeps the posterior exactly, as SlabMove does: on
// slabTiny (50 examples, where the expansion's remainders are far from
// small) at the default spike and at a sharp one, and at λ = 0.3, its
// inclusion probabilities and means lie within 4 MCSE + 0.002 of the
// grid's, the tolerance of TestSlabMoveAgainstGrid and for its reasons
// (an ESS-based MCSE per quantity; a normal error beyond 4 happens once in
// 16,000). So it does expanded about a far point, where most tests read
// every example. With the remainders' factors left out (the quadratic
// alone decides), the quadratic's, or either read at power 1 instead of
// λ, it fails.
func TestThinnedSlabMoveAgainstGrid(t *testing.T) {
	for _, c := range []struct {
		spike, lambda float64
		far           bool
	}{{0.02, 1, false}, {0.001, 1, false}, {0.02, 0.3, false}, {0.02, 0.3, true}} {
		l := slabTiny(t, SlabPrior{W: 0.3, Spike: c.spike, Slab: 1})
		incl, mean := gridPosteriorOf(l, func(th []float64) float64 {
			u0 := l.Prior(nil, th)
			return c.lambda*(l.U(th)-u0) + u0
		})
		const n = 20000
		vals, cost := thinnedChain(l.NewThinnedSlabMove(slabExpansion(t, l, c.far), c.lambda), l, uint64(1/c.spike), n)
		want := []float64{incl[1], incl[2], mean[0], mean[1], mean[2]}
		for q, v := range vals {
			if m, se, ok := nearGrid(v, want[q]); !ok {
				t.Errorf("s0 %g, λ %g, far %v, quantity %d: %.4f against the grid's %.4f: off by %.3g, MCSE %.3g", c.spike, c.lambda, c.far, q, m, want[q], math.Abs(m-want[q]), se)
			}
		}
		t.Logf("s0 %g, λ %g, far %v: %.3g example-gradient equivalents a sweep (SlabMove: %d)", c.spike, c.lambda, c.far, cost, 5*len(l.Y))
	}
}

// A sweep's cost does not grow with N: on slabTiny's model at 2,000 and
// 20,000 examples, after 200 sweeps from 0, the mean cost of 2,000 sweeps
// at 20,000 is no more than at 2,000 (its events' share falls as 1/√N;
// the 2p² + p multiply-adds a coefficient stay), and a sweep allocates nothing.
// Reading every example at every test costs 2N a coefficient, and fails.
func TestThinnedSlabMoveCostDoesNotGrowWithN(t *testing.T) {
	var costs []float64
	for _, N := range []int{2000, 20000} {
		l := slabRows(t, N, uint64(N), SlabPrior{W: 0.5, Spike: 0.001, Slab: 1}, false)
		k := l.NewThinnedSlabMove(slabExpansion(t, l, false), 1)
		c := sweepCost(k)
		costs = append(costs, c)
		t.Logf("N = %d: %.3g example-gradient equivalents a sweep (SlabMove: %d)", N, c, 5*N)
		rng, theta := rand.New(rand.NewPCG(1, 3)), []float64{0, 0, 0}
		if a := testing.AllocsPerRun(20, func() { k.Step(theta, rng) }); a != 0 {
			t.Errorf("N = %d: a sweep allocates %v times", N, a)
		}
	}
	if !(costs[1] <= costs[0]) {
		t.Errorf("a sweep costs %.3g at 20,000 examples, more than %.3g at 2,000", costs[1], costs[0])
	}
}

// A ladder of thinned kernels at λ = 1, 0.3 and 0.05 swapping by their own
// factorised test (exchange.PowerKernel) keeps each level's power
// posterior: on slabTiny at the default spike each level's inclusion of
// coefficient 1 and mean of θ_1 lie within 4 MCSE + 0.002 of the grid's at
// its λ (the tolerance of TestThinnedSlabMoveAgainstGrid, for its reasons),
// expanded at the mode and about a far point (where the swaps read every
// example). The swaps must also happen: the cold pair accepts at least a
// tenth of its attempts. With the swap's power difference inverted or
// taken as the cold level's λ, a level's marginal fails.
func TestThinnedSlabSwapsKeepEachLevel(t *testing.T) {
	l := slabTiny(t, SlabPrior{W: 0.3, Spike: 0.02, Slab: 1})
	lambdas := []float64{1, 0.3, 0.05}
	for _, far := range []bool{false, true} {
		e := slabExpansion(t, l, far)
		lv := make([]exchange.Level, len(lambdas))
		init := make([][]float64, len(lambdas))
		for k, lam := range lambdas {
			lv[k] = exchange.Level{Tau: 1 / lam, Est: energy.Exact{E: l.Power(lam)}, Eta: langevin.Constant{Step: 1}, Kernel: l.NewThinnedSlabMove(e, lam)}
			init[k] = []float64{0, 0, 0}
		}
		s, err := exchange.New(exchange.Config{Levels: lv, Seed: 11, Swap: exchange.Swap{Rule: exchange.Exact, PerStep: true, Scheme: exchange.DEO}}, init)
		if err != nil {
			t.Fatal(err)
		}
		const n = 20000
		vals := make([][2][]float64, len(lambdas))
		for step := range n + 500 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			if step < 500 {
				continue
			}
			for k := range lambdas {
				th := s.State(k)
				vals[k][0] = append(vals[k][0], l.Slab.Inclusion(th[1]))
				vals[k][1] = append(vals[k][1], th[1])
			}
		}
		for k, lam := range lambdas {
			incl, mean := gridPosteriorOf(l, func(th []float64) float64 {
				u0 := l.Prior(nil, th)
				return lam*(l.U(th)-u0) + u0
			})
			for q, want := range []float64{incl[1], mean[1]} {
				if m, se, ok := nearGrid(vals[k][q], want); !ok {
					t.Errorf("far %v, λ %g, quantity %d: %.4f against the grid's %.4f: off by %.3g, MCSE %.3g", far, lam, q, m, want, math.Abs(m-want), se)
				}
			}
		}
		if p := s.Stats().Pairs[0]; !(p.Accepts*10 >= p.Attempts) {
			t.Errorf("far %v: the cold pair accepted %d of %d swaps", far, p.Accepts, p.Attempts)
		} else {
			t.Logf("far %v: cold pair accepted %d of %d swaps", far, p.Accepts, p.Attempts)
		}
	}
}

// sweepCost is the kernel's mean cost of 2,000 sweeps after 200 from 0.
func sweepCost(k *ThinnedSlabMove) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	theta := []float64{0, 0, 0}
	var c float64
	for s := range 2200 {
		_, cs := k.Step(theta, rng)
		if s >= 200 {
			c += cs / 2000
		}
	}
	return c
}

// ThinnedSlabPays foresees which kernel sweeps cheaper: on 2,000 examples
// of normal features it says the thinned one, whose sweep then costs under
// SlabMove's 5N; with a Cauchy feature it says SlabMove, and the thinned
// sweep costs more than 5N there (its tests read every example). Inverted,
// either case fails.
func TestThinnedSlabPaysWhereItsSweepIsCheaper(t *testing.T) {
	const N = 2000
	for _, heavy := range []bool{false, true} {
		l := slabRows(t, N, uint64(N), SlabPrior{W: 0.5, Spike: 0.001, Slab: 1}, heavy)
		e := slabExpansion(t, l, false)
		pays, c := l.ThinnedSlabPays(e), sweepCost(l.NewThinnedSlabMove(e, 1))
		t.Logf("Cauchy feature %v: pays %v, a thinned sweep costs %.3g against SlabMove's %d", heavy, pays, c, 5*N)
		if pays != !heavy || pays != (c < 5*N) {
			t.Errorf("Cauchy feature %v: ThinnedSlabPays %v, a thinned sweep costs %.3g against SlabMove's %d", heavy, pays, c, 5*N)
		}
	}
}
