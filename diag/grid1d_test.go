package diag

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func stdNormalGrid() Grid1D {
	return Tempered1D(func(x float64) float64 { return x * x / 2 }, 1, -10, 10, 20000)
}

func TestTemperedGridMatchesNormal(t *testing.T) {
	// π_τ for U = x²/2 is N(0, τ); the midpoint rule on h = 1e-3 is accurate
	// to O(h²) ≈ 1e-6 in the CDF.
	g := Tempered1D(func(x float64) float64 { return x * x / 2 }, 4, -20, 20, 40000)
	n := distuv.Normal{Mu: 0, Sigma: 2}
	for _, x := range []float64{-3, -1, 0, 0.5, 2.5} {
		if d := math.Abs(g.CDF(x) - n.CDF(x)); d > 1e-5 {
			t.Errorf("CDF(%v) = %v, want %v", x, g.CDF(x), n.CDF(x))
		}
	}
	for _, q := range []float64{0.01, 0.3, 0.5, 0.9} {
		if d := math.Abs(g.Quantile(q) - n.Quantile(q)); d > 1e-4 {
			t.Errorf("Quantile(%v) = %v, want %v", q, g.Quantile(q), n.Quantile(q))
		}
	}
}

func TestW1ShiftedPointMass(t *testing.T) {
	// W1 between a point mass at c and N(0, 1) is E|Z − c|
	// = c(2Φ(c) − 1) + 2φ(c), exact up to the grid's O(h²) error.
	g := stdNormalGrid()
	for _, c := range []float64{0, 0.7, 3} {
		want := c*(2*distuv.UnitNormal.CDF(c)-1) + 2*distuv.UnitNormal.Prob(c)
		if got := g.W1([]float64{c}); !(math.Abs(got-want) <= 1e-5) {
			t.Errorf("W1(δ_%v, N(0,1)) = %v, want %v", c, got, want)
		}
	}
}

func TestW1OfQuantileSamples(t *testing.T) {
	// Samples at the mid-quantiles (i + ½)/n of the density itself: W1 is
	// at most the quantization error, which is O(1/n) for a normal.
	g := stdNormalGrid()
	n := 2000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = g.Quantile((float64(i) + 0.5) / float64(n))
	}
	if w := g.W1(xs); w > 3.0/float64(n) {
		t.Errorf("W1 of quantile samples = %v, want ≤ %v", w, 3.0/float64(n))
	}
}

func TestTVKnownCases(t *testing.T) {
	g := stdNormalGrid()
	// All samples outside the range: TV = 1.
	if tv := g.TV([]float64{100, -100}, 20); tv != 1 {
		t.Errorf("TV of samples outside = %v, want 1", tv)
	}
	// All samples in one bin [0, 1): TV = 1 − P(0 ≤ Z < 1).
	want := 1 - (distuv.UnitNormal.CDF(1) - 0.5)
	if tv := g.TV([]float64{0.2, 0.5, 0.9}, 20); !(math.Abs(tv-want) <= 1e-5) {
		t.Errorf("TV of one-bin samples = %v, want %v", tv, want)
	}
	// Exact draws: E[TV] ≈ Σ_b √(p_b(1−p_b)/n)·√(2/π)/2 ≤ √B/(2√n)·… ;
	// with B = 20 bins and n = 10⁵ the bound √(B/n)/2 ≈ 0.007 is a safe cap.
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 100000)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	if tv := g.TV(xs, 20); !(tv <= math.Sqrt(20.0/1e5)/2) {
		t.Errorf("TV of exact draws = %v, want ≤ %v", tv, math.Sqrt(20.0/1e5)/2)
	}
}

func TestMeanSE(t *testing.T) {
	m, se := MeanSE([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(se-math.Sqrt(5.0/3/4)) > 1e-15 {
		t.Errorf("MeanSE = %v, %v", m, se)
	}
	if _, se := MeanSE([]float64{1}); !math.IsNaN(se) {
		t.Errorf("se of one value = %v, want NaN", se)
	}
}
