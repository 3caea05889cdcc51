package plan

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/modes"
)

// The plan of a posterior with several modes (ModePlan).
const (
	// planBarrier is the barrier, in nats at the level's temperature, that
	// a preconditioned MALA chain crosses on its own within a run: e^−1.5
	// ≈ 0.22, a few attempts at the ridge. Above it the plan adds hot
	// levels up to τ = barrier/planBarrier, where the hottest level sees
	// the barrier at planBarrier.
	planBarrier = 1.5
	// planSpacing sets the ladder's temperature ratio 1 + planSpacing/√p:
	// the energy's sd at temperature τ is about τ√(p/2), so adjacent
	// levels then overlap enough for swaps to pass about a third of the
	// time (Predescu et al. 2004).
	planSpacing = 2
	// planSwapRate is the chance per step that a pair is offered a swap: a
	// swap costs nothing on exact energies (the levels hold U of their
	// states), but each accepted one costs each level a pass at its next
	// step (its gradient belongs to the state it left).
	planSwapRate = 0.2
	// PilotChains of PilotSteps measure the run's integrated
	// autocorrelation time, each from one of the heaviest modes in turn.
	PilotChains, PilotSteps = 4, 2500
	// planMaxIAT bounds the steps per effective draw the run is planned
	// for: beyond it the plan says the run did not mix and R̂ will say so.
	planMaxIAT = 2000
	// JumpRate is the share of each MALA level's steps that are jumps
	// between the modes found (exchange.Jumps): a jump costs what a MALA
	// step does, so the steps within a mode slow by a tenth at most, while
	// a chain whose step suits the narrowest mode is offered a move to
	// every other mode some tenth of the time.
	JumpRate = 0.1
)

// ModePlan is the default plan for a posterior whose modes are found by a
// search (SearchModes) and which has more than one: every level a
// Metropolis-adjusted, preconditioned Langevin chain (MALA) on exact
// energies, and a ladder of such levels only where a barrier between the
// modes is too high for one to cross; or, for a model with a kernel of its
// own (Model.Kernel), that kernel, on a ladder of power posteriors where
// that pays (planKernel).
//
// The preconditioner is H = Σ_k w_k H_k, the modes' Hessians averaged by
// their Laplace weights. It removes every stiffness the modes share (the
// data's correlations) and, for a spike-and-slab prior, the spike's: a
// coefficient in the spike has curvature 1/s0² plus the data's, in the
// slab the data's alone, and the average sits between the two, so in the
// whitened coordinates neither differs from 1 by more than their ratio,
// where a step set by the stiffest direction was slower by the whole
// condition number. Averaging the covariances H_k⁻¹ instead would let the
// slab's large variances set the scale, and a coefficient in the spike
// would be stiff by the square of the ratio of the sds. The between-mode
// spread is left out of H: the chain crosses by the ladder or by the
// Metropolis step, and folding it in would shrink the step inside every
// mode.
type ModePlan struct {
	Search *modes.ModeSearch
	Pre    *langevin.Precond
	// Taus are the levels' temperatures, cold first; Etas their steps in
	// the whitened coordinates, tuned towards MALAAccept; Accept the
	// acceptance each reached on its pilot.
	Taus, Etas, Accept []float64
	// IAT is the pilot's steps per effective draw of the slowest of the
	// coordinates and generated quantities (bulk ESS over PilotChains).
	IAT float64
	// SwapAccept is the pilot's swap acceptance, cold pair (NaN for one
	// level).
	SwapAccept  float64
	t           energy.Terms
	kernel      func(lambda float64) (exchange.Kernel, energy.Energy)
	forced      bool // one level, as the user asked (--levels 1)
	kernelName  string
	kernelAbout func() string
	// Lambdas are the powers of the likelihood of a ladder of the model's
	// own kernels (Taus = 1/Lambdas), cold first; nil under MALA.
	Lambdas []float64
	// OneLevelIAT is the pilot's IAT of the kernel on one level, when the
	// plan tried a ladder of power posteriors against it.
	OneLevelIAT float64
	status      *Status
	// jumps are each MALA level's jumps between the modes (modeJumps).
	jumps []*exchange.Jumps
	// stepSeconds is a chain's wall seconds a step in the pilot (0:
	// unmeasured, as where the model's own kernel was piloted).
	stepSeconds float64
}

// NewModePlan plans the run on the modes s of m: the preconditioner, the
// ladder, each level's step, and the pilot that measures how fast the
// planned chain mixes.
func NewModePlan(m Model, s *modes.ModeSearch, seed uint64, oneLevel bool) (*ModePlan, error) {
	return newModePlan(m, s, seed, oneLevel, nil)
}

// newModePlan is NewModePlan saying what it does on status (nil: not).
func newModePlan(m Model, s *modes.ModeSearch, seed uint64, oneLevel bool, status *Status) (*ModePlan, error) {
	var err error
	mp := &ModePlan{Search: s, t: m.Terms, SwapAccept: math.NaN(), kernel: m.Kernel, forced: oneLevel, kernelName: m.KernelName, kernelAbout: m.KernelAbout, status: status}
	if mp.Pre, err = modePrecond(s.Modes); err != nil {
		return nil, err
	}
	if mp.kernel != nil {
		if mp.kernelName == "" {
			mp.kernelName = "kernel"
		}
		if mp.kernelAbout == nil {
			mp.kernelAbout = func() string { return "the model's Kernel" }
		}
		return mp, mp.planKernel(m, seed, oneLevel)
	}
	// The ladder is sized from the segments' barrier, an upper bound, not
	// from the lower one along the lowest path (PathBarrier): sized from
	// the pass, the galaxies mixture's ladder ran 1–4 levels where the
	// segments' ran 6–10, at half the cost, and 3 of 5 runs warned that
	// their chains had not crossed (docs/experiments/tempering.md). The energy of the pass
	// leaves out how narrow it is.
	mp.Taus = []float64{1}
	if !oneLevel {
		mp.Taus = LadderTaus(s.BarrierAbove(modes.ModeWeight), m.Terms.Dim())
	}
	if mp.jumps, err = modeJumps(s.Modes, mp.Taus); err != nil {
		return nil, err
	}
	for l, tau := range mp.Taus {
		status.Set("%d modes found; tuning the step of level %d of %d", len(s.Modes), l+1, len(mp.Taus))
		eta, acc, err := mp.tune(tau, seed)
		if err != nil {
			return nil, err
		}
		mp.Etas, mp.Accept = append(mp.Etas, eta), append(mp.Accept, acc)
	}
	return mp, mp.pilot(m, seed)
}

// modePrecond is the preconditioner of Σ_k w_k H_k.
func modePrecond(modes []modes.Mode) (*langevin.Precond, error) {
	var h mat.SymDense
	h.ReuseAsSym(modes[0].H.SymmetricDim())
	for _, m := range modes {
		h.AddSym(&h, scaledSym(m.Weight, m.H))
	}
	return langevin.NewPrecond(&h)
}

func scaledSym(f float64, a *mat.SymDense) *mat.SymDense {
	var s mat.SymDense
	s.ScaleSym(f, a)
	return &s
}

// LadderTaus are the temperatures for a barrier of b nats in p
// dimensions: 1 alone when b ≤ planBarrier, else geometric from 1 to
// b/planBarrier with ratio at most 1 + planSpacing/√p.
func LadderTaus(b float64, p int) []float64 {
	if b <= planBarrier {
		return []float64{1}
	}
	top := b / planBarrier
	k := 1 + int(math.Ceil(math.Log(top)/math.Log1p(planSpacing/math.Sqrt(float64(p)))))
	taus := make([]float64, k)
	for l := range taus {
		taus[l] = math.Pow(top, float64(l)/float64(k-1))
	}
	return taus
}

// energyFor is an exact energy for one chain: the model's own when it has
// one (safe for concurrent use, as Terms are), else a full pass of its own
// (energy.Full keeps buffers).
func (mp *ModePlan) energyFor() energy.Energy { return modes.Energy(mp.t) }

// levels are one chain's levels, sharing one energy (so that exact swaps
// read the energies the levels hold).
func (mp *ModePlan) levels(etas []float64) []exchange.Level {
	if mp.kernel != nil {
		return mp.kernelLevels(mp.Lambdas)
	}
	est := energy.Exact{E: mp.energyFor()}
	lv := make([]exchange.Level, len(mp.Taus))
	for l, tau := range mp.Taus {
		lv[l] = exchange.Level{Tau: tau, Est: est, Eta: langevin.Constant{Step: etas[l]}, Precond: mp.Pre, Metropolis: true, Jumps: mp.jumps[l]}
	}
	return lv
}

// modeJumps are each level's jumps between the modes: their Laplace
// approximations at the level's τ, weighted as the tempered posterior
// weighs them, e^(−U_k/τ)·det(H_k)^(−1/2).
func modeJumps(modes []modes.Mode, taus []float64) ([]*exchange.Jumps, error) {
	means := make([][]float64, len(modes))
	hess := make([]mat.Symmetric, len(modes))
	logDet := make([]float64, len(modes))
	for k, m := range modes {
		var ch mat.Cholesky
		if !ch.Factorize(m.H) {
			return nil, fmt.Errorf("mode %d: its Hessian is not positive definite", k+1)
		}
		means[k], hess[k], logDet[k] = m.Theta, m.H, ch.LogDet()
	}
	var out []*exchange.Jumps
	for _, tau := range taus {
		logW := make([]float64, len(modes))
		for k, m := range modes {
			logW[k] = -m.U/tau - logDet[k]/2
		}
		j, err := exchange.NewJumps(JumpRate, means, hess, logW)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// tune is the MALA step at temperature tau, as LogConcave tunes it: rounds
// from the heaviest mode, each scaling the step by exp(3(a − MALAAccept)).
func (mp *ModePlan) tune(tau float64, seed uint64) (eta, acc float64, err error) {
	p := mp.t.Dim()
	eta = MALAStep(p)
	est := energy.Exact{E: mp.energyFor()}
	for range malaRounds {
		lv := exchange.Level{Tau: tau, Est: est, Eta: langevin.Constant{Step: eta}, Precond: mp.Pre, Metropolis: true}
		s, err := exchange.New(exchange.Config{Levels: []exchange.Level{lv}, Seed: exchange.ChainSeed(seed, 0)}, [][]float64{mp.Search.Modes[0].Theta})
		if err != nil {
			return 0, 0, err
		}
		for range malaRoundSteps {
			if err := mp.status.Stopped(); err != nil {
				return 0, 0, err
			}
			if err := s.Step(); err != nil {
				return 0, 0, fmt.Errorf("MALA pilot at τ = %.3g: %w", tau, err)
			}
		}
		acc = float64(s.Stats().Levels[0].Accepted) / malaRoundSteps
		eta *= math.Exp(3 * (acc - MALAAccept))
	}
	return eta / math.Exp(3*(acc-MALAAccept)), acc, nil
}

// config is one chain's ladder.
func (mp *ModePlan) config(seed uint64) exchange.Config {
	if mp.kernel != nil {
		return kernelConfig(mp.kernelLevels(mp.Lambdas), seed)
	}
	return exchange.Config{Levels: mp.levels(mp.Etas), Seed: seed, Swap: exchange.Swap{Rule: exchange.Exact, A: swapIntensity(mp.Etas)}}
}

// swapIntensity is a = planSwapRate/η_0, which offers the cold pair a swap
// with probability planSwapRate a step, unless a level that starts a pair
// (every one but the hottest) has a step above 1/a: the pair (l, l+1) is
// offered a swap with probability a·η_l, which must not exceed 1, so a is
// then 1/max η_l. A hot level's MALA step, tuned on a flatter target, can
// be more than 1/planSwapRate times the cold one's (the spike-and-slab
// logistic posterior of wdbc: 0.336 against 0.0626), where a = planSwapRate/η_0
// made the run fail.
func swapIntensity(etas []float64) float64 {
	m := etas[0]
	for _, e := range etas[:max(1, len(etas)-1)] {
		m = max(m, e)
	}
	return min(planSwapRate/etas[0], 1/m)
}

// Start is chain id's start: one of the modes in turn, heaviest first,
// plus startScale·R⁻ᵀz in the plan's preconditioner, z from the chain's
// own stream; each hotter level starts at the next mode.
func (mp *ModePlan) Start(seed uint64, id int) [][]float64 {
	rng := rand.New(rand.NewPCG(exchange.ChainSeed(seed, id), 1<<44))
	modes := mp.Search.Modes
	init := make([][]float64, len(mp.Taus))
	if mp.kernel == nil {
		// Over-dispersed about each level's mode (dispersedStart), as
		// after the one-mode search: more starts in the searched region.
		e := mp.energyFor()
		for l := range init {
			m := modes[(id-1+l)%len(modes)]
			init[l] = dispersedStart(e, m.Theta, m.U, mp.Pre, rng, id)
		}
		return init
	}
	for l := range init {
		z := make([]float64, mp.t.Dim())
		for j := range z {
			z[j] = startScale * rng.NormFloat64()
		}
		mp.Pre.Color(z)
		for j, v := range modes[(id-1+l)%len(modes)].Theta {
			z[j] += v
		}
		init[l] = z
	}
	return init
}

// Sampler is chain id's sampler, from its start, on streams of its own.
func (mp *ModePlan) Sampler(seed uint64, id int) (*exchange.Sampler, error) {
	return exchange.New(mp.config(exchange.ChainSeed(seed, id)), mp.Start(seed, id))
}

// pilot runs PilotChains short chains of the planned ladder and sets IAT
// from the bulk ESS of each coordinate and generated quantity over them.
func (mp *ModePlan) pilot(m Model, seed uint64) error {
	var err error
	began := time.Now()
	mp.IAT, mp.SwapAccept, err = mp.measure(m, mp.config, seed)
	// The pilot's chains ran as many at once as there are cores.
	mp.stepSeconds = time.Since(began).Seconds() * float64(min(PilotChains, runtime.GOMAXPROCS(0))) / (PilotChains * PilotSteps)
	return err
}

// StepSeconds is the wall seconds a step of one chain (every level) took
// in the pilot.
func (mp *ModePlan) StepSeconds() float64 { return mp.stepSeconds }

// measure runs PilotChains short chains of the ladder cfg makes and
// returns the IAT of the slowest quantity at its cold level and the cold
// pair's swap acceptance (NaN for one level). The chains run side by side,
// as many at once as there are cores (the pilots of a spike-and-slab
// logistic regression of 10⁴ rows take minutes); each has its own seed
// and writes only its own traces, so the result does not depend on the
// cores.
func (mp *ModePlan) measure(m Model, cfg func(seed uint64) exchange.Config, seed uint64) (iat, swapAccept float64, err error) {
	p, g := mp.t.Dim(), len(m.Generated)
	draws := newPilotTraces(p + g)
	swaps, attempts := make([]int, PilotChains), make([]int, PilotChains)
	var steps atomic.Int64
	start := time.Now()
	mp.status.Set("%d modes found; a pilot of the sampler on %d level(s): %d chains of %d steps", len(mp.Search.Modes), len(mp.Taus), PilotChains, PilotSteps)
	chain := func(c int) error {
		s, err := exchange.New(cfg(exchange.ChainSeed(seed, 1<<20+c)), mp.Start(seed^0x9e3779b9, c+1))
		if err != nil {
			return err
		}
		out := make([]float64, g)
		for range PilotSteps {
			if err := mp.status.Stopped(); err != nil {
				return err
			}
			if err := s.Step(); err != nil {
				return fmt.Errorf("pilot: %w", err)
			}
			if n := steps.Add(1); n%256 == 0 {
				total := int64(PilotChains * PilotSteps)
				mp.status.Set("%d modes found; a pilot of the sampler on %d level(s): %d of %d steps (%d chains of %d), about %s left", len(mp.Search.Modes), len(mp.Taus), n, total, PilotChains, PilotSteps, timeLeft(start, n, total).Round(time.Second))
			}
			draws.keep(c, m, s.State(0), out)
		}
		if st := s.Stats(); len(st.Pairs) > 0 {
			swaps[c], attempts[c] = st.Pairs[0].Accepts, st.Pairs[0].Attempts
		}
		return nil
	}
	errs := pilotParallel(chain)
	if err := mp.status.Stopped(); err != nil {
		return 0, 0, err // each chain's error says it too
	}
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	iat = min(planMaxIAT, max(1, PilotChains*PilotSteps/draws.slowestESS()))
	return iat, pooledRate(swaps, attempts), nil
}

// Rate is the cold level's accepted share of its step, the rate at which
// its slowest direction inside a mode relaxes (as LogConcave.Rate).
func (mp *ModePlan) Rate() float64 { return mp.Etas[0] * mp.Accept[0] }

// StartDistance bounds the starts' distance from their mode in the
// preconditioner's sds, as LogConcave's.
func (mp *ModePlan) StartDistance() float64 {
	if mp.kernel == nil {
		return dispersedDistance(mp.t.Dim())
	}
	return startScale * (math.Sqrt(float64(mp.t.Dim())) + 3)
}

// RunLength is the burn-in and thinning for keep draws a chain: thin so
// that keep draws hold PlanESS effective ones at the pilot's IAT; burn
// long enough to relax inside a mode (as LogConcave) and to spread over
// the modes (two IATs).
func (mp *ModePlan) RunLength(keep int) (burn, thin int, iat float64) {
	thin = max(1, int(math.Ceil(PlanESS*mp.IAT/float64(keep))))
	rho := 1 - mp.Rate()
	burn = int(math.Ceil(math.Log(mp.StartDistance()/planBurnBias) / -math.Log(rho)))
	return max(burn, int(math.Ceil(2*mp.IAT))), thin, mp.IAT
}

// Note is the plan's line for the output: the sampler and why.
func (mp *ModePlan) Note() string {
	s := mp.Search.Line() + "; "
	switch {
	case mp.kernel != nil && len(mp.Lambdas) == 1:
		s += "one level: the model's own exact kernel (" + mp.kernelAbout() + ")"
	case mp.kernel != nil:
		s += fmt.Sprintf("a ladder of %d power posteriors (the likelihood raised to λ from 1 down to %.3g, placed by the swaps' rejection rates) each stepped by the model's own exact kernel (%s), swapping by the exact rule on the even–odd scheme: τ_int %.3g steps × %d levels against %.3g on one level; swap acceptance %.2f on the pilot", len(mp.Lambdas), mp.Lambdas[len(mp.Lambdas)-1], mp.kernelAbout(), mp.IAT, len(mp.Lambdas), mp.OneLevelIAT, mp.SwapAccept)
	case len(mp.Taus) == 1 && mp.forced:
		s += fmt.Sprintf("one level (--levels 1): preconditioned MALA on exact energies, step h = %.3g in the whitened coordinates, acceptance %.2f on the pilot", mp.Etas[0], mp.Accept[0])
	case len(mp.Taus) == 1:
		s += fmt.Sprintf("one level: preconditioned MALA on exact energies (no barrier above %g nats among the modes of weight ≥ %g), step h = %.3g in the whitened coordinates, acceptance %.2f on the pilot", planBarrier, modes.ModeWeight, mp.Etas[0], mp.Accept[0])
	default:
		s += fmt.Sprintf("a ladder of %d preconditioned MALA levels on exact energies, τ from 1 to %.3g (barrier %.3g nats / %g), steps %.3g, acceptances %.2f, swap acceptance %.2f on the pilot", len(mp.Taus), mp.Taus[len(mp.Taus)-1], mp.Search.BarrierAbove(modes.ModeWeight), planBarrier, mp.Etas, mp.Accept, mp.SwapAccept)
	}
	if mp.kernel == nil {
		s += fmt.Sprintf("; %.0f%% of each level's steps are jumps between the modes' Laplace approximations", 100*JumpRate)
	}
	return s + fmt.Sprintf("; the pilot's %d chains mix in τ_int = %.3g steps", PilotChains, mp.IAT)
}

// Why says why the plan runs one level or a ladder, and how to ask for
// another sampler.
func (mp *ModePlan) Why() string {
	if mp.forced {
		return fmt.Sprintf("one level, as --levels 1 asks, across a barrier of %.3g nats between the modes found; the run warns if its chains did not cross (drop --levels for the plan's own choice)", mp.Search.BarrierAbove(modes.ModeWeight))
	}
	if mp.kernel != nil && len(mp.Lambdas) == 1 {
		s := "one level: the model's own exact kernel moves between the modes without a hot level"
		if mp.OneLevelIAT > 0 {
			s += "; a ladder of power posteriors, tried, mixed no faster per unit of cost"
		}
		return s + " (for a minibatch ladder, give --method fresgld)"
	}
	if mp.kernel != nil {
		return fmt.Sprintf("a ladder: the model's kernel alone mixed in τ_int = %.3g steps, and the ladder of power posteriors, whose hottest level draws near the prior and so restarts between the modes, costs less per effective draw (for a minibatch ladder, give --method fresgld)", mp.OneLevelIAT)
	}
	if len(mp.Taus) == 1 {
		return fmt.Sprintf("one level: no barrier between the modes found exceeds %g nats, which a MALA chain crosses on its own (for a minibatch ladder, give --method fresgld)", planBarrier)
	}
	return fmt.Sprintf("a ladder: a barrier of %.3g nats separates the modes found, more than the %g a MALA chain crosses on its own; its hottest level sees %g (for a minibatch ladder, give --method fresgld)", mp.Search.BarrierAbove(modes.ModeWeight), planBarrier, planBarrier)
}

// Algorithm is the sampler's name in the chain CSVs.
func (mp *ModePlan) Algorithm() string {
	switch {
	case mp.kernel != nil && len(mp.Lambdas) == 1:
		return "model_" + mp.kernelName
	case mp.kernel != nil:
		return "model_" + mp.kernelName + "_power_posterior_exchange"
	case len(mp.Taus) == 1:
		return "preconditioned_mala"
	}
	return "preconditioned_mala_replica_exchange"
}

// SDBias is 0: every level is Metropolis-adjusted or the model's exact
// kernel.
func (mp *ModePlan) SDBias() float64 { return 0 }

// Step is the cold level's step in the whitened coordinates.
func (mp *ModePlan) Step() float64 { return mp.Etas[0] }
