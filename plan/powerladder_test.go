package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/modes"
)

// A ladder of power posteriors with the Gibbs kernel on every level keeps
// the posterior at its cold level: on a regression whose first two
// features nearly repeat each other under a sharp spike (s0 = 0.002, so
// the two one-feature patterns are separated modes), each coefficient's
// Rao–Blackwellised inclusion lies within 4 MCSE of the exact one (MCSE
// over 4 chains, diag.MCSEMean; a normal error beyond 4 has probability
// 6·10⁻⁵) and the chains agree (R̂ ≤ 1.01). The schedule runs from λ = 1
// down to powerMin. Swaps that compared the wrong energies (the shared
// rule's τδ(U(x) − U(y)) on these levels of different energies, or its
// sign turned) would bias the cold level's weights far beyond that.
func TestPowerLadderLaw(t *testing.T) {
	const N, p = 60, 3
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := make([]float64, N*p), make([]float64, N)
	for i := range N {
		s := rng.NormFloat64()
		x[i*p], x[i*p+1], x[i*p+2] = s+0.15*rng.NormFloat64(), s+0.15*rng.NormFloat64(), rng.NormFloat64()
		y[i] = 0.5*s + 0.3*x[i*p+2] + rng.NormFloat64()
	}
	pr := models.SlabPrior{W: 0.5, Spike: 0.002, Slab: 1}
	lr, err := models.NewLinReg(x, y, p, 1, pr)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := lr.Exact()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"a", "b", "c"}
	m := RegressModel(lr, names, pr)
	s, err := modes.SearchModes(m.Terms, make([]float64, p), 1)
	if err != nil {
		t.Fatal(err)
	}
	mp := &ModePlan{Search: s, t: m.Terms, kernel: m.Kernel}
	if mp.Pre, err = modePrecond(s.Modes); err != nil {
		t.Fatal(err)
	}
	lambdas, err := mp.powerSchedule(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(lambdas) < 3 || lambdas[0] != 1 || math.Abs(lambdas[len(lambdas)-1]-powerMin) > 1e-12 {
		t.Fatalf("schedule %v", lambdas)
	}
	for l := 1; l < len(lambdas); l++ {
		if !(lambdas[l] < lambdas[l-1]) {
			t.Fatalf("schedule %v not decreasing", lambdas)
		}
	}
	mp.setLambdas(lambdas)
	const chains, steps = 4, 10_000
	incl := make([][][]float64, p)
	for j := range incl {
		incl[j] = make([][]float64, chains)
	}
	for c := range chains {
		smp, err := mp.Sampler(3, c+1)
		if err != nil {
			t.Fatal(err)
		}
		stepKeep(t, smp, 500, steps, func() {
			for j, b := range smp.State(0) {
				incl[j][c] = append(incl[j][c], pr.Inclusion(b))
			}
		})
	}
	for j := range p {
		sm := diag.Summarize(incl[j])
		se := diag.MCSEMean(incl[j])
		t.Logf("%s: inclusion %.4f, exact %.4f, MCSE %.3g, R̂ %.3f", names[j], sm.Mean, ex.Inclusion[j], se, sm.Rhat)
		if !(math.Abs(sm.Mean-ex.Inclusion[j]) <= 4*se) || !(sm.Rhat <= 1.01) {
			t.Errorf("%s: inclusion %.4f, exact %.4f, MCSE %.3g, R̂ %.3f (λ %v)", names[j], sm.Mean, ex.Inclusion[j], se, sm.Rhat, fmt.Sprintf("%.3g", lambdas))
		}
	}
}
