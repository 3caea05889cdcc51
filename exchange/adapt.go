package exchange

import (
	"fmt"
	"math"
	"slices"
)

// Build makes the ladder for temperatures taus (cold to hot). Adapt calls it
// once per round, so that whatever depends on a level's temperature is made
// afresh at the new τ: the coldest level keeps the accurate estimator and the
// hotter ones the cheap one, and a per-level variance model such as
// variance.AutoBatch sizes each level's minibatch at that level's own τ.
type Build func(taus []float64) (Config, error)

// Build returns the Build of method m on setup s: its ladder at any
// temperatures, with s.Taus replaced.
func (m Method) Build(s Setup) Build {
	return func(taus []float64) (Config, error) {
		s.Taus = taus
		return m.Config(s)
	}
}

// AdaptOptions are the settings of Adapt.
type AdaptOptions struct {
	// Rounds is the number of tuning rounds (≥ 1); round n runs First·2^n
	// steps, so the last round, whose estimates set the final schedule, is
	// about as long as all the others together.
	Rounds int
	First  int
	// Grow adds levels, when the estimated barrier calls for more than the
	// ladder has, up to Recommended (about 2Λ̂), capped at MaxLevels.
	Grow      bool
	MaxLevels int
	// Stop, if set, ends the tuning before the next step once closed, with
	// an error wrapping ErrStopped: tuning runs many steps and must answer
	// an interrupt as sampling does.
	Stop <-chan struct{}
}

// RoundReport is one row of the per-round table.
type RoundReport struct {
	Round     int       `json:"round"`
	Steps     int       `json:"steps"`
	Taus      []float64 `json:"taus"`      // the schedule the round ran
	Rejection []float64 `json:"rejection"` // per pair, under the noisy rule
	Lambda    float64   `json:"lambda"`    // Λ̂ = Σ rejection
	// RoundTrips and Restarts are summed over replicas; TripRate is round
	// trips per DEO round (per step under Sweep), to be read against the
	// non-reversible bound 1/(2 + 2Λ̂).
	RoundTrips int     `json:"round_trips"`
	Restarts   int     `json:"restarts"`
	TripRate   float64 `json:"round_trip_rate"`
	Bound      float64 `json:"rate_bound"`
	// GradUnits and EnergyUnits are the round's cost over all levels, in the
	// estimators' units, variance estimation included; AnchorUnits is the
	// full passes that refresh control-variate swap anchors (N units each).
	GradUnits   float64 `json:"grad_units"`
	EnergyUnits float64 `json:"energy_units"`
	AnchorUnits float64 `json:"anchor_units"`
}

// Units is the round's whole cost, as Sampler.Units counts it.
func (r RoundReport) Units() float64 { return r.GradUnits + r.EnergyUnits + r.AnchorUnits }

// Adapted is what Adapt found.
type Adapted struct {
	Rounds      []RoundReport `json:"rounds"`
	Taus        []float64     `json:"taus"`        // the tuned schedule, cold to hot
	Lambda      float64       `json:"lambda"`      // Λ̂ of the last round
	Recommended int           `json:"recommended"` // about 2Λ̂
	// States are the last states of the ladder, one per level of Taus, to
	// start the sampling run from.
	States [][]float64 `json:"-"`
	Steps  int         `json:"steps"` // all rounds together
}

// Adapt tunes a ladder's temperatures so that every adjacent pair rejects
// swaps equally often (Syed et al. 2022, Algorithm 4), with rejection
// measured under the ladder's own, possibly noisy, swap rule. It runs
// opt.Rounds rounds of doubling length from taus (cold to hot; the ends stay
// fixed). After each round it estimates each pair's rejection rate as the
// mean of 1 − min(1, Ŝ) over the round's attempts, builds the barrier Λ̂ (see
// Barrier) and moves the levels to split it equally, adding levels first if
// opt.Grow and Λ̂ calls for more. The states carry over from round to round.
//
// The rounds are burn-in: their samples are not returned, and their cost,
// reported per round, is part of what the tuned ladder cost.
func Adapt(build Build, taus []float64, init [][]float64, opt AdaptOptions) (Adapted, error) {
	var out Adapted
	switch {
	case opt.Rounds < 1:
		return out, fmt.Errorf("adaptive ladder: %d rounds: need at least 1", opt.Rounds)
	case opt.First < 1:
		return out, fmt.Errorf("adaptive ladder: first round of %d steps: need at least 1", opt.First)
	case opt.Rounds > 62 || opt.First > math.MaxInt>>opt.Rounds:
		// Round n runs First·2^n steps: beyond this the count wraps.
		return out, fmt.Errorf("adaptive ladder: %d rounds from %d steps: the step count overflows", opt.Rounds, opt.First)
	case len(taus) < 2:
		return out, fmt.Errorf("adaptive ladder: %d levels: need at least 2", len(taus))
	case len(init) != len(taus):
		return out, fmt.Errorf("adaptive ladder: %d initial states for %d levels", len(init), len(taus))
	case opt.Grow && opt.MaxLevels < len(taus):
		return out, fmt.Errorf("adaptive ladder: at most %d levels, fewer than the %d it starts with", opt.MaxLevels, len(taus))
	}
	taus = slices.Clone(taus)
	states := make([][]float64, len(init))
	for l := range init {
		states[l] = slices.Clone(init[l])
	}
	for n := range opt.Rounds {
		rep, next, err := adaptRound(build, taus, states, opt.First<<n, n, opt.Stop)
		if err != nil {
			return out, fmt.Errorf("adaptive ladder, round %d: %w", n, err)
		}
		out.Rounds = append(out.Rounds, rep)
		out.Steps += rep.Steps
		b, err := NewBarrier(taus, rep.Rejection)
		if err != nil {
			return out, fmt.Errorf("adaptive ladder, round %d: %w", n, err)
		}
		out.Lambda, out.Recommended = b.Total(), b.Recommended()
		K := len(taus)
		if opt.Grow && out.Recommended > K {
			K = min(out.Recommended, opt.MaxLevels)
		}
		old := taus
		taus = b.Schedule(K)
		states = carry(old, next, taus)
	}
	out.Taus, out.States = taus, states
	return out, nil
}

// adaptRound runs one round of steps on the ladder at taus from states and
// returns its report and the last states.
func adaptRound(build Build, taus []float64, states [][]float64, steps, n int, stop <-chan struct{}) (RoundReport, [][]float64, error) {
	rep := RoundReport{Round: n, Steps: steps, Taus: slices.Clone(taus)}
	cfg, err := build(slices.Clone(taus))
	if err != nil {
		return rep, nil, err
	}
	if len(cfg.Levels) != len(taus) {
		return rep, nil, fmt.Errorf("the ladder built has %d levels for %d temperatures", len(cfg.Levels), len(taus))
	}
	// A fresh random stream each round: the same seed would replay the
	// previous round's draws.
	cfg.Seed += uint64(n+1) << 40
	smp, err := New(cfg, states)
	if err != nil {
		return rep, nil, err
	}
	defer smp.Close()
	for range steps {
		if stop != nil && stopped(stop) {
			return rep, nil, ErrStopped
		}
		if err := smp.Step(); err != nil {
			return rep, nil, err
		}
	}
	st := smp.Stats()
	for l, p := range st.Pairs {
		r := p.Rejection()
		if math.IsNaN(r) {
			if e := cfg.Energies.Spacing(); e > 1 {
				return rep, nil, fmt.Errorf("pair %d was never offered a swap in %d steps, its swaps attempted every %d steps (the swap energies' spacing): lengthen the first round to several times that", l, steps, e)
			}
			return rep, nil, fmt.Errorf("pair %d was never offered a swap in %d steps: lengthen the first round (DEO window %d)", l, steps, cfg.Swap.window())
		}
		rep.Rejection = append(rep.Rejection, r)
		rep.Lambda += r
	}
	trips := Sum(st.Replicas)
	rep.RoundTrips, rep.Restarts = trips.RoundTrips, trips.Restarts
	rounds := cfg.Swap.Round(steps-1) + 1
	rep.TripRate = float64(rep.RoundTrips) / float64(rounds)
	rep.Bound = 1 / (2 + 2*rep.Lambda)
	for _, lv := range st.Levels {
		rep.GradUnits += lv.Cost.TotalGrad().Units
		rep.EnergyUnits += lv.Cost.TotalEnergy().Units
		rep.AnchorUnits += lv.Cost.Anchor.Units
	}
	next := make([][]float64, len(taus))
	for l := range next {
		next[l] = slices.Clone(smp.State(l))
	}
	return rep, next, nil
}

// carry starts each level of the new schedule from the state of the old
// level nearest to it in ln τ (the same level when K is unchanged).
func carry(old []float64, states [][]float64, taus []float64) [][]float64 {
	out := make([][]float64, len(taus))
	for i, tau := range taus {
		best := i
		if len(taus) != len(old) {
			best = 0
			for l := range old {
				if math.Abs(math.Log(old[l]/tau)) < math.Abs(math.Log(old[best]/tau)) {
					best = l
				}
			}
		}
		out[i] = slices.Clone(states[best])
	}
	return out
}

// Geometric returns K temperatures spaced geometrically from lo to hi.
func Geometric(lo, hi float64, K int) ([]float64, error) {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) || K < 2 {
		return nil, fmt.Errorf("geometric ladder from τ = %v to %v with %d levels: need 0 < lo < hi < ∞ and K ≥ 2", lo, hi, K)
	}
	taus := make([]float64, K)
	for l := range taus {
		taus[l] = lo * math.Pow(hi/lo, float64(l)/float64(K-1))
	}
	taus[K-1] = hi
	return taus, nil
}
