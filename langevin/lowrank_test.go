package langevin

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLowRankDense checks the low-rank noise against the dense formula: the
// linear map ξ ↦ ζ, applied to the basis vectors, gives a matrix L with
// L Lᵀ = C⁺, the positive part of C = 2τη·I − η²·f/(n − 1)·G_cᵀG_c, built
// and eigen-decomposed densely. Cases cover n < p, n > p, clipped directions
// and rank-deficient rows; the tolerance is 1e-10 of the budget 2τη, far above
// rounding in double precision at these sizes.
func TestLowRankDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var lr LowRank
	for _, c := range []struct {
		n, p      int
		f, eta    float64
		duplicate bool
	}{
		{5, 8, 50, 0.01, false},
		{12, 4, 50, 0.01, false},
		{6, 6, 2000, 0.01, false}, // most directions over budget
		{7, 9, 300, 0.01, true},   // repeated rows: rank below n − 1
		{2, 3, 10, 0.1, false},
	} {
		const tau = 1.5
		rows := make([]float64, c.n*c.p)
		for i := range rows {
			rows[i] = rng.NormFloat64() + float64(i%c.p)
		}
		if c.duplicate {
			copy(rows[c.p:2*c.p], rows[:c.p])
			copy(rows[2*c.p:3*c.p], rows[:c.p])
		}
		// Dense C⁺.
		g := mat.NewDense(c.n, c.p, append([]float64(nil), rows...))
		var mean mat.VecDense
		mean.ReuseAsVec(c.p)
		for j := 0; j < c.p; j++ {
			mean.SetVec(j, mat.Sum(g.ColView(j))/float64(c.n))
		}
		for i := 0; i < c.n; i++ {
			for j := 0; j < c.p; j++ {
				g.Set(i, j, g.At(i, j)-mean.AtVec(j))
			}
		}
		var cov mat.SymDense
		cov.SymOuterK(1, g.T())
		budget := 2 * tau * c.eta
		C := mat.NewSymDense(c.p, nil)
		for a := 0; a < c.p; a++ {
			for b := a; b < c.p; b++ {
				v := -c.eta * c.eta * c.f / float64(c.n-1) * cov.At(a, b)
				if a == b {
					v += budget
				}
				C.SetSym(a, b, v)
			}
		}
		var es mat.EigenSym
		if !es.Factorize(C, true) {
			t.Fatal("dense eigen-decomposition failed")
		}
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		vals := es.Values(nil)
		wantClamped := 0
		for k, v := range vals {
			if v < 0 {
				vals[k] = 0
				if v < -1e-9*budget {
					wantClamped++
				}
			}
		}
		var want mat.Dense
		want.Mul(&vecs, mat.NewDiagDense(c.p, vals))
		want.Mul(&want, vecs.T())

		L := mat.NewDense(c.p, c.p, nil)
		xi := make([]float64, c.p)
		clamped := 0
		for k := 0; k < c.p; k++ {
			for j := range xi {
				xi[j] = 0
			}
			xi[k] = 1
			clamped = lr.apply(xi, rows, c.n, c.f, c.eta, tau)
			L.SetCol(k, xi)
		}
		var got mat.Dense
		got.Mul(L, L.T())
		for a := 0; a < c.p; a++ {
			for b := 0; b < c.p; b++ {
				if d := math.Abs(got.At(a, b) - want.At(a, b)); d > 1e-10*budget {
					t.Fatalf("n = %d, p = %d: (L Lᵀ)[%d,%d] = %v, dense C⁺ = %v", c.n, c.p, a, b, got.At(a, b), want.At(a, b))
				}
			}
		}
		if clamped != wantClamped {
			t.Errorf("n = %d, p = %d: %d clipped directions, dense count %d", c.n, c.p, clamped, wantClamped)
		}
	}
}

func TestLowRankNoAlloc(t *testing.T) {
	const n, p = 20, 50
	rng := rand.New(rand.NewPCG(1, 1))
	rows := make([]float64, n*p)
	for i := range rows {
		rows[i] = rng.NormFloat64()
	}
	var lr LowRank
	dst := make([]float64, p)
	lr.Noise(dst, rows, n, 10, 0.01, 1, rng)
	if a := testing.AllocsPerRun(50, func() { lr.Noise(dst, rows, n, 10, 0.01, 1, rng) }); a != 0 {
		t.Errorf("%v allocations per draw", a)
	}
}
