package minibatch

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gauss1 is U(θ) = ½θ² + Σ_i ½(θ − x_i)²: Hessian N + 1 everywhere, and
// per-example gradients θ − x_i whose population variance is that of x.
type gauss1 struct{ x []float64 }

func (g gauss1) Dim() int { return 1 }
func (g gauss1) Len() int { return len(g.x) }
func (g gauss1) Term(grad, theta []float64, i int) float64 {
	d := theta[0] - g.x[i]
	if grad != nil {
		grad[0] = d
	}
	return d * d / 2
}
func (g gauss1) Prior(grad, theta []float64) float64 {
	if grad != nil {
		grad[0] = theta[0]
	}
	return theta[0] * theta[0] / 2
}

// TestLinearSD1D checks LinearSD against the closed form of a 1-D
// discretised Ornstein–Uhlenbeck chain: θ' = (1 − ηλ)θ + ε with Var ε = Σ
// has stationary variance Σ/(ηλ(2 − ηλ)), so the sd ratio to √(τ/λ) is
// √(Σ/(τη(2 − ηλ))); Σ = 2τη for the full gradient and for the corrected
// step (no off-diagonal in 1-D), 2τη + η²c for SGLD, c = N(N − n)/n·S².
func TestLinearSD1D(t *testing.T) {
	x := []float64{-1, 0.5, 2, 3, -2, 0.25, 1, -0.5}
	g := gauss1{x}
	N := float64(len(x))
	var mx, s2 float64
	for _, v := range x {
		mx += v / N
	}
	for _, v := range x {
		s2 += (v - mx) * (v - mx) / (N - 1)
	}
	lambda, eta, tau, n := N+1, 0.05, 2.0, 3
	m := []float64{N * mx / (N + 1)}
	c := N * (N - float64(n)) / float64(n) * s2
	want := map[LinearNoise]float64{
		ExactNoise:         math.Sqrt(2 / (2 - eta*lambda)),
		SGLDNoise:          math.Sqrt((2*tau*eta + eta*eta*c) / (tau * eta * (2 - eta*lambda))),
		DiagCorrectedNoise: math.Sqrt(2 / (2 - eta*lambda)),
	}
	ps, err := LinearSD(g, m, eta, tau, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		// The Hessian is by central differences of an exactly linear
		// gradient: only rounding separates it from N + 1.
		if w := want[p.Noise]; !(math.Abs(p.Ratio[0]-w) <= 1e-6) {
			t.Errorf("%s: ratio %v, want %v", p.Noise, p.Ratio[0], w)
		}
	}
	if _, err := LinearSD(g, m, eta, tau, 0); err == nil {
		t.Error("n = 0 accepted")
	}
}

// TestLyapunov checks Smith's doubling against the direct solution of
// vec V = (I − A⊗A)⁻¹ vec Σ on a random stable 3×3 A.
func TestLyapunov(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const p = 3
	a := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			a.Set(i, j, 0.25*rng.NormFloat64())
		}
	}
	b := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	var sig mat.Dense
	sig.Mul(b, b.T())
	v, err := lyapunov(a, &sig)
	if err != nil {
		t.Fatal(err)
	}
	var kron mat.Dense
	kron.Kronecker(a, a)
	lhs := mat.NewDense(p*p, p*p, nil)
	for i := 0; i < p*p; i++ {
		for j := 0; j < p*p; j++ {
			d := 0.0
			if i == j {
				d = 1
			}
			lhs.Set(i, j, d-kron.At(i, j))
		}
	}
	rhs := mat.NewVecDense(p*p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			rhs.SetVec(i*p+j, sig.At(i, j))
		}
	}
	var vec mat.VecDense
	if err := vec.SolveVec(lhs, rhs); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			if d := math.Abs(v.At(i, j) - vec.AtVec(i*p+j)); d > 1e-10*(1+math.Abs(v.At(i, j))) {
				t.Errorf("V[%d,%d] = %v, direct %v", i, j, v.At(i, j), vec.AtVec(i*p+j))
			}
		}
	}
	unstable := mat.NewDense(1, 1, []float64{1.5})
	if _, err := lyapunov(unstable, mat.NewDense(1, 1, []float64{1})); err == nil {
		t.Error("an unstable A converged")
	}
}
