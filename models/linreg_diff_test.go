package models

import (
	"math"
	"testing"
)

// SumDiff, from XᵀX and Xᵀy, equals Σ_i [U_i(a) − U_i(b)] summed term by
// term over the data, at states near and far from the fit and at large
// noise sd (where G is small) and small (where it is large). Both sides
// round; the worst case of either is about N·ε times the sum of the
// terms' magnitudes (5000·2.2e-16 ≈ 1.1e-12 of it), so 1e-9 of it leaves
// room for rounding but not for a wrong factor or sign. At a = b the
// difference is 0 exactly.
func TestSumDiffMatchesTerms(t *testing.T) {
	const N, p = 5000, 4
	beta := []float64{1, 0, -0.5, 0.02}
	x, y := linregData(N, p, beta, 3)
	for _, sigma := range []float64{0.05, 1, 40} {
		l, err := NewLinReg(x, y, p, sigma, SlabPrior{W: 0.5, Spike: 0.02, Slab: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range [][2][]float64{
			{beta, {1.01, -0.01, -0.49, 0}},
			{{0, 0, 0, 0}, beta},
			{{3, -2, 1, 5}, {-1, 0.5, 0, 0.1}},
		} {
			a, b := c[0], c[1]
			var want, mag float64
			for i := range N {
				ua, ub := l.Term(nil, a, i), l.Term(nil, b, i)
				want += ua - ub
				mag += math.Abs(ua) + math.Abs(ub)
			}
			got := l.SumDiff(a, b)
			if tol := 1e-9 * mag; !(math.Abs(got-want) <= tol) {
				t.Errorf("σ = %v, a = %v, b = %v: SumDiff %v, term by term %v (tolerance %.3g)", sigma, a, b, got, want, tol)
			}
			if d := l.SumDiff(a, a); d != 0 {
				t.Errorf("σ = %v: SumDiff(a, a) = %v, want 0", sigma, d)
			}
		}
	}
}
