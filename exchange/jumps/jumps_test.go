package jumps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"
)

// correlatedModes are two modes whose Hessians are strongly correlated
// (and differently so), with unequal weights 0.8 and 0.2: the setting in
// which L_k and L_kᵀ differ and dropped weights are visible.
func correlatedModes(t *testing.T) (*Proposal, [][]float64, []*mat.SymDense, []float64) {
	t.Helper()
	means := [][]float64{{-3, 1}, {2, -1}}
	hs := []*mat.SymDense{
		mat.NewSymDense(2, []float64{4, 3.4, 3.4, 3.5}),   // correlation 0.91 in H
		mat.NewSymDense(2, []float64{1, -0.8, -0.8, 2.5}), // of the other sign
	}
	w := []float64{0.8, 0.2}
	logW := []float64{math.Log(w[0]), math.Log(w[1])}
	j, err := New(0.5, means, []mat.Symmetric{hs[0], hs[1]}, logW)
	if err != nil {
		t.Fatal(err)
	}
	return j.Clone(), means, hs, w
}

// refLogQ is the proposal's density written from its definition, apart
// from the code under test: Σ_k w_k [0.8·N(x; m_k, τH_k⁻¹) + 0.2·C_k(x)],
// C_k the law of m_k + √τ·L_k⁻ᵀz, z iid standard Cauchy, whose density is
// Π_i 1/(π(1 + z_i²)) · |L_k|/τ^{p/2} at z = L_kᵀ(x − m_k)/√τ.
func refLogQ(t *testing.T, x []float64, tau float64, means [][]float64, hs []*mat.SymDense, w []float64) float64 {
	t.Helper()
	p := len(x)
	var q float64
	for k, m := range means {
		var cov mat.SymDense
		var ch mat.Cholesky
		if !ch.Factorize(hs[k]) {
			t.Fatal("not positive definite")
		}
		if err := ch.InverseTo(&cov); err != nil {
			t.Fatal(err)
		}
		cov.ScaleSym(tau, &cov)
		n, ok := distmv.NewNormal(m, &cov, nil)
		if !ok {
			t.Fatal("covariance")
		}
		var L mat.TriDense
		ch.LTo(&L)
		d := mat.NewVecDense(p, nil)
		for i := range x {
			d.SetVec(i, (x[i]-m[i])/math.Sqrt(tau))
		}
		var z mat.VecDense
		z.MulVec(L.T(), d)
		c := math.Sqrt(mat.Det(hs[k])) / math.Pow(tau, float64(p)/2)
		for i := range p {
			c /= math.Pi * (1 + z.AtVec(i)*z.AtVec(i))
		}
		q += w[k] * (0.8*math.Exp(n.LogProb(x)) + 0.2*c)
	}
	return math.Log(q)
}

// TestJumpsDensityCorrelatedUnequal checks the jumps' density q against
// its definition (refLogQ) on correlated modes of unequal weights, at
// temperatures below, at and above 1, within 1e-9 relative: it catches
// weights dropped from the density, L_k in place of L_kᵀ (or the
// determinant's wrong sign or power), τ applied at a wrong power, and the
// defensive share's constants. Exact arithmetic: no seed to vary, but the
// points are drawn at two seeds.
func TestJumpsDensityCorrelatedUnequal(t *testing.T) {
	j, means, hs, w := correlatedModes(t)
	for _, seed := range []uint64{1, 2} {
		rng := rand.New(rand.NewPCG(seed, 9))
		for range 200 {
			x := []float64{-8 + 14*rng.Float64(), -6 + 10*rng.Float64()}
			for _, tau := range []float64{0.4, 1, 3} {
				got, want := j.LogQ(x, tau), refLogQ(t, x, tau, means, hs, w)
				if !(math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))) {
					t.Fatalf("seed %d: log q(%v) at τ = %g is %v, its definition %v", seed, x, tau, got, want)
				}
			}
		}
	}
}

// TestJumpsDrawFollowsDensity checks that the jumps' draws come from the
// density the acceptance ratio uses, by importance sampling: for any
// density f, E_q[f(Y)/q(Y)] = 1. f is a correlated Gaussian about the
// lighter mode (weight 0.2), tilted against its Hessian's axes, so that a
// draw through L_k in place of L_kᵀ (covariance (L_kᵀL_k)⁻¹, not H_k⁻¹),
// weights dropped from the draw (the lighter mode drawn half the time),
// τ at the wrong power, or a draw of the wrong mode's centre moves the
// mean of f/q far from 1. 1.5·10⁵ draws; the tolerance is 5 standard errors
// of the mean, from the draws' own sd (f/q is bounded: q's Cauchy part
// has heavier tails than f), at two seeds and τ = 0.5 and 2.
func TestJumpsDrawFollowsDensity(t *testing.T) {
	j, _, _, _ := correlatedModes(t)
	fcov := mat.NewSymDense(2, []float64{1.2, 0.5, 0.5, 0.6})
	const n = 150_000
	for _, seed := range []uint64{3, 4} {
		for _, tau := range []float64{0.5, 2} {
			t.Run(fmt.Sprintf("seed%d_tau%g", seed, tau), func(t *testing.T) {
				f, _ := distmv.NewNormal([]float64{2.3, -0.6}, fcov, nil)
				rng := rand.New(rand.NewPCG(seed, 17))
				y := make([]float64, 2)
				var sum, sum2 float64
				for range n {
					j.Draw(y, tau, rng)
					r := math.Exp(f.LogProb(y) - j.LogQ(y, tau))
					sum += r
					sum2 += r * r
				}
				mean := sum / n
				se := math.Sqrt((sum2/n - mean*mean) / n)
				if !(math.Abs(mean-1) <= 5*se) { // NaN fails
					t.Errorf("E_q[f/q] = %.4f ± %.4f, want 1 (%.1f SE)", mean, se, (mean-1)/se)
				}
			})
		}
	}
}

// TestJumpsDensityFarOut: the mixture's log density far out is the sum of
// its terms, Σ log(1 + z_i²) taken as the log of a product that would
// overflow unflushed (z_i = 10⁶⁰ in 6 coordinates), and −∞, not NaN,
// where z_i² itself overflows.
func TestJumpsDensityFarOut(t *testing.T) {
	const p = 6
	h := mat.NewSymDense(p, nil)
	for i := range p {
		h.SetSym(i, i, 1)
	}
	j, err := New(1, [][]float64{make([]float64, p)}, []mat.Symmetric{h}, []float64{0})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, p)
	for i := range x {
		x[i] = 1e60
	}
	// The Gaussian part is e^−3·10¹²⁰ there: the Cauchy part alone.
	want := math.Log(tailShare) - p*math.Log(math.Pi) - p*math.Log1p(1e120)
	if got := j.LogQ(x, 1); !(math.Abs(got-want) <= 1e-9*math.Abs(want)) {
		t.Errorf("log q at z = 1e60: %v, want %v", got, want)
	}
	for i := range x {
		x[i] = 1e200
	}
	if got := j.LogQ(x, 1); !math.IsInf(got, -1) {
		t.Errorf("log q at z = 1e200: %v, want −Inf", got)
	}
}
