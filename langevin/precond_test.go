package langevin

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fresgld/fresgld/diag"
)

// precondCov is the exact stationary covariance of the preconditioned Euler
// chain on U = ½θᵀAθ with gradient noise of covariance diag(s2) and
// preconditioner H = RRᵀ: in φ = Rᵀθ the chain is
// φ' = (I − ηB)φ + ε, B = R⁻¹AR⁻ᵀ, with noise covariance Q = 2τηI under
// Corrected (the budget is met exactly), 2τηI + η²R⁻¹diag(s2)R⁻ᵀ under SGLD;
// C solves C = (I − ηB)C(I − ηB) + Q, and Cov θ = R⁻ᵀCR⁻¹. The Lyapunov
// equation is solved by iterating it to convergence (ρ(I − ηB) < 1).
func precondCov(a, h *mat.SymDense, s2 []float64, eta, tau float64, corrected bool) *mat.Dense {
	p := a.SymmetricDim()
	var ch mat.Cholesky
	ch.Factorize(h)
	var r mat.TriDense
	ch.LTo(&r)
	var rinv mat.Dense
	rinv.Inverse(&r)
	var b, t, q mat.Dense
	t.Mul(&rinv, a)
	b.Mul(&t, rinv.T())
	var g mat.Dense // I − ηB
	g.Scale(-eta, &b)
	for j := range p {
		g.Set(j, j, g.At(j, j)+1)
	}
	q.Scale(0, &b)
	if !corrected && s2 != nil {
		var t2 mat.Dense
		t2.Mul(&rinv, mat.NewDiagDense(p, s2))
		q.Mul(&t2, rinv.T())
		q.Scale(eta*eta, &q)
	}
	for j := range p {
		q.Set(j, j, q.At(j, j)+2*tau*eta)
	}
	c := mat.DenseCopyOf(&q)
	for range 10000 {
		var n, t3 mat.Dense
		t3.Mul(&g, c)
		n.Mul(&t3, &g)
		n.Add(&n, &q)
		c = &n
	}
	var cov, t4 mat.Dense
	t4.Mul(rinv.T(), c)
	cov.Mul(&t4, &rinv)
	return &cov
}

// TestPrecondStationary runs the preconditioned step on a correlated
// Gaussian (correlation 0.95, variances 1 and 100) with a dense H = A, a
// diagonal H = diag(A), and a diagonal H with gradient noise under
// Corrected (which must count it, leaving the noise-free law) and under
// SGLD (which runs hotter), and compares the sample covariance with the
// exact stationary one.
// Every entry (covariances included) is judged against its own Monte Carlo
// standard error, from the effective sample size of the series θ_iθ_j (the
// chain in φ is a VAR(1) with spectral radius at most 0.75, so 10⁶ steps
// hold some 10⁵ effective draws and each entry's relative sd is under 1%):
// it must lie within the Bonferroni threshold over the 12 comparisons (1%
// family-wise, about 3.3 standard errors). So the stiff coordinate's
// variance, a hundredth of the other's, is held to its own precision.
func TestPrecondStationary(t *testing.T) {
	const eta, tau, n = 0.5, 1.3, 1_000_000
	a := mat.NewSymDense(2, []float64{1.0 / (1 - 0.95*0.95), -0.95 / (1 - 0.95*0.95) / 10, -0.95 / (1 - 0.95*0.95) / 10, 1.0 / (1 - 0.95*0.95) / 100})
	diagA := mat.NewSymDense(2, []float64{a.At(0, 0), 0, 0, a.At(1, 1)})
	// Gradient noise that takes about half the budget 2τη in φ coordinates:
	// η²s2_j/h_j ≈ τη.
	s2 := []float64{25, 0.25}
	for _, c := range []struct {
		name  string
		h     *mat.SymDense
		pol   Policy
		noise []float64
	}{
		{"dense", a, SGLD, nil},
		{"diagonal", diagA, SGLD, nil},
		{"diagonal, corrected", diagA, Corrected, s2},
		{"diagonal, SGLD with gradient noise", diagA, SGLD, s2},
	} {
		var pc *Precond
		var err error
		if c.h == a {
			pc, err = NewPrecond(c.h)
		} else {
			pc, err = NewDiagPrecond([]float64{c.h.At(0, 0), c.h.At(1, 1)})
		}
		if err != nil {
			t.Fatal(err)
		}
		want := precondCov(a, c.h, c.noise, eta, tau, c.pol == Corrected)
		rng := rand.New(rand.NewPCG(3, 4))
		theta, grad, scratch := []float64{0, 0}, make([]float64, 2), make([]float64, 2)
		gv := []float64{0, 0}
		if c.noise != nil {
			gv = c.noise
		}
		var prods [3][]float64 // θ_0², θ_0θ_1, θ_1²
		for k := range n + 1000 {
			grad[0] = a.At(0, 0)*theta[0] + a.At(0, 1)*theta[1]
			grad[1] = a.At(1, 0)*theta[0] + a.At(1, 1)*theta[1]
			for j := range grad {
				grad[j] += math.Sqrt(gv[j]) * rng.NormFloat64()
			}
			if _, ok := pc.Step(theta, grad, gv, scratch, eta, tau, c.pol, rng); !ok {
				t.Fatalf("%s: not finite at step %d", c.name, k)
			}
			if k >= 1000 {
				prods[0] = append(prods[0], theta[0]*theta[0])
				prods[1] = append(prods[1], theta[0]*theta[1])
				prods[2] = append(prods[2], theta[1]*theta[1])
			}
		}
		zMax := distuv.UnitNormal.Quantile(1 - 0.01/(2*12))
		for e, ij := range [3][2]int{{0, 0}, {0, 1}, {1, 1}} {
			got, exact := stat.Mean(prods[e], nil), want.At(ij[0], ij[1])
			se := diag.MCSEMean([][]float64{prods[e]})
			z := (got - exact) / se
			t.Logf("%s: covariance (%d, %d) %.6g, exact %.6g: off by %.2f%%, %.2f standard errors", c.name, ij[0], ij[1], got, exact, 100*(got/exact-1), z)
			if !(math.Abs(z) <= zMax) {
				t.Errorf("%s: covariance (%d, %d) %.6g, exact %.6g: off by %.2f standard errors (%.3g), allowed %.2f", c.name, ij[0], ij[1], got, exact, z, se, zMax)
			}
		}
	}
}

// With H the Gaussian's own Hessian the exact covariance is τA⁻¹/(1 − η/2):
// a check of precondCov itself.
func TestPrecondCovFormula(t *testing.T) {
	a := mat.NewSymDense(2, []float64{2, 0.5, 0.5, 1})
	got := precondCov(a, a, nil, 0.4, 1.5, false)
	var inv mat.Dense
	inv.Inverse(a)
	for i := range 2 {
		for j := range 2 {
			if want := 1.5 * inv.At(i, j) / (1 - 0.2); !(math.Abs(got.At(i, j)-want) <= 1e-10) {
				t.Errorf("(%d, %d): %v, want %v", i, j, got.At(i, j), want)
			}
		}
	}
}

func TestPrecondErrors(t *testing.T) {
	if _, err := NewPrecond(mat.NewSymDense(2, []float64{1, 2, 2, 1})); err == nil {
		t.Error("indefinite H: no error")
	}
	if _, err := NewDiagPrecond([]float64{1, 0}); err == nil {
		t.Error("zero curvature: no error")
	}
	if _, err := NewDiagPrecond([]float64{1, math.NaN()}); err == nil {
		t.Error("NaN curvature: no error")
	}
}

// A preconditioned step allocates nothing.
func TestPrecondNoAlloc(t *testing.T) {
	pc, _ := NewPrecond(mat.NewSymDense(3, []float64{2, 0.1, 0, 0.1, 1, 0.2, 0, 0.2, 3}))
	rng := rand.New(rand.NewPCG(1, 1))
	theta, grad, sc := make([]float64, 3), []float64{1, 2, 3}, make([]float64, 3)
	if a := testing.AllocsPerRun(100, func() { pc.Step(theta, grad, nil, sc, 0.1, 1, SGLD, rng) }); a != 0 {
		t.Errorf("%v allocations a step", a)
	}
}

// TestPrecondClamp runs the diagonal preconditioned step under Corrected
// with gradient noise that exceeds the budget 2τη in the first coordinate
// of φ (η²s2_0/h_0 = 2.4 against 2τη = 1.3): that coordinate is clamped at
// every step and gets the gradient noise alone, the other the budget. In φ
// the noise covariance is then diag(max(2τη, η²s2_j/h_j)), and the
// stationary covariance follows from the Lyapunov equation as in
// precondCov (its SGLD form with the unclamped coordinate's gradient noise
// topped up to the budget). Tolerance as in TestPrecondStationary.
func TestPrecondClamp(t *testing.T) {
	const eta, tau, n = 0.5, 1.3, 1_000_000
	a := mat.NewSymDense(2, []float64{1.0 / (1 - 0.95*0.95), -0.95 / (1 - 0.95*0.95) / 10, -0.95 / (1 - 0.95*0.95) / 10, 1.0 / (1 - 0.95*0.95) / 100})
	h := []float64{a.At(0, 0), a.At(1, 1)}
	s2 := []float64{100, 0.25}
	pc, err := NewDiagPrecond(h)
	if err != nil {
		t.Fatal(err)
	}
	// Noise in φ: η²s2_j/h_j where clamped, else 2τη. precondCov's SGLD
	// form adds 2τη to η²s2_j/h_j, so give it the excess over 2τη only.
	excess := make([]float64, 2)
	for j := range s2 {
		excess[j] = math.Max(0, eta*eta*s2[j]/h[j]-2*tau*eta) * h[j] / (eta * eta)
	}
	if !(excess[0] > 0 && excess[1] == 0) {
		t.Fatalf("the test needs the first coordinate clamped, the second not: excess %v", excess)
	}
	want := precondCov(a, mat.NewSymDense(2, []float64{h[0], 0, 0, h[1]}), excess, eta, tau, false)
	rng := rand.New(rand.NewPCG(5, 6))
	theta, grad, scratch := []float64{0, 0}, make([]float64, 2), make([]float64, 2)
	var s [2][2]float64
	clamped := 0
	for k := range n + 1000 {
		grad[0] = a.At(0, 0)*theta[0] + a.At(0, 1)*theta[1] + math.Sqrt(s2[0])*rng.NormFloat64()
		grad[1] = a.At(1, 0)*theta[0] + a.At(1, 1)*theta[1] + math.Sqrt(s2[1])*rng.NormFloat64()
		c, ok := pc.Step(theta, grad, s2, scratch, eta, tau, Corrected, rng)
		if !ok {
			t.Fatalf("not finite at step %d", k)
		}
		clamped += c
		if k >= 1000 {
			for i := range 2 {
				for j := range 2 {
					s[i][j] += theta[i] * theta[j] / n
				}
			}
		}
	}
	if clamped != n+1000 {
		t.Errorf("%d clamped coordinate-steps, want one a step (%d)", clamped, n+1000)
	}
	big := math.Max(want.At(0, 0), want.At(1, 1))
	for i := range 2 {
		for j := range 2 {
			if !(math.Abs(s[i][j]-want.At(i, j)) <= 0.04*big) {
				t.Errorf("covariance (%d, %d) %.5g, exact %.5g", i, j, s[i][j], want.At(i, j))
			}
		}
	}
}
