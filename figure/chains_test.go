package figure

import (
	"testing"
)

func TestRankAllAveragesTies(t *testing.T) {
	got := rankAll([][]float64{{3, 1, 2}, {2, 5}})
	// Sorted: 1, 2, 2, 3, 5 → ranks 1, 2.5, 2.5, 4, 5.
	want := [][]float64{{4, 1, 2.5}, {2.5, 5}}
	for c := range want {
		for i := range want[c] {
			if got[c][i] != want[c][i] {
				t.Fatalf("ranks %v, want %v", got, want)
			}
		}
	}
}

// Long chains are thinned for drawing only: no line carries more than
// MaxDrawn points, and a chain short enough is drawn whole.
func TestThinnedDrawsAtMostMaxDrawn(t *testing.T) {
	long := make([]float64, 10*MaxDrawn+3)
	for i := range long {
		long[i] = float64(i)
	}
	xy := thinned(long, 7, 2, 0)
	if len(xy) > MaxDrawn || len(xy) < MaxDrawn/2 || xy[0].X != 7 || xy[1].X != 7+2*xy[1].Y {
		t.Errorf("%d points drawn, first two %v; want at most %d, at steps 7 + 2i", len(xy), xy[:2], MaxDrawn)
	}
	if n := len(thinned(long[:MaxDrawn], 1, 1, 0)); n != MaxDrawn {
		t.Errorf("a chain of %d draws drawn with %d points", MaxDrawn, n)
	}
}

// A chain entirely below another fills only the lower half of the rank
// bins, each with its share; the other chain the upper half.
func TestRankCountsShowAStuckChain(t *testing.T) {
	n := 200
	a, b := make([]float64, n), make([]float64, n)
	for i := range n {
		a[i], b[i] = float64(i), float64(n+i)
	}
	r := rankAll([][]float64{a, b})
	ca, cb := rankCounts(r[0], 2*n), rankCounts(r[1], 2*n)
	per := float64(2 * n / RankBins)
	for k := range RankBins {
		wa, wb := per, 0.0
		if k >= RankBins/2 {
			wa, wb = 0, per
		}
		if ca[k] != wa || cb[k] != wb {
			t.Fatalf("bin %d holds %v and %v draws, want %v and %v", k, ca[k], cb[k], wa, wb)
		}
	}
}
