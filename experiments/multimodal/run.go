package multimodal

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
)

// Method is a sampler of the study.
type Method string

const (
	SGLD     Method = "sgld"
	CSGLD    Method = "csgld"
	ReSGLD   Method = "resgld"
	FReSGLD  Method = "fresgld"
	Adaptive Method = "fresgld-adaptive"
)

// Methods are the stochastic-gradient methods in the order the tables list
// them.
var Methods = []Method{SGLD, CSGLD, ReSGLD, FReSGLD, Adaptive}

// Settings are the choices every regression run shares, fixed by the rules
// stated beside each before any method was compared.
type Settings struct {
	// NCold is every method's accurate minibatch (fresgld regress's smallest
	// automatic batch, 100) and NHot f-reSGLD's hot minibatch (a tenth).
	// Both draw control-variate gradients about Problem.Anchor
	// (energy.CVGrad).
	NCold, NHot int
	// Tau2 is the fixed ladder's hot temperature (fresgld regress's default
	// 4, two levels). The adaptive ladder starts from AdaptLevels geometric
	// levels from 1 to AdaptTau, tuned by exchange.Adapt in AdaptRounds
	// rounds from AdaptFirst steps, grown to at most AdaptMax levels.
	Tau2                                 float64
	AdaptLevels, AdaptRounds, AdaptFirst int
	AdaptTau                             float64
	AdaptMax                             int
	// Budget is each run's cost in per-example evaluations, the anchor's
	// pass, the adaptive ladder's tuning, swap screens, confirmations and
	// anchor refreshes all counted. Burn is the share of it whose draws are
	// discarded. Checkpoints are the budgets, as shares of Budget, at which
	// the running estimates are recorded.
	Budget      float64
	Burn        float64
	Checkpoints []float64
	// Thin records every Thin-th step.
	Thin int
	// Cycles is cyclical SGLD's number of cycles in the budget and Explore
	// its exploration share (fresgld regress's defaults: 20 and 0.5).
	Cycles  int
	Explore float64
	// Screened decides swaps as before issue 28's fix: noisy screens
	// confirmed by full passes over the data (see swapEnergies).
	Screened bool
}

// Result is one run (one seed, one chain) of one method on one problem.
type Result struct {
	Method Method
	Seed   uint64
	// At[c] are the running estimates at checkpoint c.
	At         []Estimate
	Steps      int
	Cost       float64 // per-example evaluations
	CPU        float64 // seconds of this run's thread
	Swaps      int     // accepted swaps, all pairs
	Attempts   int
	Confirmed  int       // swap screens confirmed on the full data
	SwapCost   float64   // swap energies and anchor refreshes, in Cost (tuning's included)
	Taus       []float64 // the ladder sampled on
	TuningCost float64   // the adaptive ladder's rounds, in Cost
	// RoundTrips are the sampling run's round trips (exchange.ReplicaStats),
	// all replicas together; tuning's are not counted.
	RoundTrips int
	// HotCPU is the hottest level's CPU time per step over the coldest
	// level's (hotCPU); NaN on one level.
	HotCPU float64
	Budget float64 // the run's budget, Settings.Budget
	Parts  Breakdown
	// PairRates are the sampling run's accepted over attempted swaps per
	// pair, cold pair first (NaN for a pair never attempted).
	PairRates []float64
}

// Breakdown is where a run's cost went, in per-example evaluations; the
// parts sum to Result.Cost.
type Breakdown struct {
	Setup  float64 // the anchor's pass, before the first step
	Tuning float64 // the adaptive ladder's rounds, their swaps included
	// Cold and Hot are the sampling run's chain work (gradients and
	// variance estimation) on the coldest level and on the others.
	Cold, Hot float64
	// Screens, Exact and Anchors are its swap energies: noisy screens,
	// exact differences (confirmations or exact swaps) and anchor passes.
	Screens, Exact, Anchors float64
}

// parts are the breakdown's values in table order (BreakdownNames).
func (b Breakdown) parts() []float64 {
	return []float64{b.Setup, b.Tuning, b.Cold, b.Hot, b.Screens, b.Exact, b.Anchors}
}

// BreakdownNames name the parts of a Breakdown in table order.
var BreakdownNames = []string{"setup pass", "tuning", "cold chain", "hot chains", "swap screens", "exact swap energies (confirmations)", "anchor passes"}

// Estimate is a run's running estimate: per coefficient the mean and the
// Rao–Blackwellised inclusion probability, and the Rao–Blackwellised
// weights of the exact posterior's heaviest patterns.
type Estimate struct {
	Cost                float64
	Draws               int
	Mean, Incl, Pattern []float64
}

// accum sums draws of β.
type accum struct {
	n         int
	b, r, pat []float64
	prob      []float64
	pats      [][]bool
}

func newAccum(pr *Problem, patterns int) *accum {
	p := pr.LR.P
	a := &accum{b: make([]float64, p), r: make([]float64, p), prob: make([]float64, p)}
	for _, pt := range pr.Exact.Patterns[:min(patterns, len(pr.Exact.Patterns))] {
		a.pats = append(a.pats, pt.Include)
	}
	a.pat = make([]float64, len(a.pats))
	return a
}

// add records β: P(γ | β) = Π_j r_j^γ_j (1 − r_j)^(1 − γ_j), the γ_j being
// independent given β.
func (a *accum) add(beta []float64) {
	a.n++
	for j, b := range beta {
		r := Prior.Inclusion(b)
		a.prob[j] = r
		a.b[j] += b
		a.r[j] += r
	}
	for k, g := range a.pats {
		w := 1.0
		for j, in := range g {
			if in {
				w *= a.prob[j]
			} else {
				w *= 1 - a.prob[j]
			}
		}
		a.pat[k] += w
	}
}

func (a *accum) estimate(cost float64) Estimate {
	e := Estimate{Cost: cost, Draws: a.n, Mean: make([]float64, len(a.b)), Incl: make([]float64, len(a.r)), Pattern: make([]float64, len(a.pat))}
	for j := range a.b {
		e.Mean[j], e.Incl[j] = a.b[j]/float64(a.n), a.r[j]/float64(a.n)
	}
	for k := range a.pat {
		e.Pattern[k] = a.pat[k] / float64(a.n)
	}
	return e
}

// Patterns is the number of the exact posterior's heaviest patterns whose
// weights are estimated.
const Patterns = 5

// setup is the shared part of every method's ladder.
func (pr *Problem) setup(s Settings, seed uint64) (exchange.Setup, error) {
	cold, err := energy.NewCVGrad(pr.LR, pr.Anchor, min(s.NCold, pr.LR.Len()))
	if err != nil {
		return exchange.Setup{}, err
	}
	hot, err := energy.NewCVGrad(pr.LR, pr.Anchor, min(s.NHot, pr.LR.Len()))
	if err != nil {
		return exchange.Setup{}, err
	}
	e, rate := s.swapEnergies(pr)
	return exchange.Setup{
		Tau1: 1, Tau2: s.Tau2, Eta: langevin.Constant{Step: pr.Eta}, Cold: cold, Hot: hot,
		A: rate / pr.Eta, A1: 0.5, Seed: seed, Energies: e,
	}, nil
}

// Run runs method m on pr for one seed until it has spent s.Budget.
func Run(pr *Problem, m Method, s Settings, seed uint64) (Result, error) {
	defer cputime.Lock()()
	start := cputime.Thread()
	res := Result{Method: m, Seed: seed, Budget: s.Budget}
	st, err := pr.setup(s, seed)
	if err != nil {
		return res, err
	}
	init := func(K int) [][]float64 {
		in := make([][]float64, K)
		for l := range in {
			in[l] = append([]float64(nil), pr.Anchor...)
		}
		return in
	}
	var cfg exchange.Config
	var inits [][]float64
	sample := func(int) bool { return true }
	// Every run starts at the anchor: its pass over the data is paid once.
	spent := pr.SetupCost
	switch m {
	case SGLD:
		st.Energies = exchange.Energies{}
		cfg, err = exchange.SGLDMethod.Config(st)
		inits = init(1)
	case CSGLD:
		steps := int(s.Budget / float64(2*s.NCold)) // CVGrad costs 2n a step
		c := langevin.Cyclical{Eta0: 2 * pr.Eta, Cycle: max(2, steps/s.Cycles), Explore: s.Explore}
		st.Eta, st.Energies = c, exchange.Energies{}
		sample = func(k int) bool { return !c.Exploring(k) }
		cfg, err = exchange.CSGLDMethod.Config(st)
		inits = init(1)
	case ReSGLD:
		cfg, err = exchange.ReSGLDMethod.Config(st)
		inits = init(2)
	case FReSGLD:
		cfg, err = exchange.FReSGLDMethod.Config(st)
		inits = init(2)
	case Adaptive:
		taus, gerr := exchange.Geometric(1, s.AdaptTau, s.AdaptLevels)
		if gerr != nil {
			return res, gerr
		}
		// The first round runs long enough for 10 expected attempts a pair.
		_, rate := s.swapEnergies(pr)
		first := max(s.AdaptFirst, int(math.Ceil(10/rate)))
		ad, aerr := exchange.Adapt(exchange.FReSGLDMethod.Build(st), taus, init(len(taus)),
			exchange.AdaptOptions{Rounds: s.AdaptRounds, First: first, Grow: true, MaxLevels: s.AdaptMax})
		if aerr != nil {
			return res, aerr
		}
		for _, r := range ad.Rounds {
			res.TuningCost += r.Units()
			res.SwapCost += r.EnergyUnits + r.AnchorUnits
		}
		spent += res.TuningCost
		st.Taus = ad.Taus
		cfg, err = exchange.FReSGLDMethod.Config(st)
		inits = ad.States
	default:
		return res, fmt.Errorf("unknown method %q", m)
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", m, err)
	}
	smp, err := exchange.New(cfg, inits)
	if err != nil {
		return res, fmt.Errorf("%s: %w", m, err)
	}
	defer smp.Close()
	for _, L := range cfg.Levels {
		res.Taus = append(res.Taus, L.Tau)
	}
	acc := newAccum(pr, Patterns)
	burn := s.Burn * s.Budget
	burnt := false
	next := 0
	for k := 0; spent+smp.Units() < s.Budget; k++ {
		if err := smp.Step(); err != nil {
			return res, fmt.Errorf("%s, seed %d, step %d: %w", m, seed, k, err)
		}
		cost := spent + smp.Units()
		if !burnt && cost >= burn {
			// Every adaptation (the swap anchors) ends here: the
			// retained states come from one fixed kernel.
			smp.FreezeAfter(smp.Steps())
			burnt = true
		} else if burnt && k%s.Thin == 0 && sample(k) {
			acc.add(smp.State(0))
		}
		for next < len(s.Checkpoints) && cost >= s.Checkpoints[next]*s.Budget {
			res.At = append(res.At, acc.estimate(cost))
			next++
		}
	}
	for ; next < len(s.Checkpoints); next++ {
		res.At = append(res.At, acc.estimate(spent+smp.Units()))
	}
	stats := smp.Stats()
	res.Steps = stats.Steps
	res.Cost = spent + smp.Units()
	res.Parts.Setup, res.Parts.Tuning = pr.SetupCost, res.TuningCost
	var energy float64
	for l, lv := range stats.Levels {
		res.SwapCost += lv.Cost.Energy.Units + lv.Cost.Anchor.Units
		energy += lv.Cost.Energy.Units
		res.Parts.Anchors += lv.Cost.Anchor.Units
		if l == 0 {
			res.Parts.Cold += lv.Cost.Chain().Units
		} else {
			res.Parts.Hot += lv.Cost.Chain().Units
		}
	}
	for _, pp := range stats.Pairs {
		res.Attempts += pp.Attempts
		res.Swaps += pp.Accepts
		res.Confirmed += pp.Confirmed
		res.Parts.Screens += float64(pp.Screened)
		res.PairRates = append(res.PairRates, pp.Rate())
	}
	res.Parts.Exact = energy - res.Parts.Screens
	res.RoundTrips = exchange.Sum(stats.Replicas).RoundTrips
	// A run whose budget went to tuning and swap confirmations before any
	// draw has NaN estimates: the tables say so.
	if acc.n > 0 {
		for _, v := range res.At[len(res.At)-1].Incl {
			if math.IsNaN(v) {
				return res, fmt.Errorf("%s, seed %d: an inclusion estimate is NaN", m, seed)
			}
		}
	}
	// The run's CPU time stops before the levels are timed apart.
	res.CPU = (cputime.Thread() - start).Seconds()
	res.HotCPU = math.NaN()
	if K := len(cfg.Levels); K > 1 {
		r, err := hotCPU(cfg.Levels[0], cfg.Levels[K-1], smp.State(0), smp.State(K-1), seed)
		if err != nil {
			return res, fmt.Errorf("%s, seed %d: timing the levels: %w", m, seed, err)
		}
		res.HotCPU = r
	}
	return res, nil
}

// cpuBlocks blocks of cpuSteps steps are what hotCPU times on each level:
// some milliseconds a block, short enough that few blocks are descheduled.
const cpuBlocks, cpuSteps = 11, 2000

// hotCPU is the time per step of level hot over that of level cold, each
// stepped alone from its state by the same sampler code as in the ladder
// (one level, no swaps): what a level's step costs, not only its
// evaluations. The levels are timed in alternate blocks, so that both see
// the same load, and the ratio is the median over the pairs of blocks, so
// that a block descheduled or met by a page fault does not move it. The
// clock is the wall clock: the thread's CPU clock (getrusage) advances in
// ticks of milliseconds, and gave blocks of 0 and of 10 ms.
func hotCPU(cold, hot exchange.Level, thetaCold, thetaHot []float64, seed uint64) (float64, error) {
	var smps [2]*exchange.Sampler
	for i, c := range []struct {
		L     exchange.Level
		theta []float64
	}{{cold, thetaCold}, {hot, thetaHot}} {
		smp, err := exchange.New(exchange.Config{Levels: []exchange.Level{c.L}, Seed: seed}, [][]float64{c.theta})
		if err != nil {
			return 0, err
		}
		defer smp.Close()
		smps[i] = smp
	}
	ratios := make([]float64, cpuBlocks)
	for b := range ratios {
		var t [2]time.Duration
		for i, smp := range smps {
			start := time.Now()
			for range cpuSteps {
				if err := smp.Step(); err != nil {
					return 0, err
				}
			}
			t[i] = time.Since(start)
		}
		ratios[b] = t[1].Seconds() / t[0].Seconds()
	}
	slices.Sort(ratios)
	return ratios[cpuBlocks/2], nil
}
