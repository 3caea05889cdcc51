package exchange

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/pad"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// Level is one rung of the temperature ladder. Its estimator, step size and
// variance model belong to the level, not to the state that sits there: the
// cheap estimator of a hot level serves whichever replica has swapped in.
type Level struct {
	Tau   float64
	Est   energy.Estimator
	Eta   langevin.Schedule
	Noise langevin.Policy
	// Var supplies ŝ² and σ². Nil means variance.Known when the estimator
	// knows its variance; it is an error when the level needs variances and
	// the estimator does not report them.
	Var variance.Model
	// Precond, if set, preconditions the level's Langevin step by a
	// constant M = H⁻¹ (langevin.Precond; the sampler steps with a clone of
	// its own). Its policy must be SGLD, or Corrected with a diagonal H.
	Precond *langevin.Precond
	// Metropolis makes the level's step a proposal accepted by the
	// Metropolis–Hastings rule on exact energies (MALA, preconditioned by
	// Precond when set): the level then targets exp(−U/τ) exactly at any
	// step size, the Euler step's bias included. Its estimator must be
	// energy.Exact and its policy SGLD; a step costs one pass of U and ∇U
	// together (energy.EnergyGrad) at the proposal.
	Metropolis bool
	// Jumps, if set, makes some of a Metropolis-adjusted level's steps
	// jumps between known modes (see Jumps; the sampler jumps with a clone
	// of its own).
	Jumps *Jumps
	// Kernel, if set, replaces the level's Langevin step by a Markov
	// kernel of the model's own that leaves exp(−U/τ) invariant at the
	// level's τ (models.LinReg's Gibbs sampler), built for this sampler
	// alone. The level's estimator still serves the swaps.
	Kernel Kernel
}

// Kernel is a model's own Markov kernel (Level.Kernel).
type Kernel interface {
	// Step moves theta in place, drawing from rng; it reports whether the
	// state moved and the work done, in the level estimator's cost units.
	// It must not allocate.
	Step(theta []float64, rng *rand.Rand) (moved bool, cost float64)
}

// PowerKernel is a Kernel on a power posterior exp(−λ·L(θ) − U_0(θ)) of a
// data sum L that can decide a swap with a hotter level of the same model
// itself, for less than the four energies the exact rule reads. The swap's
// log S is (λ − λ_hot)·[L(x) − L(y)], whatever U_0. The exact rule uses it
// when both levels' kernels are PowerKernels.
type PowerKernel interface {
	Kernel
	// Lambda is the level's power λ ∈ (0, 1].
	Lambda() float64
	// SwapLogRatio draws a log-ratio for x at this level and y at a level
	// of power lambdaHot whose min(1, e^lr) has, over its draws, the swap's
	// acceptance probability as its mean (a factorised test's: −∞ when it
	// fails); cost is its work in the kernel's units. An error (a bound
	// its test relies on found violated) stops the run. It must not
	// allocate.
	SwapLogRatio(rng *rand.Rand, lambdaHot float64, x, y []float64) (lr, cost float64, err error)
}

// FallibleKernel is a Kernel whose step can find that it cannot keep its
// law (models.ThinnedSlabMove: a thinning bound violated). The sampler
// reads Err after each of its steps and stops the run with it; a kernel
// that failed moves the state no further.
type FallibleKernel interface {
	Kernel
	// Err is the first failure of a step, nil while there is none.
	Err() error
}

// StoppableKernel is a Kernel whose step a run's stop can cut short
// (the plan's NUTS chains, between leapfrog steps), leaving the state
// where the step began. The sampler then takes no step: it restores the
// replica's random stream and returns ErrStopped, so that the state it
// saves (MarshalBinary) is the one after the last whole step, and a resume
// takes the steps the uninterrupted run takes. Counted as a step, the cut
// one wrote the draw before it again and drew the next from another stream.
type StoppableKernel interface {
	Kernel
	// Cut reports whether the last Step was cut short.
	Cut() bool
}

// Config is a whole ladder. Levels are ordered from cold to hot.
type Config struct {
	Levels []Level
	Swap   Swap
	// Seed fixes every random stream: replica r draws from PCG(Seed, r),
	// swap decisions from PCG(Seed, K).
	Seed uint64
	// Domain, if set, is a box every state is reflected into after each
	// Langevin step.
	Domain *energy.Box
	// Energies says how swaps estimate energies; the zero value uses the
	// levels' estimators (DrawEnergies).
	Energies Energies
	// OnSwap, if set, is called at every swap attempt with the pair's
	// colder level l, the states x (level l) and y (level l+1) before any
	// exchange, a log-ratio, the swap noise τδ²V/2 and whether the swap is
	// made: for diagnostics such as the exact S of accepted swaps. The
	// log-ratio is the log of what the attempt adds to PairStats.ProbSum:
	// log Ŝ under DrawEnergies, log S under ExactEnergies; under
	// ThinnedEnergies the expansion's factor when the thinning passed, −∞
	// when it did not; under the other data modes the confirmation's
	// τδ(D − D̂) when the screen passed, −∞ when it did not (or when the
	// attempt was capped).
	OnSwap func(l int, x, y []float64, logRatio, noise float64, accepted bool)
	// Concurrent steps the levels on separate goroutines where that pays:
	// the sampler times its levels' steps against the cost of handing a
	// step to another goroutine, now and then, and hands steps off only
	// while the work moved exceeds it (Sampler.HandsOff). The output is
	// bit-identical to sequential stepping either way. An estimator or variance model
	// that serves two levels must then be safe for concurrent use (the
	// presets clone stateful estimators; see Setup). Call Close when done.
	Concurrent bool
	// RecordSwaps keeps the step of every swap in PairStats.Times. Off, a
	// step allocates nothing; on, the record grows by one int per swap.
	RecordSwaps bool
}

// LevelStats is what one level did. It holds no clock readings: a clock read
// costs more than a one-dimensional step on some machines (125 ns on the
// project's test machine), so wall time is measured per run, by the caller.
type LevelStats struct {
	Cost Cost `json:"cost"`
	// Clamped counts, under the diagonal correction (langevin.Corrected),
	// coordinate-steps where the gradient noise alone exceeded the noise
	// budget (η²ŝ_j² > 2τη), so no noise was injected; under the full one
	// (langevin.CorrectedFull), eigen-direction-steps of the injected
	// covariance 2τη·I − η²Σ̂ where it did, so those directions got none.
	// ClampedSteps counts steps with at least one.
	Clamped      int64 `json:"clamped"`
	ClampedSteps int64 `json:"clamped_steps"`
	// Accepted counts the accepted proposals of a Metropolis-adjusted
	// level (Level.Metropolis), jumps included; one is made at every step.
	Accepted int64 `json:"accepted,omitempty"`
	// Jumps counts a level's jumps between modes (Level.Jumps), and
	// JumpsAccepted those accepted (also counted in Accepted).
	Jumps         int64 `json:"jumps,omitempty"`
	JumpsAccepted int64 `json:"jumps_accepted,omitempty"`
}

// Stats is what the whole ladder did.
type Stats struct {
	Steps  int          `json:"steps"`
	Levels []LevelStats `json:"levels"`
	Pairs  []PairStats  `json:"pairs"` // Pairs[l] is between levels l and l+1
	// Replicas[r] counts replica r's round trips and tempered restarts.
	Replicas []ReplicaStats `json:"replicas"`
	// Frozen is what adaptation settled on at the end of burn-in (nil
	// before, or when the sampler adapts throughout: see FreezeAfter).
	Frozen *Frozen `json:"frozen,omitempty"`
}

type replica struct {
	theta []float64
	rng   *rand.Rand
	pcg   *rand.PCG // rng's source, for checkpoints
	watch watch
	// u is U at theta on the whole data set, valid at step uStep − 1's
	// swaps (stateEnergy); 0 marks it unset.
	u     float64
	uStep int
}

type level struct {
	Level
	est, varEst counted
	grad        []float64 // ∇Û draw
	rep         []float64 // the estimator's reported ŝ², nil if it reports none
	s2          []float64 // ŝ² used by the corrected policy
	scratch     []float64 // the Langevin step's normals
	known       bool      // Var is variance.Known: use rep as s2, no copy
	stats       LevelStats
	err         error
	cut         bool // its kernel's step was cut short by a stop (StoppableKernel)

	// full takes the CorrectedFull steps; nil under other policies.
	full  *fullNoise
	pre   *langevin.Precond // the level's own clone of Level.Precond
	mh    *mala             // a Metropolis-adjusted level's state; else nil
	jumps *Jumps            // the level's own clone of Level.Jumps
}

// Sampler runs a replica-exchange ladder. It is not safe for concurrent use.
type Sampler struct {
	lv       []level
	reps     []replica
	at       []int // at[l] is the replica at level l
	swap     Swap
	srng     *rand.Rand
	spcg     *rand.PCG // srng's source, for checkpoints
	pairs    []PairStats
	k        int
	err      error // sticky: once a step fails, the sampler stays failed
	pool     *pool
	box      *energy.Box
	trips    trips
	data     *dataSwap // nil under DrawEnergies
	noise    []float64 // per pair: Σ τδ²V/2 over attempts
	probs    []probs   // per pair: attempts not yet in ProbSum
	td       []float64 // per pair: τδ = 1/τ_l − 1/τ_{l+1}
	onSwap   func(l int, x, y []float64, logRatio, noise float64, accepted bool)
	times    bool    // record swap times
	maxNoise float64 // Energies.MaxNoise
	burn     int     // the last step that adapts (FreezeAfter); −1: every step
	frozen   *Frozen // what adaptation settled on, once it ended

	// Switches for the law tests, to show they see a mechanism switched
	// off: unpadded drops f-reSGLD's padding to the reverse variance;
	// penaltyScreens decides data-mode swaps by the penalty rule on the
	// screen alone, with no confirmation.
	unpadded, penaltyScreens bool
}

// New validates cfg and starts a ladder from the given initial states, one
// per level (copied). Errors name the offending level and setting.
func New(cfg Config, init [][]float64) (*Sampler, error) {
	K := len(cfg.Levels)
	if K == 0 {
		return nil, errors.New("exchange: no levels")
	}
	if len(init) != K {
		return nil, fmt.Errorf("exchange: %d initial states for %d levels", len(init), K)
	}
	if err := validateSwap(cfg.Swap, K); err != nil {
		return nil, err
	}
	if err := checkModels(cfg.Levels); err != nil {
		return nil, err
	}
	if cfg.Concurrent {
		if err := checkConcurrent(cfg.Levels); err != nil {
			return nil, err
		}
	}
	if err := validateScheme(cfg.Swap); err != nil {
		return nil, err
	}
	// Everything a chain writes at every step sits on cache lines of its
	// own (pad), so that chains stepping on different cores do not slow
	// each other down.
	s := pad.New[Sampler]()
	*s = Sampler{box: cfg.Domain, swap: cfg.Swap, times: cfg.RecordSwaps, at: pad.Slice[int](K), lv: pad.Slice[level](K), reps: pad.Slice[replica](K), pairs: pad.Slice[PairStats](K - 1), noise: pad.Slice[float64](K - 1), probs: pad.Slice[probs](K - 1), onSwap: cfg.OnSwap, burn: -1}
	p := 0
	for l, L := range cfg.Levels {
		if L.Est == nil {
			return nil, fmt.Errorf("level %d: no estimator", l)
		}
		if l == 0 {
			if p = L.Est.Dim(); p < 1 {
				return nil, fmt.Errorf("level 0: estimator dimension %d: the state needs at least one coordinate", p)
			}
		}
		if err := validateLevel(l, L, p, cfg.Swap.Rule, K, init[l]); err != nil {
			return nil, err
		}
		if l > 0 && !(L.Tau > cfg.Levels[l-1].Tau) {
			return nil, fmt.Errorf("level %d: temperature τ = %v must exceed level %d's τ = %v (levels go from cold to hot)", l, L.Tau, l-1, cfg.Levels[l-1].Tau)
		}
		lv := &s.lv[l]
		lv.Level = L
		if lv.Var == nil && L.Est.KnowsVariance() {
			lv.Var = variance.Known{}
		}
		_, lv.known = lv.Var.(variance.Known)
		lv.est = newCounted(L.Est, &lv.stats.Cost.Grad, &lv.stats.Cost.Energy)
		lv.varEst = newCounted(L.Est, &lv.stats.Cost.VarGrad, &lv.stats.Cost.VarEnergy)
		lv.grad = pad.Slice[float64](p)
		if L.Est.KnowsVariance() {
			lv.rep = pad.Slice[float64](p)
		}
		lv.s2 = pad.Slice[float64](p)
		lv.scratch = pad.Slice[float64](p)
		if L.Noise == langevin.CorrectedFull {
			lv.full = newFullNoise(L.Est)
		}
		if L.Precond != nil {
			lv.pre = L.Precond.Clone()
		}
		if L.Jumps != nil {
			lv.jumps = L.Jumps.Clone()
		}
		if L.Metropolis {
			var err error
			if lv.mh, err = newMALA(L.Est); err != nil {
				return nil, fmt.Errorf("level %d: %w", l, err)
			}
		}
		rng, pcg := newStream(cfg.Seed, uint64(l))
		s.reps[l] = replica{theta: append(pad.Slice[float64](p)[:0], init[l]...), rng: rng, pcg: pcg, watch: newWatch(init[l])}
		s.at[l] = l
	}
	if s.box != nil {
		if err := s.box.Validate(p); err != nil {
			return nil, err
		}
		for l, x := range init {
			if !s.box.Contains(x) {
				return nil, fmt.Errorf("level %d: initial state %v lies outside the domain", l, x)
			}
		}
	}
	if !cfg.Swap.PerStep {
		for l := 0; l+1 < K; l++ {
			// η_0 is the largest step of every schedule we offer.
			if pr := cfg.Swap.A * cfg.Levels[l].Eta.Eta(0); pr > 1 {
				return nil, fmt.Errorf("swap intensity a = %v: a·η = %v at level %d exceeds 1; lower a or set PerStep", cfg.Swap.A, pr, l)
			}
		}
	}
	s.td = make([]float64, K-1)
	for l := range s.td {
		s.td[l] = 1/cfg.Levels[l].Tau - 1/cfg.Levels[l+1].Tau
	}
	s.srng, s.spcg = newStream(cfg.Seed, uint64(K))
	s.trips = newTrips(K)
	s.trips.observe(s.at)
	en := cfg.Energies
	en.defaults()
	s.maxNoise = en.MaxNoise
	if err := validateEnergies(en, cfg.Levels, p); err != nil {
		return nil, err
	}
	if en.Mode.exact() && cfg.Swap.Scheme == DEO && en.ExactEvery > 1 {
		// Exact attempts every W steps would fall on rounds of one parity
		// only, and the pairs of the other would never be tried.
		return nil, fmt.Errorf("exact swap energies every %d steps with DEO swaps: the attempts would meet only one parity of pairs; set the DEO window Swap.Window = %d and ExactEvery = 1 instead", en.ExactEvery, en.ExactEvery)
	}
	if en.Mode != DrawEnergies {
		if cfg.Swap.Rule == Exact && !en.Mode.exact() {
			return nil, fmt.Errorf("the exact swap rule needs noise-free energies; swap-energy mode %v is a minibatch estimate (use mode exact or another rule)", en.Mode)
		}
		s.data = newDataSwap(en, K)
		if en.Mode == ThinnedEnergies {
			if err := s.expand(en.Expand, init[0]); err != nil {
				return nil, err
			}
		}
		if en.Mode.cv() {
			if err := s.refreshAnchors(); err != nil {
				return nil, err
			}
		}
	}
	if cfg.Concurrent && K > 1 {
		s.pool = newPool(s)
	}
	return s, nil
}

func validateSwap(sw Swap, K int) error {
	if sw.Rule < Exact || sw.Rule > FReSGLD {
		return fmt.Errorf("swap rule %v: unknown", sw.Rule)
	}
	if !(sw.A >= 0) || math.IsInf(sw.A, 0) {
		return fmt.Errorf("swap intensity a = %v: must be finite and ≥ 0", sw.A)
	}
	if sw.Rule == MReSGLD && !(sw.A1 >= 0 && sw.A1 <= 1) {
		return fmt.Errorf("m-reSGLD weight a1 = %v: must lie in [0, 1]", sw.A1)
	}
	return nil
}

func validateLevel(l int, L Level, p int, rule Rule, K int, init []float64) error {
	if !(L.Tau > 0) || math.IsInf(L.Tau, 0) {
		return fmt.Errorf("level %d: temperature τ = %v must be positive and finite", l, L.Tau)
	}
	if L.Est.Dim() != p {
		return fmt.Errorf("level %d: estimator dimension %d, level 0's is %d", l, L.Est.Dim(), p)
	}
	if len(init) != p {
		return fmt.Errorf("level %d: initial state has dimension %d, estimator %d", l, len(init), p)
	}
	for j, x := range init {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("level %d: initial state coordinate %d is %v", l, j, x)
		}
	}
	if L.Eta == nil {
		return fmt.Errorf("level %d: no step size schedule", l)
	}
	if pc := L.Precond; pc != nil {
		switch {
		case pc.Dim() != p:
			return fmt.Errorf("level %d: preconditioner of dimension %d for states of dimension %d", l, pc.Dim(), p)
		case L.Noise == langevin.CorrectedFull, L.Noise == langevin.Corrected && !pc.Diagonal():
			return fmt.Errorf("level %d: a preconditioned step counts gradient noise only with a diagonal preconditioner (noise policy %v); use the SGLD policy or a diagonal preconditioner", l, L.Noise)
		}
	}
	if L.Jumps != nil && !L.Metropolis {
		return fmt.Errorf("level %d: jumps between modes need a Metropolis-adjusted level", l)
	}
	if L.Jumps != nil && L.Jumps.Dim() != p {
		return fmt.Errorf("level %d: jumps of dimension %d for a state of %d", l, L.Jumps.Dim(), p)
	}
	if L.Kernel != nil && (L.Metropolis || L.Precond != nil) {
		return fmt.Errorf("level %d: a level with a kernel of its own takes no Metropolis step and no preconditioner", l)
	}
	if L.Metropolis && (L.Noise != langevin.SGLD || L.Var != nil) {
		return fmt.Errorf("level %d: a Metropolis-adjusted level steps on exact gradients: noise policy %v and a variance model do not apply (use SGLD and none)", l, L.Noise)
	}
	if err := L.Eta.Validate(); err != nil {
		return fmt.Errorf("level %d: %w", l, err)
	}
	if L.Noise != langevin.SGLD && L.Noise != langevin.Corrected && L.Noise != langevin.CorrectedFull {
		return fmt.Errorf("level %d: unknown noise policy %v", l, L.Noise)
	}
	if _, ok := L.Est.(energy.GradRows); L.Noise == langevin.CorrectedFull && !ok {
		return fmt.Errorf("level %d: the full correction needs an estimator that exposes its per-example gradients (energy.GradRows, such as a energy.Minibatch); %T does not", l, L.Est)
	}
	needsVar := L.Noise == langevin.Corrected || (K > 1 && rule != Exact)
	if L.Var == nil && needsVar && !L.Est.KnowsVariance() {
		return fmt.Errorf("level %d: the estimator does not report its variance and no variance model is set (use variance.NewRunning)", l)
	}
	if rule == Exact && K > 1 {
		if x, ok := L.Est.(energy.ExactEnergy); !ok || !x.ExactEnergy() {
			return fmt.Errorf("level %d: the exact swap rule needs noise-free energies, and estimator %T does not declare its energies exact (energy.ExactEnergy); use a noisy swap rule", l, L.Est)
		}
	}
	if L.Var != nil && L.Var.NeedsReport() && !L.Est.KnowsVariance() {
		return fmt.Errorf("level %d: variance model %T needs an estimator that reports its variance", l, L.Var)
	}
	return nil
}

// Dim is the dimension of the state.
func (s *Sampler) Dim() int { return len(s.reps[0].theta) }

// Levels is the number of levels K.
func (s *Sampler) Levels() int { return len(s.lv) }

// Tau is level l's temperature.
func (s *Sampler) Tau(l int) float64 { return s.lv[l].Tau }

// Steps is the number of steps taken.
func (s *Sampler) Steps() int { return s.k }

// State is the current state at level l. It is the sampler's own slice:
// read it before the next Step, copy it to keep it.
func (s *Sampler) State(l int) []float64 { return s.reps[s.at[l]].theta }

// Replica is the index of the replica now at level l.
func (s *Sampler) Replica(l int) int { return s.at[l] }

// Stats returns copies of the counters so far.
func (s *Sampler) Stats() Stats {
	st := Stats{Steps: s.k, Levels: make([]LevelStats, len(s.lv)), Pairs: make([]PairStats, len(s.pairs))}
	for l := range s.lv {
		st.Levels[l] = s.lv[l].stats
	}
	for i := range s.pairs {
		s.probs[i].fold(&s.pairs[i].ProbSum)
		p := s.pairs[i]
		p.Times = append([]int(nil), p.Times...)
		if p.Attempts > 0 {
			p.Noise = s.noise[i] / float64(p.Attempts)
		}
		st.Pairs[i] = p
	}
	st.Replicas = append([]ReplicaStats(nil), s.trips.reps...)
	st.Frozen = s.frozen.clone()
	return st
}

// HandsOff reports whether steps are now handed to other goroutines: only
// under Config.Concurrent, and only while that pays (see Config).
func (s *Sampler) HandsOff() bool { return s.pool != nil && s.pool.conc }

// Close stops the goroutines of a concurrent sampler. It is safe to call
// more than once and on a sequential sampler.
func (s *Sampler) Close() {
	if s.pool != nil {
		s.pool.close()
		s.pool = nil
	}
}

// Step advances every level by one Langevin step, then attempts swaps
// between the adjacent levels its scheme offers (Sweep: all), colder pair
// first. After an error the sampler keeps failing with the same error; its
// states are not valid samples.
func (s *Sampler) Step() error {
	if s.err != nil {
		return s.err
	}
	if s.pool != nil {
		s.pool.step(s.k)
	} else {
		for l := range s.lv {
			s.stepLevel(l, s.k)
		}
	}
	cut := false
	for l := range s.lv {
		cut = cut || s.lv[l].cut
		s.lv[l].cut = false
	}
	if cut {
		return ErrStopped
	}
	for l := range s.lv {
		if err := s.lv[l].err; err != nil {
			s.err = err
			return err
		}
	}
	if s.refreshDue(s.k) {
		if err := s.refreshAnchors(); err != nil {
			s.err = fmt.Errorf("step %d: %w", s.k, err)
			return s.err
		}
	}
	for l := range s.pairs {
		if !s.swap.Offered(l, s.k) {
			continue
		}
		if err := s.trySwap(l); err != nil {
			s.err = err
			return err
		}
	}
	s.trips.observe(s.at)
	s.k++
	if s.k == s.burn {
		s.freeze()
	}
	return nil
}

// stepLevel moves the replica at level l. It touches only that level and
// that replica, so levels may step concurrently.
func (s *Sampler) stepLevel(l, k int) {
	lv := &s.lv[l]
	r := &s.reps[s.at[l]]
	if lv.mh != nil {
		s.metropolisStep(l, lv, r, k)
		return
	}
	if lv.Kernel != nil {
		sk, stoppable := lv.Kernel.(StoppableKernel)
		var saved rand.PCG
		if stoppable {
			saved = *r.pcg
		}
		moved, cost := lv.Kernel.Step(r.theta, r.rng)
		if stoppable && sk.Cut() {
			*r.pcg, lv.cut = saved, true
			return
		}
		if moved {
			lv.stats.Accepted++
		}
		lv.stats.Cost.Grad.Calls++
		lv.stats.Cost.Grad.Units += cost
		if fk, ok := lv.Kernel.(FallibleKernel); ok {
			if err := fk.Err(); err != nil {
				lv.err = fmt.Errorf("level %d: step %d: %w", l, k, err)
			}
		}
		return
	}
	if lv.Var != nil && !lv.known { // Known observes nothing
		if err := lv.Var.Observe(k, r.theta, &lv.varEst, r.rng); err != nil {
			lv.err = fmt.Errorf("level %d: %w", l, err)
			return
		}
	}
	rep := lv.rep
	if lv.Noise != langevin.Corrected {
		rep = nil // only the diagonal correction uses ŝ²
	}
	lv.Est.Grad(lv.grad, rep, r.theta, r.rng)
	lv.est.countGrad()
	s2 := lv.s2
	if lv.known {
		s2 = rep
	} else if lv.Noise == langevin.Corrected {
		lv.Var.GradVar(s2, r.theta, rep)
	}
	var c int
	var finite, diverging bool
	eta, tau := lv.Eta.Eta(k), lv.Tau
	if ph, ok := lv.Eta.(langevin.Phased); ok && ph.Exploring(k) {
		tau = 0 // cyclical SGLD's exploration: a plain gradient step
	}
	if lv.full == nil && lv.pre == nil && s.box == nil {
		// The step measures its move for the watch in its own pass.
		var dot, n2 float64
		c, finite, dot, n2 = langevin.StepMove(r.theta, lv.grad, s2, lv.scratch, r.watch.last, eta, tau, lv.Noise, r.rng)
		diverging = finite && r.watch.judge(dot, n2)
	} else {
		copy(r.watch.prev, r.theta)
		switch {
		case lv.full != nil:
			c, finite = lv.full.step(r.theta, lv.grad, eta, tau, r.rng)
		case lv.pre != nil:
			c, finite = lv.pre.Step(r.theta, lv.grad, s2, lv.scratch, eta, tau, lv.Noise, r.rng)
		default:
			c, finite = langevin.Step(r.theta, lv.grad, s2, lv.scratch, eta, tau, lv.Noise, r.rng)
		}
		if s.box != nil {
			s.box.Reflect(r.theta)
		}
		diverging = finite && r.watch.observe(r.theta)
	}
	if c > 0 {
		lv.stats.Clamped += int64(c)
		lv.stats.ClampedSteps++
	}
	if diverging {
		lv.err = fmt.Errorf("level %d diverged at step %d: %d moves in a row each reversed the last and grew, by %.3g in all; the Langevin step is unstable (lower η = %v)", l, k, r.watch.run, r.watch.growth(), eta)
	}
	if !finite {
		lv.err = fmt.Errorf("level %d diverged at step %d: the state is no longer finite (check η = %v against the gradient's scale)", l, k, eta)
		if j := langevin.BadVariance(s2); lv.Noise == langevin.Corrected && j >= 0 {
			lv.err = badVariance(l, k, "gradient coordinate "+fmt.Sprint(j), s2[j], lv)
		}
	}
}

// energy draws level l's energy estimate at theta and its variance.
func (s *Sampler) energy(l int, theta []float64) (u, v float64, err error) {
	lv := &s.lv[l]
	u, rep := lv.Est.Energy(theta, s.srng)
	lv.est.countEnergy()
	if math.IsNaN(u) || math.IsInf(u, 0) {
		return 0, 0, fmt.Errorf("level %d: energy estimate is %v at step %d", l, u, s.k)
	}
	if lv.known {
		v = rep // what Known.EnergyVar returns, without two interface calls
	} else if lv.Var != nil {
		v = lv.Var.EnergyVar(theta, rep, lv.Est.KnowsVariance())
	}
	if lv.Var != nil {
		if !(v >= 0 && v <= math.MaxFloat64) {
			return 0, 0, badVariance(l, s.k, "energy", v, lv)
		}
	}
	return u, v, nil
}

// LogRatio draws the log-ratio of a swap of x (at level l) with y (at level
// l+1) under the sampler's swap rule and energy mode: the penalty rule's
// log Ŝ under DrawEnergies, log S under ExactEnergies, the expansion's
// factor or −∞ (thinnedRatio) under ThinnedEnergies, and the screen's
// τδ·D̂ under the other data modes (see EnergyMode). Its draws are counted
// as swap cost.
func (s *Sampler) LogRatio(l int, x, y []float64) (float64, error) {
	lr, _, err := s.logRatio(l, x, y)
	return lr, err
}

// LogRatioNoise is LogRatio that also returns the swap noise τδ²V/2 in
// nats: the penalty subtracted under DrawEnergies, the screen's estimated
// noise under the noisy data modes.
func (s *Sampler) LogRatioNoise(l int, x, y []float64) (logRatio, noise float64, err error) {
	return s.logRatio(l, x, y)
}

// screened reports whether swaps are decided by a screen on a noisy D̂ and
// a confirmation on the exact D (every data mode but ExactEnergies and
// ThinnedEnergies).
func (s *Sampler) screened() bool {
	return s.data != nil && !s.data.Mode.exact() && !s.penaltyScreens
}

// logRatio returns the swap's log-ratio (see LogRatio) and its noise.
func (s *Sampler) logRatio(l int, x, y []float64) (lr, noise float64, err error) {
	td := s.td[l]
	var d, v float64
	if s.data != nil {
		switch s.data.Mode {
		case ThinnedEnergies:
			lr, err := s.thinnedRatio(l, x, y)
			return lr, 0, err
		case ExactEnergies:
			d = s.exactDiff(l, x, y)
		default:
			d, v = s.dataDiff(l, x, y)
		}
		if err := finiteDiff(l, s.k, d, v); err != nil {
			return 0, 0, err
		}
		if s.penaltyScreens {
			return logRatio(td, d, v), td * td * v / 2, nil
		}
		return td * d, td * td * v / 2, nil
	}
	switch s.swap.Rule {
	case Exact:
		lr, err := s.exactLogRatio(l, x, y)
		return lr, 0, err
	case FReSGLD:
		ux, vx, err := s.energy(l, x)
		if err != nil {
			return 0, 0, err
		}
		uy, vy, err := s.energy(l+1, y)
		if err != nil {
			return 0, 0, err
		}
		d, v = ux-uy, vx+vy
		// The reverse swap (y at l, x at l+1) would carry variance
		// σ_l²(y) + σ_{l+1}²(x). Padding D̂ with independent Gaussian noise
		// up to the larger of the two gives both directions the same
		// Gaussian law, the penalty rule's condition for detailed balance.
		vr, err := s.reverseVar(l, x, y)
		if err != nil {
			return 0, 0, err
		}
		if vr > v && !s.unpadded {
			d += math.Sqrt(vr-v) * s.srng.NormFloat64()
			v = vr
		}
	case ReSGLD:
		ux, vx, err := s.energy(l, x)
		if err != nil {
			return 0, 0, err
		}
		uy, vy, err := s.energy(l, y)
		if err != nil {
			return 0, 0, err
		}
		d, v = ux-uy, vx+vy
	case MReSGLD:
		a1, a2 := s.swap.A1, 1-s.swap.A1
		for i, w := range [2]float64{a1, a2} {
			ux, vx, err := s.energy(l+i, x)
			if err != nil {
				return 0, 0, err
			}
			uy, vy, err := s.energy(l+i, y)
			if err != nil {
				return 0, 0, err
			}
			d += w * (ux - uy)
			v += w * w * (vx + vy)
		}
	}
	return logRatio(td, d, v), td * td * v / 2, nil
}

// reverseVar is σ_l²(y) + σ_{l+1}²(x), the variance f-reSGLD's ratio would
// carry if the two states traded levels.
func (s *Sampler) reverseVar(l int, x, y []float64) (float64, error) {
	vy, err := s.varAt(l, y)
	if err != nil {
		return 0, err
	}
	vx, err := s.varAt(l+1, x)
	return vx + vy, err
}

// varAt is the variance of level l's energy estimate at theta. An estimator
// that knows its variance at any state (energy.EnergyVarAt) or a variance
// model that needs no report (variance.Running, variance.KRR) tells it
// without a draw; otherwise a draw is made for its report and counted as
// swap cost.
func (s *Sampler) varAt(l int, theta []float64) (float64, error) {
	lv := &s.lv[l]
	if e, ok := lv.Est.(energy.EnergyVarAt); ok && lv.known {
		v := e.EnergyVarAt(theta)
		if !(v >= 0 && v <= math.MaxFloat64) {
			return 0, badVariance(l, s.k, "energy", v, lv)
		}
		return v, nil
	}
	if !lv.Est.KnowsVariance() {
		return lv.Var.EnergyVar(theta, 0, false), nil
	}
	_, v, err := s.energy(l, theta)
	return v, err
}

// accept draws a decision with probability min(1, e^lr); −Exp(1) is the log
// of a uniform.
func (s *Sampler) accept(lr float64) bool { return lr >= 0 || -s.srng.ExpFloat64() < lr }

func (s *Sampler) trySwap(l int) error {
	if !s.attemptDue(l) {
		return nil
	}
	accept, err := s.decide(l, s.State(l), s.State(l+1))
	if err != nil || !accept {
		return err
	}
	s.at[l], s.at[l+1] = s.at[l+1], s.at[l]
	p := &s.pairs[l]
	p.Accepts++
	if s.times {
		p.Times = append(p.Times, s.k)
	}
	return nil
}

// decide makes one swap attempt's decision for x at level l and y at level
// l+1, counting it in the pair's statistics (not the accept: trySwap does).
func (s *Sampler) decide(l int, x, y []float64) (bool, error) {
	p := &s.pairs[l]
	p.Attempts++
	lr, noise, err := s.logRatio(l, x, y)
	if err != nil {
		return false, err
	}
	s.noise[l] += noise
	screen := lr
	if s.maxNoise > 0 && noise > s.maxNoise {
		lr = math.Inf(-1)
		p.Capped++
	}
	accept := s.accept(lr)
	if s.screened() {
		// The screen passed with probability min(1, e^{τδD̂}); confirming
		// with min(1, e^{τδ(D − D̂)}) makes the product of the two ratios S.
		// ProbSum gets the confirmation's probability when the screen
		// passed and 0 when it did not: unbiased for the acceptance rate.
		lr = math.Inf(-1)
		if accept {
			p.Confirmed++
			d := s.exactDiff(l, x, y)
			if err := finiteDiff(l, s.k, d, 0); err != nil {
				return false, err
			}
			lr = s.td[l]*d - screen
			accept = s.accept(lr)
		}
	}
	s.probs[l].add(lr, &p.ProbSum)
	if s.onSwap != nil {
		s.onSwap(l, x, y, lr, noise, accept)
	}
	return accept, nil
}

// badVariance is the error for a NaN, infinite or negative variance: used,
// it would inject a made-up amount of noise or bias the swap ratio.
func badVariance(l, k int, what string, v float64, lv *level) error {
	return fmt.Errorf("level %d at step %d: the %s variance is %v (estimator %T, variance model %T); a variance must be finite and ≥ 0", l, k, what, v, lv.Est, lv.Var)
}
