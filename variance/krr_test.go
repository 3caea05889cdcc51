package variance

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
)

// sigmoidNoise is the paper's state-dependent noise on a quadratic energy in
// p dimensions: s_j(θ) = 5·logistic(θ_j), σ(θ) = 1 + θ_0²/10 (a smooth,
// non-constant energy noise). Written here to keep the test self-contained.
func sigmoidNoise(p int) *energy.Noisy {
	return &energy.Noisy{
		E:        energy.NewIsoQuadratic(p, 1),
		GradSD:   func(theta []float64, j int) float64 { return 5 / (1 + math.Exp(-theta[j])) },
		EnergySD: func(theta []float64, _ float64) float64 { return 1 + theta[0]*theta[0]/10 },
	}
}

// feed shows the model n states drawn uniformly on [−8, 8]^p, one per
// Period, and returns them.
func feed(t *testing.T, k *KRR, est energy.Estimator, n, p int, rng *rand.Rand) {
	t.Helper()
	theta := make([]float64, p)
	for i := range n {
		for j := range theta {
			theta[j] = -8 + 16*rng.Float64()
		}
		if err := k.Observe(i*k.Period, theta, est, rng); err != nil {
			t.Fatal(err)
		}
	}
}

// KRR recovers s²(θ) = (5·logistic(θ))² from 100 states with 20 repeats
// each. Tolerance: each target ŝ² is s²·χ²₁₉/19, sd s²·√(2/19) ≤ 8.1 at the
// largest s² = 25. A fit that averages the ~10 neighbours within ±0.8 of θ
// (100 points on 16 units) has noise sd ≤ 8.1/√10 = 2.6 there; we allow
// 1.5 × that as the RMS error over [−7, 7] (RMS over many points lies well
// below the worst point's sd) plus nothing for bias, and require the fit to
// be at least 3 times better than the best constant, whose RMS error about
// the true curve is ≈ 10.
func TestKRRRecoversSigmoidVariance(t *testing.T) {
	est := sigmoidNoise(1)
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		k, err := NewKRR(100, 20, 3)
		if err != nil {
			t.Fatal(err)
		}
		feed(t, k, est, 100, 1, rng)
		if !k.Fitted() {
			t.Fatal("not fitted after 100 points")
		}
		var se, sc, mean float64
		const m = 141
		truth := make([]float64, m)
		for i := range truth {
			x := -7 + 14*float64(i)/(m-1)
			s := 5 / (1 + math.Exp(-x))
			truth[i] = s * s
			mean += truth[i] / m
		}
		dst := make([]float64, 1)
		for i, tr := range truth {
			x := -7 + 14*float64(i)/(m-1)
			k.GradVar(dst, []float64{x}, nil)
			se += (dst[0] - tr) * (dst[0] - tr) / m
			sc += (mean - tr) * (mean - tr) / m
		}
		rms, crms := math.Sqrt(se), math.Sqrt(sc)
		h, l, _ := k.Choice(0)
		t.Logf("seed %d: RMS error %.3f (constant %.3f), bandwidth %.3g, λ %.3g", seed, rms, crms, h, l)
		if tol := 1.5 * 25 * math.Sqrt(2.0/19) / math.Sqrt(10); rms > tol {
			t.Errorf("seed %d: RMS error %v exceeds %v", seed, rms, tol)
		}
		if rms > crms/3 {
			t.Errorf("seed %d: RMS error %v not 3× below the constant's %v", seed, rms, crms)
		}
	}
}

// checkFinite asks for predictions across and beyond the data and fails on
// NaN, Inf or a negative variance.
func checkFinite(t *testing.T, name string, k *KRR, p int) {
	t.Helper()
	dst := make([]float64, p)
	theta := make([]float64, p)
	for _, x := range []float64{-1e6, -20, -3, 0, 0.5, 3, 20, 1e6, math.Inf(1)} {
		for j := range theta {
			theta[j] = x
		}
		k.GradVar(dst, theta, nil)
		for j, v := range dst {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Errorf("%s: ŝ²_%d(%v) = %v", name, j, x, v)
			}
		}
		if v := k.EnergyVar(theta, 0, false); math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s: σ²(%v) = %v", name, x, v)
		}
	}
}

func TestKRRFewAndDuplicatePoints(t *testing.T) {
	est := sigmoidNoise(2)
	for _, n := range []int{1, 2, 3, 5} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		k, _ := NewKRR(n, 3, 1)
		checkFinite(t, "before any point", k, 2)
		feed(t, k, est, n, 2, rng)
		if !k.Fitted() {
			t.Fatalf("%d points: not fitted", n)
		}
		checkFinite(t, "few points", k, 2)
	}
	// Every state the same: the inputs have zero spread and the kernel
	// matrix is all ones.
	rng := rand.New(rand.NewPCG(9, 9))
	k, _ := NewKRR(30, 4, 1)
	for i := range 30 {
		if err := k.Observe(i, []float64{1.5, -2}, est, rng); err != nil {
			t.Fatal(err)
		}
	}
	checkFinite(t, "duplicates", k, 2)
	// Two distinct states, each repeated: still finite, and near the
	// true variances at those states (within 4 SE of the 15-state average
	// of χ²₃/3 draws: relative sd √(2/3)/√15 = 0.21).
	k, _ = NewKRR(30, 4, 1)
	xs := [][]float64{{-6, -6}, {6, 6}}
	for i := range 30 {
		if err := k.Observe(i, xs[i%2], est, rng); err != nil {
			t.Fatal(err)
		}
	}
	checkFinite(t, "paired duplicates", k, 2)
	dst := make([]float64, 2)
	for _, x := range xs {
		k.GradVar(dst, x, nil)
		s := 5 / (1 + math.Exp(-x[0]))
		if !(math.Abs(dst[0]-s*s) <= 4*0.21*math.Max(s*s, 25*0.5)) {
			t.Errorf("paired duplicates at %v: ŝ² = %v, true %v", x, dst[0], s*s)
		}
	}
	// A noise-free estimator: every target variance is 0.
	k, _ = NewKRR(10, 3, 1)
	feed(t, k, energy.Exact{E: energy.NewIsoQuadratic(2, 1)}, 10, 2, rng)
	checkFinite(t, "zero variance", k, 2)
	k.GradVar(dst, []float64{0, 0}, nil)
	if dst[0] != 0 || dst[1] != 0 || k.EnergyVar([]float64{0, 0}, 0, false) != 0 {
		t.Errorf("noise-free estimator: predicted %v, σ² %v", dst, k.EnergyVar([]float64{0, 0}, 0, false))
	}
}

// Before the fit the model answers with the running average of the sample
// variances; draws stop once the fit exists; a follower switches to its
// leader's fit.
func TestKRRBeforeFitAndFollower(t *testing.T) {
	est := newCountingNoisy(energy.NewNoisy(energy.NewIsoQuadratic(1, 1), 3, 2))
	rng := rand.New(rand.NewPCG(3, 3))
	lead, _ := NewKRR(50, 10, 2)
	fol := lead.Follower()
	theta := []float64{0.3}
	dst := make([]float64, 1)
	for step := range 200 {
		for _, m := range []*KRR{lead, fol} {
			if err := m.Observe(step, theta, est, rng); err != nil {
				t.Fatal(err)
			}
		}
		if step == 10 { // 6 states each, 60 draws of N(·, 4): average of χ²₉·4/9
			fol.GradVar(dst, theta, nil)
			// sd of the average of 6 sample variances: 4·√(2/9)/√6 = 0.77.
			if math.Abs(dst[0]-4) > 4*0.77 || fol.Fitted() {
				t.Errorf("follower before the fit: ŝ² = %v (want ≈ 4), fitted %v", dst[0], fol.Fitted())
			}
		}
	}
	if !fol.Fitted() || !lead.Fitted() {
		t.Fatal("fit not shared")
	}
	// 50 states by the leader; the follower adopts the fit only from the
	// step after it was made (so that concurrent stepping cannot change
	// the output), so it records 50 too; then nothing: 100 states × 10
	// draws.
	if est.grads != 1000 || est.energies != 1000 {
		t.Errorf("draws: %d gradients, %d energies; want 1000 each", est.grads, est.energies)
	}
	// 50 states × 9 degrees of freedom: relative sd √(2/450) = 0.067.
	lead.GradVar(dst, []float64{-1}, nil)
	if !(math.Abs(dst[0]-4) <= 4*4*0.067) {
		t.Errorf("fitted ŝ² = %v, want 4", dst[0])
	}
	if v := fol.EnergyVar([]float64{1}, 0, false); !(math.Abs(v-9) <= 4*9*0.067) {
		t.Errorf("follower fitted σ² = %v, want 9", v)
	}
}

// countingNoisy counts the draws made through it.
type countingNoisy struct {
	*energy.Noisy
	grads, energies int
}

func newCountingNoisy(n *energy.Noisy) *countingNoisy { return &countingNoisy{Noisy: n} }

func (c *countingNoisy) Grad(g, gv, theta []float64, rng *rand.Rand) {
	c.grads++
	c.Noisy.Grad(g, gv, theta, rng)
}

func (c *countingNoisy) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	c.energies++
	return c.Noisy.Energy(theta, rng)
}

func TestKRRSettings(t *testing.T) {
	for _, c := range [][3]int{{0, 2, 1}, {10, 1, 1}, {10, 2, 0}} {
		if _, err := NewKRR(c[0], c[1], c[2]); err == nil {
			t.Errorf("NewKRR%v: no error", c)
		}
	}
}

// After the fit, predictions allocate nothing (the step loop's rule).
func TestKRRPredictNoAlloc(t *testing.T) {
	est := sigmoidNoise(3)
	k, _ := NewKRR(40, 3, 1)
	feed(t, k, est, 40, 3, rand.New(rand.NewPCG(4, 4)))
	dst := make([]float64, 3)
	theta := []float64{0.1, 0.2, 0.3}
	a := testing.AllocsPerRun(100, func() {
		k.GradVar(dst, theta, nil)
		_ = k.EnergyVar(theta, 0, false)
		_ = k.Observe(1000, theta, est, nil)
	})
	if a != 0 {
		t.Errorf("%v allocations per prediction", a)
	}
}
