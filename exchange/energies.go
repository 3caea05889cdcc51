package exchange

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/target"
)

// EnergyMode says how a swap estimates U(x) − U(y) and the variance V that
// corrects its ratio, log Ŝ = τδ·D̂ − τδ²V/2.
//
// The ratio's correction is right only if V does not depend on the draw that
// gave D̂. When both come from one small minibatch they do: a draw that misses
// the badly fitted examples reports a small spread and a favourable D̂ at
// once, and swaps are accepted on that luck rather than on S. Every mode
// but DrawEnergies therefore takes V from a window of earlier draws (the
// per-example spread averaged over the last Window draws of the same kind,
// times N(N − n)/n at the current n), which is independent of the current
// draw given the past, or, under the Taylor modes, from a second draw at the
// same states. The first attempt, with an empty window, pays for one extra
// draw to fill it.
type EnergyMode int

const (
	// DrawEnergies uses each level estimator's Energy draws and the
	// variances they report: right for estimators whose variance is known
	// (target.Noisy), wrong for minibatch estimators at small n (see above).
	DrawEnergies EnergyMode = iota
	// MinibatchEnergies draws each state's energy from a fresh minibatch of
	// its estimator's energy size (Energies.Sizes), V from the windowed
	// spread of the per-example energies at the state's level.
	MinibatchEnergies
	// CVEnergies is MinibatchEnergies with control variates: each state's
	// energy is estimated about its anchor (target.Anchor), refreshed by a
	// full pass every AnchorEvery steps; V from the windowed spread of the
	// residuals.
	CVEnergies
	// PairEnergies evaluates both states of a swap on one common minibatch:
	// D̂ = U_0(x) − U_0(y) + (N/n) Σ_B [U_i(x) − U_i(y)], V from the windowed
	// spread of the per-example differences of the pair's past attempts.
	PairEnergies
	// PairCVEnergies is PairEnergies on the residuals about each state's
	// anchor.
	PairCVEnergies
	// ExactEnergies evaluates both states on the whole data set (V = 0), and
	// attempts swaps only every ExactEvery steps, at 2N/ExactEvery
	// evaluations per step and pair; A and PerStep are then ignored.
	ExactEnergies
	// TaylorEnergies is CVEnergies with first-order anchors
	// (target.NewTaylorAnchor): the residuals U_i(θ) − U_i(θ̂) − ∇U_i(θ̂)·Δ
	// are of second order in Δ = θ − θ̂, so V falls like |Δ|⁴ instead of |Δ|².
	// An anchor keeps N more floats for a linear model, N·p otherwise.
	//
	// V comes from a second draw of the same size at the same states,
	// independent of the first, made at every attempt (its evaluations
	// counted): a window of past draws averages over the path between
	// refreshes, along which V grows from 0 like |Δ|⁴, so it would
	// overstate V early in each period and understate it late, where the
	// accepted swaps are then decided by the tail of D̂.
	TaylorEnergies
	// PairTaylorEnergies is PairEnergies on the residuals about each state's
	// first-order anchor.
	PairTaylorEnergies
)

var energyModeNames = [...]string{DrawEnergies: "draw", MinibatchEnergies: "minibatch", CVEnergies: "cv", PairEnergies: "pair", PairCVEnergies: "pair-cv", ExactEnergies: "exact", TaylorEnergies: "taylor", PairTaylorEnergies: "pair-taylor"}

func (m EnergyMode) String() string {
	if m >= 0 && int(m) < len(energyModeNames) {
		return energyModeNames[m]
	}
	return fmt.Sprintf("EnergyMode(%d)", int(m))
}

// ParseEnergyMode reads a mode by name.
func ParseEnergyMode(s string) (EnergyMode, error) {
	for m, n := range energyModeNames {
		if n == s {
			return EnergyMode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown swap-energy mode %q (want draw, minibatch, cv, pair, pair-cv, exact, taylor or pair-taylor)", s)
}

// cv reports whether the mode uses anchors.
func (m EnergyMode) cv() bool {
	return m == CVEnergies || m == PairCVEnergies || m.taylor()
}

// taylor reports whether the mode's anchors are of first order.
func (m EnergyMode) taylor() bool { return m == TaylorEnergies || m == PairTaylorEnergies }

// Energies configures swap energies computed from the data set itself, for
// levels whose estimators are minibatches of the same Terms. The zero value
// is DrawEnergies.
//
// What each swap rule means under the data modes (n_l is level l's energy
// size; each rule keeps its number of evaluations):
//
//   - MinibatchEnergies, CVEnergies, TaylorEnergies: as under DrawEnergies, with level l's
//     size n_l for "level l's estimator": reSGLD draws x and y at n_l,
//     f-reSGLD draws x at n_l and y at n_{l+1}, m-reSGLD draws both states
//     at both sizes and weights the two differences a1, a2. V sums the
//     independent draws' variances (weighted by a1², a2²).
//   - PairEnergies, PairCVEnergies, PairTaylorEnergies: one common minibatch per difference.
//     reSGLD: one batch of n_l for both states (2n_l evaluations, as its two
//     draws); f-reSGLD: one batch of ⌈(n_l + n_{l+1})/2⌉ (the cost of its two
//     draws: each state is no longer evaluated by its own level's estimator,
//     only at that cost); m-reSGLD: a1·D̂(n_l) + a2·D̂(n_{l+1}) on two
//     independent batches, V = a1²V_1 + a2²V_2.
//   - ExactEnergies: every rule computes the exact S.
type Energies struct {
	Mode EnergyMode
	// Terms is the data set the levels' estimators draw from; required by
	// every mode but DrawEnergies.
	Terms target.Terms
	// Sizes[l] is level l's energy minibatch size n_l, in [2, N]. Nil: each
	// level estimator's EnergySize() (target.Minibatch has one), read at
	// every attempt, so it follows an estimator whose size changes.
	Sizes []int
	// Window is the number of past draws whose per-example spread gives V
	// (default 50; unused by the Taylor modes).
	Window int
	// AnchorEvery is the number of steps between anchor refreshes (full
	// passes) of the anchored modes (default 100).
	AnchorEvery int
	// LevelAnchors keeps each anchor with its level across swaps; by
	// default an anchor travels with its replica, so a state that swaps in
	// keeps the anchor it is close to.
	LevelAnchors bool
	// ExactEvery is the number of steps between exact swap attempts
	// (default 10).
	ExactEvery int
	// MaxNoise, if positive, declines every attempt of a data mode whose
	// swap noise τδ²V/2 exceeds it (nats), whatever D̂: above a nat or two
	// min(1, Ŝ) is decided by the tails of D̂ and of V's own estimate
	// rather than by S. V does not depend on D̂, so declining on it does
	// not bias the attempts that remain; declines count as attempts
	// (PairStats.Capped).
	MaxNoise float64
}

// EnergySizer is implemented by estimators with an energy minibatch size.
type EnergySizer interface{ EnergySize() int }

func (e *Energies) defaults() {
	if e.Window == 0 {
		e.Window = 50
	}
	if e.AnchorEvery == 0 {
		e.AnchorEvery = 100
	}
	if e.ExactEvery == 0 {
		e.ExactEvery = 10
	}
}

func validateEnergies(e Energies, levels []Level, p int) error {
	if e.Mode < DrawEnergies || int(e.Mode) >= len(energyModeNames) {
		return fmt.Errorf("swap energies: unknown mode %v", e.Mode)
	}
	if e.Mode == DrawEnergies {
		return nil
	}
	if !(e.MaxNoise >= 0) {
		return fmt.Errorf("swap energies: noise cap %v must be ≥ 0 nats (0: none)", e.MaxNoise)
	}
	if e.Terms == nil {
		return fmt.Errorf("swap energies %v: no data set (Terms)", e.Mode)
	}
	N := e.Terms.Len()
	if e.Terms.Dim() != p {
		return fmt.Errorf("swap energies %v: data of dimension %d for states of dimension %d", e.Mode, e.Terms.Dim(), p)
	}
	if N < 2 {
		return fmt.Errorf("swap energies %v: the data set has %d examples, need 2", e.Mode, N)
	}
	switch {
	case e.Window < 1:
		return fmt.Errorf("swap energies: variance window %d must be ≥ 1 draw", e.Window)
	case e.AnchorEvery < 1:
		return fmt.Errorf("swap energies: anchor period %d must be ≥ 1 step", e.AnchorEvery)
	case e.ExactEvery < 1:
		return fmt.Errorf("swap energies: exact swap period %d must be ≥ 1 step", e.ExactEvery)
	}
	if e.Mode == ExactEnergies {
		return nil
	}
	if e.Sizes != nil {
		if len(e.Sizes) != len(levels) {
			return fmt.Errorf("swap energies: %d sizes for %d levels", len(e.Sizes), len(levels))
		}
		for l, n := range e.Sizes {
			if n < 2 || n > N {
				return fmt.Errorf("swap energies: level %d energy size n = %d must lie in [2, N = %d]", l, n, N)
			}
		}
		return nil
	}
	for l, L := range levels {
		if _, ok := L.Est.(EnergySizer); !ok {
			return fmt.Errorf("swap energies %v: level %d's estimator %T has no energy size; set Energies.Sizes", e.Mode, l, L.Est)
		}
	}
	return nil
}

// window is a ring of the last per-example spreads s² of one kind of draw.
type window struct {
	v    []float64
	n    int // values held
	next int
	sum  float64
	mean float64
}

func (w *window) add(x float64) {
	if w.n == len(w.v) {
		w.sum -= w.v[w.next]
	}
	w.v[w.next] = x
	w.sum += x
	w.next = (w.next + 1) % len(w.v)
	w.n = min(w.n+1, len(w.v))
	if w.next == 0 { // summed afresh once a round: no drift from adding and removing
		w.sum = 0
		for _, y := range w.v[:w.n] {
			w.sum += y
		}
	}
	w.mean = max(0, w.sum/float64(w.n))
}

// dataSwap is a sampler's swap-energy machinery for the data modes.
type dataSwap struct {
	Energies
	N       int
	idx     *target.Indices
	anchors []*target.Anchor // per replica, or per level with LevelAnchors
	state   []window         // per anchor slot (CV) or level: spread of a state's values
	pair    []window         // per pair: spread of the differences
	pending [4]pend          // spreads of the current ratio's draws, added after it
	np      int
}

type pend struct {
	w  *window
	s2 float64
}

func newDataSwap(e Energies, K int) *dataSwap {
	d := &dataSwap{Energies: e, N: e.Terms.Len(), idx: target.NewIndices(e.Terms.Len())}
	mk := func(n int) []window {
		ws := make([]window, n)
		for i := range ws {
			ws[i].v = make([]float64, e.Window)
		}
		return ws
	}
	d.state, d.pair = mk(K), mk(K-1)
	if e.Mode.cv() {
		for range K {
			a := target.NewAnchor(e.Terms)
			if e.Mode.taylor() {
				a = target.NewTaylorAnchor(e.Terms)
			}
			d.anchors = append(d.anchors, a)
		}
	}
	return d
}

// slot is the anchor and state window index of the state at level l.
func (s *Sampler) slot(l int) int {
	if s.data.Mode.cv() && !s.data.LevelAnchors {
		return s.at[l]
	}
	return l
}

func (s *Sampler) anchor(l int) *target.Anchor {
	if !s.data.Mode.cv() {
		return nil
	}
	return s.data.anchors[s.slot(l)]
}

// refreshAnchors moves every level's anchor to its current state, counting
// N evaluations to the level.
func (s *Sampler) refreshAnchors() error {
	for l := range s.lv {
		if err := s.anchor(l).Refresh(s.State(l)); err != nil {
			return fmt.Errorf("level %d: %w", l, err)
		}
		c := &s.lv[l].stats.Cost.Anchor
		c.Calls++
		c.Units += float64(s.data.N)
	}
	return nil
}

func (s *Sampler) energySize(l int) int {
	if s.data.Sizes != nil {
		return s.data.Sizes[l]
	}
	return min(max(s.lv[l].Est.(EnergySizer).EnergySize(), 2), s.data.N)
}

func (s *Sampler) spend(l int, units int) {
	c := &s.lv[l].stats.Cost.Energy
	c.Calls++
	c.Units += float64(units)
}

// variance returns FPC(N, n)·(mean spread of w); with w empty it first
// fills w from one extra draw made by pilot. Under the Taylor modes it
// returns FPC(N, n) times the spread of a fresh draw. A draw costs n
// evaluations at each of the levels whose states it evaluates.
func (s *Sampler) variance(w *window, n int, pilot func(idx []int32) float64, levels ...int) float64 {
	fresh := s.data.Mode.taylor()
	if fresh || w.n == 0 {
		s2 := pilot(s.data.idx.Draw(s.srng, n))
		for _, l := range levels {
			s.spend(l, n)
		}
		if fresh {
			return target.FPC(s.data.N, n) * s2
		}
		w.add(s2)
	}
	return target.FPC(s.data.N, n) * w.mean
}

func (s *Sampler) defer_(w *window, s2 float64) {
	if s.data.Mode.taylor() { // their V never reads a window
		return
	}
	s.data.pending[s.data.np] = pend{w, s2}
	s.data.np++
}

// stateEnergy draws Û at theta, a state at level at, with level est's size.
func (s *Sampler) stateEnergy(at, est int, theta []float64) (u, v float64) {
	d := s.data
	n := s.energySize(est)
	a := s.anchor(at)
	w := &d.state[s.slot(at)]
	v = s.variance(w, n, func(idx []int32) float64 { _, s2 := target.EnergyOn(d.Terms, a, theta, idx); return s2 }, at)
	u, s2 := target.EnergyOn(d.Terms, a, theta, d.idx.Draw(s.srng, n))
	s.spend(at, n)
	s.defer_(w, s2)
	return u, v
}

// pairDiff draws D̂ for x at level l and y at level l+1 on one batch of n.
func (s *Sampler) pairDiff(l, n int, x, y []float64) (dv, v float64) {
	d := s.data
	ax, ay := s.anchor(l), s.anchor(l+1)
	w := &d.pair[l]
	v = s.variance(w, n, func(idx []int32) float64 { _, s2 := target.DiffOn(d.Terms, ax, x, ay, y, idx); return s2 }, l, l+1)
	dv, s2 := target.DiffOn(d.Terms, ax, x, ay, y, d.idx.Draw(s.srng, n))
	s.spend(l, n)
	s.spend(l+1, n)
	s.defer_(w, s2)
	return dv, v
}

// dataDiff returns D̂ and V for the sampler's rule under a data mode.
func (s *Sampler) dataDiff(l int, x, y []float64) (dv, v float64) {
	d := s.data
	d.np = 0
	defer func() {
		for _, p := range d.pending[:d.np] {
			p.w.add(p.s2)
		}
	}()
	switch d.Mode {
	case ExactEnergies:
		s.spend(l, d.N)
		s.spend(l+1, d.N)
		return target.Sum(d.Terms, x) - target.Sum(d.Terms, y), 0
	case PairEnergies, PairCVEnergies, PairTaylorEnergies:
		nl, nh := s.energySize(l), s.energySize(l+1)
		switch s.swap.Rule {
		case ReSGLD:
			return s.pairDiff(l, nl, x, y)
		case MReSGLD:
			a1, a2 := s.swap.A1, 1-s.swap.A1
			d1, v1 := s.pairDiff(l, nl, x, y)
			d2, v2 := s.pairDiff(l, nh, x, y)
			return a1*d1 + a2*d2, a1*a1*v1 + a2*a2*v2
		default:
			return s.pairDiff(l, min((nl+nh+1)/2, d.N), x, y)
		}
	}
	switch s.swap.Rule {
	case ReSGLD:
		ux, vx := s.stateEnergy(l, l, x)
		uy, vy := s.stateEnergy(l+1, l, y)
		return ux - uy, vx + vy
	case MReSGLD:
		for i, w := range [2]float64{s.swap.A1, 1 - s.swap.A1} {
			ux, vx := s.stateEnergy(l, l+i, x)
			uy, vy := s.stateEnergy(l+1, l+i, y)
			dv += w * (ux - uy)
			v += w * w * (vx + vy)
		}
		return dv, v
	default:
		ux, vx := s.stateEnergy(l, l, x)
		uy, vy := s.stateEnergy(l+1, l+1, y)
		return ux - uy, vx + vy
	}
}

// attemptDue reports whether the schedule of the swap moves calls for an
// attempt between levels l and l+1 at this step.
func (s *Sampler) attemptDue(l int) bool {
	if s.data != nil && s.data.Mode == ExactEnergies {
		return (s.k+1)%s.data.ExactEvery == 0
	}
	if s.swap.PerStep {
		return true
	}
	return s.swap.A != 0 && s.srng.Float64() < s.swap.A*s.lv[l].Eta.Eta(s.k)
}

func finiteDiff(l, k int, d, v float64) error {
	if math.IsNaN(d) || math.IsInf(d, 0) || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("levels %d and %d: swap energy difference %v (variance %v) at step %d is not finite", l, l+1, d, v, k)
	}
	return nil
}
