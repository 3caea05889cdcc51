package minibatchstudy

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestInjectFactor checks the injected noise's square root against its
// definition: unclamped, LLᵀ + g = budget·I (full) or its diagonal
// (diagonal); with a gradient-noise eigenvalue above the budget, the full
// factor clips exactly that direction.
func TestInjectFactor(t *testing.T) {
	g := mat.NewSymDense(3, []float64{
		0.5, 0.2, -0.1,
		0.2, 0.4, 0.05,
		-0.1, 0.05, 0.3,
	})
	l := mat.NewDense(3, 3, nil)
	for _, full := range []bool{true, false} {
		c, err := injectFactor(l, g, 1, full)
		if err != nil || c != 0 {
			t.Fatalf("full %v: clamped %d, err %v", full, c, err)
		}
		var llt mat.Dense
		llt.Mul(l, l.T())
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				want := 0.0
				if i == j {
					want = 1 - g.At(i, i)
				} else if full {
					want = -g.At(i, j)
				}
				if math.Abs(llt.At(i, j)-want) > 1e-12 {
					t.Errorf("full %v: LLᵀ[%d,%d] = %v, want %v", full, i, j, llt.At(i, j), want)
				}
			}
		}
	}
	// g = 2·e1e1ᵀ + 0.5·I: M = I − g has eigenvalues −1.5 (along e1) and
	// 0.5 twice; M⁺ = 0.5·(I − e1e1ᵀ).
	g2 := mat.NewSymDense(3, []float64{2.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5})
	c, err := injectFactor(l, g2, 1, true)
	if err != nil || c != 1 {
		t.Fatalf("clamped %d (want 1), err %v", c, err)
	}
	var llt mat.Dense
	llt.Mul(l, l.T())
	want := mat.NewDense(3, 3, []float64{0, 0, 0, 0, 0.5, 0, 0, 0, 0.5})
	if !mat.EqualApprox(&llt, want, 1e-12) {
		t.Errorf("LLᵀ = %v, want %v", mat.Formatted(&llt), mat.Formatted(want))
	}
}

// TestSDVariantsSmoke runs every follow-up variant on the breast-cancer
// problem at the smoke size: scores finite at each budget, one-chain
// variants report no hot clamps, and the corrected chains take the same
// number of steps whichever loop runs them (each spends NCold per step; the
// smoothed exchange chain's AutoBatch adds one pilot draw).
func TestSDVariantsSmoke(t *testing.T) {
	l, _, err := BreastCancer()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := LoadReference("../docs/results/minibatch/breast-cancer-reference.json", l.Dim())
	if err != nil {
		t.Fatal(err)
	}
	pr, err := BreastCancerProblem(ref, Smoke)
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]int{}
	for _, v := range SDVariants {
		r, err := RunSD(pr, ref, v, 1)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		for b, sc := range r.Score {
			for k, x := range sc {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Errorf("%s: score %d at budget %d is %v", v.Name, k, b, x)
				}
			}
		}
		if len(r.Ratio) != l.Dim() {
			t.Errorf("%s: %d sd ratios, want %d", v.Name, len(r.Ratio), l.Dim())
		}
		if v.Method == CorrectedSGLD {
			if r.ClampStepsHot != 0 {
				t.Errorf("%s: a one-chain run reports hot clamps", v.Name)
			}
			steps[v.Name] = r.Steps
		}
	}
	lo, hi := math.MaxInt, 0
	for _, s := range steps {
		lo, hi = min(lo, s), max(hi, s)
	}
	if hi-lo > 1 {
		t.Errorf("corrected chains took from %d to %d steps on the same budget: %v", lo, hi, steps)
	}
	bad := SDVariant{Name: "bad", Method: CorrectedSGLD, Cov: "full"}
	if _, err := RunSD(pr, ref, bad, 1); err == nil {
		t.Error("a full-covariance variant without a smoothed cold chain was accepted")
	}
}
