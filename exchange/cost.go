package exchange

import (
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// Count is a number of estimator calls and their cost in the estimator's
// units (one per call unless the estimator is a energy.Coster, such as a
// minibatch estimator counting per-example terms).
type Count struct {
	Calls int64   `json:"calls"`
	Units float64 `json:"units"`
}

// Cost is what one level spent.
//
// Every evaluation is charged to the level whose estimator made it: reSGLD's
// two swap energies (the colder level's estimator at both states) go to the
// colder level, m-reSGLD's four two to each level, f-reSGLD's two one to
// each, the exact rule's as exactLogRatio says. Swap energies (Energy) are
// kept apart from the work of stepping the level (Chain: its gradient draws
// and any variance estimation), which is the same whatever the swap rule, so
// that a level's share of the chain work means the same in every method.
// Stats.HotShare is that share for the hot levels; Stats.SwapShare is the
// swap energies' share. Compare methods on Stats.Total.
type Cost struct {
	Grad      Count `json:"grad"`       // gradient draws of the chain
	Energy    Count `json:"energy"`     // energy draws of the swap ratios
	VarGrad   Count `json:"var_grad"`   // draws made only to estimate variances
	VarEnergy Count `json:"var_energy"` // (likewise)
	// Anchor is the full passes that refresh control-variate anchors of
	// swap energies (N units each).
	Anchor Count `json:"anchor"`
}

// Total is every unit the level spent: gradients, energies, variance
// estimation and anchor passes.
func (c Cost) Total() float64 {
	return c.Grad.Units + c.VarGrad.Units + c.Energy.Units + c.VarEnergy.Units + c.Anchor.Units
}

// TotalGrad is all gradient draws, variance estimation included.
func (c Cost) TotalGrad() Count {
	return Count{c.Grad.Calls + c.VarGrad.Calls, c.Grad.Units + c.VarGrad.Units}
}

// TotalEnergy is all energy draws, variance estimation included.
func (c Cost) TotalEnergy() Count {
	return Count{c.Energy.Calls + c.VarEnergy.Calls, c.Energy.Units + c.VarEnergy.Units}
}

// Chain is the work of stepping the level: its gradient draws and every
// draw made to estimate variances. Swap energies are not in it.
func (c Cost) Chain() Count {
	g := c.TotalGrad()
	return Count{g.Calls + c.VarEnergy.Calls, g.Units + c.VarEnergy.Units}
}

// Total is everything the levels spent, swaps and anchor passes included.
func (s Stats) Total() Count {
	var t Count
	for _, l := range s.Levels {
		g, e, a := l.Cost.TotalGrad(), l.Cost.TotalEnergy(), l.Cost.Anchor
		t.Calls += g.Calls + e.Calls + a.Calls
		t.Units += g.Units + e.Units + a.Units
	}
	return t
}

// HotShare is the share of Total in the chain work of the levels above the
// coldest (0 for one level, or before any cost).
func (s Stats) HotShare() float64 {
	var hot float64
	for _, l := range s.Levels[min(1, len(s.Levels)):] {
		hot += l.Cost.Chain().Units
	}
	return share(hot, s.Total().Units)
}

// SwapShare is the share of Total in swap energies, whichever level's
// estimator drew them.
func (s Stats) SwapShare() float64 {
	var sw float64
	for _, l := range s.Levels {
		sw += l.Cost.Energy.Units
	}
	return share(sw, s.Total().Units)
}

func share(part, total float64) float64 {
	if total == 0 {
		return 0
	}
	return part / total
}

// counted wraps an estimator and counts its draws into two Counts.
type counted struct {
	energy.Estimator
	coster       energy.Coster // nil: one unit a call
	grad, energy *Count
}

func newCounted(e energy.Estimator, grad, en *Count) counted {
	c, _ := e.(energy.Coster)
	return counted{Estimator: e, coster: c, grad: grad, energy: en}
}

func (c *counted) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	c.Estimator.Grad(grad, gradVar, theta, rng)
	c.countGrad()
}

func (c *counted) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u, s2 := c.Estimator.Energy(theta, rng)
	c.countEnergy()
	return u, s2
}

// countGrad and countEnergy count a draw: Grad's and Energy's, and one the
// sampler made by calling the estimator itself: its own step and swaps do,
// to save a call layer in the step loop (at p = 1 a call costs as much as
// a normal draw).
func (c *counted) countGrad() {
	c.grad.Calls++
	if c.coster == nil {
		c.grad.Units++
		return
	}
	c.costGrad()
}

func (c *counted) countEnergy() {
	c.energy.Calls++
	if c.coster == nil {
		c.energy.Units++
		return
	}
	c.costEnergy()
}

// costGrad and costEnergy are kept out of line, so that the common case
// (one unit a call) inlines.
//
//go:noinline
func (c *counted) costGrad() { c.grad.Units += c.coster.GradCost() }

//go:noinline
func (c *counted) costEnergy() { c.energy.Units += c.coster.EnergyCost() }
