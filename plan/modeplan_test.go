package plan

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/modes"
)

// LadderTaus runs one level up to planBarrier and a geometric ladder
// whose ratio is at most 1 + planSpacing/√p beyond it.
func TestLadderTaus(t *testing.T) {
	if got := LadderTaus(planBarrier, 10); len(got) != 1 || got[0] != 1 {
		t.Errorf("barrier %v: %v, want one level", planBarrier, got)
	}
	for _, c := range []struct {
		b float64
		p int
	}{{10, 1}, {30, 4}, {100, 100}} {
		taus := LadderTaus(c.b, c.p)
		if taus[0] != 1 || math.Abs(taus[len(taus)-1]-c.b/planBarrier) > 1e-12 {
			t.Errorf("b %v, p %d: %v, want 1 to %v", c.b, c.p, taus, c.b/planBarrier)
		}
		for l := 1; l < len(taus); l++ {
			if r := taus[l] / taus[l-1]; r > 1+planSpacing/math.Sqrt(float64(c.p))+1e-12 {
				t.Errorf("b %v, p %d: ratio %v between levels %d and %d", c.b, c.p, r, l, l+1)
			}
		}
	}
}

// The plan of the paper's mixture runs a ladder of Metropolis-adjusted
// levels (the barrier is some 16 nats), and its cold level holds the
// mixture's law: the right mode's weight within 4 MCSE of 0.6 (the MCSE
// of the indicator from diag.MCSEMean over the 4 chains; a normal error
// exceeds 4 in 1 of 16,000), the chains agree on it (R̂ ≤ 1.01: chains
// that never cross, each stuck in the mode it started in, give R̂ far
// above), and the sd within each mode lies within 4·sd/√(2·ESS) of its
// component's.
func TestModePlanMixtureLaw(t *testing.T) {
	mix := models.PaperMixture()
	m := Model{Terms: testenergy.MixTerms{M: mix}}
	s, err := modes.SearchModes(m.Terms, []float64{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := NewModePlan(m, s, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(mp.Taus) < 2 {
		t.Fatalf("one level: %s", mp.Note())
	}
	const chains, steps = 4, 20_000
	right := make([][]float64, chains)
	var in [2][]float64 // the draws in the left and the right mode
	for c := range chains {
		smp, err := mp.Sampler(7, c+1)
		if err != nil {
			t.Fatal(err)
		}
		stepKeep(t, smp, 1000, steps, func() {
			x, r := smp.State(0)[0], 0
			if x > 0 {
				r = 1
			}
			right[c] = append(right[c], float64(r))
			in[r] = append(in[r], x)
		})
	}
	w := diag.Summarize(right)
	if se := diag.MCSEMean(right); !(math.Abs(w.Mean-0.6) <= 4*se) || !(w.Rhat <= 1.01) {
		t.Errorf("right mode's weight %.4f, exact 0.6, MCSE %.3g, R̂ %.3f; %s", w.Mean, se, w.Rhat, mp.Note())
	}
	for r, sd := range []float64{0.7, 0.5} {
		got := diag.Summarize([][]float64{in[r]})
		if tol := 4 * sd / math.Sqrt(2*got.ESSBulk); !(math.Abs(got.SD-sd) <= tol) {
			t.Errorf("mode %d: sd %.4f, exact %.4f, tolerance %.3g", r, got.SD, sd, tol)
		}
	}
}

// A symmetric bimodal target whose gradient vanishes at the start (a
// saddle between the modes, where a plan from one Newton search would
// stop): the search counts the saddle and finds both modes, equally
// weighted.
func TestSearchModesFromSaddle(t *testing.T) {
	mix, err := models.NewMixture([]float64{0.5, 0.5}, []float64{-3, 3}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := modes.SearchModes(testenergy.MixTerms{M: mix}, []float64{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Modes) != 2 || s.Saddles < 1 {
		t.Fatalf("%s; %d saddles", s.Line(), s.Saddles)
	}
	for _, m := range s.Modes {
		if math.Abs(math.Abs(m.Theta[0])-3) > 1e-3 || math.Abs(m.Weight-0.5) > 1e-3 {
			t.Errorf("mode at %v, weight %v; want ±3 (less the other component's pull, e^−18 of it) and 0.5", m.Theta, m.Weight)
		}
	}
}

// The pilot's chains run side by side, but its result must not depend on
// how many cores run them: the plan on one core and on four is the same
// to the last bit.
func TestPilotDoesNotDependOnCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var plans []*ModePlan
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		plan, _, err := NewChainPlan(Model{Terms: testenergy.MixTerms{M: models.PaperMixture()}}, 3, false)
		if err != nil {
			t.Fatal(err)
		}
		mp, ok := plan.(*ModePlan)
		if !ok {
			t.Fatalf("plan %T, want a ModePlan", plan)
		}
		plans = append(plans, mp)
	}
	a, b := plans[0], plans[1]
	if a.IAT != b.IAT || !(a.SwapAccept == b.SwapAccept || math.IsNaN(a.SwapAccept) && math.IsNaN(b.SwapAccept)) {
		t.Errorf("one core: IAT %v, swap acceptance %v; four: %v, %v", a.IAT, a.SwapAccept, b.IAT, b.SwapAccept)
	}
	t.Logf("IAT %v, swap acceptance %v, %d levels", a.IAT, a.SwapAccept, len(a.Taus))
}

// The swap intensity offers the cold pair planSwapRate a step, unless a
// pair-starting level's step η_l would make a·η_l exceed 1 (the offer is
// a probability); the hottest level starts no pair and is not read.
func TestSwapIntensity(t *testing.T) {
	if a := swapIntensity([]float64{0.1, 0.2, 5}); a != planSwapRate/0.1 {
		t.Errorf("valid rule: a = %v, want %v", a, planSwapRate/0.1)
	}
	etas := []float64{0.0626, 0.336, 0.5, 9}
	a := swapIntensity(etas)
	if want := min(planSwapRate/etas[0], 1/0.5); a != want {
		t.Errorf("a hot step of 0.5: a = %v, want %v", a, want)
	}
	for _, e := range etas[:len(etas)-1] {
		if a*e > 1 {
			t.Errorf("a·η = %v > 1 at η = %v", a*e, e)
		}
	}
}

// The plan's line describes a model's kernel by its KernelAbout, and a
// kernel given without one by a default, not a call of nil.
func TestModePlanNoteNamesTheKernel(t *testing.T) {
	const N, p = 40, 2
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := make([]float64, N*p), make([]float64, N)
	for i := range N {
		x[i*p], x[i*p+1] = rng.NormFloat64(), rng.NormFloat64()
		y[i] = 0.5*x[i*p] + rng.NormFloat64()
	}
	pr := models.SlabPrior{W: 0.5, Spike: 0.02, Slab: 1}
	lr, err := models.NewLinReg(x, y, p, 1, pr)
	if err != nil {
		t.Fatal(err)
	}
	m := RegressModel(lr, []string{"a", "b"}, pr)
	s, err := modes.SearchModes(m.Terms, make([]float64, p), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		about func() string
		want  string
	}{
		{m.KernelAbout, "own exact kernel (" + m.KernelAbout() + ")"},
		{nil, "own exact kernel (the model's Kernel)"},
	} {
		m.KernelAbout = c.about
		mp, err := NewModePlan(m, s, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		if note := mp.Note(); !strings.Contains(note, c.want) {
			t.Errorf("plan's line %q, want one with %q", note, c.want)
		}
	}
}
