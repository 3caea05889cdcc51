package plan

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/variance"
)

// TestGradRuleFlips checks the rule at its boundary. With S² = 0 the
// control-variate minibatch is CVMinBatch, so control variates cost
// c = (2·CVMinBatch + p)·CVIAT(CVEta) per effective draw and MALA
// (N + p)·MALAIAT(MALAStep(p), MALAAccept): the rule must pick MALA at
// every N whose MALA cost is at most c and control variates above.
func TestGradRuleFlips(t *testing.T) {
	for _, p := range []int{1, 31, 101} {
		c := (2*CVMinBatch + float64(p)) * CVIAT(CVEta)
		iat := MALAIAT(MALAStep(p), MALAAccept)
		nb := int(math.Floor(c/iat - float64(p))) // largest N with MALA's cost ≤ c
		if nb < 2*CVMinBatch {
			t.Fatalf("p = %d: boundary N = %d below the minibatch: the test needs another p", p, nb)
		}
		for N, wantCV := range map[int]bool{nb: false, nb + 1: true, nb / 2: false, 10 * nb: true} {
			ch, err := GradRule(GradInput{N: N, P: p, S2: 0})
			if err != nil {
				t.Fatal(err)
			}
			if ch.CV != wantCV {
				t.Errorf("p = %d, N = %d (boundary %d): control variates %v, want %v (%s)", p, N, nb, ch.CV, wantCV, ch.Rule)
			}
			if ch.CV && (ch.Batch != CVMinBatch || !strings.HasPrefix(ch.Rule, "control-variate")) || !ch.CV && (ch.Batch != 0 || !strings.HasPrefix(ch.Rule, "full-data")) {
				t.Errorf("p = %d, N = %d: batch %d, rule %q", p, N, ch.Batch, ch.Rule)
			}
		}
	}
}

// TestGradRuleBatch checks that the control-variate minibatch is the least
// n whose noise takes at most CVHeat of the budget, and that noise which
// only all N examples would tame gives MALA, saying so.
func TestGradRuleBatch(t *testing.T) {
	const N, p = 1_000_000, 101
	for _, s2 := range []float64{1e-10, 1e-9, 1e-8} {
		ch, err := GradRule(GradInput{N: N, P: p, S2: s2})
		if err != nil {
			t.Fatal(err)
		}
		n := ch.Batch
		if !ch.CV || n <= CVMinBatch {
			t.Fatalf("S² = %g: %s", s2, ch.Rule)
		}
		if h := variance.ShareAt(N, n, s2, CVEta, 1); !(h <= CVHeat) || math.Abs(h-ch.Heat) > 1e-15 {
			t.Errorf("S² = %g: n = %d takes %.4g of the budget (reported %.4g), want ≤ %g", s2, n, h, ch.Heat, CVHeat)
		}
		if h := variance.ShareAt(N, n-1, s2, CVEta, 1); !(h > CVHeat) {
			t.Errorf("S² = %g: n − 1 = %d takes %.4g ≤ %g: n is not the least", s2, n-1, h, CVHeat)
		}
	}
	ch, err := GradRule(GradInput{N: 500, P: 31, S2: 10})
	if err != nil || ch.CV || !strings.Contains(ch.Rule, "all 500 examples") {
		t.Errorf("noise only all the data tame: %+v, %v", ch, err)
	}
	for _, in := range []GradInput{{N: 0, P: 1}, {N: 10, P: 0}, {N: 10, P: 1, S2: math.NaN()}, {N: 10, P: 1, S2: math.Inf(1)}, {N: 10, P: 1, S2: -1}} {
		if _, err := GradRule(in); err == nil {
			t.Errorf("%+v: no error", in)
		}
	}
}

// TestCVSpread checks the pilot's spread against a brute-force
// computation with dense matrices: the whitened differences
// R⁻¹(∇U_i(θ) − ∇U_i(θ̂)) formed with R's explicit inverse, their
// population variance per coordinate, the largest over points and
// coordinates.
func TestCVSpread(t *testing.T) {
	const N, p = 200, 4
	lr, _, err := models.SyntheticLogistic(N, p, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, N)
	for i := range all {
		all[i] = i
	}
	mode, h, err := lr.Mode(make([]float64, p), all, 100)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := langevin.NewPrecond(h)
	if err != nil {
		t.Fatal(err)
	}
	var ch mat.Cholesky
	ch.Factorize(h)
	var r mat.TriDense
	ch.LTo(&r)
	var rinv mat.Dense
	if err := rinv.Inverse(&r); err != nil {
		t.Fatal(err)
	}
	thetas := [][]float64{{0.3, -0.2, 0.1, 0.5}, {-1, 0, 0.4, 0.2}}
	idx := all[:150]
	got, err := spreadAt(lr, mode, pc, thetas, idx)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for _, th := range thetas {
		var d [][]float64
		for _, i := range idx {
			a, b := make([]float64, p), make([]float64, p)
			lr.Term(a, th, i)
			lr.Term(b, mode, i)
			for j := range a {
				a[j] -= b[j]
			}
			var w mat.VecDense
			w.MulVec(&rinv, mat.NewVecDense(p, a))
			d = append(d, w.RawVector().Data)
		}
		for j := range p {
			var m, v float64
			for _, x := range d {
				m += x[j] / float64(len(d))
			}
			for _, x := range d {
				v += (x[j] - m) * (x[j] - m) / float64(len(d))
			}
			want = math.Max(want, v)
		}
	}
	if !(math.Abs(got-want) <= 1e-12*want) || !(want > 0) {
		t.Errorf("spread %.17g, brute force %.17g", got, want)
	}
}

// MALAWins holds exactly where GradRule picks MALA whatever the spread:
// there GradRule at the smallest spread (S² = 0, so n = CVMinBatch) picks
// MALA too, and one example past the crossing it does not.
func TestMALAWins(t *testing.T) {
	for _, p := range []int{1, 5, 30, 200} {
		var cross int
		for N := 2; N < 100_000; N++ {
			if _, ok := MALAWins(N, p); !ok {
				cross = N
				break
			}
		}
		if cross == 0 {
			t.Fatalf("p = %d: MALA wins at every N", p)
		}
		for _, N := range []int{cross - 1, cross} {
			c, err := GradRule(GradInput{N: N, P: p, S2: 0})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := MALAWins(N, p); ok != !c.CV {
				t.Errorf("p = %d, N = %d: MALAWins %v, GradRule at S² = 0 chose %s", p, N, ok, c.Rule)
			}
		}
	}
}
