package diag

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestArgsortOrdersAndPermutes(t *testing.T) {
	// Draws that stress the float32 pre-sort: values sharing a float32
	// rounding (1 + tiny), huge and tiny magnitudes, ±0, infinities, ties.
	rng := rand.New(rand.NewPCG(3, 3))
	var xs []float64
	for range 3000 {
		switch rng.IntN(6) {
		case 0:
			xs = append(xs, 1+1e-12*rng.NormFloat64())
		case 1:
			xs = append(xs, 1e300*rng.NormFloat64())
		case 2:
			xs = append(xs, 1e-300*rng.NormFloat64())
		case 3:
			xs = append(xs, float64(rng.IntN(3)))
		case 4:
			xs = append(xs, []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}[rng.IntN(4)])
		default:
			xs = append(xs, rng.NormFloat64())
		}
	}
	n := len(xs)
	sorted, at := make([]float64, n), make([]uint32, n)
	argsort(xs, sorted, at, make([]uint64, n), make([]uint64, n))
	want := slices.Clone(xs)
	slices.Sort(want)
	seen := make([]bool, n)
	for i := range sorted {
		if sorted[i] != want[i] {
			t.Fatalf("position %d: %v, want %v", i, sorted[i], want[i])
		}
		if xs[at[i]] != sorted[i] || seen[at[i]] {
			t.Fatalf("position %d: index %d does not hold %v or is repeated", i, at[i], sorted[i])
		}
		seen[at[i]] = true
	}
}
