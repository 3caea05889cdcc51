package modes

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
)

// The ray scan (rayScan) reads U outward from the first mode along a few
// lines, far past where the multi-start search looks: a start drawn at 2
// to 16 Laplace sds descends into whichever basin holds it, so a mode 60
// sds out (0.5 N(0, 1) + 0.5 N(60, 0.5²)) is found only by the rare start
// that lands past the ridge between them, and was missed. A single
// energy a point is cheap beside a search (tens of gradients and a
// Hessian), so the scan can go a thousand times further.
const (
	// rayFirst is the first point of each ray, in sds of the Laplace fit
	// along it (the random starts already cover 2 to 16 sds, stochastically);
	// each next point is rayRatio times further, to rayReach: a mode whose
	// basin spans a factor 2 in distance is met (the far mode at 60 sds:
	// U falls from 512 at 32 sds to 33 at 64), a narrower far one may fall
	// between two points.
	rayFirst, rayRatio, rayReach = 4.0, 2.0, 4096.0
	// rayAxes bounds the coordinates whose ± axes are scanned; rayRandom
	// more rays go in random directions (where p > 1), whitened by the
	// mode's Hessian so that their unit is one Laplace sd. At most 10
	// rays of 11 points: 110 evaluations of U, about what 5 to 10
	// searches spend (each point's U and gradient are one evaluation).
	rayAxes, rayRandom = 4, 2
)

// rayFind is what the scan found: the points past which U fell, from
// which the search starts again, and how far the scan read.
type rayFind struct {
	Starts [][]float64
	// Rays were read; Reach is the least, over the rays that found no
	// fall, of the farthest point at which U was finite (in Laplace sds
	// along the ray): the distance out to which every such ray was read.
	// (A ray that fell hands the rest of its line to the search.)
	Rays  int
	Reach float64
}

// rayScan reads U and its slope at m.Theta + r·v for r = rayFirst, rayFirst·rayRatio, …,
// rayReach along each ray v (one Laplace sd long). A fall of more than
// basinBarrier nats from one point to the next, outward, means a barrier
// was crossed into another basin, since along a ray out of a single basin
// U only rises, and so does a slope that foretells such a fall: that point
// is a start for the search. A ray
// ends at its first fall or at a U that is not finite (outside the
// model's support). On a log-concave posterior U is convex along every
// ray, so no start is ever made. A stop closed ends the scan between
// points.
func rayScan(e energy.Energy, m Mode, rng *rand.Rand, stop <-chan struct{}) rayFind {
	p := len(m.Theta)
	var dirs [][]float64
	var cov mat.SymDense
	var ch mat.Cholesky
	if !ch.Factorize(m.H) || ch.InverseTo(&cov) != nil {
		return rayFind{}
	}
	for j := range min(p, rayAxes) {
		for _, sign := range []float64{1, -1} {
			v := make([]float64, p)
			v[j] = sign * math.Sqrt(cov.At(j, j))
			dirs = append(dirs, v)
		}
	}
	if p > 1 {
		for range rayRandom {
			z := make([]float64, p)
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			n := norm(z)
			for j := range z {
				z[j] /= n
			}
			m.pre.Color(z) // one Laplace sd along z: |Rᵀv| = 1
			dirs = append(dirs, z)
		}
	}
	f := rayFind{Reach: math.Inf(1)}
	x, g := make([]float64, p), make([]float64, p)
	for _, v := range dirs {
		prev, reach := m.U, 0.0
		for r := rayFirst; r <= rayReach; r *= rayRatio {
			select {
			case <-stop:
				return f
			default:
			}
			for j := range x {
				x[j] = m.Theta[j] + r*v[j]
			}
			u := energy.UGrad(e, g, x)
			if math.IsNaN(u) || math.IsInf(u, 0) {
				break
			}
			reach = r
			// The slope along the ray, per sd: where it is negative U falls
			// outward, past a ridge, and the fall it foretells to the next
			// point (r further) counts as one read there; a mode between two
			// points (the double well's other minimum, between 8 and 16
			// sds) shows so.
			var slope float64
			for j := range g {
				slope += g[j] * v[j]
			}
			if u < prev-basinBarrier || -slope*r > basinBarrier {
				f.Starts = append(f.Starts, append([]float64(nil), x...))
				reach = math.Inf(1)
				break
			}
			prev = u
		}
		f.Rays++
		f.Reach = min(f.Reach, reach)
	}
	switch {
	case f.Rays == 0:
		f.Reach = 0
	case math.IsInf(f.Reach, 1):
		f.Reach = rayReach
	}
	return f
}
