package plan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// The gradient check of a model written elsewhere (sample --model-cmd):
// a gradient of the wrong sign or scale does not stop a sampler, it makes
// it sample another posterior, with every diagnostic fine. So before the
// plan, the model's ∇U is compared with central differences of its U at
// a few points.
const (
	gradCheckPoints = 3  // the start and two points about it
	gradCheckCoords = 50 // coordinates checked at most, chosen at random
	// gradCheckTol is the relative disagreement past which the gradient is
	// refused: central differences at step h = 1e-5·max(1, |θ_j|) are good
	// to h²·U'''/6 plus rounding ε·|U|/h, far below 1% on any energy that is
	// smooth on the scale of h, while a wrong sign errs by 200% and a wrong
	// factor of 1.1 by 10%.
	gradCheckTol = 0.01
	gradCheckH   = 1e-5
)

// CheckGradient compares e's gradient with central differences of its
// energy at start (θ = 0 when nil) and at two points about it (each
// coordinate ± 0.3 sd-free units from a normal draw), skipping a point where
// U is not finite. It returns an error naming the first coordinate, by
// names (nil: θ_j), whose derivative disagrees. It costs
// 3·(1 + 2·min(p, 50)) evaluations of U and 3 of ∇U.
func CheckGradient(e energy.Energy, names []string, start []float64, seed uint64) error {
	p := e.Dim()
	rng := rand.New(rand.NewPCG(seed, 0x9c))
	x := make([]float64, p)
	g := make([]float64, p)
	coords := rng.Perm(p)[:min(p, gradCheckCoords)]
	for k := range gradCheckPoints {
		for j := range x {
			x[j] = 0
			if start != nil {
				x[j] = start[j]
			}
			if k > 0 {
				x[j] += 0.3 * rng.NormFloat64()
			}
		}
		u := energy.UGrad(e, g, x)
		if math.IsNaN(u) || math.IsInf(u, 0) {
			continue
		}
		for _, j := range coords {
			h := gradCheckH * max(1, math.Abs(x[j]))
			xj := x[j]
			x[j] = xj + h
			up := e.U(x)
			x[j] = xj - h
			down := e.U(x)
			x[j] = xj
			d := (up - down) / (2 * h)
			if math.IsNaN(d) || math.IsInf(d, 0) {
				continue // a boundary within h: nothing to compare
			}
			// Rounding in U(θ ± h) errs by about ε·|U|/h in d: the
			// floor allows it 10⁸ times over.
			floor := 1e-8 * max(1, math.Abs(u)) / h
			if math.Abs(g[j]-d) > gradCheckTol*max(math.Abs(g[j]), math.Abs(d))+floor {
				name := fmt.Sprintf("θ_%d", j+1)
				if names != nil {
					name = names[j]
				}
				return fmt.Errorf("the model's gradient disagrees with its energy: at θ = %.6g, ∂U/∂%s = %.6g, but central differences of U give %.6g (step %.2g): a gradient of the wrong sign or scale samples another posterior, so the run stops here; check the model's gradient against its energy", x, name, g[j], d, h)
			}
		}
	}
	return nil
}
