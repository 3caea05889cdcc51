package minibatch

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
)

func TestReach(t *testing.T) {
	budgets := []float64{1, 10, 100}
	mean := [][]float64{{1}, {0.5}, {0.1}}
	// Between 10 (0.5) and 100 (0.1) the target 0.3 lies halfway: 10^1.5.
	if r := Reach(budgets, mean, 0, 0.3); !(math.Abs(r-math.Pow(10, 1.5)) <= 1e-9) {
		t.Errorf("reach 0.3 at %v, want %v", r, math.Pow(10, 1.5))
	}
	if r := Reach(budgets, mean, 0, 2); r != 1 {
		t.Errorf("reach 2 at %v, want the first budget", r)
	}
	if r := Reach(budgets, mean, 0, 0.01); !math.IsNaN(r) {
		t.Errorf("reach 0.01 at %v, want NaN (never)", r)
	}
}

// TestMomentsScore feeds samples with known mean and population sd.
func TestMomentsScore(t *testing.T) {
	ref := Reference{Mean: []float64{0, 10}, SD: []float64{1, 2}}
	a := newMoments(ref)
	// Coordinate 0: samples ±1 around 0.5 (mean 0.5, sd 1); coordinate 1:
	// samples 10 ± 3 (mean 10, sd 3).
	for _, s := range []float64{-1, 1} {
		a.Add([]float64{0.5 + s, 10 + 3*s})
	}
	got := make([]float64, 2)
	a.Score(got)
	// mean error √((0.5² + 0²)/2); sd error √((0² + 0.5²)/2).
	want := math.Sqrt(0.125)
	if math.Abs(got[0]-want) > 1e-14 || math.Abs(got[1]-want) > 1e-14 {
		t.Errorf("scores %v, want %v both", got, want)
	}
}

// TestRunCost checks the cost accounting on a small Terms problem: SGLD
// spends NCold per step and nothing else; reSGLD spends at least NCold per
// step on each level; every run stops at the first step past the last
// budget.
func TestRunCost(t *testing.T) {
	w := models.PaperWellingTeh()
	st := Setting{Tau1: 1, Tau2: 4, Eta: 0.004, NCold: 10, SwapA: 25, A1: 0.5, Share: 0.9, Every: 100,
		BurnCost: 1000, Budgets: []float64{5000, 20000}, Init: []float64{1.3, -1.6}}
	g := w.Posterior(1, 28, 36)
	pr := Problem{Name: "wt", Terms: w, Setting: st, Metrics: []string{"TV"}, Targets: []float64{0.1},
		NewAcc: func() Accumulator { return &grid2D{g: g, bx: 14, by: 18} }}
	for _, m := range Methods {
		r, err := Run(pr, m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Cost < 20000 || len(r.Score) != 2 || math.IsNaN(r.Score[1][0]) {
			t.Errorf("%s: cost %v, scores %v", m, r.Cost, r.Score)
		}
		// Adaptation ends at the step whose cost first passes the
		// burn-in (FreezeBurnCost): no automatic-minibatch check after it
		// (checks at steps 0, Every, …, counted from 0).
		if r.FrozenStep == 0 || r.AutoChecks > (r.FrozenStep-1)/st.Every+1 {
			t.Errorf("%s: frozen at step %d, %d automatic-minibatch checks (want at most %d)", m, r.FrozenStep, r.AutoChecks, (r.FrozenStep-1)/st.Every+1)
		}
		switch m {
		case exchange.SGLDMethod, CorrectedSGLD:
			if r.FrozenStep != 101 { // 10 a step: step 101 first passes 1000
				t.Errorf("%s: frozen at step %d, want 101", m, r.FrozenStep)
			}
			if r.Cost != float64(10*r.Steps) || r.HotCost != 0 {
				t.Errorf("%s: cost %v for %d steps", m, r.Cost, r.Steps)
			}
		case exchange.ReSGLDMethod:
			if r.HotCost < float64(10*r.Steps) || r.Cost < float64(20*r.Steps) {
				t.Errorf("resgld: cost %v, hot %v for %d steps", r.Cost, r.HotCost, r.Steps)
			}
		default:
			if !(r.HotCost > 0 && r.HotCost < r.Cost/2) || r.HotNLo < 2 {
				t.Errorf("%s: hot cost %v of %v, hot n %d–%d", m, r.HotCost, r.Cost, r.HotNLo, r.HotNHi)
			}
		}
	}
}

// committedReference is the committed MALA reference of the breast-cancer
// problem, and the problem's dimension.
func committedReference(t *testing.T) (Reference, int) {
	t.Helper()
	l, _, err := BreastCancer()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := LoadReference("../../docs/results/minibatch/"+RefFile, l.Dim())
	if err != nil {
		t.Fatal(err)
	}
	return ref, l.Dim()
}

// TestCachedReference checks the committed MALA reference: it matches the
// breast-cancer problem's dimension, says how to regenerate it, and its own
// Monte Carlo error is far below the errors the study measures (≥ 0.019).
// The sds must lie below the prior's: the logistic likelihood is log-concave,
// so ∇²U ⪰ I/σ₀² and, by the Brascamp–Lieb inequality, Cov ⪯ σ₀² I.
func TestCachedReference(t *testing.T) {
	ref, _ := committedReference(t)
	if ref.Command == "" || ref.MaxMeanSEOverSD > 0.005 || ref.MaxSDSEOverSD > 0.005 || ref.Accept < 0.3 {
		t.Errorf("reference: command %q, se/sd %v and %v, acceptance %v", ref.Command, ref.MaxMeanSEOverSD, ref.MaxSDSEOverSD, ref.Accept)
	}
	for j, s := range ref.SD {
		if !(s > 0) || !(s < PriorSD) {
			t.Errorf("coordinate %d: posterior sd %v not in (0, prior sd %v)", j, s, PriorSD)
		}
	}
}
