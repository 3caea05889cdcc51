package minibatch

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/study"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// Setting is everything a run of one method needs besides the method and
// the seed. It is fixed per problem before any method is compared and
// shared by all of them.
type Setting struct {
	Tau1, Tau2 float64
	Eta        float64 // constant step size of both chains
	NCold      int     // minibatch size of the accurate (cold) estimator
	// SwapA is the swap intensity a: a swap is attempted with probability
	// a·η per step.
	SwapA float64
	// A1 is m-reSGLD's weight on the cold estimator in its swap ratio.
	A1 float64
	// Share and Every set the hot chain's automatic minibatch rule
	// (variance.AutoBatch): its gradient noise is to supply Share of the
	// hot noise budget 2τ2η, re-checked every Every steps. The hot
	// estimator starts at NCold, the size of the rule's pilot draw.
	Share float64
	Every int
	// BurnCost is the number of per-example evaluations discarded before
	// samples are kept; Budgets are the total evaluations (burn-in
	// included, increasing) at which accuracy is measured.
	BurnCost float64
	Budgets  []float64
	Init     []float64
	// Correction is the form of the noise correction of f-reSGLD and
	// corrected-sgld: Diagonal (the study's) or Full.
	Correction exchange.Correction `json:",omitempty"`
	// AnchorScale multiplies the swap-energy study's anchor period (0: 1).
	AnchorScale int `json:",omitempty"`
}

// Accumulator gathers the cold chain's samples and scores them.
type Accumulator interface {
	Add(theta []float64)
	// Score writes the accuracy metrics (smaller is better) into dst.
	Score(dst []float64)
}

// Problem is a posterior with its exact answer and its setting.
type Problem struct {
	Name    string
	Terms   energy.Terms
	Setting Setting
	// Metrics name the scores; Targets are the accuracies (one per metric)
	// whose cost the study reports.
	Metrics []string
	Targets []float64
	NewAcc  func() Accumulator
}

// Estimators are the cold and the hot level's energy estimators of a
// run: each a minibatch of the setting's cold size, drawn on its own.
func (pr Problem) Estimators() (cold, hot *energy.Minibatch, err error) {
	if cold, err = energy.NewMinibatch(pr.Terms, pr.Setting.NCold); err != nil {
		return nil, nil, err
	}
	if hot, err = energy.NewMinibatch(pr.Terms, pr.Setting.NCold); err != nil {
		return nil, nil, err
	}
	return cold, hot, nil
}

// RunResult is one run of one method.
type RunResult struct {
	Method string
	Seed   uint64
	// Score[b][k] is metric k at budget b (NaN if no sample was kept yet).
	Score [][]float64
	Steps int
	// Cost is the per-example evaluations spent (gradient and energy, both
	// chains, variance pilots included); HotCost the hot level's chain
	// work (its gradients and variance pilots, not swap energies, which
	// exchange.Cost keeps apart so the share means the same in every method).
	Cost, HotCost float64
	SwapAttempts  int
	SwapAccepts   int
	// ClampedCold and ClampedHot count steps with a clamped coordinate.
	ClampedCold, ClampedHot int64
	// HotN is the hot chain's minibatch size at the end and its range.
	HotN, HotNLo, HotNHi int
	AutoBelow, AutoAbove int
	// FrozenStep is the last step that adapted (exchange.Frozen.Step: the
	// step whose cost first passed the burn-in) and AutoChecks the
	// automatic minibatch's checks over the whole run, all made by then.
	FrozenStep, AutoChecks int `json:"-"`
}

// meter counts the per-example evaluations a minibatch estimator spends.
type meter struct {
	*energy.Minibatch
	units *float64
}

func (m meter) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	m.Minibatch.Grad(grad, gradVar, theta, rng)
	*m.units += m.GradCost()
}

// Clone gives a level its own minibatch state but keeps counting into the
// same total, so the budget covers every level (reSGLD clones its estimator
// for the hot level).
func (m meter) Clone() energy.Estimator {
	return meter{m.Minibatch.Clone().(*energy.Minibatch), m.units}
}

func (m meter) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u, v := m.Minibatch.Energy(theta, rng)
	*m.units += m.EnergyCost()
	return u, v
}

// CorrectedSGLD names the control the study adds to the paper's four
// methods: one chain at τ1 on the cold estimator with f-reSGLD's noise
// correction (injected noise 2τη − η²ŝ², clamped at 0) and no hot chain. It
// separates what f-reSGLD gains from correcting its cold chain from what it
// gains from exchange.
const CorrectedSGLD exchange.Method = "corrected-sgld"

// Methods are the methods the study compares, in the order it reports them.
var Methods = append(append([]exchange.Method(nil), exchange.Methods...), CorrectedSGLD)

// Run runs method m on problem pr with seed until the last budget.
func Run(pr Problem, m exchange.Method, seed uint64) (RunResult, error) {
	st := pr.Setting
	res := RunResult{Method: string(m), Seed: seed}
	cold, hot, err := pr.Estimators()
	if err != nil {
		return res, err
	}
	var used float64
	eta := langevin.Constant{Step: st.Eta}
	var auto *variance.AutoBatch
	var autoErr error
	setup := exchange.Setup{
		Tau1: st.Tau1, Tau2: st.Tau2, Eta: eta,
		Cold: meter{cold, &used}, Hot: meter{hot, &used},
		HotVar: func() variance.Model {
			auto, autoErr = variance.NewAutoBatch(hot, st.Tau2, eta, variance.AutoOptions{Share: st.Share, Every: st.Every})
			return auto
		},
		A: st.SwapA, A1: st.A1, Seed: seed, Correction: st.Correction,
		// The study runs the paper's swaps, on the levels' own minibatch
		// energies under the penalty rule, as if their noise were Gaussian.
		Energies: exchange.Energies{Gaussian: true},
	}
	var cfg exchange.Config
	if m == CorrectedSGLD {
		cfg = exchange.Config{Levels: []exchange.Level{{Tau: st.Tau1, Est: setup.Cold, Eta: eta, Noise: st.Correction.Policy()}}, Seed: seed}
	} else if cfg, err = m.Config(setup); err != nil {
		return res, err
	}
	if autoErr != nil { // NewAutoBatch runs inside Config, for the cheap-hot methods
		return res, autoErr
	}
	s, err := study.NewLadder(cfg, st.Init)
	if err != nil {
		return res, err
	}
	defer s.Close()
	if res.Score, err = ScoreAtBudgets(s, pr, func() float64 { return used }); err != nil {
		return res, fmt.Errorf("%s, seed %d: %w", m, seed, err)
	}
	stats := s.Stats()
	res.Steps = stats.Steps
	if stats.Frozen != nil {
		res.FrozenStep = stats.Frozen.Step
	}
	res.Cost = used
	res.ClampedCold = stats.Levels[0].ClampedSteps
	if len(stats.Levels) > 1 {
		res.HotCost = stats.Levels[1].Cost.Chain().Units // swap energies apart (see exchange.Cost)
		res.ClampedHot = stats.Levels[1].ClampedSteps
		res.SwapAttempts, res.SwapAccepts = stats.Pairs[0].Attempts, stats.Pairs[0].Accepts
	}
	if auto != nil && len(stats.Levels) > 1 && m != exchange.ReSGLDMethod {
		a := auto.Stats()
		res.HotN, res.HotNLo, res.HotNHi, res.AutoBelow, res.AutoAbove = a.N, a.Lo, a.Hi, a.Below, a.Above
		res.AutoChecks = a.Checks
	} else if len(stats.Levels) > 1 {
		res.HotN, res.HotNLo, res.HotNHi = st.NCold, st.NCold, st.NCold
	}
	return res, nil
}

// ScoreAtBudgets steps s until cost() reaches each of the problem's budgets
// in turn and scores, at each, the cold level's states retained once the
// cost passed the burn-in (NaN scores before any is retained). Every
// adaptation ends at the step whose cost first passes the burn-in
// (FreezeBurnCost); the states after it are retained.
func ScoreAtBudgets(s *exchange.Sampler, pr Problem, cost func() float64) ([][]float64, error) {
	st := pr.Setting
	acc := pr.NewAcc()
	kept := 0
	var scores [][]float64
	burnt := false
	for _, b := range st.Budgets {
		for cost() < b {
			if err := s.Step(); err != nil {
				return scores, err
			}
			if !burnt {
				burnt = FreezeBurnCost(s, cost(), st.BurnCost)
				continue
			}
			acc.Add(s.State(0))
			kept++
		}
		sc := make([]float64, len(pr.Metrics))
		if kept > 0 {
			acc.Score(sc)
		} else {
			for k := range sc {
				sc[k] = math.NaN()
			}
		}
		scores = append(scores, sc)
	}
	return scores, nil
}

// FreezeBurnCost ends the sampler's adaptation (the automatic minibatch,
// running and kernel-ridge variances, swap anchors) once the cost spent has
// passed the burn-in, counted in cost rather than steps: the step just
// taken is then the last that adapts, and it reports true. The state it
// left is the start of the fixed kernel's chain, not a retained draw.
func FreezeBurnCost(s *exchange.Sampler, cost, burn float64) bool {
	if cost <= burn {
		return false
	}
	s.FreezeAfter(s.Steps())
	return true
}
