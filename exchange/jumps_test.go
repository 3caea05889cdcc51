package exchange

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// twoModes is exp(−U) = 0.7·N(θ; (−5, 0), I) + 0.3·N(θ; (5, 0), I): 12.5
// nats of barrier at θ_0 = 0, which no MALA step crosses in a test's run.
type twoModes struct{}

func (twoModes) Dim() int { return 2 }
func (twoModes) U(x []float64) float64 {
	return twoModes{}.UGrad(nil, x)
}
func (twoModes) Grad(g, x []float64) { twoModes{}.UGrad(g, x) }
func (twoModes) UGrad(g, x []float64) float64 {
	a := math.Log(0.7) - ((x[0]+5)*(x[0]+5)+x[1]*x[1])/2
	b := math.Log(0.3) - ((x[0]-5)*(x[0]-5)+x[1]*x[1])/2
	top := math.Max(a, b)
	pa, pb := math.Exp(a-top), math.Exp(b-top)
	pa, pb = pa/(pa+pb), pb/(pa+pb)
	if g != nil {
		g[0] = pa*(x[0]+5) + pb*(x[0]-5)
		g[1] = x[1]
	}
	return -top - math.Log(math.Exp(a-top)+math.Exp(b-top))
}

// wrongJumps is a deliberately poor fit of twoModes' modes: centres off
// by 0.4, Hessians 1.6·I and 0.8·I, equal weights. The law must not
// depend on it.
func wrongJumps(t *testing.T, rate float64) *Jumps {
	t.Helper()
	h1 := mat.NewSymDense(2, []float64{1.6, 0, 0, 1.6})
	h2 := mat.NewSymDense(2, []float64{0.8, 0.2, 0.2, 0.8})
	j, err := NewJumps(rate, [][]float64{{-4.6, 0.4}, {5.4, 0}}, []mat.Symmetric{h1, h2}, []float64{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// jumpLaw runs a two-level ladder (τ = 1 and 2, no swaps) of MALA levels
// with jumps drawn from wrongJumps, and returns each level's share of
// draws with θ_0 > 0, its MCSE, and E[θ_1²] with its MCSE.
func jumpLaw(t *testing.T, j *Jumps, steps int) (share, shareSE, m2, m2SE []float64, st Stats) {
	t.Helper()
	var lv []Level
	for _, tau := range []float64{1, 2} {
		lv = append(lv, Level{Tau: tau, Est: energy.Exact{E: twoModes{}}, Eta: langevin.Constant{Step: 0.8}, Metropolis: true, Jumps: j})
	}
	s := mustNew(t, Config{Levels: lv, Seed: 5}, [][]float64{{-5, 0}, {-5, 0}})
	share, shareSE, m2, m2SE = twoModesLaw(t, s, steps)
	return share, shareSE, m2, m2SE, s.Stats()
}

// twoModesLaw steps s, a ladder on twoModes, steps times and returns, from
// the draws past the first 1000, each level's share of draws in the right
// mode (θ_0 > 0) and its E[θ_1²], each with its MCSE.
func twoModesLaw(t *testing.T, s *Sampler, steps int) (share, shareSE, m2, m2SE []float64) {
	t.Helper()
	K := s.Levels()
	right, sq := make([][]float64, K), make([][]float64, K)
	sampleLevels(t, s, 1000, steps-1000, func(l int, x []float64) {
		v := 0.0
		if x[0] > 0 {
			v = 1
		}
		right[l] = append(right[l], v)
		sq[l] = append(sq[l], x[1]*x[1])
	})
	for l := range K {
		share = append(share, stat.Mean(right[l], nil))
		shareSE = append(shareSE, diag.MCSEMean([][]float64{right[l]}))
		m2 = append(m2, stat.Mean(sq[l], nil))
		m2SE = append(m2SE, diag.MCSEMean([][]float64{sq[l]}))
	}
	return share, shareSE, m2, m2SE
}

// TestJumpsKeepTheLaw: MALA levels at τ = 1 and 2 that jump between the
// modes of twoModes by a poor fit of them must give the right mode's
// exact share, 0.3^(1/τ)/(0.7^(1/τ) + 0.3^(1/τ)) (the modes' overlap is
// e^−12.5, below any test's reach), and the exact E[θ_1²] = τ. 2·10⁵
// steps at a jump rate of 0.2 hold some 10⁴ accepted jumps; each estimate
// must lie within the Bonferroni threshold over the 4 comparisons of its
// own MCSE. Without the jumps' density ratio (or with it at τ = 1) the
// poor fit's equal weights and wrong widths bias the share, and without
// jumps the chains never leave the left mode.
func TestJumpsKeepTheLaw(t *testing.T) {
	const steps = 200_000
	zMax := lawThreshold(4)
	share, shareSE, m2, m2SE, st := jumpLaw(t, wrongJumps(t, 0.2), steps)
	for l, tau := range []float64{1, 2} {
		a, b := math.Pow(0.7, 1/tau), math.Pow(0.3, 1/tau)
		want := b / (a + b)
		t.Logf("τ = %g: right mode's share %.4f ± %.4f, exact %.4f; E[θ_1²] %.4f ± %.4f, exact %g; jumps %d, accepted %d", tau, share[l], shareSE[l], want, m2[l], m2SE[l], tau, st.Levels[l].Jumps, st.Levels[l].JumpsAccepted)
		if z := (share[l] - want) / shareSE[l]; !(math.Abs(z) <= zMax) {
			t.Errorf("τ = %g: the right mode's share is %.4f ± %.4f, exact %.4f (%.2f MCSE; allowed %.2f)", tau, share[l], shareSE[l], want, z, zMax)
		}
		if z := (m2[l] - tau) / m2SE[l]; !(math.Abs(z) <= zMax) {
			t.Errorf("τ = %g: E[θ_1²] is %.4f ± %.4f, exact %g (%.2f MCSE; allowed %.2f)", tau, m2[l], m2SE[l], tau, z, zMax)
		}
		// Jumps are drawn at their rate: their count is binomial, within
		// 4 of its sds of rate·steps.
		n, acc := st.Levels[l].Jumps, st.Levels[l].JumpsAccepted
		if mean, sd := 0.2*steps, math.Sqrt(0.2*0.8*steps); !(math.Abs(float64(n)-mean) <= 4*sd) {
			t.Errorf("τ = %g: %d jumps in %d steps at rate 0.2: want %.0f ± %.0f", tau, n, steps, mean, 4*sd)
		}
		if !(acc > n/20 && acc < n) {
			t.Errorf("τ = %g: %d jumps, %d accepted: the test needs many of both", tau, n, acc)
		}
	}
}

func TestJumpsRefused(t *testing.T) {
	h := []mat.Symmetric{mat.NewSymDense(2, []float64{1, 0, 0, 1})}
	for _, c := range []struct {
		rate float64
		hess []mat.Symmetric
		want string
	}{
		{0, h, "rate"},
		{1.5, h, "rate"},
		{0.1, []mat.Symmetric{mat.NewSymDense(2, []float64{1, 2, 2, 1})}, "positive definite"},
	} {
		if _, err := NewJumps(c.rate, [][]float64{{0, 0}}, c.hess, []float64{0}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("rate %v: error %v, want one saying %q", c.rate, err, c.want)
		}
	}
	j := wrongJumps(t, 0.1)
	_, err := New(Config{Levels: []Level{{Tau: 1, Est: energy.Exact{E: twoModes{}}, Eta: langevin.Constant{Step: 0.5}, Jumps: j}}}, [][]float64{{0, 0}})
	if err == nil || !strings.Contains(err.Error(), "Metropolis") {
		t.Errorf("jumps on a level without Metropolis: error %v", err)
	}
}

func TestJumpsAllocs(t *testing.T) {
	s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: energy.Exact{E: twoModes{}}, Eta: langevin.Constant{Step: 0.5}, Metropolis: true, Jumps: wrongJumps(t, 0.5)}}, Seed: 1}, [][]float64{{-5, 0}})
	if a := testing.AllocsPerRun(1000, func() { s.Step() }); a != 0 {
		t.Errorf("%v allocations a step", a)
	}
}

// farMass is exp(−U) = 0.85·N(θ; 0, I) + 0.15·N(θ; (−10, 0), diag(9, 1)):
// a mode and mass 10 of its sds away along θ_0, which a Laplace fit of
// the mode alone puts e^−50 below its centre.
type farMass struct{}

func (farMass) Dim() int { return 2 }
func (farMass) U(x []float64) float64 {
	return farMass{}.UGrad(nil, x)
}
func (farMass) Grad(g, x []float64) { farMass{}.UGrad(g, x) }
func (farMass) UGrad(g, x []float64) float64 {
	a := math.Log(0.85) - (x[0]*x[0]+x[1]*x[1])/2
	d := (x[0] + 10) / 3
	b := math.Log(0.15/3) - (d*d+x[1]*x[1])/2
	top := math.Max(a, b)
	pa, pb := math.Exp(a-top), math.Exp(b-top)
	if g != nil {
		g[0] = (pa*x[0] + pb*d/3) / (pa + pb)
		g[1] = x[1]
	}
	return -top - math.Log(pa+pb)
}

// TestJumpsReachMassTheFitMisses: jumps alone (rate 1, no MALA step)
// from the Laplace fit N(0, I) of farMass's first mode, which knows
// nothing of the mass at θ_0 ≈ −10, must give its exact share of
// θ_0 < −5, 0.85·Φ(−5) + 0.15·Φ(5/3), and its exact mean of θ_0, −1.5,
// each within the Bonferroni threshold over the 2 comparisons of its own
// MCSE. Only the defensive Cauchy part proposes there: with Gaussian
// draws alone the share is 0, some 20 MCSE below.
func TestJumpsReachMassTheFitMisses(t *testing.T) {
	const steps, rate = 200_000, 1.0
	j, err := NewJumps(rate, [][]float64{{0, 0}}, []mat.Symmetric{mat.NewSymDense(2, []float64{1, 0, 0, 1})}, []float64{0})
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: energy.Exact{E: farMass{}}, Eta: langevin.Constant{Step: 0.5}, Metropolis: true, Jumps: j}}, Seed: 3}, [][]float64{{0, 0}})
	far, x0 := make([]float64, 0, steps), make([]float64, 0, steps)
	for range steps {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		x := s.State(0)
		v := 0.0
		if x[0] < -5 {
			v = 1
		}
		far, x0 = append(far, v), append(x0, x[0])
	}
	zMax := lawThreshold(2)
	want := 0.85*distuv.UnitNormal.CDF(-5) + 0.15*distuv.UnitNormal.CDF(5.0/3)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"share of θ_0 < −5", stat.Mean(far, nil), want}, {"mean of θ_0", stat.Mean(x0, nil), -1.5}} {
		se := diag.MCSEMean([][]float64{far})
		if c.name == "mean of θ_0" {
			se = diag.MCSEMean([][]float64{x0})
		}
		t.Logf("%s: %.4f ± %.4f, exact %.4f", c.name, c.got, se, c.want)
		if z := (c.got - c.want) / se; !(math.Abs(z) <= zMax) {
			t.Errorf("%s is %.4f ± %.4f, exact %.4f (%.2f MCSE; allowed %.2f)", c.name, c.got, se, c.want, z, zMax)
		}
	}
	st := s.Stats().Levels[0]
	t.Logf("jumps %d, accepted %d", st.Jumps, st.JumpsAccepted)
	if st.Jumps != steps {
		t.Errorf("%d jumps in %d steps at rate 1", st.Jumps, steps)
	}
}
