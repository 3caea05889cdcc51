package exchange

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

func exactPair(e0, e1 energy.Estimator) Config {
	return Config{Levels: []Level{
		{Tau: 1, Est: e0, Eta: langevin.Constant{Step: 0.01}},
		{Tau: 4, Est: e1, Eta: langevin.Constant{Step: 0.01}},
	}, Swap: Swap{Rule: Exact, PerStep: true}, Seed: 1}
}

// The exact rule refuses estimators that do not declare their energies
// exact, before any work: a black box reports no variance and so looked
// noise-free to the check on reported variances.
func TestExactRuleRefusesNoisyEnergies(t *testing.T) {
	q := energy.NewIsoQuadratic(1, 1)
	mb, _ := energy.NewMinibatch(newLocTerms(50, []float64{1}, 1), 5)
	full, _ := energy.NewMinibatch(newLocTerms(50, []float64{1}, 1), 5)
	full.SetEnergySize(50)
	for _, c := range []struct {
		name string
		est  energy.Estimator
		ok   bool
	}{
		{"hidden noisy", energy.Hidden{Estimator: energy.NewNoisy(q, 1, 1)}, false},
		{"hidden exact", energy.Hidden{Estimator: energy.Exact{E: q}}, false}, // a black box cannot vouch
		{"noisy energy", energy.NewNoisy(q, 0.5, 0), false},
		{"noisy gradient only", energy.NewNoisy(q, 0, 2), true},
		{"minibatch", mb, false},
		{"minibatch, energies of all N", full, true},
		{"exact", energy.Exact{E: q}, true},
	} {
		_, err := New(exactPair(energy.Exact{E: q}, c.est), [][]float64{{0}, {0}})
		if c.ok && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "level 1: the exact swap rule needs noise-free energies")) {
			t.Errorf("%s: error %v, want the level named and the rule's need", c.name, err)
		}
	}
}

// With different energies on the two levels the exact ratio is that of the
// levels' own densities, log S = [U_0(x) − U_0(y)]/τ_0 − [U_1(x) − U_1(y)]/τ_1,
// from four evaluations, two charged to each level. With one estimator object
// on both it is τδ[U(x) − U(y)] from two, one per level.
func TestExactRuleOwnEnergies(t *testing.T) {
	u0 := energy.Quadratic{Lambda: []float64{1}} // U_0 = θ²/2
	u1 := energy.Quadratic{Lambda: []float64{3}} // U_1 = 3θ²/2
	x, y := []float64{0.5}, []float64{-2}
	s := mustNew(t, exactPair(energy.Exact{E: u0}, energy.Exact{E: u1}), [][]float64{{0}, {0}})
	got, err := s.LogRatio(0, x, y)
	if err != nil {
		t.Fatal(err)
	}
	want := (u0.U(x)-u0.U(y))/1 - (u1.U(x)-u1.U(y))/4 // 0.125 − 2 − (0.375 − 6)/4 = −0.46875
	if got != want {
		t.Errorf("log S = %v, want %v", got, want)
	}
	st := s.Stats()
	if c0, c1 := st.Levels[0].Cost.Energy.Calls, st.Levels[1].Cost.Energy.Calls; c0 != 2 || c1 != 2 {
		t.Errorf("energy evaluations charged %d and %d, want 2 and 2", c0, c1)
	}

	one := energy.Exact{E: u0}
	shared := &one // one estimator object on both levels
	s, err = New(exactPair(shared, shared), [][]float64{{0}, {0}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LogRatio(0, x, y); !(math.Abs(got-(1-0.25)*(u0.U(x)-u0.U(y))) <= 1e-15) {
		t.Errorf("shared energy: log S = %v, want τδ[U(x) − U(y)] = %v", got, 0.75*(u0.U(x)-u0.U(y)))
	}
	st = s.Stats()
	if c0, c1 := st.Levels[0].Cost.Energy.Calls, st.Levels[1].Cost.Energy.Calls; c0 != 1 || c1 != 1 {
		t.Errorf("shared energy: evaluations charged %d and %d, want 1 and 1", c0, c1)
	}
}

// stubPower is a PowerKernel that never moves and decides every swap by
// the log-ratio lr at cost 7, recording the power it was given.
type stubPower struct {
	lambda, lr float64
	hot        *float64
	err        error
}

func (k stubPower) Step([]float64, *rand.Rand) (bool, float64) { return false, 0 }
func (k stubPower) Lambda() float64                            { return k.lambda }
func (k stubPower) SwapLogRatio(_ *rand.Rand, hot float64, _, _ []float64) (float64, float64, error) {
	*k.hot = hot
	return k.lr, 7, k.err
}

// Two levels whose kernels are PowerKernels take the colder one's
// SwapLogRatio, given the hotter one's λ, with no energy read and its
// cost charged half to each level; a NaN or +∞ from it is an error naming
// the levels.
func TestExactRuleAsksPowerKernels(t *testing.T) {
	q := energy.Quadratic{Lambda: []float64{1}}
	for _, lr := range []float64{-0.5, math.NaN(), math.Inf(1)} {
		var hot float64
		cfg := exactPair(energy.Exact{E: q}, energy.Exact{E: q})
		cfg.Levels[0].Kernel = stubPower{lambda: 1, lr: lr, hot: &hot}
		cfg.Levels[1].Kernel = stubPower{lambda: 0.25, lr: 99, hot: &hot}
		s := mustNew(t, cfg, [][]float64{{0}, {0}})
		got, err := s.LogRatio(0, []float64{0.5}, []float64{-2})
		if math.IsNaN(lr) || math.IsInf(lr, 1) {
			if err == nil || !strings.Contains(err.Error(), "levels 0 and 1") {
				t.Errorf("log-ratio %v: error %v, want one naming the levels", lr, err)
			}
			continue
		}
		if err != nil || got != lr || hot != 0.25 {
			t.Errorf("log S = %v (error %v), hot λ %v; want %v from the cold kernel given 0.25", got, err, hot, lr)
		}
		st := s.Stats()
		for l, c := range st.Levels {
			if c.Cost.Energy.Units != 3.5 {
				t.Errorf("level %d charged %v energy units, want half of 7", l, c.Cost.Energy.Units)
			}
		}
	}
}
