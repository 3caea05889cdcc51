package minibatch

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
)

// The settings below are fixed by rules stated before any method is run,
// the same for every method:
//
//   - temperatures τ1 = 1 (the posterior) and τ2 = 4;
//   - a constant step η = 0.2/λ_max, λ_max the largest eigenvalue of the
//     Hessian of U at the mode the chains start from: the Langevin
//     discretisation then inflates the stiffest direction's variance by
//     1/(1 − ηλ_max/2) ≈ 1.11 at most, and far less elsewhere;
//   - the cold minibatch n = ⌈N/10⌉;
//   - swap attempts with probability a·η = 0.1 per step (about every tenth
//     step), each attempt paying its energy evaluations;
//   - the hot chain's automatic n: gradient noise 90% of its budget 2τ2η,
//     re-checked every 100 steps, n ≥ 2;
//   - burn-in: the cost of max(1000, ⌈5/(ηλ_min)⌉) cold SGLD steps (five
//     relaxation times of the slowest direction of the Laplace
//     approximation), discarded by every method at the same cost;
//   - budgets: Points geometric values from 3× to 300× the burn-in cost.
const (
	Tau1, Tau2  = 1.0, 4.0
	StepFactor  = 0.2
	SwapPerStep = 0.1
	HotShare    = 0.9
	HotEvery    = 100
	MReSGLDA1   = 0.5
)

// Size scales a study: the number of budget points and the largest budget
// as a multiple of the burn-in cost.
type Size struct {
	Points int
	Max    float64
}

// Full is the study's size; Smoke is for the end-to-end test.
var (
	Full  = Size{Points: 11, Max: 300}
	Smoke = Size{Points: 2, Max: 4}
)

// settingFor derives the step, burn-in and budgets from the Laplace
// approximation of e at the mode reached from init.
func settingFor(e energy.Energy, N int, init []float64, sz Size) (Setting, float64, float64, error) {
	_, lmin, lmax, err := mala.Curvature(e, init)
	if err != nil {
		return Setting{}, 0, 0, err
	}
	eta := StepFactor / lmax
	ncold := (N + 9) / 10
	burnSteps := max(1000, int(math.Ceil(5/(eta*lmin))))
	burn := float64(burnSteps * ncold)
	st := Setting{
		Tau1: Tau1, Tau2: Tau2, Eta: eta, NCold: ncold, SwapA: SwapPerStep / eta, A1: MReSGLDA1,
		Share: HotShare, Every: HotEvery, BurnCost: burn, Init: init,
	}
	lo, hi := 3*burn, sz.Max*burn
	for k := 0; k < sz.Points; k++ {
		st.Budgets = append(st.Budgets, math.Round(lo*math.Pow(hi/lo, float64(k)/float64(sz.Points-1))))
	}
	return st, lmin, lmax, nil
}

// termsEnergy is the full energy of a Terms, for the Laplace approximation.
type termsEnergy struct {
	energy.Terms
	g []float64
}

func (t termsEnergy) U(theta []float64) float64 {
	u := t.Prior(nil, theta)
	for i := 0; i < t.Len(); i++ {
		u += t.Term(nil, theta, i)
	}
	return u
}

func (t termsEnergy) Grad(grad, theta []float64) {
	t.Prior(grad, theta)
	for i := 0; i < t.Len(); i++ {
		t.Term(t.g, theta, i)
		for j, v := range t.g {
			grad[j] += v
		}
	}
}

// WellingTeh grid and bins: cells of 0.025 for the exact posterior, TV on
// bins of 0.5 × 0.5.
const (
	WTCellsX, WTCellsY = 280, 360
	WTBinsX, WTBinsY   = 14, 18
	// WTTarget is the TV the study asks each method to reach.
	WTTarget = 0.1
)

// WellingTehProblem is the Welling–Teh posterior, both chains started at
// its mode with θ2 < 0, scored by TV against the exact posterior.
func WellingTehProblem(sz Size) (Problem, error) {
	w := models.PaperWellingTeh()
	e := termsEnergy{Terms: w, g: make([]float64, 2)}
	st, _, _, err := settingFor(e, w.Len(), []float64{1.3, -1.6}, sz)
	if err != nil {
		return Problem{}, err
	}
	st.Init, _, _ = mala.Laplace(e, st.Init)
	g := w.Posterior(Tau1, WTCellsX, WTCellsY)
	return Problem{
		Name: "welling-teh", Terms: w, Setting: st,
		Metrics: []string{"TV"}, Targets: []float64{WTTarget},
		NewAcc: func() Accumulator { return &grid2D{g: g, bx: WTBinsX, by: WTBinsY} },
	}, nil
}

// LRTargets are the errors the study asks each method to reach on the
// breast-cancer posterior: RMS mean error 0.1 posterior sd, RMS relative
// sd error 10%.
var LRTargets = []float64{0.1, 0.1}

// BreastCancerProblem is logistic regression on the breast-cancer data,
// both chains started at the prior mean 0, scored against ref.
func BreastCancerProblem(ref Reference, sz Size) (Problem, error) {
	l, _, err := BreastCancer()
	if err != nil {
		return Problem{}, err
	}
	if len(ref.Mean) != l.Dim() {
		return Problem{}, fmt.Errorf("reference of dimension %d for a %d-dimensional problem", len(ref.Mean), l.Dim())
	}
	st, _, _, err := settingFor(l, l.Len(), make([]float64, l.Dim()), sz)
	if err != nil {
		return Problem{}, err
	}
	st.Init = make([]float64, l.Dim())
	return Problem{
		Name: "breast-cancer", Terms: l, Setting: st,
		Metrics: []string{"mean error", "sd error"}, Targets: LRTargets,
		NewAcc: func() Accumulator { return newMoments(ref) },
	}, nil
}
