package exchange

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// At η = 5 the paper's mixture (curvatures 2 to 4 near the modes, ηλ ≥ 10)
// makes every step unstable: the run must stop with an error naming the
// level and the step long before the state overflows (511 steps before the
// watch), and no sample past the point of divergence is returned.
func TestDivergenceCaughtEarly(t *testing.T) {
	mix := models.PaperMixture()
	cold, hot := models.PaperFixedNoise(mix)
	for _, m := range []Method{SGLDMethod, ReSGLDMethod, FReSGLDMethod} {
		cfg, err := m.Config(Setup{Tau1: 1, Tau2: 10, Eta: langevin.Constant{Step: 5}, Cold: cold, Hot: hot, PerStep: true, A1: 0.5, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		init := make([][]float64, len(cfg.Levels))
		for l := range init {
			init[l] = []float64{0}
		}
		s := mustNew(t, cfg, init)
		tr, err := Collect(s, Plan{Keep: 1000, Thin: 1})
		if err == nil || !strings.Contains(err.Error(), "diverged at step") || !strings.Contains(err.Error(), "reversed the last and grew") {
			t.Fatalf("%s: error %v, want the divergence named", m, err)
		}
		k, _ := strconv.Atoi(regexp.MustCompile(`step (\d+)`).FindStringSubmatch(err.Error())[1])
		// ηλ ≈ 10 grows moves 9-fold a step: the watch needs its 10 moves
		// once the drift outweighs the noise, a few steps more.
		t.Logf("%s: %v", m, err)
		if k > 30 || tr.Len() != k {
			t.Errorf("%s: stopped at step %d with %d samples (%v); want by step 30", m, k, tr.Len(), err)
		}
		for _, x := range tr.Data {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e30 {
				t.Fatalf("%s: kept sample %v", m, x)
			}
		}
	}
}

// The watch's rule itself: an alternating, growing run trips it at the
// divergeRun-th move once the growth reaches divergeGrowth, not before; a
// move that does not reverse, or does not grow, resets it.
func TestWatchRule(t *testing.T) {
	w := newWatch([]float64{0})
	x, step := 0.0, 1.0
	for i := 1; i <= divergeRun+5; i++ {
		x += step
		step *= -3 // reverses and grows 3-fold a move: 3^k after k
		tripped := w.observe([]float64{x})
		// The run counts from the second move; growth 3^run ≥ 1000 needs run ≥ 7.
		if want := i-1 >= divergeRun; tripped != want {
			t.Fatalf("move %d (run %d): tripped %v, want %v", i, w.run, tripped, want)
		}
	}
	// Growth 1.5-fold a move: 10 moves give 57 < 1000, so it trips only at
	// run 18 (1.5^18 ≈ 1478).
	w, x, step = newWatch([]float64{0}), 0, 1
	for i := 1; i <= 30; i++ {
		x += step
		step *= -1.5
		if tripped := w.observe([]float64{x}); tripped != (i-1 >= 18) {
			t.Fatalf("1.5-fold: move %d (run %d): tripped %v", i, w.run, tripped)
		}
	}
	// Growing without reversing (sliding off a hill) and reversing without
	// growing (a stable overshoot) never trip it.
	for _, f := range []float64{3, -0.99} {
		w, x, step = newWatch([]float64{0}), 0, 1
		for i := 0; i < 50; i++ {
			x += step
			step *= f
			if w.observe([]float64{x}) {
				t.Fatalf("factor %v: tripped at move %d", f, i)
			}
		}
	}
}

// Every move reverses the last, and the moves grow 50-fold every two, far
// past divergeGrowth in 10 moves, but every other move shrinks (×−100 then
// ×−0.5): no run of moves that each reversed and grew lasts past one move,
// so the watch never trips. Counting reversals alone would trip it at the
// 10th.
func TestWatchRunNeedsEveryMoveToGrow(t *testing.T) {
	w, x, step := newWatch([]float64{0}), 0.0, 1.0
	for i := range 30 {
		x += step
		if i%2 == 0 {
			step *= -100
		} else {
			step *= -0.5
		}
		if w.observe([]float64{x}) {
			t.Fatalf("tripped at move %d (run %d)", i, w.run)
		}
	}
}

// A stable chain with its step near the limit (ηλ = 1.9: moves reverse and
// contract by 0.9, noise keeps them going) never trips the watch in 10^6
// steps.
func TestWatchQuietOnStableChain(t *testing.T) {
	est := energy.Exact{E: energy.Quadratic{Lambda: []float64{1.9}}}
	s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: est, Eta: langevin.Constant{Step: 1}}}, Seed: 4}, [][]float64{{50}})
	for k := 0; k < 1_000_000; k++ {
		if err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
	}
}

// The watch sees every replica's every move, whichever level took it:
// after each step, each replica's last move is exactly its state now less
// its state before the step. Both ways of measuring a move are crossed by
// swaps: a ladder whose steps reflect into a box (the watch measures the
// move itself, after the reflection), and one whose cold level takes
// full-correction steps and whose hot level measures its moves in its
// update (langevin.StepMove).
func TestWatchSeesEveryMove(t *testing.T) {
	q := energy.NewIsoQuadratic(3, 1)
	boxed := Config{Levels: []Level{
		{Tau: 1, Est: energy.NewNoisy(q, 1, 2), Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
		{Tau: 10, Est: energy.NewNoisy(q, 3, 5), Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 3,
		// Tight enough to reflect the hot replica now and then.
		Domain: &energy.Box{Lo: []float64{-3, -3, -3}, Hi: []float64{3, 3, 3}}}
	st, xbar, _ := newShiftTerms(60, 3, 1, 5)
	mb, err := energy.NewMinibatch(st, 20)
	if err != nil {
		t.Fatal(err)
	}
	mixed := Config{Levels: []Level{
		{Tau: 1, Est: mb, Eta: langevin.Constant{Step: 1e-3}, Noise: langevin.CorrectedFull},
		{Tau: 1.01, Est: mb.Clone(), Eta: langevin.Constant{Step: 1e-3}, Noise: langevin.Corrected},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 3, Energies: Energies{Gaussian: true}}
	for name, c := range map[string]struct {
		cfg  Config
		init [][]float64
	}{"box": {boxed, [][]float64{{1, 0, 0}, {-2, 1, 0}}}, "full beside diagonal": {mixed, [][]float64{xbar, xbar}}} {
		t.Run(name, func(t *testing.T) {
			s := mustNew(t, c.cfg, c.init)
			swaps := 0
			for k := range 2000 {
				before := [][]float64{append([]float64(nil), s.reps[0].theta...), append([]float64(nil), s.reps[1].theta...)}
				at0 := s.Replica(0)
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
				if s.Replica(0) != at0 {
					swaps++
				}
				for r := range s.reps {
					for j, x := range s.reps[r].theta {
						if d := x - before[r][j]; s.reps[r].watch.last[j] != d {
							t.Fatalf("step %d, replica %d: last move_%d %v, want %v", k, r, j, s.reps[r].watch.last[j], d)
						}
					}
				}
			}
			if swaps < 10 {
				t.Errorf("%d swaps: the test needs replicas to change levels", swaps)
			}
		})
	}
}
