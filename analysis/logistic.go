package analysis

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// LogisticModel is a Bayesian logistic regression as an analysis model,
// with its fast paths: the Newton mode and Hessian for the curvature, and
// the separable-data check on the posterior means.
//
// Under the spike-and-slab prior the posterior is not log-concave, so the
// model is not handed to the log-concave plan (its Terms hide the Newton
// Mode that makes a PlanModel): the plan searches its modes (SearchModes,
// with the model's exact Hessian) and runs ModePlan. Each coefficient but
// the intercept then has its Rao–Blackwellised inclusion probability as a
// generated quantity, as regress reports it, and the one-mode chain checks
// are off, as for regress.
func LogisticModel(lr *models.Logistic, names []string) plan.Model {
	featureSD := sampledScales(lr.X, lr.Len(), lr.Dim())
	priorSD := lr.Sigma0
	if lr.SpikeSlab() {
		priorSD = lr.Slab.Slab
	}
	m := plan.Model{
		Terms:     lr,
		Names:     names,
		Curvature: func(seed uint64) (plan.Curvature, error) { return logisticCurvature(lr, seed) },
		Check: func(mean []float64) []string {
			return separable(names, mean, featureSD, priorSD)
		},
	}
	if !lr.SpikeSlab() {
		return m
	}
	m.Terms, m.NoChainChecks = slabLogistic{lr}, true
	var in []int // the coefficients with an inclusion probability
	for j, n := range names {
		if j != lr.Intercept {
			m.Generated = append(m.Generated, results.InclusionCol(n))
			in = append(in, j)
		}
	}
	// A coefficient's spike is a basin of width ~s0 about 0, which the
	// random starts of the mode search miss, and which L-BFGS's first steps
	// leap out of from a start at its centre (on two features that each
	// explain the labels, seed 1 found only the modes with both in the
	// slab or the first alone). The search also starts from the posterior
	// modes given the pattern with every coefficient in the slab and given
	// each pattern with one coefficient in the spike: each is at, or next
	// to, a mode of the mixture when that pattern has one.
	m.Starts = func() ([][]float64, error) {
		var starts [][]float64
		for k := -1; k < len(in); k++ {
			slab := make([]bool, lr.Dim())
			for j := range slab {
				slab[j] = k < 0 || j != in[k]
			}
			mode, err := lr.PatternMode(slab)
			if err != nil {
				return nil, err
			}
			starts = append(starts, mode)
		}
		return starts, nil
	}
	m.Generate = func(out, theta []float64) {
		for k, j := range in {
			out[k] = lr.Slab.Inclusion(theta[j])
		}
	}
	// Its own kernel proposes each coefficient inside its spike or at its
	// slab fit, the move between patterns that a MALA step sized for the
	// slab cannot make under a sharp spike. Its tests and swaps read a few
	// examples, not all N (models.ThinnedSlabMove), through the data's
	// expansion about the all-slab pattern's mode, made once for every
	// level and chain (two passes); the point sets only the cost, every
	// mode at large N lying within the posterior's width of it. Where the
	// expansion cannot be made, or its remainder bounds are so loose that
	// its tests would cost more than SlabMove's passes (high-leverage rows,
	// as wdbc's), models.SlabMove reads every example.
	expand := sync.OnceValues(func() (*energy.Expansion, error) {
		slab := make([]bool, lr.Dim())
		for j := range slab {
			slab[j] = true
		}
		mode, err := lr.PatternMode(slab)
		if err != nil {
			return nil, err
		}
		return energy.NewExpansion(lr, mode)
	})
	m.Kernel = func(lambda float64) (exchange.Kernel, energy.Energy) {
		if e, err := expand(); err == nil && lr.ThinnedSlabPays(e) {
			return lr.NewThinnedSlabMove(e, lambda), lr.Power(lambda)
		}
		return lr.NewSlabMove(lambda), lr.Power(lambda)
	}
	m.KernelName = "slab_move"
	m.KernelAbout = func() string {
		s := "Metropolis-within-Gibbs over the coefficients, each proposed inside its spike or at its slab's fit given the others, exact, no step size; "
		e, err := expand()
		if err != nil {
			return s + "its tests read every example (the data's expansion could not be made: " + err.Error() + ")"
		}
		thinned, every := lr.ThinnedSlabCost(e)
		if thinned < every {
			return s + fmt.Sprintf("its tests read a few examples through the data's second-order expansion, predicted at %.3g example scores a coefficient against %.3g reading every example", thinned, every)
		}
		return s + fmt.Sprintf("its tests read every example, predicted at %.3g example scores a coefficient against %.3g through the data's second-order expansion", every, thinned)
	}
	return m
}

// slabLogistic is a spike-and-slab Logistic without its Newton Mode, which
// assumes one mode and would make it a PlanModel: every other method
// passes through.
type slabLogistic struct{ l *models.Logistic }

// Its thinned swaps (energy.CubicTerms) are the logistic regression's.
var _ energy.CubicTerms = slabLogistic{}

func (s slabLogistic) Dim() int                                    { return s.l.Dim() }
func (s slabLogistic) Len() int                                    { return s.l.Len() }
func (s slabLogistic) Term(grad, theta []float64, i int) float64   { return s.l.Term(grad, theta, i) }
func (s slabLogistic) Prior(grad, theta []float64) float64         { return s.l.Prior(grad, theta) }
func (s slabLogistic) Row(i int) []float64                         { return s.l.Row(i) }
func (s slabLogistic) Slopes(d, theta []float64, idx []int32)      { s.l.Slopes(d, theta, idx) }
func (s slabLogistic) U(theta []float64) float64                   { return s.l.U(theta) }
func (s slabLogistic) Grad(grad, theta []float64)                  { s.l.Grad(grad, theta) }
func (s slabLogistic) UGrad(grad, theta []float64) float64         { return s.l.UGrad(grad, theta) }
func (s slabLogistic) Touch(idx []int32) float64                   { return s.l.Touch(idx) }
func (s slabLogistic) Hessian(h *mat.SymDense, theta []float64)    { s.l.Hessian(h, theta) }
func (s slabLogistic) Derivs(i int, z float64) (f, f1, f2 float64) { return s.l.Derivs(i, z) }
func (s slabLogistic) ThirdBound() float64                         { return s.l.ThirdBound() }
func (s slabLogistic) EnergyOn(theta []float64, rows []int32) float64 {
	return s.l.EnergyOn(theta, rows)
}
