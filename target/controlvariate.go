package target

import (
	"fmt"
	"math"
)

// Anchor is the control variate of a minibatch energy (Deng et al. 2021,
// variance-reduced reSGLD): a state θ̂ whose full-data energy and
// per-example energies U_i(θ̂) are known from one full pass, so that
//
//	Û(θ) = U_0(θ) + Σ_i U_i(θ̂) + (N/n) Σ_{i∈B} [U_i(θ) − U_i(θ̂)]
//
// is unbiased for U(θ), with variance N(N − n)/n · S_r², S_r² the variance
// of the residuals r_i = U_i(θ) − U_i(θ̂) over all N examples, with the
// N − 1 denominator. The residuals shrink as θ
// approaches θ̂ (to first order r_i = ∇U_i(θ̂)·(θ − θ̂)), and Û is exact at
// θ = θ̂, whatever n. The prior term is evaluated exactly.
//
// The per-example energies at θ̂ are cached (N floats), so an estimate costs
// n evaluations, as a plain minibatch does; a refresh costs N.
type Anchor struct {
	t      Terms
	theta  []float64
	sum    float64   // Σ_i U_i(θ̂)
	ui     []float64 // U_i(θ̂)
	passes int
}

// NewAnchor returns an anchor on t, not yet placed (Refresh places it).
func NewAnchor(t Terms) *Anchor {
	return &Anchor{t: t, theta: make([]float64, t.Dim()), ui: make([]float64, t.Len())}
}

// Refresh moves the anchor to θ by a full pass over the data: N per-example
// evaluations. It returns an error if an energy is not finite.
func (a *Anchor) Refresh(theta []float64) error {
	copy(a.theta, theta)
	var s float64
	for i := range a.ui {
		a.ui[i] = a.t.Term(nil, theta, i)
		s += a.ui[i]
	}
	a.sum = s
	a.passes++
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("control variate: the full-data energy at the anchor is %v", s)
	}
	return nil
}

// Passes is the number of full passes made (each N evaluations).
func (a *Anchor) Passes() int { return a.passes }

// Theta is the anchor state θ̂ (the anchor's own slice).
func (a *Anchor) Theta() []float64 { return a.theta }

// U is the full-data energy U(θ̂) = U_0(θ̂) + Σ_i U_i(θ̂).
func (a *Anchor) U() float64 { return a.t.Prior(nil, a.theta) + a.sum }

// Sum returns U_0(θ) + Σ_i U_i(θ): the exact energy, N evaluations.
func Sum(t Terms, theta []float64) float64 {
	u := t.Prior(nil, theta)
	for i := 0; i < t.Len(); i++ {
		u += t.Term(nil, theta, i)
	}
	return u
}

// moments accumulates the sum and sample variance of per-example values
// about the first one, free of the cancellation raw sums of squares suffer.
type moments struct {
	c, sum, sq float64
	n          int
}

func (m *moments) add(x float64) {
	if m.n == 0 {
		m.c = x
	}
	d := x - m.c
	m.sum += d
	m.sq += d * d
	m.n++
}

// total is Σ x; s2 the sample variance (0 for fewer than two values).
func (m *moments) total() float64 { return m.sum + float64(m.n)*m.c }

func (m *moments) s2() float64 {
	if m.n < 2 {
		return 0
	}
	fn := float64(m.n)
	return math.Max(0, (m.sq-m.sum*m.sum/fn)/(fn-1))
}

// EnergyOn estimates U(θ) from the examples idx (distinct, drawn uniformly
// without replacement): Û = U_0(θ) + (N/n) Σ_{i∈idx} U_i(θ), or with an anchor
// a (nil for none) the control-variate estimate above. It returns Û and the
// sample variance s² of the n per-example values (U_i(θ), or the residuals),
// so N(N − n)/n · s² is an unbiased estimate of Var Û (FPC). It makes n
// evaluations.
func EnergyOn(t Terms, a *Anchor, theta []float64, idx []int32) (u, s2 float64) {
	var m moments
	for _, i := range idx {
		v := t.Term(nil, theta, int(i))
		if a != nil {
			v -= a.ui[i]
		}
		m.add(v)
	}
	u = t.Prior(nil, theta) + float64(t.Len())/float64(len(idx))*m.total()
	if a != nil {
		u += a.sum
	}
	return u, m.s2()
}

// DiffOn estimates D = U(x) − U(y) from one common set of examples idx:
//
//	D̂ = U_0(x) − U_0(y) + (N/n) Σ_{i∈idx} d_i,   d_i = U_i(x) − U_i(y),
//
// or, with anchors ax and ay (either may be nil), d_i = r_i(x) − r_i(y) on
// the residuals about each state's anchor, plus the anchors' exact sums. It
// returns D̂ and the sample variance s² of the d_i; N(N − n)/n · s² is an
// unbiased estimate of Var D̂. One draw serves both states, so the variance
// is that of the differences: it vanishes as x and y (or their residuals)
// approach each other. It makes 2n evaluations.
func DiffOn(t Terms, ax *Anchor, x []float64, ay *Anchor, y []float64, idx []int32) (d, s2 float64) {
	var m moments
	for _, i := range idx {
		v := t.Term(nil, x, int(i)) - t.Term(nil, y, int(i))
		if ax != nil {
			v -= ax.ui[i]
		}
		if ay != nil {
			v += ay.ui[i]
		}
		m.add(v)
	}
	d = t.Prior(nil, x) - t.Prior(nil, y) + float64(t.Len())/float64(len(idx))*m.total()
	if ax != nil {
		d += ax.sum
	}
	if ay != nil {
		d -= ay.sum
	}
	return d, m.s2()
}
