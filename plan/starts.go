package plan

import (
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// Chains that start where the plan's search found its mode can only
// confirm it; chains started over-dispersed are more starts, at no extra
// cost, which may fall into a basin the search missed, and R̂ and the
// apart check (results.ApartWarnings) then say so. So after a search, chain id
// starts at θ̂ + s·R⁻ᵀz with s = startSpread[(id − 1) mod 2], where the
// posterior is still about as steep as its Laplace fit says.
//
// Not across the whole searched region: from 16 Laplace sds, where U
// still followed the fit within a factor 4, a chain of posteriordb's arK
// (MALA stepped for the mode's scale) was still at lp__ −2636 against 270
// after its 2014 steps, and the run failed. The searches, by L-BFGS and
// along the rays, cover 2 to 4096 sds; the chains, 2 to 4, twice
// Gelman and Rubin's over-dispersion.
var startSpread = [...]float64{2, 4}

// startFit bounds how far U at a start may depart from the Laplace fit's
// ½|sz|² above the mode, as a factor either way: past it (an exponential
// tail, a boundary, a heavy tail) a chain stepped for the mode's scale
// could stall or wander for longer than its burn-in, and the start comes
// in, halving s, down to startScale, where it is taken as it is.
const startFit = 4

// dispersedStart is chain id's over-dispersed start about mode (U = u0 there),
// from rng; e reads U.
func dispersedStart(e energy.Energy, mode []float64, u0 float64, pre *langevin.Precond, rng *rand.Rand, id int) []float64 {
	p := len(mode)
	z := make([]float64, p)
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	x := make([]float64, p)
	for s := startSpread[(id-1)%len(startSpread)]; ; s /= 2 {
		d := make([]float64, p)
		var q float64
		for j := range d {
			d[j] = s * z[j]
			q += d[j] * d[j] / 2
		}
		pre.Color(d)
		for j := range x {
			x[j] = mode[j] + d[j]
		}
		if s <= startScale {
			return x
		}
		if du := e.U(x) - u0; du >= q/startFit && du <= startFit*q && slopeFits(e, x, d, s, z, pre) {
			return x
		}
	}
}

// startSlope bounds how far the gradient at a start, whitened, may lie
// from the Laplace fit's s·z, as a share of |s·z|: where the curvature
// changes with position (a regression's σ: at 4 sds below its mode the
// coefficients' curvature is half again as large), U can follow the fit
// within startFit while the slope does not, and MALA stepped for the
// mode's scale then stalls: a chain of posteriordb's sblrc started 4 sds
// out sat 120 nats above the others to the end of its run.
const startSlope = 0.5

// slopeFits says whether ∇U at x, whitened, lies within startSlope·|s·z|
// of s·z; d is scratch.
func slopeFits(e energy.Energy, x, d []float64, s float64, z []float64, pre *langevin.Precond) bool {
	e.Grad(d, x)
	pre.Whiten(d)
	var off, n float64
	for j, g := range d {
		w := s * z[j]
		off += (g - w) * (g - w)
		n += w * w
	}
	return off <= startSlope*startSlope*n
}

// dispersedDistance bounds dispersedStart's distance from the mode in
// Laplace sds, as StartDistance: the largest spread × (√p + 3).
func dispersedDistance(p int) float64 {
	return startSpread[len(startSpread)-1] * (math.Sqrt(float64(p)) + 3)
}
