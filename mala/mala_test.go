package mala

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gauss is U(θ) = ½(θ − μ)ᵀA(θ − μ) with a dense precision A.
type gauss struct {
	mu []float64
	a  [][]float64
}

func (g gauss) Dim() int { return len(g.mu) }
func (g gauss) U(x []float64) float64 {
	var u float64
	for i := range x {
		for j := range x {
			u += 0.5 * (x[i] - g.mu[i]) * g.a[i][j] * (x[j] - g.mu[j])
		}
	}
	return u
}
func (g gauss) Grad(grad, x []float64) {
	for i := range x {
		grad[i] = 0
		for j := range x {
			grad[i] += g.a[i][j] * (x[j] - g.mu[j])
		}
	}
}

// moments checks a run's mean and variance of each coordinate against the
// exact ones, to 4 batch-means standard errors (50 batches). The variance is
// checked through E(θ_j − μ_j)², whose batch-means se is computed the same way.
func moments(t *testing.T, r Result, mu, vr []float64) {
	t.Helper()
	n := len(r.Samples) / r.P
	for j := 0; j < r.P; j++ {
		xs := make([]float64, n)
		sq := make([]float64, n)
		for i := range xs {
			xs[i] = r.Samples[i*r.P+j]
			sq[i] = (xs[i] - mu[j]) * (xs[i] - mu[j])
		}
		m, se := BatchMeans(xs, 50)
		if math.Abs(m-mu[j]) > 4*se {
			t.Errorf("coordinate %d: mean %v ± %v, exact %v", j, m, se, mu[j])
		}
		v, vse := BatchMeans(sq, 50)
		if math.Abs(v-vr[j]) > 4*vse {
			t.Errorf("coordinate %d: variance %v ± %v, exact %v", j, v, vse, vr[j])
		}
	}
}

// TestMALAStandardNormal uses a step so large that the unadjusted Langevin
// chain would have variance 1/(1 − h/2) = 1.82: only the Metropolis–Hastings
// correction brings it to 1.
func TestMALAStandardNormal(t *testing.T) {
	g := gauss{mu: []float64{0}, a: [][]float64{{1}}}
	r, err := Run(g, []float64{3}, Config{Step: 0.9, Burn: 1000, Keep: 200000, Thin: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	moments(t, r, []float64{0}, []float64{1})
	if r.Accept <= 0 || r.Accept >= 1 || r.Evals != 201001 {
		t.Errorf("acceptance %v, evaluations %d", r.Accept, r.Evals)
	}
}

// TestMALACorrelatedAdapted samples a correlated 3-D Gaussian (covariance
// A⁻¹ known in closed form below) with the adapted step.
func TestMALACorrelatedAdapted(t *testing.T) {
	// Σ = [[2, 1, 0], [1, 2, 1], [0, 1, 2]]; A = Σ⁻¹ = ¼[[3, −2, 1], [−2, 4, −2], [1, −2, 3]].
	a := [][]float64{{0.75, -0.5, 0.25}, {-0.5, 1, -0.5}, {0.25, -0.5, 0.75}}
	g := gauss{mu: []float64{1, -2, 0.5}, a: a}
	r, err := Run(g, []float64{0, 0, 0}, Config{Step: 0.1, Burn: 5000, Keep: 100000, Thin: 2, Seed: 2, Adapt: true})
	if err != nil {
		t.Fatal(err)
	}
	moments(t, r, g.mu, []float64{2, 2, 2})
	// Adaptation aims at 0.574; after it, the rate is within a few percent.
	if math.Abs(r.Accept-0.574) > 0.1 {
		t.Errorf("acceptance %v after adapting towards 0.574", r.Accept)
	}
}

// TestLaplaceGaussian: for a Gaussian the Laplace approximation is exact, so
// the mode is μ and LLᵀ is Σ (to the finite-difference Hessian's accuracy;
// the gradient is linear, so central differences are exact up to rounding).
func TestLaplaceGaussian(t *testing.T) {
	a := [][]float64{{0.75, -0.5, 0.25}, {-0.5, 1, -0.5}, {0.25, -0.5, 0.75}}
	sigma := [][]float64{{2, 1, 0}, {1, 2, 1}, {0, 1, 2}}
	g := gauss{mu: []float64{1, -2, 0.5}, a: a}
	m, l, err := Laplace(g, []float64{5, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if math.Abs(m[i]-g.mu[i]) > 1e-9 {
			t.Errorf("mode %v, want %v", m, g.mu)
		}
		for j := 0; j < 3; j++ {
			var s float64
			for k := 0; k < 3; k++ {
				s += l[i*3+k] * l[j*3+k]
			}
			if math.Abs(s-sigma[i][j]) > 1e-6 {
				t.Errorf("(LLᵀ)[%d][%d] = %v, want %v", i, j, s, sigma[i][j])
			}
		}
	}
	// Preconditioned by it, MALA in z sees N(0, I) and maps back to N(μ, Σ).
	af := NewAffine(g, m, l)
	r, err := Run(af, []float64{0, 0, 0}, Config{Step: 0.5, Burn: 1000, Keep: 100000, Thin: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	th := make([]float64, 3)
	for i := 0; i < len(r.Samples)/3; i++ {
		af.Theta(th, r.Samples[i*3:(i+1)*3])
		copy(r.Samples[i*3:(i+1)*3], th)
	}
	moments(t, r, g.mu, []float64{2, 2, 2})
}

// TestBatchMeansAR1 checks the standard error on an AR(1) chain x_k =
// ρx_{k−1} + ε_k, whose mean has asymptotic variance (1/(1−ρ²))(1+ρ)/(1−ρ)/n.
// With 100 batches the se estimate has relative sd about 1/√(2·99) = 7%;
// the tolerance is 4 of those.
func TestBatchMeansAR1(t *testing.T) {
	const n, rho = 1000000, 0.9
	rng := rand.New(rand.NewPCG(4, 0))
	xs := make([]float64, n)
	x := 0.0
	for i := range xs {
		x = rho*x + rng.NormFloat64()
		xs[i] = x
	}
	_, se := BatchMeans(xs, 100)
	want := math.Sqrt(1 / (1 - rho*rho) * (1 + rho) / (1 - rho) / n)
	if math.Abs(se/want-1) > 4*0.071 {
		t.Errorf("batch-means se %v, asymptotic %v", se, want)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	g := gauss{mu: []float64{0}, a: [][]float64{{1}}}
	for _, c := range []Config{{Step: 0, Keep: 1, Thin: 1}, {Step: 1, Keep: 0, Thin: 1}, {Step: 1, Keep: 1, Thin: 0}, {Step: math.NaN(), Keep: 1, Thin: 1}} {
		if _, err := Run(g, []float64{0}, c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

func TestCurvatureGaussian(t *testing.T) {
	// Eigenvalues of A = ¼[[3, −2, 1], [−2, 4, −2], [1, −2, 3]] are those of
	// Σ⁻¹, Σ = [[2, 1, 0], [1, 2, 1], [0, 1, 2]] with eigenvalues 2 − √2, 2, 2 + √2.
	a := [][]float64{{0.75, -0.5, 0.25}, {-0.5, 1, -0.5}, {0.25, -0.5, 0.75}}
	g := gauss{mu: []float64{1, -2, 0.5}, a: a}
	_, lmin, lmax, err := Curvature(g, []float64{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(lmin-1/(2+math.Sqrt2)) > 1e-6 || math.Abs(lmax-1/(2-math.Sqrt2)) > 1e-6 {
		t.Errorf("eigenvalues %v, %v", lmin, lmax)
	}
}
