package pde

import "math"

// Bump is the paper's manufactured solution u = β exp(−|x − x0|²/α) e^{−t}
// with β = 1/(2πH²) and α = 2H².
type Bump struct{ H float64 }

// PaperBump is the bump of the paper's §5.2, H = 0.1.
func PaperBump() Bump { return Bump{H: 0.1} }

// Beta is β = 1/(2πH²).
func (b Bump) Beta() float64 { return 1 / (2 * math.Pi * b.H * b.H) }

// Alpha is α = 2H².
func (b Bump) Alpha() float64 { return 2 * b.H * b.H }

// U is the exact solution at (x, y) and time t for the centre x0.
func (b Bump) U(x, y, t float64, x0 [2]float64) float64 {
	dx, dy := x-x0[0], y-x0[1]
	return b.Beta() * math.Exp(-(dx*dx+dy*dy)/b.Alpha()-t)
}

// Source is f = u_t − Δu = u·(4/α − 1 − 4r²/α²), r = |x − x0|.
func (b Bump) Source(x, y, t float64, x0 [2]float64) float64 {
	dx, dy := x-x0[0], y-x0[1]
	a := b.Alpha()
	r2 := dx*dx + dy*dy
	return b.U(x, y, t, x0) * (4/a - 1 - 4*r2/(a*a))
}

// Reading is the exact sensor reading u(xs, t; x0) and, if grad is
// non-nil, its gradient with respect to x0:
// ∂u/∂x0 = u·2(xs − x0)/α.
func (b Bump) Reading(grad []float64, xs [2]float64, t float64, x0 [2]float64) float64 {
	u := b.U(xs[0], xs[1], t, x0)
	if grad != nil {
		a := b.Alpha()
		grad[0] = u * 2 * (xs[0] - x0[0]) / a
		grad[1] = u * 2 * (xs[1] - x0[1]) / a
	}
	return u
}

// axis holds the one-dimensional factors of the bump along one axis at the
// grid nodes z_i = i·dz, i = 0..n+1 (boundary nodes included), for the
// centre coordinate c. The bump and its source are sums of products of
// such factors, which is what makes filling a grid cheap: 2(n+2)
// exponentials instead of (n+2)².
type axis struct {
	e, de []float64 // e = exp(−(z−c)²/α) and ∂e/∂c
	q, dq []float64 // q = (z−c)²·e and ∂q/∂c
}

func newAxis(n int) axis {
	m := n + 2
	return axis{e: make([]float64, m), de: make([]float64, m), q: make([]float64, m), dq: make([]float64, m)}
}

func (ax *axis) set(dz, c, alpha float64) {
	for i := range ax.e {
		d := float64(i)*dz - c
		e := math.Exp(-d * d / alpha)
		de := 2 * d / alpha * e
		ax.e[i] = e
		ax.de[i] = de
		ax.q[i] = d * d * e
		ax.dq[i] = -2*d*e + d*d*de
	}
}
