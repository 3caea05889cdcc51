package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// naiveHessian is N/m Σ_{i∈rows} σ_i(1 − σ_i) x_i x_iᵀ + I/σ₀², one entry
// at a time.
func naiveHessian(l *Logistic, theta []float64, rows []int) [][]float64 {
	p := l.P
	h := make([][]float64, p)
	for a := range h {
		h[a] = make([]float64, p)
		h[a][a] = 1 / (l.Sigma0 * l.Sigma0)
	}
	for _, i := range rows {
		x := l.Row(i)
		z := 0.0
		for j := range x {
			z += x[j] * theta[j]
		}
		s := 1 / (1 + math.Exp(-z))
		for a := range p {
			for b := range p {
				h[a][b] += float64(len(l.Y)) / float64(len(rows)) * s * (1 - s) * x[a] * x[b]
			}
		}
	}
	return h
}

// TestHessianOf checks the blocked Syrk Hessian against the formula entry
// by entry (all examples, and every third one with its N/m weight, over
// more than one block), and the full one against central differences of
// the exact gradient: with step δ = 1e-5 their error is O(δ²·|∇³U|) plus
// rounding |∇U|·ε/δ, far below the 1e-6 relative tolerance here.
func TestHessianOf(t *testing.T) {
	const N, p = 700, 4
	l, truth, err := SyntheticLogistic(N, p, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, N)
	var third []int
	for i := range all {
		all[i] = i
		if i%3 == 0 {
			third = append(third, i)
		}
	}
	for _, rows := range [][]int{all, third} {
		got, want := l.HessianOf(truth, rows), naiveHessian(l, truth, rows)
		for a := range p {
			for b := range p {
				if d := math.Abs(got.At(a, b) - want[a][b]); !(d <= 1e-10*math.Abs(want[a][a])) {
					t.Errorf("m = %d: H[%d][%d] = %v, formula %v", len(rows), a, b, got.At(a, b), want[a][b])
				}
			}
		}
	}
	h := l.HessianOf(truth, all)
	gp, gm, x := make([]float64, p), make([]float64, p), append([]float64(nil), truth...)
	for b := range p {
		const d = 1e-5
		x[b] = truth[b] + d
		l.Grad(gp, x)
		x[b] = truth[b] - d
		l.Grad(gm, x)
		x[b] = truth[b]
		for a := range p {
			fd := (gp[a] - gm[a]) / (2 * d)
			if !(math.Abs(h.At(a, b)-fd) <= 1e-6*h.At(a, a)) {
				t.Errorf("H[%d][%d] = %v, finite differences of ∇U %v", a, b, h.At(a, b), fd)
			}
		}
	}
}

// TestMode checks that Newton's method with a subset's Hessian finds the
// same mode as with the full Hessian: a decrement gᵀH_S⁻¹g < 1e-10 puts each
// within a Mahalanobis distance √(1e-10·‖H_S⁻¹H‖) ≈ 1e-5 of the exact mode,
// so the two lie within 1e-4 of each other in the exact Hessian's metric;
// and that the exact gradient there is that small.
func TestMode(t *testing.T) {
	const N, p = 5000, 6
	l, _, err := SyntheticLogistic(N, p, 1, 8)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, N)
	var tenth []int
	for i := range all {
		all[i] = i
		if i%10 == 7 {
			tenth = append(tenth, i)
		}
	}
	full, hf, err := l.Mode(make([]float64, p), all, 50)
	if err != nil {
		t.Fatal(err)
	}
	sub, _, err := l.Mode(make([]float64, p), tenth, 50)
	if err != nil {
		t.Fatal(err)
	}
	diff := make([]float64, p)
	for j := range diff {
		diff[j] = full[j] - sub[j]
	}
	dv := mat.NewVecDense(p, diff)
	if d := math.Sqrt(mat.Inner(dv, hf, dv)); !(d <= 1e-4) {
		t.Errorf("modes with the full and a tenth's Hessian %v apart (in posterior sds): %v, %v", d, full, sub)
	}
	g := make([]float64, p)
	l.Grad(g, sub)
	var ch mat.Cholesky
	ch.Factorize(hf)
	w := mat.NewVecDense(p, nil)
	if err := ch.SolveVecTo(w, mat.NewVecDense(p, g)); err != nil {
		t.Fatal(err)
	}
	if dec := mat.Dot(w, mat.NewVecDense(p, g)); !(dec <= 1e-9) {
		t.Errorf("exact Newton decrement at the subset's mode %v, want ≤ 1e-9", dec)
	}
	if _, _, err := l.Mode(make([]float64, p), tenth, 0); err == nil {
		t.Errorf("no error with no iterations allowed")
	}
}

// TestHessianOfSubsetEigenvalues checks the claim the run-length rule
// leans on: the extreme eigenvalues of a random subset's Hessian (m rows,
// scaled N/m) err by O(√(p/m)) relatively. For a sample covariance of m
// draws in p dimensions the extreme eigenvalues move by about
// (1 ± √(p/m))² − 1 ≈ 2√(p/m); the test allows twice that, 4√(p/m)
// (0.1 at p = 5, m = 8000), and checks that the error is not zero (a
// subset that is really the whole data set would pass trivially).
func TestHessianOfSubsetEigenvalues(t *testing.T) {
	const N, p, m = 80_000, 5, 8000
	l, truth, err := SyntheticLogistic(N, p, 1, 12)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, N)
	for i := range all {
		all[i] = i
	}
	rows := rand.New(rand.NewPCG(3, 4)).Perm(N)[:m]
	eig := func(h *mat.SymDense) []float64 {
		var es mat.EigenSym
		if !es.Factorize(h, false) {
			t.Fatal("EigenSym failed")
		}
		return es.Values(nil)
	}
	full, sub := eig(l.HessianOf(truth, all)), eig(l.HessianOf(truth, rows))
	tol := 4 * math.Sqrt(float64(p)/m)
	for _, k := range []int{0, p - 1} {
		rel := math.Abs(sub[k]/full[k] - 1)
		if !(rel <= tol) || rel == 0 {
			t.Errorf("eigenvalue %d: subset %v, full %v (relative error %v, allowed (0, %v])", k, sub[k], full[k], rel, tol)
		}
	}
}
