package energy

import (
	"fmt"
	"math"
	"sync"
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
//
// An anchor made by NewTaylorAnchor is of first order: it also keeps the
// per-example gradients g_i = ∇U_i(θ̂) and their sum G, and estimates
//
//	Û(θ) = U_0(θ) + Σ_i U_i(θ̂) + G·Δ + (N/n) Σ_{i∈B} [U_i(θ) − U_i(θ̂) − g_i·Δ],
//
// Δ = θ − θ̂ (the difference estimator with a first-order proxy of Quiroz,
// Kohn, Villani and Tran 2019, "Speeding up MCMC by efficient data
// subsampling"). Its residuals are of second order in Δ, ½ΔᵀH_iΔ, so its
// variance falls like |Δ|⁴ rather than |Δ|² near θ̂; it is exact whenever
// every U_i is linear in θ. A refresh still costs N evaluations (one Term
// call gives an energy and its gradient); an estimate costs n evaluations and,
// per example, one dot product of length p.
type Anchor struct {
	t      Terms
	theta  []float64
	sum    float64   // Σ_i U_i(θ̂)
	ui     []float64 // U_i(θ̂)
	passes int

	// First order only. gi holds the slopes d_i(θ̂) when t is LinearTerms
	// (g_i = d_i·x_i: N floats), else the gradients row by row (N × p).
	lin   LinearTerms
	gi    []float64
	g     []float64 // G = Σ_i g_i
	delta []float64 // Δ of the estimate in progress
	all   []int32   // 0 … N−1, for Slopes
}

// NewAnchor returns an anchor on t, not yet placed (Refresh places it).
func NewAnchor(t Terms) *Anchor {
	return &Anchor{t: t, theta: make([]float64, t.Dim()), ui: make([]float64, t.Len())}
}

// NewTaylorAnchor returns a first-order anchor on t, not yet placed. It keeps
// N floats more than NewAnchor's when t is LinearTerms, N·p more otherwise.
func NewTaylorAnchor(t Terms) *Anchor {
	a := NewAnchor(t)
	N, p := t.Len(), t.Dim()
	a.g, a.delta = make([]float64, p), make([]float64, p)
	if lin, ok := t.(LinearTerms); ok {
		a.lin, a.gi, a.all = lin, make([]float64, N), make([]int32, N)
		for i := range a.all {
			a.all[i] = int32(i)
		}
	} else {
		a.gi = make([]float64, N*p)
	}
	return a
}

// Taylor reports whether the anchor is of first order.
func (a *Anchor) Taylor() bool { return a.g != nil }

// Refresh moves the anchor to θ by a full pass over the data: N per-example
// evaluations. It returns an error if an energy or gradient is not finite.
func (a *Anchor) Refresh(theta []float64) error {
	copy(a.theta, theta)
	p := len(theta)
	var s float64
	for i := range a.ui {
		var g []float64
		if a.g != nil && a.lin == nil {
			g = a.gi[i*p : (i+1)*p]
		}
		a.ui[i] = a.t.Term(g, theta, i)
		s += a.ui[i]
	}
	a.sum = s
	a.passes++
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return fmt.Errorf("control variate: the full-data energy at the anchor is %v", s)
	}
	if a.g == nil {
		return nil
	}
	clear(a.g)
	if a.lin != nil {
		a.lin.Slopes(a.gi, theta, a.all)
	}
	for i := range a.ui {
		g, c := a.grad(i)
		for j, v := range g {
			a.g[j] += c * v
		}
	}
	for j, v := range a.g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("control variate: coordinate %d of the full-data gradient at the anchor is %v", j, v)
		}
	}
	return nil
}

// grad returns g_i as c·v: the slope and row of a linear model, else 1 and
// the stored gradient.
func (a *Anchor) grad(i int) (v []float64, c float64) {
	if a.lin != nil {
		return a.lin.Row(i)[:len(a.g)], a.gi[i]
	}
	p := len(a.g)
	return a.gi[i*p : (i+1)*p], 1
}

// base sets Δ = θ − θ̂ and returns Σ_i U_i(θ̂) + G·Δ, the full-data sum of
// the control variates at θ (Σ_i U_i(θ̂) for a plain anchor).
func (a *Anchor) base(theta []float64) float64 {
	if a.g == nil {
		return a.sum
	}
	var l float64
	for j, v := range theta {
		a.delta[j] = v - a.theta[j]
		l += a.g[j] * a.delta[j]
	}
	return a.sum + l
}

// at is example i's control variate at the θ of the last base call: U_i(θ̂),
// plus g_i·Δ for a first-order anchor.
func (a *Anchor) at(i int) float64 {
	if a.g == nil {
		return a.ui[i]
	}
	g, c := a.grad(i)
	var l float64
	for j, v := range g {
		l += v * a.delta[j]
	}
	return a.ui[i] + c*l
}

// Passes is the number of full passes made (each N evaluations).
func (a *Anchor) Passes() int { return a.passes }

// Theta is the anchor state θ̂ (the anchor's own slice).
func (a *Anchor) Theta() []float64 { return a.theta }

// U is the full-data energy U(θ̂) = U_0(θ̂) + Σ_i U_i(θ̂).
func (a *Anchor) U() float64 { return a.t.Prior(nil, a.theta) + a.sum }

// Sum returns U_0(θ) + Σ_i U_i(θ): the exact energy, N evaluations (one
// Batch call for a BatchTerms).
func Sum(t Terms, theta []float64) float64 {
	if b, ok := t.(BatchTerms); ok {
		// The batch first: a model in another process carries the prior
		// in its reply, and then answers Prior without another request.
		m := batchMoments(b, theta, nil, nil)
		return t.Prior(nil, theta) + m.total()
	}
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
// evaluations, in one Batch call for a BatchTerms and no anchor.
func EnergyOn(t Terms, a *Anchor, theta []float64, idx []int32) (u, s2 float64) {
	var m moments
	var b float64
	if bt, ok := t.(BatchTerms); ok && a == nil {
		m = batchMoments(bt, theta, nil, idx)
	} else {
		if a != nil {
			b = a.base(theta)
		}
		for _, i := range idx {
			v := t.Term(nil, theta, int(i))
			if a != nil {
				v -= a.at(int(i))
			}
			m.add(v)
		}
	}
	u = t.Prior(nil, theta) + float64(t.Len())/float64(len(idx))*m.total()
	if a != nil {
		u += b
	}
	return u, m.s2()
}

// DiffOn estimates D = U(x) − U(y) from one common set of examples idx:
//
//	D̂ = U_0(x) − U_0(y) + (N/n) Σ_{i∈idx} d_i,   d_i = U_i(x) − U_i(y),
//
// or, with anchors ax and ay (either may be nil; two first-order anchors must
// be distinct), d_i = r_i(x) − r_i(y) on the residuals about each state's
// anchor, plus the anchors' exact sums. It returns D̂ and the sample variance
// s² of the d_i; N(N − n)/n · s² is an unbiased estimate of Var D̂. One draw
// serves both states, so the variance is that of the differences: it
// vanishes as x and y (or their residuals) approach each other. It makes 2n
// evaluations, in one Batch call for a BatchTerms and no anchors.
func DiffOn(t Terms, ax *Anchor, x []float64, ay *Anchor, y []float64, idx []int32) (d, s2 float64) {
	if ax != nil && ax == ay && ax.Taylor() {
		panic("energy: DiffOn with one first-order anchor for both states")
	}
	var m moments
	var bx, by float64
	if b, ok := t.(BatchTerms); ok && ax == nil && ay == nil {
		m = batchMoments(b, x, y, idx)
	} else {
		if ax != nil {
			bx = ax.base(x)
		}
		if ay != nil {
			by = ay.base(y)
		}
		for _, i := range idx {
			v := t.Term(nil, x, int(i)) - t.Term(nil, y, int(i))
			if ax != nil {
				v -= ax.at(int(i))
			}
			if ay != nil {
				v += ay.at(int(i))
			}
			m.add(v)
		}
	}
	d = t.Prior(nil, x) - t.Prior(nil, y) + float64(t.Len())/float64(len(idx))*m.total()
	if ax != nil {
		d += bx
	}
	if ay != nil {
		d -= by
	}
	return d, m.s2()
}

// momentsPool lends the free functions here a Moments: one passed to an
// interface method escapes, and a fresh one would allocate on every call.
var momentsPool = sync.Pool{New: func() any { return new(Moments) }}

// batchMoments is the energies' moments of a Batch call (idx nil: all N).
func batchMoments(b BatchTerms, x, y []float64, idx []int32) moments {
	m := momentsPool.Get().(*Moments)
	*m = Moments{}
	b.Batch(m, x, y, idx)
	n := len(idx)
	if idx == nil {
		n = b.Len()
	}
	r := moments{c: m.U, sum: m.USum, sq: m.USq, n: n}
	momentsPool.Put(m)
	return r
}
