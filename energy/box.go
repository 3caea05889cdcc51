package energy

import (
	"fmt"
	"math"
)

// Box is the domain Lo_j ≤ θ_j ≤ Hi_j. A sampler with a Box reflects its
// states back into it after every move, which keeps a chain on the support
// of a prior that is uniform on the box (reflection preserves the Langevin
// dynamics' stationary law for a density that is flat near the walls).
type Box struct{ Lo, Hi []float64 }

// Validate checks the box against dimension p.
func (b Box) Validate(p int) error {
	if len(b.Lo) != p || len(b.Hi) != p {
		return fmt.Errorf("box: bounds of lengths %d and %d for dimension %d", len(b.Lo), len(b.Hi), p)
	}
	for j := range b.Lo {
		if !(b.Lo[j] < b.Hi[j]) || math.IsInf(b.Lo[j], 0) || math.IsInf(b.Hi[j], 0) {
			return fmt.Errorf("box: coordinate %d has bounds [%v, %v]: need finite lo < hi", j, b.Lo[j], b.Hi[j])
		}
	}
	return nil
}

// Contains reports whether theta lies in the box.
func (b Box) Contains(theta []float64) bool {
	for j, x := range theta {
		if !(x >= b.Lo[j] && x <= b.Hi[j]) {
			return false
		}
	}
	return true
}

// Reflect folds each coordinate of theta back into [Lo_j, Hi_j] by mirror
// reflection at the walls, however far outside it lies. Non-finite
// coordinates are left alone for the caller's divergence check to see.
func (b Box) Reflect(theta []float64) {
	for j, x := range theta {
		lo, hi := b.Lo[j], b.Hi[j]
		if x >= lo && x <= hi || math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		w := hi - lo
		y := math.Mod(x-lo, 2*w)
		if y < 0 {
			y += 2 * w
		}
		if y > w {
			y = 2*w - y
		}
		theta[j] = lo + y
	}
}
