package models_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/models"
)

// TestLinearPathSameBits checks that a Minibatch on a Logistic, which draws
// its gradients through LinearTerms (slopes and rows, four at a time), gives
// the same bits as the per-term path (the same model with LinearTerms
// hidden): gradient, variances and spread, with and without variances, at
// sizes that are and are not multiples of four, the whole data set included.
// Both estimators draw the same indices from equal random streams.
func TestLinearPathSameBits(t *testing.T) {
	l, truth, err := models.SyntheticLogistic(203, 7, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3, 4, 5, 9, 50, 203} {
		for _, withVar := range []bool{true, false} {
			t.Run(fmt.Sprintf("n=%d/var=%v", n, withVar), func(t *testing.T) {
				fast, err := energy.NewMinibatch(l, n)
				if err != nil {
					t.Fatal(err)
				}
				slow, _ := energy.NewMinibatch(untouched{l}, n)
				fast.TrackSpread()
				slow.TrackSpread()
				r1, r2 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
				p := l.Dim()
				g1, g2, v1, v2 := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
				if !withVar {
					v1, v2 = nil, nil
				}
				theta := make([]float64, p)
				for draw := range 20 {
					for j := range theta { // near and far from the truth
						theta[j] = truth[j] * float64(draw) / 5
					}
					fast.Grad(g1, v1, theta, r1)
					slow.Grad(g2, v2, theta, r2)
					for j := range g1 {
						if math.Float64bits(g1[j]) != math.Float64bits(g2[j]) {
							t.Fatalf("draw %d: ∂_%d Û %v (linear path), %v (per term)", draw, j, g1[j], g2[j])
						}
						if withVar && math.Float64bits(v1[j]) != math.Float64bits(v2[j]) {
							t.Fatalf("draw %d: variance %d %v (linear path), %v (per term)", draw, j, v1[j], v2[j])
						}
					}
				}
				s1, s2 := make([]float64, p), make([]float64, p)
				if d1, d2 := fast.Spread(s1), slow.Spread(s2); d1 != d2 || d1 == 0 {
					t.Fatalf("spread over %d and %d draws", d1, d2)
				}
				for j := range s1 {
					if s1[j] != s2[j] {
						t.Fatalf("spread %d: %v, %v", j, s1[j], s2[j])
					}
				}
			})
		}
	}
}

// TestSlopesMatchTerm checks Slopes against Term's gradient: ∇U_i = d_i·x_i.
func TestSlopesMatchTerm(t *testing.T) {
	l, truth, err := models.SyntheticLogistic(50, 5, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int32{3, 0, 49, 7, 7, 12, 30}
	d := make([]float64, len(idx))
	l.Slopes(d, truth, idx)
	g := make([]float64, 5)
	for k, i := range idx {
		l.Term(g, truth, int(i))
		for j, x := range l.Row(int(i)) {
			if d[k]*x != g[j] {
				t.Fatalf("example %d coordinate %d: slope·x = %v, Term's gradient %v", i, j, d[k]*x, g[j])
			}
		}
	}
}

// TestTouchChangesNothing checks that the prefetch pass leaves the draws
// bit-identical: same seed, same minibatches, same estimates.
func TestTouchChangesNothing(t *testing.T) {
	l, _, err := models.SyntheticLogistic(500, 7, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := energy.NewMinibatch(l, 20)
	b, _ := energy.NewMinibatch(untouched{l}, 20)
	ra, rb := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
	theta := []float64{0.1, -0.2, 0.3, 0, 1, -1, 0.5}
	ga, gb, va, vb := make([]float64, 7), make([]float64, 7), make([]float64, 7), make([]float64, 7)
	for k := 0; k < 50; k++ {
		a.Grad(ga, va, theta, ra)
		b.Grad(gb, vb, theta, rb)
		for j := range ga {
			if ga[j] != gb[j] || va[j] != vb[j] {
				t.Fatalf("draw %d coordinate %d: (%v, %v) with Touch, (%v, %v) without", k, j, ga[j], va[j], gb[j], vb[j])
			}
		}
		ua, sa := a.Energy(theta, ra)
		ub, sb := b.Energy(theta, rb)
		if ua != ub || sa != sb {
			t.Fatalf("energy draw %d: (%v, %v) with Touch, (%v, %v) without", k, ua, sa, ub, sb)
		}
	}
}
