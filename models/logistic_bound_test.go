package models

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCurvatureBound checks the bound against the exact eigenvalues of
// XᵀX/4 + I/σ₀² (gonum's EigenSym) and against the Hessian at a few θ.
// Power iteration's Rayleigh quotient errs by at most
// (λ_1 − λ_p)·(λ_2/λ_1)^(2k)/c², c² the start vector's weight on the top
// eigenvector; with k = 500 iterations and the eigenvalues of this data the
// factor (λ_2/λ_1)^(2k) is checked to be below 1e-9, so a 1e-8
// relative tolerance holds for any start weight above 0.1 %.
func TestCurvatureBound(t *testing.T) {
	l, truth, err := SyntheticLogistic(400, 6, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 { // unequal scales, so that λ_1 stands apart
		l.X[i*6] *= 3
	}
	x := mat.NewDense(400, 6, l.X)
	var g mat.SymDense
	g.SymOuterK(1, x.T())
	var es mat.EigenSym
	if !es.Factorize(&g, false) {
		t.Fatal("EigenSym failed")
	}
	ev := es.Values(nil)
	l1, l2 := ev[5], ev[4]
	const k = 500
	f := math.Pow(l2/l1, 2*k)
	if f > 1e-9 {
		t.Fatalf("(λ2/λ1)^(2k) = %v: the test's data give power iteration too small a gap", f)
	}
	want := l1/4 + 1/(l.Sigma0*l.Sigma0)
	got := l.CurvatureBound(0, k)
	if math.Abs(got-want) > 1e-8*want || math.IsNaN(got) {
		t.Errorf("bound %v, exact λ_max(XᵀX)/4 + 1/σ₀² = %v", got, want)
	}
	if b := l.CurvatureBound(1e-6, 1000); !(math.Abs(b-want) <= 1e-5*want) {
		t.Errorf("bound at tolerance 1e-6: %v, want %v", b, want)
	}
	// It bounds the Hessian (exact: Xᵀ diag(σ(1 − σ)) X + I/σ₀²) everywhere.
	for _, s := range []float64{0, 1, 5} {
		th := make([]float64, 6)
		for j := range th {
			th[j] = s * truth[j]
		}
		var h mat.SymDense
		h.SymOuterK(0, x.T())
		for i := range 400 {
			_, sig := logit(dot(l.Row(i), th))
			h.SymRankOne(&h, sig*(1-sig), mat.NewVecDense(6, l.Row(i)))
		}
		for j := range 6 {
			h.SetSym(j, j, h.At(j, j)+1/(l.Sigma0*l.Sigma0))
		}
		var eh mat.EigenSym
		eh.Factorize(&h, false)
		if top := eh.Values(nil)[5]; top > want*(1+1e-12) {
			t.Errorf("θ = %v·θ*: Hessian λ_max %v exceeds the bound %v", s, top, want)
		}
	}
}
