package exchange

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// TestDiffTermsSwapKeepsLaw checks the exact swap energies computed from a
// linear regression's sufficient statistics (models.LinReg.SumDiff, via
// energy.DiffTerms): on a two-level ladder (τ = 1, 10) whose Langevin steps
// keep the exact tempered laws (eulerExact) and whose cold step is small, so
// that the cold law is set by the swaps, every level's mean and variance
// must lie within the Bonferroni threshold over the 4 comparisons (1%
// family-wise, about 3.0 MCSE) of exact after 200,000 steps with an attempt
// each. Each attempt must cost DiffCost (1 unit at p = 1, half to each
// level), not the 2N of a pass over the data, and the run must make the
// same swaps as one whose data set hides SumDiff and pays the passes.
// (Seeds 1–8 gave errors within 2.85 MCSE, the same with and without
// SumDiff.)
func TestDiffTermsSwapKeepsLaw(t *testing.T) {
	const steps = 200_000
	x := []float64{0.3, -0.5, 0.8, 0.4, -0.2, 0.6}
	y := []float64{1, -0.5, 0.7, 0.2, 0.4, -0.3}
	lr, err := models.NewLinReg(x, y, 1, 1, models.SlabPrior{W: 1, Slab: math.Sqrt(10)})
	if err != nil {
		t.Fatal(err)
	}
	// U(θ) = Σ(y_i − x_iθ)²/2 + θ²/20: curvature h and mode μ.
	h, mu := 0.1, 0.0
	for i := range x {
		h += x[i] * x[i]
		mu += x[i] * y[i]
	}
	mu /= h
	taus := []float64{1, 10}
	ladder := func(terms energy.Terms) *Sampler {
		var lv []Level
		for l, eta := range []float64{0.01, 0.2} {
			lv = append(lv, Level{Tau: taus[l], Est: energy.Exact{E: newEulerExact(h, mu, eta)}, Eta: langevin.Constant{Step: eta}})
		}
		cfg := Config{Levels: lv, Swap: Swap{Rule: FReSGLD}, Seed: 1,
			Energies: Energies{Mode: ExactEnergies, Terms: terms, ExactEvery: 1}}
		s := mustNew(t, cfg, [][]float64{{mu}, {mu}})
		return s
	}
	s := ladder(lr)
	defer s.Close()
	zm, zv, ratio, acc := levelErrors(t, s, taus, h, mu, steps)
	t.Logf("%d swaps; variance/exact %.4f, %.4f; mean errors %.2f, %.2f MCSE, variance errors %.2f, %.2f MCSE", acc, ratio[0], ratio[1], zm[0], zm[1], zv[0], zv[1])
	zMax := lawThreshold(4)
	for l := range taus {
		if !(math.Abs(zm[l]) <= zMax && math.Abs(zv[l]) <= zMax) {
			t.Errorf("level %d: mean off by %.2f MCSE, variance by %.2f (variance/exact %.4f); allowed %.2f", l, zm[l], zv[l], ratio[l], zMax)
		}
	}
	st := s.Stats()
	att := st.Pairs[0].Attempts
	if want := steps + steps/10; att != want {
		t.Errorf("%d attempts, want one a step (%d)", att, want)
	}
	var units float64
	for _, L := range st.Levels {
		units += L.Cost.Energy.Units
	}
	if want := float64(att) * lr.DiffCost(); units != want {
		t.Errorf("swap energies cost %v units for %d attempts, want DiffCost each (%v), not 2N", units, att, want)
	}
	full := ladder(passTerms{lr})
	defer full.Close()
	_, _, _, fullAcc := levelErrors(t, full, taus, h, mu, steps)
	if fullAcc != acc {
		t.Errorf("%d swaps with SumDiff, %d with passes over the data: the exact D differs", acc, fullAcc)
	}
}

// passTerms is a linear regression that does not offer SumDiff, so that
// the exact D is a pass over its data.
type passTerms struct{ lr *models.LinReg }

func (p passTerms) Dim() int                                  { return p.lr.Dim() }
func (p passTerms) Len() int                                  { return p.lr.Len() }
func (p passTerms) Term(grad, theta []float64, i int) float64 { return p.lr.Term(grad, theta, i) }
func (p passTerms) Prior(grad, theta []float64) float64       { return p.lr.Prior(grad, theta) }
