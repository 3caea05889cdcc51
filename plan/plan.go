package plan

import (
	"errors"
	"fmt"
	"math"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/results"
)

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

// NewChainPlan is the plan for m: the log-concave plan (LogConcave) for a
// model that finds its own mode (a PlanModel, whose posterior is
// log-concave); else the mode search's, the log-concave plan at the one
// mode it found or a ModePlan over several, on one level when oneLevel
// (--levels 1: the user's choice, which the occupancy warning then
// watches). note says why, for the output.
func NewChainPlan(m Model, seed uint64, oneLevel bool) (plan ChainPlan, note string, err error) {
	return PlanFor(m, seed, oneLevel, []int{1, 2, 3, 4}, nil)
}

// PlanFor is NewChainPlan for the chains ids, saying what it does on
// status (nil: not).
func PlanFor(m Model, seed uint64, oneLevel bool, ids []int, status *Status) (plan ChainPlan, note string, err error) {
	defer func() {
		if err != nil && !errors.Is(err, results.ErrInterrupted) {
			err = fmt.Errorf("default sampler: %w (give a --method and --eta)", err)
		}
	}()
	if m.ownPlan != nil {
		return m.ownPlan(seed, status)
	}
	if pm, ok := m.Terms.(PlanModel); ok {
		status.Set("finding the mode and the Hessian there")
		lc, err := newLogConcave(pm, seed, status)
		return lc, SingleChainNote, err
	}
	status.Set("searching the posterior's modes")
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
	s, err := modes.Search(m.Terms, first, extra, seed, status)
	status.setSearch(s, len(extra))
	if err != nil {
		if m.Kernel != nil || errors.Is(err, results.ErrInterrupted) {
			return nil, "", err
		}
		if err := status.Stopped(); err != nil {
			return nil, "", err
		}
		ridges := 0
		if s != nil && s.Starts > 0 && s.Saddles == s.Starts {
			// Said while NUTS warms up, which on a flat direction runs its
			// longest trajectories for minutes, not only after the run.
			ridges = s.Starts
			status.Caveat("no mode: all %d mode searches ended on a ridge or a flat direction, so the posterior may be improper (give every parameter a proper prior); SIGINT stops the run", ridges)
		}
		np, nerr := NewNUTSPlan(m.Terms, ids, seed, m.Init, nil, nil, "the mode search found no mode ("+err.Error()+"), so no preconditioner fixed at one", status)
		if errors.Is(nerr, results.ErrInterrupted) {
			return nil, "", nerr // the stop first, not the search's failure
		}
		if nerr != nil {
			return nil, "", fmt.Errorf("%w; and NUTS: %w", err, nerr)
		}
		np.ridges = ridges
		return np, "one chain per --chains, each after its own warmup", nil
	}
	if err := status.Stopped(); err != nil {
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
	// the others of weight ≥ ModeWeight, in nats (0 for a log-concave
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
	Search *modes.SearchSummary `json:"search,omitempty"`
	// Cost is the plan's wall time against the run's estimate (nil where
	// the plan timed no steps).
	Cost *PlanCost `json:"cost,omitempty"`
}

func Summarize(p ChainPlan) *PlanSummary {
	_, _, iat := p.RunLength(PlanKeep)
	s := &PlanSummary{Algorithm: p.Algorithm(), Modes: 1, Levels: 1, IAT: iat, SDBias: p.SDBias()}
	if mp, ok := p.(*ModePlan); ok {
		s.Modes, s.Barrier, s.Levels, s.OneLevelIAT = len(mp.Search.Modes), mp.Search.BarrierAbove(modes.ModeWeight), len(mp.Taus), mp.OneLevelIAT
		if a := mp.SwapAccept; !math.IsNaN(a) {
			s.SwapAccept = &a
		}
	}
	return s
}
