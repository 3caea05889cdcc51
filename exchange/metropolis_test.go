package exchange

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// metropolisCov runs a two-level ladder (τ = 1 and 3, exact swaps at every
// step) of Metropolis-adjusted levels (or, with adjust false, the same
// unadjusted steps) on the correlated Gaussian of TestPreconditionedLadder,
// preconditioned by its diagonal H = diag(A) only, at η = 0.7: unadjusted,
// the Euler step's bias is large there. It returns each level's sample
// covariance (entries xx, xy, yy), each entry's Monte Carlo standard error
// (from the effective sample size of its series) and the ladder's stats.
func metropolisCov(t *testing.T, adjust bool, steps int) (cov, se [2][3]float64, st Stats) {
	t.Helper()
	const eta = 0.7
	r := 0.95
	a := [4]float64{1 / (1 - r*r), -r / (1 - r*r) / 10, -r / (1 - r*r) / 10, 1 / (1 - r*r) / 100}
	pc, err := langevin.NewDiagPrecond([]float64{a[0], a[3]})
	if err != nil {
		t.Fatal(err)
	}
	var lv []Level
	for _, tau := range []float64{1, 3} {
		lv = append(lv, Level{Tau: tau, Est: energy.Exact{E: gauss2{a: a, hg: 1}}, Eta: langevin.Constant{Step: eta}, Precond: pc, Metropolis: adjust})
	}
	s := mustNew(t, Config{Levels: lv, Swap: Swap{Rule: Exact, PerStep: true}, Seed: 3}, [][]float64{{0, 0}, {0, 0}})
	var prods [2][3][]float64
	for k := range steps + 1000 {
		if err := s.Step(); err != nil {
			break // the unadjusted chain may diverge
		}
		if k < 1000 {
			continue
		}
		for l := range 2 {
			x := s.State(l)
			prods[l][0] = append(prods[l][0], x[0]*x[0])
			prods[l][1] = append(prods[l][1], x[0]*x[1])
			prods[l][2] = append(prods[l][2], x[1]*x[1])
		}
	}
	for l := range 2 {
		for e := range 3 {
			cov[l][e], se[l][e] = math.NaN(), math.NaN()
			if len(prods[l][e]) > 0 {
				cov[l][e] = stat.Mean(prods[l][e], nil)
				se[l][e] = diag.MCSEMean([][]float64{prods[l][e]})
			}
		}
	}
	return cov, se, s.Stats()
}

// TestMetropolisLadder checks that Metropolis-adjusted, preconditioned
// levels sample τA⁻¹ exactly at a step size where the unadjusted step is
// far off, with swaps moving replicas between the levels (so that each
// level's kept U and ∇U must follow the replica it holds). With a
// diagonal H on a target of correlation 0.95 the chain's lag-one
// correlation along the slow direction is high: its integrated
// autocorrelation time for the second moments is of order 10² steps, so
// 4·10⁵ steps hold a few thousand effective draws and each entry's
// relative sd is about √(2·100/4·10⁵) ≈ 2%. Each entry must lie within
// the Bonferroni threshold over the 6 comparisons (1% family-wise, about
// 3.1) of its own Monte Carlo standard error, so the stiff coordinate's
// variance, a hundredth of the other's, is held to its own precision; the
// unadjusted chain must miss it.
func TestMetropolisLadder(t *testing.T) {
	const steps = 400_000
	r := 0.95
	inv := [3]float64{1, r * 10, 100} // A⁻¹
	taus := []float64{1, 3}
	zMax := lawThreshold(6)
	cov, se, st := metropolisCov(t, true, steps)
	for l, tau := range taus {
		for k := range 3 {
			want := tau * inv[k]
			z := (cov[l][k] - want) / se[l][k]
			t.Logf("level %d: covariance entry %d %.5g, exact %.5g: off by %.2f%%, %.2f standard errors", l, k, cov[l][k], want, 100*(cov[l][k]/want-1), z)
			if !(math.Abs(z) <= zMax) {
				t.Errorf("level %d: covariance entry %d is %.5g, want %.5g: off by %.2f standard errors (%.3g), allowed %.2f", l, k, cov[l][k], want, z, se[l][k], zMax)
			}
		}
		if acc := float64(st.Levels[l].Accepted) / float64(st.Steps); !(acc > 0.2 && acc < 0.99) {
			t.Errorf("level %d: acceptance %.3f: the test needs both accepted and rejected proposals", l, acc)
		}
	}
	if st.Pairs[0].Accepts < steps/20 {
		t.Errorf("%d swaps accepted: too few to test the kept energies", st.Pairs[0].Accepts)
	}
	bad, badSE, _ := metropolisCov(t, false, steps)
	off := 0.0
	for k := range 3 {
		off = math.Max(off, math.Abs(bad[0][k]-inv[k])/badSE[0][k])
	}
	if !(off > zMax) || math.IsNaN(off) {
		t.Errorf("unadjusted: largest error %.3g standard errors; the test would not see the correction switched off", off)
	}
}

// quartic is U(x) = x⁴/4, whose E[x²] = 2Γ(3/4)/Γ(1/4).
type quartic struct{}

func (quartic) Dim() int              { return 1 }
func (quartic) U(x []float64) float64 { return x[0] * x[0] * x[0] * x[0] / 4 }
func (quartic) Grad(g, x []float64)   { g[0] = x[0] * x[0] * x[0] }
func (quartic) UGrad(g, x []float64) float64 {
	g[0] = x[0] * x[0] * x[0]
	return x[0] * x[0] * x[0] * x[0] / 4
}

// TestMetropolisQuartic checks the exact law off the Gaussian family, at a
// temperature: at τ = 2, E[x²] = 2√2·Γ(3/4)/Γ(1/4). With η = 0.5 the
// proposals are accepted about half the time and successive x² decorrelate
// within some ten steps: 2·10⁵ steps hold ~2·10⁴ effective draws, and
// x²'s relative sd (Var x² / (E x²)² ≈ 0.6 for this law) gives a relative
// sd of about 0.6%; the tolerance is 3%.
func TestMetropolisQuartic(t *testing.T) {
	const steps = 200_000
	s := mustNew(t, Config{Levels: []Level{{Tau: 2, Est: energy.Exact{E: quartic{}}, Eta: langevin.Constant{Step: 0.5}, Metropolis: true}}, Seed: 5}, [][]float64{{0}})
	var m2 float64
	for range steps {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		x := s.State(0)[0]
		m2 += x * x / steps
	}
	g34, _ := math.Lgamma(0.75)
	g14, _ := math.Lgamma(0.25)
	want := 2 * math.Sqrt2 * math.Exp(g34-g14)
	if !(math.Abs(m2/want-1) <= 0.03) {
		t.Errorf("E[x²] = %.4f, want %.4f", m2, want)
	}
	st := s.Stats()
	if st.Levels[0].Cost.Grad.Calls != steps+1 {
		t.Errorf("%d U and ∇U passes for %d steps, want one a step and one at the start", st.Levels[0].Cost.Grad.Calls, steps)
	}
}

// TestMetropolisRefuses checks the settings a Metropolis-adjusted level
// cannot take.
func TestMetropolisRefuses(t *testing.T) {
	for _, c := range []struct {
		lv   Level
		want string
	}{
		{Level{Tau: 1, Est: &energy.Noisy{E: quartic{}}, Eta: langevin.Constant{Step: 0.1}, Metropolis: true}, "exact energies"},
		{Level{Tau: 1, Est: energy.Exact{E: quartic{}}, Eta: langevin.Constant{Step: 0.1}, Noise: langevin.Corrected, Metropolis: true}, "noise policy"},
	} {
		if _, err := New(Config{Levels: []Level{c.lv}}, [][]float64{{0}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.lv, err, c.want)
		}
	}
}

// TestMetropolisAllocs checks that a Metropolis-adjusted, preconditioned
// step allocates nothing.
func TestMetropolisAllocs(t *testing.T) {
	pc, err := langevin.NewDiagPrecond([]float64{1, 4})
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: energy.Exact{E: gauss2{a: [4]float64{1, 0.5, 0.5, 4}, hg: 1}}, Eta: langevin.Constant{Step: 0.5}, Precond: pc, Metropolis: true}}, Seed: 1}, [][]float64{{0, 0}})
	if a := testing.AllocsPerRun(1000, func() { s.Step() }); a != 0 {
		t.Errorf("%v allocations a step", a)
	}
}

// ColdEnergy, which lp__ reads, is U at the cold state after every step,
// accepted or not (to rounding: U is computed once, by UGrad, at the state
// it is then compared with), and unknown before the first step and at a
// level that is not Metropolis-adjusted.
func TestColdEnergy(t *testing.T) {
	g := gauss2{a: [4]float64{1, 0.5, 0.5, 4}, hg: 1}
	for _, adjust := range []bool{true, false} {
		s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: energy.Exact{E: g}, Eta: langevin.Constant{Step: 0.4}, Metropolis: adjust}}, Seed: 2}, [][]float64{{1, -1}})
		if _, ok := s.ColdEnergy(); ok {
			t.Fatalf("adjusted %v: an energy before the first step", adjust)
		}
		rejected := 0
		for range 200 {
			before := slices.Clone(s.State(0))
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			if slices.Equal(before, s.State(0)) {
				rejected++
			}
			u, ok := s.ColdEnergy()
			if ok != adjust {
				t.Fatalf("adjusted %v: ColdEnergy ok = %v", adjust, ok)
			}
			if want := g.U(s.State(0)); ok && math.Abs(u-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("ColdEnergy %v, U at the state %v", u, want)
			}
		}
		if adjust && rejected == 0 {
			t.Error("no proposal rejected: the check never saw the state kept")
		}
	}
}

// failing is an energy that fails after a number of evaluations: NaN from
// then on, and Err says why, as a model process that died does.
type failing struct {
	gauss2
	left *int
}

func (f failing) U(x []float64) float64 {
	if *f.left <= 0 {
		return math.NaN()
	}
	*f.left--
	return f.gauss2.U(x)
}

func (f failing) Grad(g, x []float64) { f.gauss2.Grad(g, x) }

func (f failing) Err() error {
	if *f.left <= 0 {
		return errFailed
	}
	return nil
}

var errFailed = errors.New("the energy's process died")

// A Metropolis level whose energy fails stops with the energy's error,
// whether it fails at a proposal or at the state it starts from; it does
// not reject every later proposal and repeat its state as draws.
func TestMetropolisStopsOnFailedEnergy(t *testing.T) {
	for _, evals := range []int{50, 0} {
		left := evals
		e := failing{gauss2: gauss2{a: [4]float64{1, 0, 0, 1}, hg: 1}, left: &left}
		s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: energy.Exact{E: e}, Eta: langevin.Constant{Step: 0.5}, Metropolis: true}}, Seed: 1}, [][]float64{{0, 0}})
		stopped := false
		for k := 0; k < 200 && !stopped; k++ {
			if err := s.Step(); err != nil {
				if !errors.Is(err, errFailed) {
					t.Fatalf("failing after %d: step %d: %v, want the energy's error", evals, k, err)
				}
				stopped = true
			}
		}
		if !stopped {
			t.Errorf("failing after %d: 200 steps on a failed energy without an error", evals)
		}
	}
}
