package slablogit

import (
	"math"
	"testing"
)

// TestWDBCWorkload: the rule keeps radius, perimeter and area (pairwise
// correlation above 0.98 on the standardised features), and the reference
// posterior is undecided: at least three inclusion probabilities lie in
// (0.1, 0.9), and no few patterns hold it (99% of the weight takes ≥ 20).
func TestWDBCWorkload(t *testing.T) {
	w, err := WDBC(Prior)
	if err != nil {
		t.Fatal(err)
	}
	N := w.LR.Len()
	corr := func(a, b int) float64 {
		var s float64
		for i := range N {
			s += w.LR.Row(i)[a] * w.LR.Row(i)[b]
		}
		return s / float64(N) // standardised: the correlation
	}
	for _, pr := range [][2]int{{1, 3}, {1, 4}, {3, 4}} {
		if c := corr(pr[0], pr[1]); !(c > 0.98) {
			t.Errorf("%s and %s: correlation %v, want > 0.98", w.Names[pr[0]], w.Names[pr[1]], c)
		}
	}
	ref, err := w.LR.SlabExact(5000, 1)
	if err != nil {
		t.Fatal(err)
	}
	undecided := 0
	for j, v := range ref.Inclusion[1:] {
		t.Logf("%-24s inclusion %.4f ± %.4f", w.Names[j+1], v, ref.InclSE[j+1])
		if v > 0.1 && v < 0.9 {
			undecided++
		}
	}
	t.Log(ref.Cost())
	if undecided < 3 || ref.Patterns99 < 20 {
		t.Errorf("%d undecided inclusions, %d patterns hold 99%%: want ≥ 3 and ≥ 20", undecided, ref.Patterns99)
	}
}

// TestSyntheticCorrelation: the generated features have wdbc's
// correlation, each entry within 5/√N (the sd of a sample correlation is
// at most 1/√N), and the true coefficients are SyntheticBeta·√(569/N).
func TestSyntheticCorrelation(t *testing.T) {
	const N = 20000
	w, err := Synthetic(N, 1)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := WDBC(Prior)
	if err != nil {
		t.Fatal(err)
	}
	p := w.LR.P
	for a := 1; a < p; a++ {
		for b := a; b < p; b++ {
			var s, r float64
			for i := range N {
				s += w.LR.Row(i)[a] * w.LR.Row(i)[b]
			}
			for i := range WDBCN {
				r += wd.LR.Row(i)[a] * wd.LR.Row(i)[b]
			}
			if d := math.Abs(s/N - r/WDBCN); !(d <= 5/math.Sqrt(N)) {
				t.Errorf("features %d, %d: generated %v, wdbc %v", a, b, s/N, r/WDBCN)
			}
		}
	}
	for j, b := range SyntheticBeta {
		if want := b * math.Sqrt(569.0/N); math.Abs(w.Truth[j+1]-want) > 1e-12 {
			t.Errorf("β*_%d = %v, want %v", j, w.Truth[j+1], want)
		}
	}
}
