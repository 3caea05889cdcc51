package energy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/internal/subsets"
)

// glmTerms is U_i(θ) = f(x_i·θ) − y_i·x_i·θ with f = log(1 + e^z) (logistic
// regression) or, linear, f = 0: a LinearTerms with slope d_i = f'(z) − y_i.
type glmTerms struct {
	p      int
	x, y   []float64
	linear bool
}

func newGLM(N, p int, linear bool, seed uint64) glmTerms {
	rng := rand.New(rand.NewPCG(seed, 5))
	g := glmTerms{p: p, x: make([]float64, N*p), y: make([]float64, N), linear: linear}
	for i := range g.x {
		g.x[i] = rng.NormFloat64() + 0.5
	}
	for i := range g.y {
		g.y[i] = float64(rng.IntN(2))
	}
	return g
}

func (g glmTerms) Dim() int            { return g.p }
func (g glmTerms) Len() int            { return len(g.y) }
func (g glmTerms) Row(i int) []float64 { return g.x[i*g.p : (i+1)*g.p] }

func (g glmTerms) z(theta []float64, i int) float64 {
	var z float64
	for j, v := range g.Row(i) {
		z += v * theta[j]
	}
	return z
}

func (g glmTerms) slope(z float64, i int) float64 {
	if g.linear {
		return -g.y[i] - 1
	}
	return 1/(1+math.Exp(-z)) - g.y[i]
}

func (g glmTerms) Term(grad, theta []float64, i int) float64 {
	z := g.z(theta, i)
	if grad != nil {
		for j, v := range g.Row(i) {
			grad[j] = g.slope(z, i) * v
		}
	}
	if g.linear {
		return -(g.y[i] + 1) * z
	}
	return math.Log1p(math.Exp(z)) - g.y[i]*z
}

func (g glmTerms) Prior(grad, theta []float64) float64 {
	var u float64
	for j, v := range theta {
		u += v * v / 2
		if grad != nil {
			grad[j] = v
		}
	}
	return u
}

func (g glmTerms) Slopes(d, theta []float64, idx []int32) {
	for k, i := range idx {
		d[k] = g.slope(g.z(theta, int(i)), int(i))
	}
}

// termsOnly hides every method but those of Terms, so an anchor on it takes
// the general path (N × p stored gradients).
type termsOnly struct{ Terms }

// taylorResiduals returns r_i = U_i(θ) − U_i(θ̂) − ∇U_i(θ̂)·(θ − θ̂), computed
// from Term alone.
func taylorResiduals(tr Terms, theta, anchor []float64) []float64 {
	r := make([]float64, tr.Len())
	g := make([]float64, tr.Dim())
	for i := range r {
		r[i] = tr.Term(nil, theta, i) - tr.Term(g, anchor, i)
		for j, v := range g {
			r[i] -= v * (theta[j] - anchor[j])
		}
	}
	return r
}

// The first-order anchor, on both of its paths, is unbiased with the variance
// N(N − n)/n · S_r² of its own residuals (exact expectations over all 56
// subsets: round-off tolerance), and far below the plain anchor's near θ̂.
func TestTaylorAnchorUnbiasedAndVariance(t *testing.T) {
	const N, n = 8, 3
	anchor := []float64{0.3, -0.4, 0.2}
	for _, c := range []struct {
		name string
		tr   Terms
	}{
		{"general", newShiftTerms(N, 3, 5)},
		{"linear", newGLM(N, 3, false, 5)},
		{"linear hidden", termsOnly{newGLM(N, 3, false, 5)}},
	} {
		a := NewTaylorAnchor(c.tr)
		if !a.Taylor() || a.Taylor() == NewAnchor(c.tr).Taylor() {
			t.Fatalf("%s: Taylor() does not tell the anchors apart", c.name)
		}
		if _, isLin := c.tr.(LinearTerms); isLin != (a.lin != nil) {
			t.Fatalf("%s: linear path %v for LinearTerms %v", c.name, a.lin != nil, isLin)
		}
		if err := a.Refresh(anchor); err != nil {
			t.Fatal(err)
		}
		if !near(a.U(), Sum(c.tr, anchor), enumTol) {
			t.Fatalf("%s: anchor U = %v, full sum %v", c.name, a.U(), Sum(c.tr, anchor))
		}
		plain := NewAnchor(c.tr)
		if err := plain.Refresh(anchor); err != nil {
			t.Fatal(err)
		}
		for _, theta := range [][]float64{{0.4, -0.35, 0.25}, {-1.5, 2.0, 0.7}} {
			want := FPC(N, n) * popVar(taylorResiduals(c.tr, theta, anchor))
			mean, variance, vest := enumerate(N, n, func(idx []int32) (float64, float64) { return EnergyOn(c.tr, a, theta, idx) })
			if u := Sum(c.tr, theta); !near(mean, u, enumTol) {
				t.Errorf("%s θ = %v: E Û = %.12g, U = %.12g", c.name, theta, mean, u)
			}
			if !near(variance, want, enumTol) || !near(vest, want, enumTol) {
				t.Errorf("%s θ = %v: Var Û = %.12g, E[FPC·s²] = %.12g, formula = %.12g", c.name, theta, variance, vest, want)
			}
			// Near θ̂ (|Δ| = 0.1) the residuals are O(|Δ|²) against the plain
			// anchor's O(|Δ|), so the variance is lower by a factor of order
			// |Δ|², 0.01 here: a tenth is a loose bound that a missing or
			// wrongly scaled gradient term cannot meet.
			_, pv, _ := enumerate(N, n, func(idx []int32) (float64, float64) { return EnergyOn(c.tr, plain, theta, idx) })
			if theta[0] == 0.4 && !(variance < pv/10) {
				t.Errorf("%s θ = %v near θ̂: first-order variance %.4g not below a tenth of the plain anchor's %.4g", c.name, theta, variance, pv)
			}
		}
		subsets.Each(N, n, func(idx []int32) {
			if u, s2 := EnergyOn(c.tr, a, anchor, idx); u != a.U() || s2 != 0 {
				t.Fatalf("%s at θ̂: Û = %v (want %v exactly), s² = %v", c.name, u, a.U(), s2)
			}
		})
	}
}

// On terms linear in θ the first-order residuals vanish: every draw gives
// U(θ) to round-off, with s² = 0 up to round-off, on both paths, far from θ̂.
func TestTaylorAnchorExactOnLinearTerms(t *testing.T) {
	const N, n = 8, 3
	for _, tr := range []Terms{newGLM(N, 2, true, 9), termsOnly{newGLM(N, 2, true, 9)}} {
		a := NewTaylorAnchor(tr)
		if err := a.Refresh([]float64{1, -2}); err != nil {
			t.Fatal(err)
		}
		theta := []float64{-3, 4}
		u := Sum(tr, theta)
		subsets.Each(N, n, func(idx []int32) {
			got, s2 := EnergyOn(tr, a, theta, idx)
			if !near(got, u, 1e-12) || s2 > 1e-20 {
				t.Fatalf("%T: Û = %.15g for U = %.15g, s² = %g", tr, got, u, s2)
			}
		})
	}
}

// The pair difference on residuals about two first-order anchors is
// unbiased with the variance of its per-example differences.
func TestDiffOnTaylor(t *testing.T) {
	const N, n = 8, 3
	tr := newGLM(N, 2, false, 7)
	x, y, ax, ay := diffStates(t, tr, NewTaylorAnchor)
	rx, ry := taylorResiduals(tr, x, ax.Theta()), taylorResiduals(tr, y, ay.Theta())
	d := make([]float64, N)
	for i := range d {
		d[i] = rx[i] - ry[i]
	}
	want := FPC(N, n) * popVar(d)
	D := Sum(tr, x) - Sum(tr, y)
	mean, variance, vest := enumerate(N, n, func(idx []int32) (float64, float64) { return DiffOn(tr, ax, x, ay, y, idx) })
	if !near(mean, D, enumTol) || !near(variance, want, enumTol) || !near(vest, want, enumTol) {
		t.Errorf("E D̂ = %.12g (D %.12g), Var %.12g, E var est %.12g, formula %.12g", mean, D, variance, vest, want)
	}
}

func TestTaylorAnchorNotFinite(t *testing.T) {
	a := NewTaylorAnchor(newGLM(4, 2, false, 1))
	if err := a.Refresh([]float64{math.Inf(1), 0}); err == nil {
		t.Error("a refresh at an infinite state gave no error")
	}
}
