package heat

import "github.com/fresgld/fresgld/energy"

// Energy is the negative log-likelihood U(x0) = (y − G(x0))²/(2σ²) of the
// problem's measurement under the forward map F. It is finite everywhere;
// the uniform prior on the square is the sampler's reflecting domain.
// Not safe for concurrent use.
type Energy struct {
	P Problem
	F Forward

	g [2]float64 // ∇G scratch: a local array would escape through F
}

var _ energy.Energy = (*Energy)(nil)

func (*Energy) Dim() int { return 2 }

func (e *Energy) U(theta []float64) float64 {
	r := e.P.Y - e.F.Reading(nil, [2]float64{theta[0], theta[1]})
	return r * r / (2 * e.P.Sigma * e.P.Sigma)
}

// Grad is ∇U = −(y − G)/σ²·∇G.
func (e *Energy) Grad(grad, theta []float64) {
	r := e.P.Y - e.F.Reading(e.g[:], [2]float64{theta[0], theta[1]})
	c := -r / (e.P.Sigma * e.P.Sigma)
	grad[0], grad[1] = c*e.g[0], c*e.g[1]
}

// Box is the support of the uniform prior, the unit square.
func Box() energy.Box { return energy.Box{Lo: []float64{0, 0}, Hi: []float64{1, 1}} }
