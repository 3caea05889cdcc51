package langevin

import (
	"math"
	"math/rand/v2"
	"testing"
)

// StepMove takes the very step Step takes (same draws, same bits) and
// measures its move: last becomes θ' − θ, dot is its product with the
// previous move and n2 its squared length. Odd and even p cover both ends
// of the two-way loop.
func TestStepMoveIsStepWithItsMove(t *testing.T) {
	for _, p := range []int{1, 2, 7, 100} {
		for _, pol := range []Policy{SGLD, Corrected} {
			r1, r2 := rand.New(rand.NewPCG(3, uint64(p))), rand.New(rand.NewPCG(3, uint64(p)))
			src := rand.New(rand.NewPCG(9, 9))
			a, b := make([]float64, p), make([]float64, p)
			grad, vars, s1, s2 := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
			last, prev := make([]float64, p), make([]float64, p)
			for j := range a {
				a[j] = src.NormFloat64()
				b[j] = a[j]
			}
			for k := range 20 {
				for j := range grad {
					grad[j] = src.NormFloat64()
					vars[j] = float64(j%3) * 20 // 0, 20, 40: the last over budget
				}
				before := append([]float64(nil), b...)
				copy(prev, last)
				c1, ok1 := Step(a, grad, vars, s1, 0.05, 1, pol, r1)
				c2, ok2, dot, n2 := StepMove(b, grad, vars, s2, last, 0.05, 1, pol, r2)
				if c1 != c2 || ok1 != ok2 || !ok2 {
					t.Fatalf("p=%d %v step %d: clamped %d/%d finite %v/%v", p, pol, k, c1, c2, ok1, ok2)
				}
				var wantDot, wantN2, scale float64
				for j := range a {
					if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
						t.Fatalf("p=%d %v step %d: θ_%d = %v, Step gives %v", p, pol, k, j, b[j], a[j])
					}
					d := b[j] - before[j]
					if last[j] != d {
						t.Fatalf("p=%d %v step %d: move_%d = %v, want %v", p, pol, k, j, last[j], d)
					}
					wantDot += d * prev[j]
					wantN2 += d * d
					scale += math.Abs(d * prev[j])
				}
				// Sums in another order differ by at most p ulps of the sum
				// of magnitudes.
				tol := float64(p) * 0x1p-52
				if !(math.Abs(dot-wantDot) <= tol*scale) || !(math.Abs(n2-wantN2) <= tol*wantN2) {
					t.Fatalf("p=%d %v step %d: dot %v n2 %v, want %v %v", p, pol, k, dot, n2, wantDot, wantN2)
				}
			}
		}
	}
}

func TestStepMoveReportsNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range [][]float64{{math.Inf(1), 0, 0}, {0, 0, math.NaN()}} {
		theta := []float64{0, 0, 0}
		if _, ok, _, _ := StepMove(theta, g, nil, make([]float64, 3), make([]float64, 3), 0.1, 1, SGLD, rng); ok {
			t.Errorf("gradient %v gave a finite state", g)
		}
	}
	// A move too long to square is still a finite state.
	theta := []float64{-1e300, 0}
	if _, ok, _, n2 := StepMove(theta, []float64{-1e300 / 0.1, 0}, nil, make([]float64, 2), make([]float64, 2), 0.1, 1, SGLD, rng); !ok || !math.IsInf(n2, 1) {
		t.Errorf("a move of 1e300: finite %v, |d|² %v; want true, +Inf", ok, n2)
	}
}
