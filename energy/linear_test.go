package energy

import (
	"fmt"
	"math"
	"testing"
)

// rowsOnly is a LinearTerms whose rows are fixed small integers; only Row is
// used by linearGrad.
type rowsOnly struct {
	p    int
	rows []float64
}

func (r rowsOnly) Dim() int                           { return r.p }
func (r rowsOnly) Len() int                           { return len(r.rows) / r.p }
func (r rowsOnly) Term(_, _ []float64, _ int) float64 { return 0 }
func (r rowsOnly) Prior(_, _ []float64) float64       { return 0 }
func (r rowsOnly) Slopes(_, _ []float64, _ []int32)   {}
func (r rowsOnly) Row(i int) []float64                { return r.rows[i*r.p : (i+1)*r.p] }

// TestLinearGradSums checks linearGrad, with and without the sums of
// squares, against the definition: shift = d_0·x_0, sum = Σ_{k≥1} (d_k·x_k −
// shift), sq = Σ_{k≥1} (d_k·x_k − shift)². Slopes and rows are small
// integers, so every product and sum is exact and the comparison is bit for
// bit, at sizes that use the four-row loop, the remainder loop, and both.
func TestLinearGradSums(t *testing.T) {
	const p, N = 3, 12
	lin := rowsOnly{p: p, rows: make([]float64, N*p)}
	for i := range lin.rows {
		lin.rows[i] = float64(((i*7)%11 + 1) * (1 - 2*(i%2))) // non-zero
	}
	for _, n := range []int{1, 2, 4, 5, 6, 9, 12} {
		idx := make([]int32, n)
		d := make([]float64, n)
		for k := range idx {
			idx[k] = int32((k*5 + 3) % N)
			d[k] = float64(k%3 + 2) // non-zero, so the shift is too
		}
		wantShift := make([]float64, p)
		wantSum := make([]float64, p)
		wantSq := make([]float64, p)
		for j := range p {
			wantShift[j] = d[0] * lin.Row(int(idx[0]))[j]
			for k := 1; k < n; k++ {
				a := d[k]*lin.Row(int(idx[k]))[j] - wantShift[j]
				wantSum[j] += a
				wantSq[j] += a * a
			}
		}
		for _, withSq := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/sq=%v", n, withSq), func(t *testing.T) {
				shift, sum := make([]float64, p), make([]float64, p)
				var sq []float64
				if withSq {
					sq = make([]float64, p)
				}
				for j := range p { // stale values must be cleared
					sum[j] = 99
					if sq != nil {
						sq[j] = 99
					}
				}
				linearGrad(lin, sum, sq, shift, d, idx)
				for j := range p {
					if math.Float64bits(shift[j]) != math.Float64bits(wantShift[j]) ||
						math.Float64bits(sum[j]) != math.Float64bits(wantSum[j]) {
						t.Fatalf("coordinate %d: shift %v, sum %v; want %v, %v", j, shift[j], sum[j], wantShift[j], wantSum[j])
					}
					if withSq && math.Float64bits(sq[j]) != math.Float64bits(wantSq[j]) {
						t.Fatalf("coordinate %d: sum of squares %v, want %v", j, sq[j], wantSq[j])
					}
				}
			})
		}
	}
}
