package finitemix_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/finitemix"
)

// mixLogPost is the log posterior density of θ written from its
// definition with gonum's densities: the data's likelihood, μ_k ~ N(ξ, R²)
// (ordered: K! times the product, a constant), σ_k⁻² ~ Gamma(α, β) carried
// to log σ_k (|dτ/d log σ| = 2τ), w ~ Dirichlet(e0) carried to the
// logits (the softmax's Jacobian Π w_k), and the gaps' Jacobian
// Π (μ_(k+1) − μ_k).
func mixLogPost(m *finitemix.FiniteMixture, theta []float64) float64 {
	p := m.NewParams()
	m.Unpack(p, theta)
	var lp float64
	for _, z := range m.Z {
		var s float64
		for k := range m.K {
			s += p.W[k] * distuv.Normal{Mu: p.Mu[k], Sigma: p.Sigma[k]}.Prob(z)
		}
		lp += math.Log(s)
	}
	for k := range m.K {
		lp += distuv.Normal{Mu: m.Xi, Sigma: m.R}.LogProb(p.Mu[k])
		tau := 1 / (p.Sigma[k] * p.Sigma[k])
		lp += distuv.Gamma{Alpha: m.Alpha, Beta: m.Beta}.LogProb(tau) + math.Log(2*tau)
		lp += m.E0 * math.Log(p.W[k])
		if k > 0 {
			lp += math.Log(p.Mu[k] - p.Mu[k-1])
		}
	}
	return lp
}

func randomMixture(t *testing.T, k int, e0 float64) (*finitemix.FiniteMixture, *rand.Rand) {
	rng := rand.New(rand.NewPCG(3, uint64(k)))
	y := make([]float64, 40)
	for i := range y {
		y[i] = 1000*float64(i%3) + 300*rng.NormFloat64()
	}
	m, err := finitemix.NewFiniteMixture(y, k, e0)
	if err != nil {
		t.Fatal(err)
	}
	return m, rng
}

// TestFiniteMixtureEnergy checks U against the definition (differences
// between states, so that the constants U leaves out cancel) and ∇U, the
// sum of the Terms and the Prior against central differences.
func TestFiniteMixtureEnergy(t *testing.T) {
	for _, c := range []struct {
		k  int
		e0 float64
	}{{2, 1}, {3, 0.5}, {5, 4}} {
		m, rng := randomMixture(t, c.k, c.e0)
		d := m.Dim()
		th0 := make([]float64, d)
		for range 5 {
			th := make([]float64, d)
			for j := range th {
				th[j] = rng.NormFloat64()
			}
			got := m.U(th) - m.U(th0)
			want := -(mixLogPost(m, th) - mixLogPost(m, th0))
			if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("K=%d: U(θ) − U(0) = %v, the definition gives %v", c.k, got, want)
			}
			if s := energy.Sum(m, th) - energy.Sum(m, th0); math.Abs(s-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("K=%d: the Terms sum to a difference %v, the definition %v", c.k, s, want)
			}
			g := make([]float64, d)
			u := m.UGrad(g, th)
			if u != m.U(th) {
				t.Fatalf("UGrad's U %v differs from U's %v", u, m.U(th))
			}
			gf := make([]float64, d)
			energy.NewFull(termsOnly{m}).Grad(gf, th)
			for j := range th {
				h := 1e-5
				x := append([]float64(nil), th...)
				x[j] += h
				up := m.U(x)
				x[j] -= 2 * h
				num := (up - m.U(x)) / (2 * h)
				if math.Abs(g[j]-num) > 1e-5*(1+math.Abs(num)) || math.Abs(gf[j]-num) > 1e-5*(1+math.Abs(num)) {
					t.Fatalf("K=%d: ∂U/∂θ_%d = %v (UGrad), %v (Terms), central differences %v", c.k, j, g[j], gf[j], num)
				}
			}
		}
	}
}

// termsOnly hides FiniteMixture's own U and Grad so that energy.Full sums
// Term and Prior.
type termsOnly struct{ m *finitemix.FiniteMixture }

func (t termsOnly) Dim() int                                  { return t.m.Dim() }
func (t termsOnly) Len() int                                  { return t.m.Len() }
func (t termsOnly) Term(grad, theta []float64, i int) float64 { return t.m.Term(grad, theta, i) }
func (t termsOnly) Prior(grad, theta []float64) float64       { return t.m.Prior(grad, theta) }

// TestFiniteMixturePack checks that Pack inverts Unpack, and the data's
// standardisation and the prior's data-dependent constants.
func TestFiniteMixturePack(t *testing.T) {
	m, rng := randomMixture(t, 4, 1)
	th := make([]float64, m.Dim())
	for j := range th {
		th[j] = rng.NormFloat64()
	}
	p := m.NewParams()
	m.Unpack(p, th)
	back := make([]float64, m.Dim())
	m.Pack(back, p)
	for j := range th {
		if math.Abs(back[j]-th[j]) > 1e-12 {
			t.Fatalf("Pack(Unpack(θ))_%d = %v, θ_%d = %v", j, back[j], j, th[j])
		}
	}
	m2, err := finitemix.NewFiniteMixture([]float64{1, 2, 4}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	sd := math.Sqrt(7.0 / 3) // the values' sample sd: mean 7/3, squares 16/9 + 1/9 + 25/9 over 2
	if math.Abs(m2.SD-sd) > 1e-12 || math.Abs(m2.R-3/sd) > 1e-12 || math.Abs(m2.Xi-(2.5-7.0/3)/sd) > 1e-12 || math.Abs(m2.Beta-0.02*9/(sd*sd)) > 1e-12 {
		t.Fatalf("sd %v, R %v, ξ %v, β %v: want %v, %v, %v, %v", m2.SD, m2.R, m2.Xi, m2.Beta, sd, 3/sd, (2.5-7.0/3)/sd, 0.02*9/(sd*sd))
	}
	for _, bad := range []struct {
		y  []float64
		k  int
		e0 float64
	}{{[]float64{1, 2}, 1, 1}, {[]float64{1, 2}, 9, 1}, {[]float64{1, 2}, 2, 0}, {[]float64{1, math.NaN()}, 2, 1}, {[]float64{3, 3}, 2, 1}, {[]float64{3}, 2, 1}} {
		if _, err := finitemix.NewFiniteMixture(bad.y, bad.k, bad.e0); err == nil {
			t.Errorf("NewFiniteMixture(%v, %d, %v) accepted", bad.y, bad.k, bad.e0)
		}
	}
}

// TestFiniteMixtureAllocs checks that an energy, a term and the prior,
// with their gradients, allocate nothing: the step loop calls them.
func TestFiniteMixtureAllocs(t *testing.T) {
	m, _ := randomMixture(t, 8, 1)
	th, g := make([]float64, m.Dim()), make([]float64, m.Dim())
	if a := testing.AllocsPerRun(20, func() { m.UGrad(g, th); m.Term(g, th, 3); m.Prior(g, th) }); a != 0 {
		t.Errorf("%v allocations a call", a)
	}
}
