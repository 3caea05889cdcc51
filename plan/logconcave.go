package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/modes"
)

// The pilot of the default log-concave plan.
const (
	// planHessianWork bounds N·p², the work of the Hessian at the mode: above
	// it, the Hessian of a random subset of ⌈planHessianWork/p²⌉ examples
	// (models.Logistic.Mode), whose error, of order √(p/m), leaves the
	// Hessian in φ within a few per cent of I.
	planHessianWork = 5e8
	// spreadPoints and spreadRows are CVSpread's draws: points of the
	// Laplace approximation and examples at each.
	spreadPoints, spreadRows = 8, 2000
	// malaRounds of malaRoundSteps tune the MALA step towards MALAAccept
	// from MALAStep(p), each multiplying it by exp(3(a − MALAAccept)); the
	// last round's acceptance is the one reported and used.
	malaRounds, malaRoundSteps = 6, 100
	// startScale spreads the chains' starts: θ̂ + startScale·R⁻ᵀz,
	// z ~ N(0, I); at 1 each start is a draw from the Laplace
	// approximation, at its own spread, so that R̂ compares chains that
	// came from different places.
	startScale = 1
)

// PlanModel is what the plan needs of a model: its terms (control
// variates), its exact energy and gradient (MALA) and its mode with the
// Hessian there, from the Hessian of the listed examples (all of them, or
// a random subset on large data; models.Logistic.Mode).
type PlanModel interface {
	energy.Terms
	energy.Energy
	Mode(init []float64, rows []int, maxIter int) ([]float64, *mat.SymDense, error)
}

// LogConcave is the default plan for a log-concave posterior such as a
// logistic regression's, which is unimodal: one chain per requested chain
// (a hot chain could only idle), each stepping in the coordinates φ = Rᵀθ
// where the Hessian at the mode is I, on the gradients GradRule chooses.
type LogConcave struct {
	Mode   []float64
	Pre    *langevin.Precond
	Choice GradChoice
	// Eta is the step in φ: CVEta, or the tuned MALA step.
	Eta float64
	// Accept is the MALA pilot's last acceptance rate (1 under control
	// variates, which accept every step).
	Accept float64
	t      energy.Terms
	cv     *energy.CVGrad
	// why, when set, ends Note: why the plan chose this over NUTS.
	why string
	// dispersed starts the chains over-dispersed across the region a
	// mode search covered (dispersedStart), where one ran.
	dispersed bool
	// stepSeconds is the wall seconds a MALA step took while the step
	// was tuned (0 under control variates, which tune nothing).
	stepSeconds float64
}

// NewLogConcave finds the mode and the Hessian there, the preconditioner,
// measures the control-variate spread and applies GradRule; under MALA it
// tunes the step on a pilot chain from the mode.
func NewLogConcave(lr PlanModel, seed uint64) (*LogConcave, error) {
	return newLogConcave(lr, seed, nil)
}

// newLogConcave is NewLogConcave saying what it does on status, and
// stopping with it (nil: neither).
func newLogConcave(lr PlanModel, seed uint64, status *Status) (*LogConcave, error) {
	N, p := lr.Len(), lr.Dim()
	rows := make([]int, N)
	for i := range rows {
		rows[i] = i
	}
	if m := int(math.Ceil(planHessianWork / float64(p*p))); m < N {
		rows = rand.New(rand.NewPCG(seed, 1<<42)).Perm(N)[:m]
	}
	mode, h, err := lr.Mode(make([]float64, p), rows, 100)
	if err != nil {
		return nil, fmt.Errorf("posterior mode: %w", err)
	}
	if err := status.Stopped(); err != nil {
		return nil, err
	}
	return newLogConcaveAt(lr, mode, h, seed, status)
}

// newLogConcaveAt is the plan for the terms t whose one mode is mode, with
// the Hessian h there; it stops, with ErrInterrupted, when status's
// context is cancelled.
func newLogConcaveAt(t energy.Terms, mode []float64, h mat.Symmetric, seed uint64, status *Status) (*LogConcave, error) {
	N, p := t.Len(), t.Dim()
	pre, err := langevin.NewPrecond(h)
	if err != nil {
		return nil, fmt.Errorf("Hessian at the mode: %w", err)
	}
	ch, mala := MALAWins(N, p)
	if !mala {
		s2, err := CVSpread(t, mode, pre, spreadPoints, spreadRows, seed)
		if err != nil {
			return nil, err
		}
		if ch, err = GradRule(GradInput{N: N, P: p, S2: s2}); err != nil {
			return nil, err
		}
	}
	lc := &LogConcave{Mode: mode, Pre: pre, Choice: ch, t: t, Eta: CVEta, Accept: 1}
	if ch.CV {
		if lc.cv, err = energy.NewCVGrad(t, mode, ch.Batch); err != nil {
			return nil, err
		}
		return lc, nil
	}
	lc.Eta = MALAStep(p)
	began := time.Now()
	defer func() { lc.stepSeconds = time.Since(began).Seconds() / (malaRounds * malaRoundSteps) }()
	for r := range malaRounds {
		status.Set("one mode found; tuning MALA's step there: round %d of %d, %d steps each", r+1, malaRounds, malaRoundSteps)
		s, err := exchange.New(exchange.Config{Levels: []exchange.Level{lc.level(lc.Eta)}, Seed: exchange.ChainSeed(seed, 0)}, [][]float64{mode})
		if err != nil {
			return nil, err
		}
		for range malaRoundSteps {
			if err := status.Stopped(); err != nil {
				return nil, err
			}
			if err := s.Step(); err != nil {
				return nil, fmt.Errorf("MALA pilot: %w", err)
			}
		}
		st := s.Stats()
		lc.Accept = float64(st.Levels[0].Accepted) / malaRoundSteps
		lc.Eta *= math.Exp(3 * (lc.Accept - MALAAccept))
	}
	lc.Eta /= math.Exp(3 * (lc.Accept - MALAAccept)) // the step last measured
	return lc, nil
}

// level is one chain's level at step eta.
func (lc *LogConcave) level(eta float64) exchange.Level {
	if lc.cv != nil {
		return exchange.Level{Tau: 1, Est: lc.cv.Clone(), Eta: langevin.Constant{Step: eta}, Precond: lc.Pre}
	}
	return exchange.Level{Tau: 1, Est: energy.Exact{E: modes.Energy(lc.t)}, Eta: langevin.Constant{Step: eta}, Precond: lc.Pre, Metropolis: true}
}

// Start is chain id's starting point θ̂ + startScale·R⁻ᵀz, z ~ N(0, I) from
// the chain's own stream.
func (lc *LogConcave) Start(seed uint64, id int) []float64 {
	rng := rand.New(rand.NewPCG(exchange.ChainSeed(seed, id), 1<<44))
	if lc.dispersed {
		e := modes.Energy(lc.t)
		return dispersedStart(e, lc.Mode, e.U(lc.Mode), lc.Pre, rng, id)
	}
	z := make([]float64, len(lc.Mode))
	for j := range z {
		z[j] = startScale * rng.NormFloat64()
	}
	lc.Pre.Color(z)
	for j, m := range lc.Mode {
		z[j] += m
	}
	return z
}

// StartDistance bounds the starts' distance from the mode in posterior sds
// (in φ): startScale·(√p + 3), which |startScale·z| exceeds with
// probability below 1%.
func (lc *LogConcave) StartDistance() float64 {
	if lc.dispersed {
		return dispersedDistance(len(lc.Mode))
	}
	return startScale * (math.Sqrt(float64(len(lc.Mode))) + 3)
}

// Rate is ηλ_min in φ, 1 − ρ of the slowest direction (λ_min = 1 at the
// mode): η under control variates, the accepted share of the MALA step,
// a·h, under MALA (see MALAIAT). The run-length rule takes it with
// λ_min = 1.
func (lc *LogConcave) Rate() float64 { return lc.Eta * lc.Accept }

// StepCost is a step's cost in example-gradients: 2n or N.
func (lc *LogConcave) StepCost() int {
	if lc.cv != nil {
		return 2 * lc.Choice.Batch
	}
	return lc.t.Len()
}

// Sampler is chain id's sampler, from its start, on streams of its own.
func (lc *LogConcave) Sampler(seed uint64, id int) (*exchange.Sampler, error) {
	return exchange.New(exchange.Config{Levels: []exchange.Level{lc.level(lc.Eta)}, Seed: exchange.ChainSeed(seed, id)}, [][]float64{lc.Start(seed, id)})
}

// Note is the plan's line for the output: the sampler and why.
func (lc *LogConcave) Note() string {
	s := lc.Choice.Rule
	if !lc.Choice.CV {
		s += fmt.Sprintf("; step h = %.3g in those coordinates, acceptance %.2f on the pilot", lc.Eta, lc.Accept)
	}
	return s + lc.why
}

// SingleChainNote says why the default runs no ladder, and how to ask for
// one.
const SingleChainNote = "one chain per --chains, no hot chain: a logistic regression's posterior is log-concave, so unimodal, and a ladder's hot chain would only idle (for a ladder, give --method fresgld)"

// PlanESS is the bulk ESS a chain the plan's run length aims at: split-R̂
// over a hundred coefficients stays below 1.01 only with some 400
// effective draws a chain (its spread about 1 falls as 1/ESS; at 160 a
// chain the largest of 101 was 1.013–1.015 on the synthetic sets of
// BENCHMARKS.md), and the plan's steps are cheap.
const PlanESS = 400

// PlanKeep is the plan's draws kept a chain unless asked for more or
// fewer: Stan's default. The run length aims at PlanESS whatever the
// draws kept (thinning the rest), so more draws would add only the work
// done per draw (lp__, the chain files, the summaries and figures), which
// on large data exceeds the sampling itself.
const PlanKeep = 1000

// planBurnBias is the distance from the mode, in posterior sds along the
// slowest direction, at which the burn-in ends.
const planBurnBias = 0.1

// RunLength is the plan's burn-in and thinning for keep draws a chain, by
// the run-length rule in φ: the slowest direction has ρ = 1 − Rate() and
// τ_int = (1 + ρ)/(1 − ρ) steps; thin = ⌈PlanESS·τ_int/keep⌉, burn the
// least with ρ^burn·D ≤ planBurnBias, D = StartDistance().
func (lc *LogConcave) RunLength(keep int) (burn, thin int, iat float64) {
	rho := 1 - lc.Rate()
	iat = (1 + rho) / (1 - rho)
	thin = max(1, int(math.Ceil(PlanESS*iat/float64(keep))))
	burn = int(math.Ceil(math.Log(lc.StartDistance()/planBurnBias) / -math.Log(rho)))
	return burn, thin, iat
}

// StepSeconds is the wall seconds a step took while MALA's step was tuned.
func (lc *LogConcave) StepSeconds() float64 { return lc.stepSeconds }

// Algorithm is the sampler's name in the chain CSVs.
func (lc *LogConcave) Algorithm() string {
	if lc.cv != nil {
		return "preconditioned_sgld_control_variates_unadjusted"
	}
	return "preconditioned_mala"
}

// SDBias is 0 under MALA; under control variates the Euler step's
// (1 − η/2)^{−1/2} − 1 plus the gradient noise's (1 + heat)^{1/2} − 1, on
// a Gaussian posterior in φ.
func (lc *LogConcave) SDBias() float64 {
	if lc.cv == nil {
		return 0
	}
	return 1/math.Sqrt(1-lc.Eta/2) - 1 + math.Sqrt(1+lc.Choice.Heat) - 1
}

// Step is the chain's step in φ.
func (lc *LogConcave) Step() float64 { return lc.Eta }
