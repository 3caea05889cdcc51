package energy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cvExact is the exact mean and variance of the control-variate gradient at
// theta about anchor with n of N examples: ∇U(θ), and N(N − n)/n times the
// population variance (divisor N − 1) of ∇U_i(θ) − ∇U_i(θ̂).
func cvExact(t Terms, theta, anchor []float64, n int) (grad, gVar []float64) {
	N, p := t.Len(), t.Dim()
	grad = make([]float64, p)
	t.Prior(grad, theta)
	diffs := make([][]float64, N)
	ga := make([]float64, p)
	for i := range diffs {
		diffs[i] = make([]float64, p)
		t.Term(diffs[i], theta, i)
		for j, v := range diffs[i] {
			grad[j] += v
		}
		t.Term(ga, anchor, i)
		for j := range ga {
			diffs[i][j] -= ga[j]
		}
	}
	gVar = make([]float64, p)
	col := make([]float64, N)
	for j := range gVar {
		for i := range col {
			col[i] = diffs[i][j]
		}
		gVar[j] = FPC(N, n) * popVar(col)
	}
	return grad, gVar
}

// The control-variate gradient is unbiased, its reported variance is
// unbiased for the exact one, and its noise is that of the differences:
// T draws at a state off the anchor, each comparison within 4 standard
// errors of the T draws (for the variance, the sd of the reported values
// over √T). Both paths, LinearTerms and per-example, are checked; on the
// same stream they draw the same examples and must agree to rounding.
func TestCVGradUnbiased(t *testing.T) {
	const N, p, n, T = 40, 3, 6, 20000
	g := newGLM(N, p, false, 3)
	anchor := []float64{0.1, -0.2, 0.3}
	theta := []float64{0.15, -0.25, 0.32}
	want, wantVar := cvExact(g, theta, anchor, n)
	_, _, _, plainVar := exact(g, theta, n) // the plain minibatch's
	for name, terms := range map[string]Terms{"linear": g, "per-example": termsOnly{g}} {
		c, err := NewCVGrad(terms, anchor, n)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		grad, gv := make([]float64, p), make([]float64, p)
		sum, sq, vsum, vsq := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
		for range T {
			c.Grad(grad, gv, theta, rng)
			for j := range grad {
				sum[j] += grad[j]
				sq[j] += grad[j] * grad[j]
				vsum[j] += gv[j]
				vsq[j] += gv[j] * gv[j]
			}
		}
		for j := range p {
			m := sum[j] / T
			v := sq[j]/T - m*m
			if se := math.Sqrt(wantVar[j] / T); !(math.Abs(m-want[j]) <= 4*se) {
				t.Errorf("%s: coordinate %d: mean %v, want ∇U = %v ± %v", name, j, m, want[j], 4*se)
			}
			if !(math.Abs(v-wantVar[j]) <= 0.05*wantVar[j]) { // sd of a sample variance of 2·10⁴ draws ≈ 1% for near-Gaussian sums
				t.Errorf("%s: coordinate %d: variance of the draws %v, exact %v", name, j, v, wantVar[j])
			}
			mv := vsum[j] / T
			sdv := math.Sqrt(vsq[j]/T - mv*mv)
			if !(math.Abs(mv-wantVar[j]) <= 4*sdv/math.Sqrt(T)) {
				t.Errorf("%s: coordinate %d: mean reported variance %v, exact %v", name, j, mv, wantVar[j])
			}
			if !(wantVar[j] < plainVar[j]/20) {
				t.Errorf("coordinate %d: the differences' variance %v is not well below the plain minibatch's %v", j, wantVar[j], plainVar[j])
			}
		}
	}
	// The two paths on one stream.
	a, _ := NewCVGrad(g, anchor, n)
	b, _ := NewCVGrad(termsOnly{g}, anchor, n)
	ra, rb := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	ga, gb, va, vb := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	for range 10 {
		a.Grad(ga, va, theta, ra)
		b.Grad(gb, vb, theta, rb)
		for j := range ga {
			if !(math.Abs(ga[j]-gb[j]) <= 1e-12*(1+math.Abs(ga[j])) && math.Abs(va[j]-vb[j]) <= 1e-9*(1+va[j])) {
				t.Errorf("coordinate %d: linear path %v (variance %v), per-example path %v (%v)", j, ga[j], va[j], gb[j], vb[j])
			}
		}
	}
}

// At the anchor every difference is 0: the draw is the full-data gradient
// with zero variance, whatever the minibatch; at n = N it is exact
// everywhere. The energy draws are unbiased likewise, and exact at n = N.
func TestCVGradExactCases(t *testing.T) {
	const N, p = 12, 2
	g := newGLM(N, p, false, 8)
	anchor := []float64{0.3, -0.1}
	theta := []float64{-0.2, 0.5}
	rng := rand.New(rand.NewPCG(1, 1))
	grad, gv := make([]float64, p), make([]float64, p)
	for _, c := range []struct {
		n     int
		at    []float64
		exact bool
	}{{3, anchor, true}, {N, theta, true}} {
		e, err := NewCVGrad(g, anchor, c.n)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := cvExact(g, c.at, anchor, c.n)
		e.Grad(grad, gv, c.at, rng)
		for j := range grad {
			if !(math.Abs(grad[j]-want[j]) <= 1e-12*(1+math.Abs(want[j])) && math.Abs(gv[j]) <= 1e-20) {
				t.Errorf("n = %d at %v: gradient %v variance %v, want %v and 0", c.n, c.at, grad, gv, want)
			}
		}
		u, uv := e.Energy(c.at, rng)
		if wu := Sum(g, c.at); !(math.Abs(u-wu) <= 1e-12*(1+math.Abs(wu))) || !(uv <= 1e-20) {
			t.Errorf("n = %d at %v: energy %v (variance %v), want %v", c.n, c.at, u, uv, wu)
		}
		if e.GradCost() != float64(2*c.n) {
			t.Errorf("n = %d: gradient cost %v, want 2n", c.n, e.GradCost())
		}
	}
	if _, err := NewCVGrad(g, anchor, 1); err == nil {
		t.Error("n = 1: no error")
	}
	if _, err := NewCVGrad(g, []float64{1}, 3); err == nil {
		t.Error("anchor of the wrong dimension: no error")
	}
	if _, err := NewCVGrad(g, []float64{math.Inf(1), 0}, 3); err == nil {
		t.Error("anchor with an infinite energy: no error")
	}
}

// A draw allocates nothing.
func TestCVGradNoAlloc(t *testing.T) {
	g := newGLM(100, 4, false, 2)
	c, _ := NewCVGrad(g, make([]float64, 4), 10)
	rng := rand.New(rand.NewPCG(1, 1))
	grad, gv, theta := make([]float64, 4), make([]float64, 4), []float64{0.1, 0.2, 0.3, 0.4}
	if a := testing.AllocsPerRun(100, func() { c.Grad(grad, gv, theta, rng); c.Energy(theta, rng) }); a != 0 {
		t.Errorf("%v allocations a draw", a)
	}
}
