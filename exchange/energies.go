package exchange

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
)

// EnergyMode says how a swap estimates D = U(x) − U(y).
//
// Under DrawEnergies the swap is the penalty rule log Ŝ = τδ·D̂ − τδ²V/2
// (Ceperley and Dewing 1999). It keeps each level's tempered law exactly
// when D̂ is Gaussian with the variance V the estimators report, and when
// the reverse swap (y at level l, x at level l+1) carries the same noise law
// as the forward one. E[Ŝ] = S alone is neither necessary nor sufficient.
// The sampler makes the last condition hold for every rule (see FReSGLD).
//
// Every other mode estimates D from the data set itself (Energies.Terms),
// and none of them relies on D̂ being Gaussian or on a variance: a noisy
// data-mode swap is a delayed acceptance (Christen and Fox 2005; Quiroz et
// al. 2018 with subsampling). Its screen accepts with probability
// min(1, e^{τδ·D̂}), D̂ drawn so that the reverse swap would draw −D̂ with the
// same probability; an attempt that passes is confirmed with probability
// min(1, e^{τδ(D − D̂)}) on the exact D, a full pass over the data. The
// product of the two stages' ratios is S, for every draw, so the swap keeps
// the law exactly whatever the noise's shape or size; the noise costs only
// acceptance and full passes. PairStats.Confirmed counts the attempts that
// went to the full data. The anchored modes need their anchors fixed for
// this, as they are after burn-in (Sampler.FreezeAfter): an anchor moved to
// its replica's state during sampling ties the noise to the replica's
// recent path, and the reverse swap no longer draws its noise alike.
type EnergyMode int

const (
	// DrawEnergies uses each level estimator's Energy draws and the
	// variances they report, under the penalty rule: exact for Gaussian
	// energy noise of known variance (energy.Noisy), wrong for minibatch
	// estimators at small n, whose noise is neither; New refuses those
	// unless Energies.Gaussian says otherwise.
	DrawEnergies EnergyMode = iota
	// MinibatchEnergies draws each state's energy from its own fresh
	// minibatch of the difference's size (Energies says which size each
	// rule uses).
	MinibatchEnergies
	// CVEnergies is MinibatchEnergies with control variates: each state's
	// energy is estimated about its replica's anchor (energy.Anchor),
	// refreshed by a full pass every AnchorEvery steps of burn-in and
	// fixed after it.
	CVEnergies
	// PairEnergies evaluates both states of a swap on one common minibatch:
	// D̂ = U_0(x) − U_0(y) + (N/n) Σ_B [U_i(x) − U_i(y)]. The reverse swap on
	// the same batch gives exactly −D̂.
	PairEnergies
	// PairCVEnergies is PairEnergies on the residuals about each state's
	// anchor.
	PairCVEnergies
	// ExactEnergies evaluates both states on the whole data set, and
	// attempts swaps only every ExactEvery steps, at N/ExactEvery
	// evaluations per step and level: a state's energy is evaluated once
	// for both pairs it belongs to (DiffCost/ExactEvery per pair on a data
	// set that gives exact differences from its sufficient statistics,
	// energy.DiffTerms); A and PerStep are then ignored.
	ExactEnergies
	// TaylorEnergies is CVEnergies with first-order anchors
	// (energy.NewTaylorAnchor): the residuals U_i(θ) − U_i(θ̂) − ∇U_i(θ̂)·Δ
	// are of second order in Δ = θ − θ̂, so the screen's noise falls like
	// |Δ|⁴ instead of |Δ|², and fewer attempts need a full pass to be
	// decided. An anchor keeps N more floats for a linear model, N·p
	// otherwise.
	TaylorEnergies
	// PairTaylorEnergies is PairEnergies on the residuals about each state's
	// first-order anchor.
	PairTaylorEnergies
	// ThinnedEnergies decides each attempt exactly in law on a few
	// examples, for data sets whose terms have bounded third derivatives
	// (energy.CubicTerms, such as logistic regression): a factorised
	// Metropolis test on the data sum's second-order expansion about a fixed
	// point (Energies.Expand), computed with no pass over the data, and on
	// each example's remainder, decided by Poisson thinning
	// (energy.Expansion.Thin). Attempts come every ExactEvery steps, as
	// under ExactEnergies; an attempt whose thinning would evaluate more
	// examples than a full pass takes the exact energies instead.
	ThinnedEnergies
)

var energyModeNames = [...]string{DrawEnergies: "draw", MinibatchEnergies: "minibatch", CVEnergies: "cv", PairEnergies: "pair", PairCVEnergies: "pair-cv", ExactEnergies: "exact", TaylorEnergies: "taylor", PairTaylorEnergies: "pair-taylor", ThinnedEnergies: "thinned"}

func (m EnergyMode) String() string { return nameOf(energyModeNames[:], m, "EnergyMode") }

// ParseEnergyMode reads a mode by name.
func ParseEnergyMode(s string) (EnergyMode, error) {
	if v, ok := parseName[EnergyMode](energyModeNames[:], s); ok {
		return v, nil
	}
	return 0, fmt.Errorf("unknown swap-energy mode %q (want draw, minibatch, cv, pair, pair-cv, exact, taylor, pair-taylor or thinned)", s)
}

// cv reports whether the mode uses anchors.
func (m EnergyMode) cv() bool {
	return m == CVEnergies || m == PairCVEnergies || m.taylor()
}

// exact reports whether the mode decides its attempts exactly, with no
// screen on a noisy difference: every ExactEvery steps.
func (m EnergyMode) exact() bool { return m == ExactEnergies || m == ThinnedEnergies }

// taylor reports whether the mode's anchors are of first order.
func (m EnergyMode) taylor() bool { return m == TaylorEnergies || m == PairTaylorEnergies }

// Energies configures swap energies computed from the data set itself, for
// levels whose estimators are minibatches of the same Terms. The zero value
// is DrawEnergies.
//
// A noisy data-mode swap is decided by a screen on D̂ and a confirmation on
// the exact D (see EnergyMode); its law is exact whatever D̂. For that the
// reverse swap must be able to draw −D̂ with the same probability as the
// forward swap draws D̂, so every difference is drawn at a size that does not
// depend on which state sits at which level (n_l is level l's energy size):
//
//   - reSGLD: both states at n_l (2n_l evaluations);
//   - f-reSGLD: both states at ⌈(n_l + n_{l+1})/2⌉, the cost of its own two
//     draws; each state is no longer evaluated at its own level's size,
//     which would make the reverse swap's noise differ from the forward one's;
//   - m-reSGLD: a1·D̂(n_l) + a2·D̂(n_{l+1}), each difference on draws of its
//     size at both states.
//
// The pair modes draw one common batch per difference, the others one batch
// per state. Anchors travel with their replicas, so a state is evaluated
// about the same anchor whichever level it sits at.
type Energies struct {
	Mode EnergyMode
	// Terms is the data set the levels' estimators draw from; required by
	// every mode but DrawEnergies.
	Terms energy.Terms
	// Sizes[l] is level l's energy minibatch size n_l, in [2, N]. Nil: each
	// level estimator's EnergySize() (energy.Minibatch has one), read at
	// every attempt, so it follows an estimator whose size changes.
	Sizes []int
	// AnchorEvery is the number of steps between anchor refreshes (full
	// passes) of the anchored modes during burn-in (default 100); the last
	// burn-in step refreshes them too, and sampling keeps them there.
	AnchorEvery int
	// ExactEvery is the number of steps between exact swap attempts
	// (default 10).
	ExactEvery int
	// Expand is the point about which ThinnedEnergies expands the data sum
	// once, before the first step (nil: the cold level's initial state).
	// The thinning's cost grows as the cube of the states' distances from
	// it, so a mode of the posterior serves best.
	Expand []float64
	// Gaussian declares the levels' energy noise Gaussian, which the draw
	// mode's penalty rule needs to keep the laws. Without it DrawEnergies
	// refuses a ladder whose estimators draw their energies from a data set
	// (EnergySizer, such as energy.Minibatch): minibatch noise is not
	// Gaussian, and on a logistic data set the draw mode accepted swaps of
	// small S four times as often as S allows. Other modes ignore it.
	Gaussian bool
	// MaxNoise, if positive, declines every attempt whose swap noise
	// τδ²V/2 exceeds it (nats), whatever D̂, to spare the full passes that
	// such noisy screens would send to be confirmed. The noise is a
	// function of the pair that the reverse swap would compute alike (under
	// DrawEnergies, max(V, V_reverse); under the data modes, the draws' own
	// spread, which does not change when the states trade places), so
	// forward and reverse are declined with the same probability and the
	// law is kept. Declines count as attempts (PairStats.Capped).
	MaxNoise float64
}

// Spacing is the number of steps between a pair's swap attempts where the
// mode fixes them (exact and thinned energies: every ExactEvery steps,
// whatever the swap's rate), and 0 where attempts come at the swap's own
// rate.
func (e Energies) Spacing() int {
	if e.Mode.exact() {
		return max(e.ExactEvery, 1)
	}
	return 0
}

// EnergySizer is implemented by estimators with an energy minibatch size.
type EnergySizer interface{ EnergySize() int }

func (e *Energies) defaults() {
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
	if !(e.MaxNoise >= 0) {
		return fmt.Errorf("swap energies: noise cap %v must be ≥ 0 nats (0: none)", e.MaxNoise)
	}
	if e.Mode == DrawEnergies {
		return drawNoiseGaussian(e, levels)
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
	case e.AnchorEvery < 1:
		return fmt.Errorf("swap energies: anchor period %d must be ≥ 1 step", e.AnchorEvery)
	case e.ExactEvery < 1:
		return fmt.Errorf("swap energies: exact swap period %d must be ≥ 1 step", e.ExactEvery)
	}
	if e.Mode == ThinnedEnergies {
		if _, ok := e.Terms.(energy.CubicTerms); !ok {
			return fmt.Errorf("swap energies thinned: the data set %T does not bound its terms' third derivatives (energy.CubicTerms); use exact or pair-taylor", e.Terms)
		}
		if e.Expand != nil && len(e.Expand) != p {
			return fmt.Errorf("swap energies thinned: expansion point of dimension %d for states of dimension %d", len(e.Expand), p)
		}
	}
	if e.Mode.exact() {
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

// drawNoiseGaussian refuses the draw mode on levels whose energies are
// minibatch estimates unless their noise is declared Gaussian.
func drawNoiseGaussian(e Energies, levels []Level) error {
	if e.Gaussian || len(levels) < 2 {
		return nil
	}
	for l, L := range levels {
		if _, ok := L.Est.(EnergySizer); !ok {
			continue
		}
		if x, ok := L.Est.(energy.ExactEnergy); ok && x.ExactEnergy() {
			continue
		}
		return fmt.Errorf("swap energies draw: level %d's estimator %T draws its energies from a minibatch, whose noise is not Gaussian, and the draw mode's penalty rule keeps the laws only for Gaussian noise; use swap energies from the data (minibatch, pair, cv, pair-cv, taylor, pair-taylor or exact), which need no Gaussian law, or declare the noise Gaussian (Energies.Gaussian)", l, L.Est)
	}
	return nil
}

// dataSwap is a sampler's swap-energy machinery for the data modes.
type dataSwap struct {
	Energies
	N       int
	idx     *energy.Indices
	anchors []*energy.Anchor // per replica
	// diff, if the data set offers it, gives the exact D without a pass
	// over the data (exactDiff).
	diff energy.DiffTerms
	// expansion is ThinnedEnergies' expansion of the data sum.
	expansion *energy.Expansion
}

func newDataSwap(e Energies, K int) *dataSwap {
	d := &dataSwap{Energies: e, N: e.Terms.Len(), idx: energy.NewIndices(e.Terms.Len())}
	d.diff, _ = e.Terms.(energy.DiffTerms)
	if e.Mode.cv() {
		for range K {
			a := energy.NewAnchor(e.Terms)
			if e.Mode.taylor() {
				a = energy.NewTaylorAnchor(e.Terms)
			}
			d.anchors = append(d.anchors, a)
		}
	}
	return d
}

// anchor is the anchor of the replica at level l: it travels with the
// replica, so the reverse swap evaluates each state about the same anchor.
func (s *Sampler) anchor(l int) *energy.Anchor {
	if !s.data.Mode.cv() {
		return nil
	}
	return s.data.anchors[s.at[l]]
}

// refreshAnchors moves every level's anchor to its current state, counting
// N evaluations to the level (in New and during burn-in: see refreshDue).
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

func (s *Sampler) spend(l int, units float64) {
	c := &s.lv[l].stats.Cost.Energy
	c.Calls++
	c.Units += units
}

// diffSize is the size n of the draws of the rule's (first) difference
// between levels l and l+1: one that the reverse swap would use too.
func (s *Sampler) diffSize(l int) int {
	if s.swap.Rule == FReSGLD {
		return min((s.energySize(l)+s.energySize(l+1)+1)/2, s.data.N)
	}
	return s.energySize(l)
}

// drawDiff draws D̂ for x (level l) and y (level l+1) at size n, and its
// variance estimated from the draws' own spread: one common batch under the
// pair modes (2n evaluations, n charged to each level), one batch per state
// otherwise.
func (s *Sampler) drawDiff(l, n int, x, y []float64) (dv, v float64) {
	d := s.data
	ax, ay := s.anchor(l), s.anchor(l+1)
	s.spend(l, float64(n))
	s.spend(l+1, float64(n))
	s.pairs[l].Screened += int64(2 * n)
	if d.Mode.pair() {
		dv, s2 := energy.DiffOn(d.Terms, ax, x, ay, y, d.idx.Draw(s.srng, n))
		return dv, energy.FPC(d.N, n) * s2
	}
	ux, sx := energy.EnergyOn(d.Terms, ax, x, d.idx.Draw(s.srng, n))
	uy, sy := energy.EnergyOn(d.Terms, ay, y, d.idx.Draw(s.srng, n))
	return ux - uy, energy.FPC(d.N, n) * (sx + sy)
}

// dataDiff returns the screen's D̂ and its estimated variance V̂ for the
// sampler's rule under a data mode other than ExactEnergies.
func (s *Sampler) dataDiff(l int, x, y []float64) (dv, v float64) {
	if s.swap.Rule == MReSGLD {
		a1, a2 := s.swap.A1, 1-s.swap.A1
		d1, v1 := s.drawDiff(l, s.energySize(l), x, y)
		d2, v2 := s.drawDiff(l, s.energySize(l+1), x, y)
		return a1*d1 + a2*d2, a1*a1*v1 + a2*a2*v2
	}
	return s.drawDiff(l, s.diffSize(l), x, y)
}

// exactDiff is D = U(x) − U(y) on the whole data set: 2N evaluations (N
// for each of the two states that is not evaluated already this step, when
// x and y are the levels' states), or DiffCost when the data set gives the
// difference from its sufficient statistics (energy.DiffTerms), half
// charged to each level.
func (s *Sampler) exactDiff(l int, x, y []float64) float64 {
	d := s.data
	if d.diff == nil && s.isState(l, x) && s.isState(l+1, y) {
		return s.stateEnergy(l) - s.stateEnergy(l+1)
	}
	if d.diff != nil {
		c := d.diff.DiffCost() / 2
		s.spend(l, c)
		s.spend(l+1, c)
		return d.Terms.Prior(nil, x) - d.Terms.Prior(nil, y) + d.diff.SumDiff(x, y)
	}
	s.spend(l, float64(d.N))
	s.spend(l+1, float64(d.N))
	return energy.Sum(d.Terms, x) - energy.Sum(d.Terms, y)
}

// isState reports whether theta is level l's state itself (not a copy).
func (s *Sampler) isState(l int, theta []float64) bool {
	st := s.State(l)
	return len(theta) == len(st) && len(st) > 0 && &theta[0] == &st[0]
}

// stateEnergy is U on the whole data set at level l's state, evaluated once
// a step for each replica and charged to the level that asks first. The
// swap phase of a step moves no state, so when every pair of a K-level
// ladder is offered a swap, the states' energies cost K passes, not the
// 2(K − 1) of evaluating each pair's two states afresh (a state's energy
// does not depend on its level's temperature).
func (s *Sampler) stateEnergy(l int) float64 {
	r := &s.reps[s.at[l]]
	if r.uStep != s.k+1 {
		r.u, r.uStep = energy.Sum(s.data.Terms, r.theta), s.k+1
		s.spend(l, float64(s.data.N))
	}
	return r.u
}

// pair reports whether the mode draws one common batch per difference.
func (m EnergyMode) pair() bool {
	return m == PairEnergies || m == PairCVEnergies || m == PairTaylorEnergies
}

// attemptDue reports whether the schedule of the swap moves calls for an
// attempt between levels l and l+1 at this step.
func (s *Sampler) attemptDue(l int) bool {
	if s.data != nil && s.data.Mode.exact() {
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
