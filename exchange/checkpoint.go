package exchange

import (
	"errors"
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
)

// stateVersion is the layout of MarshalBinary's output. A checkpoint of
// another layout is refused, not guessed at.
const stateVersion = 1

// samplerState is everything that decides a sampler's later steps and
// statistics. The settings (temperatures, rule, scheme, energy mode) are
// saved only to refuse a checkpoint restored into another ladder.
type samplerState struct {
	Version int
	Dim     int
	Taus    []float64
	Rule    Rule
	Scheme  Scheme
	Mode    EnergyMode
	Times   bool

	Steps int
	Err   string // the sticky error, if the sampler had failed
	Reps  []replicaState
	At    []int
	Swap  []byte // the swap stream's PCG
	Pairs []PairStats
	Noise []float64
	Probs [][]float64 // per pair: log-ratios not yet in ProbSum
	Lv    []levelState
	Trips tripsState

	// Data modes: the drawer's shuffle, and each replica's anchor point
	// and pass count (the anchor is refitted there: see energy.Anchor.Restore).
	Idx          []byte
	AnchorTheta  [][]float64
	AnchorPasses []int
	// Frozen is what adaptation settled on, once it ended.
	Frozen *Frozen
}

type replicaState struct {
	Theta []float64
	RNG   []byte
	Prev  []float64
	Last  []float64
	// The divergence watch.
	LastN2, Scale, Base, Rate float64
	Run                       int
}

type levelState struct {
	Stats         LevelStats
	Grad, Rep, S2 []float64
	Est, Var      []byte
	// MH is a Metropolis-adjusted level's U and whitened ∇U at its state:
	// restored, the next step need not recompute them, so that a resumed
	// run counts the passes an uninterrupted one does.
	MH *malaState
	// Kernel is a kernel level's state (an energy.StateSaver kernel's:
	// NUTS keeps U and ∇U at its state and its diagnostics' sums); nil for
	// a kernel that keeps none.
	Kernel []byte
}

type malaState struct {
	X, GX []float64
	UX    float64
	Valid bool
}

type tripsState struct {
	Reps []ReplicaStats
	Last []int8
	Seen []bool
}

// MarshalBinary saves the sampler's whole state between steps: every
// replica's state, random stream and divergence watch, which replica sits
// at which level, the swap stream, the step count, every pair's and
// level's statistics, the round-trip tracker, the data modes' drawer and
// anchors, and the state of the levels' estimators and variance models
// (energy.StateSaver). A sampler built by New from the same Config and
// restored with UnmarshalBinary then takes the same steps, bit for bit, as
// this one would. It fails, naming the level, when an estimator or
// variance model keeps state it cannot save. Not safe during Step.
func (s *Sampler) MarshalBinary() ([]byte, error) {
	st := samplerState{Version: stateVersion, Dim: s.Dim(), Rule: s.swap.Rule, Scheme: s.swap.Scheme, Times: s.times, Steps: s.k, At: s.at, Pairs: s.pairs, Noise: s.noise, Frozen: s.frozen}
	if s.err != nil {
		st.Err = s.err.Error()
	}
	if s.data != nil {
		st.Mode = s.data.Mode
	}
	for l := range s.lv {
		lv := &s.lv[l]
		st.Taus = append(st.Taus, lv.Tau)
		est, err := energy.SaveStateOf(lv.Est)
		if err != nil {
			return nil, fmt.Errorf("level %d: estimator: %w", l, err)
		}
		var vs []byte
		if lv.Var != nil {
			if vs, err = energy.SaveStateOf(lv.Var); err != nil {
				return nil, fmt.Errorf("level %d: variance model: %w", l, err)
			}
		}
		ls := levelState{Stats: lv.stats, Grad: lv.grad, Rep: lv.rep, S2: lv.s2, Est: est, Var: vs}
		if m := lv.mh; m != nil {
			ls.MH = &malaState{X: m.x, GX: m.gx, UX: m.ux, Valid: m.valid}
		}
		if k, ok := lv.Kernel.(energy.StateSaver); ok {
			if ls.Kernel, err = k.SaveState(); err != nil {
				return nil, fmt.Errorf("level %d: kernel: %w", l, err)
			}
		}
		st.Lv = append(st.Lv, ls)
	}
	for r := range s.reps {
		rp := &s.reps[r]
		b, err := rp.pcg.MarshalBinary()
		if err != nil {
			return nil, err
		}
		w := rp.watch
		st.Reps = append(st.Reps, replicaState{Theta: rp.theta, RNG: b, Prev: w.prev, Last: w.last, LastN2: w.lastN2, Scale: w.scale, Base: w.base, Rate: w.rate, Run: w.run})
	}
	var err error
	if st.Swap, err = s.spcg.MarshalBinary(); err != nil {
		return nil, err
	}
	for i := range s.probs {
		st.Probs = append(st.Probs, s.probs[i].lr[:s.probs[i].n])
	}
	st.Trips = tripsState{Reps: s.trips.reps, Last: s.trips.last, Seen: s.trips.seen}
	if s.data != nil {
		if st.Idx, err = s.data.idx.SaveState(); err != nil {
			return nil, err
		}
		for _, a := range s.data.anchors {
			st.AnchorTheta = append(st.AnchorTheta, a.Theta())
			st.AnchorPasses = append(st.AnchorPasses, a.Passes())
		}
	}
	return energy.EncodeState(st)
}

// UnmarshalBinary restores what MarshalBinary saved into a sampler that New
// built from the same Config (and has not stepped since, or has: its state
// is replaced). It refuses, naming what differs, a state saved by another
// layout or from another ladder. A data mode's anchors are refitted at
// their saved points: one full pass over the data per replica.
func (s *Sampler) UnmarshalBinary(b []byte) error {
	var st samplerState
	if err := energy.DecodeState(b, &st, "sampler"); err != nil {
		return err
	}
	if err := s.compatible(&st); err != nil {
		return err
	}
	p := s.Dim()
	vec := func(what string, dst, src []float64) error {
		if len(src) != len(dst) {
			return fmt.Errorf("checkpoint: %s has %d values, want %d", what, len(src), len(dst))
		}
		copy(dst, src)
		return nil
	}
	for r, rs := range st.Reps {
		rp := &s.reps[r]
		if err := rp.pcg.UnmarshalBinary(rs.RNG); err != nil {
			return fmt.Errorf("checkpoint: replica %d's random stream: %w", r, err)
		}
		w := &rp.watch
		if err := errors.Join(vec(fmt.Sprintf("replica %d's state", r), rp.theta, rs.Theta),
			vec("a watch's state", w.prev, rs.Prev), vec("a watch's move", w.last, rs.Last)); err != nil {
			return err
		}
		w.lastN2, w.scale, w.base, w.rate, w.run = rs.LastN2, rs.Scale, rs.Base, rs.Rate, rs.Run
		rp.uStep = 0
	}
	if err := s.spcg.UnmarshalBinary(st.Swap); err != nil {
		return fmt.Errorf("checkpoint: the swap stream: %w", err)
	}
	seen := make([]bool, len(s.at))
	for l, r := range st.At {
		if r < 0 || r >= len(seen) || seen[r] {
			return fmt.Errorf("checkpoint: the level→replica map %v is not a permutation", st.At)
		}
		seen[r] = true
		s.at[l] = r
	}
	for i := range s.pairs {
		pr := st.Pairs[i]
		if !s.times {
			pr.Times = nil
		}
		s.pairs[i] = pr
		s.noise[i] = st.Noise[i]
		if len(st.Probs[i]) >= probBatch {
			return fmt.Errorf("checkpoint: pair %d holds %d pending acceptance probabilities, at most %d", i, len(st.Probs[i]), probBatch-1)
		}
		s.probs[i].n = copy(s.probs[i].lr[:], st.Probs[i])
	}
	for l, ls := range st.Lv {
		lv := &s.lv[l]
		lv.stats = ls.Stats
		if err := errors.Join(vec("a gradient", lv.grad, ls.Grad), vec("a reported variance", lv.rep, ls.Rep), vec("a corrected variance", lv.s2, ls.S2)); err != nil {
			return err
		}
		if err := energy.RestoreStateOf(lv.Est, ls.Est); err != nil {
			return fmt.Errorf("checkpoint: level %d's estimator: %w", l, err)
		}
		if k, ok := lv.Kernel.(energy.StateSaver); ok && ls.Kernel != nil {
			if err := k.RestoreState(ls.Kernel); err != nil {
				return fmt.Errorf("checkpoint: level %d's kernel: %w", l, err)
			}
		}
		if m := lv.mh; m != nil {
			m.valid = false // recomputed at the next step unless restored
			if ms := ls.MH; ms != nil && ms.Valid {
				if err := errors.Join(vec("a Metropolis state", m.x, ms.X), vec("a Metropolis gradient", m.gx, ms.GX)); err != nil {
					return err
				}
				m.ux, m.valid = ms.UX, true
			}
		}
	}
	// Variance models after every estimator: a model may read its
	// estimator's restored state, and a follower its leader's.
	for l, ls := range st.Lv {
		if lv := &s.lv[l]; lv.Var != nil {
			if err := energy.RestoreStateOf(lv.Var, ls.Var); err != nil {
				return fmt.Errorf("checkpoint: level %d's variance model: %w", l, err)
			}
		}
	}
	t := st.Trips
	if len(t.Reps) != len(s.trips.reps) || len(t.Last) != len(s.trips.last) || len(t.Seen) != len(s.trips.seen) {
		return errors.New("checkpoint: the round-trip record has another number of replicas")
	}
	copy(s.trips.reps, t.Reps)
	copy(s.trips.last, t.Last)
	copy(s.trips.seen, t.Seen)
	if s.data != nil {
		if err := s.data.idx.RestoreState(st.Idx); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if len(st.AnchorTheta) != len(s.data.anchors) || len(st.AnchorPasses) != len(s.data.anchors) {
			return fmt.Errorf("checkpoint: %d anchors, this ladder has %d", len(st.AnchorTheta), len(s.data.anchors))
		}
		for r, a := range s.data.anchors {
			if len(st.AnchorTheta[r]) != p {
				return fmt.Errorf("checkpoint: replica %d's anchor has dimension %d, want %d", r, len(st.AnchorTheta[r]), p)
			}
			if err := a.Restore(st.AnchorTheta[r], st.AnchorPasses[r]); err != nil {
				return fmt.Errorf("checkpoint: replica %d's anchor: %w", r, err)
			}
		}
	}
	s.k = st.Steps
	s.frozen = st.Frozen.clone()
	s.err = nil
	if st.Err != "" {
		s.err = errors.New(st.Err)
	}
	return nil
}

// compatible refuses a state from another layout or ladder, naming what
// differs.
func (s *Sampler) compatible(st *samplerState) error {
	K := len(s.lv)
	var mode EnergyMode
	if s.data != nil {
		mode = s.data.Mode
	}
	switch {
	case st.Version != stateVersion:
		return fmt.Errorf("checkpoint: sampler state layout %d, this version reads layout %d", st.Version, stateVersion)
	case len(st.Taus) != K:
		return fmt.Errorf("checkpoint: a ladder of %d levels, this one has %d", len(st.Taus), K)
	case st.Dim != s.Dim():
		return fmt.Errorf("checkpoint: states of dimension %d, this sampler's are %d", st.Dim, s.Dim())
	case st.Rule != s.swap.Rule:
		return fmt.Errorf("checkpoint: swap rule %v, this sampler's is %v", st.Rule, s.swap.Rule)
	case st.Scheme != s.swap.Scheme:
		return fmt.Errorf("checkpoint: swap scheme %v, this sampler's is %v", st.Scheme, s.swap.Scheme)
	case st.Mode != mode:
		return fmt.Errorf("checkpoint: swap energies %v, this sampler's are %v", st.Mode, mode)
	case st.Times != s.times:
		return fmt.Errorf("checkpoint: swap times recorded %v, this sampler %v", st.Times, s.times)
	case len(st.Reps) != K || len(st.At) != K || len(st.Lv) != K || len(st.Pairs) != K-1 || len(st.Noise) != K-1 || len(st.Probs) != K-1:
		return fmt.Errorf("checkpoint: the saved state does not hold %d levels", K)
	case st.Steps < 0:
		return fmt.Errorf("checkpoint: step count %d", st.Steps)
	}
	for l, tau := range st.Taus {
		if math.Float64bits(tau) != math.Float64bits(s.lv[l].Tau) {
			return fmt.Errorf("checkpoint: level %d's temperature τ = %v, this ladder's is %v", l, tau, s.lv[l].Tau)
		}
	}
	return nil
}
