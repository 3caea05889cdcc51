package exchange

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// TestSwapEnergyMoments checks m-reSGLD's combination of swap energies in
// the minibatch data modes (a₁ and 1 − a₁ on the differences, a₁² and
// (1 − a₁)² on the variances), and reSGLD's (both states at the colder
// level's size), and f-reSGLD's (both states at the mean size), by the first
// two moments at a fixed pair of states: the mean of D̂ is U(x) − U(y), its
// variance and the mean of the screen's V̂ (the draws' own spread) are the
// exact variance enumerated from the data (comps). The T draws are
// independent; every comparison allows 4 standard errors of
// its own T draws (for the sample variance, √((m₄ − s⁴)/T)). a₁ = 0.3 and
// energy sizes 3 and 2 make the two weights and the two levels' variances
// differ.
func TestSwapEnergyMoments(t *testing.T) {
	const T, n0, n1, a1, tau1, tau2 = 4000, 3, 2, 0.3, 1.0, 4.0
	const x, y = 0.6, 0.0
	td := 1/tau1 - 1/tau2
	mb := func(o outlierTerms, n int) *energy.Minibatch {
		m, err := energy.NewMinibatch(o, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetEnergySize(n); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		rule Rule
		mode EnergyMode
	}{
		{MReSGLD, MinibatchEnergies}, {MReSGLD, CVEnergies}, {MReSGLD, PairEnergies}, {MReSGLD, PairCVEnergies},
		{ReSGLD, MinibatchEnergies}, {ReSGLD, CVEnergies},
		{MReSGLD, TaylorEnergies}, {MReSGLD, PairTaylorEnergies},
		{FReSGLD, MinibatchEnergies}, {FReSGLD, TaylorEnergies}, {FReSGLD, PairEnergies},
	} {
		rule, mode := c.rule, c.mode
		o := termsFor(mode)
		D := energy.Sum(o, []float64{x}) - energy.Sum(o, []float64{y})
		ax, ay := x+0.4, y-0.3
		s, err := New(Config{Levels: []Level{
			{Tau: tau1, Est: mb(o, n0), Eta: langevin.Constant{Step: 0.01}},
			{Tau: tau2, Est: mb(o, n1), Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: rule, PerStep: true, A1: a1}, Seed: 11,
			Energies: Energies{Mode: mode, Terms: o}}, [][]float64{{ax}, {ay}})
		if err != nil {
			t.Fatal(err)
		}
		var vExact float64
		for _, k := range comps(o, rule, mode, a1, x, y, ax, ay, n0, n1) {
			vExact += k.variance()
		}
		ds, vs := make([]float64, T), make([]float64, T)
		for i := range T {
			lr, noise, err := s.LogRatioNoise(0, []float64{x}, []float64{y})
			if err != nil {
				t.Fatal(err)
			}
			ds[i], vs[i] = lr/td, 2*noise/(td*td)
		}
		md, sd2, m4 := moments(ds)
		mv, vv, _ := moments(vs)
		if tol := 4 * math.Sqrt(vExact/T); !(math.Abs(md-D) <= tol) {
			t.Errorf("%v/%v: mean D̂ %.5f, want U(x) − U(y) = %.5f ± %.5f", rule, mode, md, D, tol)
		}
		if tol := 4 * math.Sqrt((m4-sd2*sd2)/T); !(math.Abs(sd2-vExact) <= tol) {
			t.Errorf("%v/%v: variance of D̂ %.5f, exact %.5f ± %.5f", rule, mode, sd2, vExact, tol)
		}
		if tol := 4 * math.Sqrt(vv/T); !(math.Abs(mv-vExact) <= tol) {
			t.Errorf("%v/%v: mean V̂ %.5f, exact variance %.5f ± %.5f", rule, mode, mv, vExact, tol)
		}
	}
}

// moments returns the mean, the variance (divisor n) and the fourth central
// moment of xs.
func moments(xs []float64) (mean, v, m4 float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		d := (x - mean) * (x - mean)
		v += d
		m4 += d * d
	}
	return mean, v / float64(len(xs)), m4 / float64(len(xs))
}
