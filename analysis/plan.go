package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/results"
)

// AutoMethod is Options.Method for the plan: for a log-concave posterior
// whose model finds its mode (a PlanModel, as models.Logistic is), one
// preconditioned chain per requested chain on the gradients GradRule picks
// (LogConcave); for any other model, the modes a search finds and a
// preconditioned MALA chain, or a ladder of them where a barrier between
// the modes needs one (ModePlan).
const AutoMethod exchange.Method = "auto"

// PlanMaxDim is the most coordinates the log-concave plan takes: its
// preconditioner is a dense p×p factor, p² a step and p³ to find, which
// at p = 1000 already matches a full pass over 10⁴ examples a step. Above
// it, AutoMethod runs the corrected chain (exchange.CorrectedMethod).
const PlanMaxDim = 1000

// ChainPlan is a planned run: each chain's sampler, its line for the
// output, the rate of its slowest direction and its run length.
type ChainPlan interface {
	Sampler(seed uint64, id int) (*exchange.Sampler, error)
	Note() string
	Rate() float64
	RunLength(keep int) (burn, thin int, iat float64)
	StartDistance() float64
	// Algorithm names the sampler in the chain CSVs' header.
	Algorithm() string
	// Step is the cold level's step (in the preconditioned coordinates).
	Step() float64
	// SDBias bounds the relative error of the posterior sds the sampler
	// carries at stationarity: 0 for a Metropolis-adjusted or exact one.
	SDBias() float64
}

// ladderSettings are the settings of the ladders and minibatch samplers
// that a planned run does not read.
var ladderSettings = []string{"tau2", "levels", "correction", "hot_batch", "hot_batch_automatic", "hot_share", "swap_probability_per_step", "swap_energies", "exact_every", "swap_pilot", "swap_noise_cap", "swap_batch", "cycle", "cycle_automatic", "explore", "batch", "batch_automatic"}

// planSettings drops from a planned run's settings those it does not read,
// so that its chain CSVs describe the run they hold.
func planSettings(s [][2]string) [][2]string {
	return slices.DeleteFunc(slices.Clone(s), func(kv [2]string) bool { return slices.Contains(ladderSettings, kv[0]) })
}

// planDefaults fills in o's automatic values from m's plan: the
// log-concave plan (LogConcave) for a model that finds its own mode (a
// PlanModel, whose posterior is log-concave), else the mode search's
// (ModePlan). It records the rules and the lines that say them in res.
//
// ctx cancelled (SIGINT, SIGTERM) stops the plan within a step of
// whichever stage it is in, with ErrInterrupted.
func planDefaults(ctx context.Context, m Model, o *Options, res *Result) (ChainPlan, error) {
	N, p := m.Terms.Len(), m.Terms.Dim()
	if err := heldDraws(o.Keep, p, len(o.Chains), N); err != nil {
		return nil, err
	}
	// A plan that takes longer than FirstLine (a model in another
	// process, a slow one) says so, as sampling's progress does, and then
	// what it is doing every LineEvery.
	status := &planStatus{ctx: ctx, adaptDelta: o.AdaptDelta}
	began := time.Now()
	if o.Progress != nil {
		defer status.report(o.Progress, o.Command)()
	}
	var plan ChainPlan
	var note string
	var err error
	if o.NUTS {
		plan, err = newNUTSPlan(m.Terms, o.Chains, o.Seed, m.Init, nil, nil, "--method nuts", status)
		note = "one chain per --chains, each after its own warmup; no mode search (--method nuts)"
	} else {
		plan, note, err = newChainPlan(m, o.Seed, o.Levels == 1, o.Chains, status)
	}
	if err != nil {
		return nil, err
	}
	o.Eta = plan.Step()
	if lc, ok := plan.(*LogConcave); ok {
		o.Batch = lc.Choice.Batch
	}
	burn, thin, iat := plan.RunLength(o.Keep)
	res.StepRule = plan.Note()
	res.RunRule = fmt.Sprintf("in the coordinates where the Hessian at the mode is I: ρ = 1 − %.4g, τ_int = %.4g steps, starts within %.3g posterior sds of the mode: burn %d, thin %d for bulk ESS ≈ %d per chain", plan.Rate(), iat, plan.StartDistance(), burn, thin, PlanESS)
	if r, ok := plan.(runRuler); ok {
		res.RunRule = r.RunRuleLine(burn, thin, iat)
	}
	if _, ok := plan.(*ModePlan); ok {
		res.RunRule = fmt.Sprintf("τ_int = %.4g steps, from the pilot's %d chains of %d steps (the slowest coordinate or generated quantity): burn %d, at least two τ_int, thin %d for bulk ESS ≈ %d per chain", iat, pilotChains, pilotSteps, burn, thin, PlanESS)
	}
	res.Notes = []string{"sampler: " + plan.Note(), "note: " + note}
	res.SDBias = plan.SDBias()
	res.Plan = summarizePlan(plan)
	if ms := status.searched(); ms != nil {
		res.Plan.Search = ms
		res.Notes = append(res.Notes, "search: "+ms.Searched)
	}
	keep, th := o.Keep, o.Thin
	if th == 0 {
		th = thin
	}
	b := o.Burn
	if b == Auto {
		b = burn
	}
	if c := planCost(plan, time.Since(began), len(o.Chains), b, keep, th); c != nil {
		res.Plan.Cost = c
		if mp, ok := plan.(*MixturePlan); ok && o.Progress != nil {
			// Before the first draw: what the pilot decided, and what it
			// will cost.
			fmt.Fprintf(o.Progress, "%s: planned in %s: τ_int = %.3g sweeps, so %d chain(s) × (burn %d + %d × thin %d) sweeps at the pilot's %.3g s a sweep: about %s\n",
				o.Command, time.Since(began).Round(time.Second), iat, len(o.Chains), b, keep, th, mp.StepSeconds(), time.Duration(c.RunSeconds*float64(time.Second)).Round(time.Second))
		}
		if c.Why != "" {
			// Said before the first draw, not only in the notes after.
			res.Notes = append(res.Notes, "plan cost: "+c.Why)
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "%s: plan cost: %s\n", o.Command, c.Why)
			}
		}
	}
	if o.Burn == Auto {
		o.Burn = burn
	}
	if o.Thin == 0 {
		o.Thin = thin
	}
	return plan, o.runSize(p)
}

// runRuler is a plan that says its own run-length rule (MixturePlan).
type runRuler interface {
	RunRuleLine(burn, thin int, iat float64) string
}

// NewChainPlan is the plan for m: the log-concave plan (LogConcave) for a
// model that finds its own mode (a PlanModel, whose posterior is
// log-concave); else the mode search's, the log-concave plan at the one
// mode it found or a ModePlan over several, on one level when oneLevel
// (--levels 1: the user's choice, which the occupancy warning then
// watches). note says why, for the output.
func NewChainPlan(m Model, seed uint64, oneLevel bool) (plan ChainPlan, note string, err error) {
	return newChainPlan(m, seed, oneLevel, []int{1, 2, 3, 4}, nil)
}

// newChainPlan is NewChainPlan for the chains ids, saying what it does on
// status (nil: not).
func newChainPlan(m Model, seed uint64, oneLevel bool, ids []int, status *planStatus) (plan ChainPlan, note string, err error) {
	defer func() {
		if err != nil && !errors.Is(err, results.ErrInterrupted) {
			err = fmt.Errorf("default sampler: %w (give a --method and --eta)", err)
		}
	}()
	if m.ownPlan != nil {
		return m.ownPlan(seed, status)
	}
	if pm, ok := m.Terms.(PlanModel); ok {
		status.set("finding the mode and the Hessian there")
		lc, err := newLogConcave(pm, seed, status)
		return lc, SingleChainNote, err
	}
	status.set("searching the posterior's modes")
	var extra [][]float64
	if m.Starts != nil {
		if extra, err = m.Starts(); err != nil {
			return nil, "", err
		}
	}
	first := m.Init
	if first == nil {
		first = make([]float64, m.Terms.Dim())
	}
	s, err := searchModes(m.Terms, first, extra, seed, status)
	status.setSearch(s, len(extra))
	if err != nil {
		if m.Kernel != nil || errors.Is(err, results.ErrInterrupted) {
			return nil, "", err
		}
		if err := status.stopped(); err != nil {
			return nil, "", err
		}
		np, nerr := newNUTSPlan(m.Terms, ids, seed, m.Init, nil, nil, "the mode search found no mode ("+err.Error()+"), so no preconditioner fixed at one", status)
		if nerr != nil {
			return nil, "", fmt.Errorf("%w; and NUTS: %w", err, nerr)
		}
		if s != nil && s.Starts > 0 && s.Saddles == s.Starts {
			np.ridges = s.Starts
		}
		return np, "one chain per --chains, each after its own warmup", nil
	}
	if err := status.stopped(); err != nil {
		return nil, "", err
	}
	if m.Kernel == nil && (len(s.Modes) == 1 || s.OneBasin()) {
		return oneModePlan(m, s, seed, ids, status)
	}
	mp, err := newModePlan(m, s, seed, oneLevel, status)
	if err != nil {
		return nil, "", err
	}
	return mp, mp.Why(), nil
}

// PlanSummary is what the plan chose, for summary.json.
type PlanSummary struct {
	Algorithm string `json:"algorithm"`
	// Modes found by the search, and the barrier between the heaviest and
	// the others of weight ≥ planModeWeight, in nats (0 for a log-concave
	// model, whose one mode is found by its own method).
	Modes   int     `json:"modes"`
	Barrier float64 `json:"barrier_nats"`
	Levels  int     `json:"levels"`
	// IAT is the planned chain's steps per effective draw (the pilot's, or
	// the rate's for a log-concave plan); OneLevelIAT the kernel's alone
	// on one level, where a ladder of power posteriors was tried.
	IAT         float64  `json:"iat_steps"`
	OneLevelIAT float64  `json:"one_level_iat_steps,omitempty"`
	SwapAccept  *float64 `json:"pilot_swap_acceptance,omitempty"`
	SDBias      float64  `json:"sd_bias_bound"`
	// Search is what the mode search looked at and found (nil where the
	// plan searched for no modes).
	Search *SearchSummary `json:"search,omitempty"`
	// Cost is the plan's wall time against the run's estimate (nil where
	// the plan timed no steps).
	Cost *PlanCost `json:"cost,omitempty"`
}

func summarizePlan(p ChainPlan) *PlanSummary {
	_, _, iat := p.RunLength(PlanKeep)
	s := &PlanSummary{Algorithm: p.Algorithm(), Modes: 1, Levels: 1, IAT: iat, SDBias: p.SDBias()}
	if mp, ok := p.(*ModePlan); ok {
		s.Modes, s.Barrier, s.Levels, s.OneLevelIAT = len(mp.Search.Modes), mp.Search.barrierAbove(planModeWeight), len(mp.Taus), mp.OneLevelIAT
		if a := mp.SwapAccept; !math.IsNaN(a) {
			s.SwapAccept = &a
		}
	}
	return s
}
