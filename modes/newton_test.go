package modes

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/models"
)

// countU counts the passes over the data an energy makes.
type countU struct {
	l      *models.Logistic
	passes int
}

func (c *countU) Dim() int                     { return c.l.Dim() }
func (c *countU) U(x []float64) float64        { c.passes++; return c.l.U(x) }
func (c *countU) Grad(g, x []float64)          { c.passes++; c.l.Grad(g, x) }
func (c *countU) UGrad(g, x []float64) float64 { c.passes++; return c.l.UGrad(g, x) }

// TestNewtonPolishStopsAtRounding: on a logistic regression of 10⁵ rows
// (U ≈ 6·10⁴, whose rounding over the rows is ~10⁻¹¹), Newton's finish
// with a Hessian 1.5 times U's (so that it converges linearly and spends
// steps in the band where U's rounding hides their fall) reaches the mode and stops there in a few
// dozen passes over the data. With the decrement's floor at 1e-16
// whatever |U| (checked by hand) it refuses the steps whose fall is lost
// in the rounding, halving each 33 times, a pass each, and gives the mode
// up: on the generated spike-and-slab data of 2·10⁴ rows that made the
// plan's search take 26.9 s and find 8 modes, with the floor 5.9 s and 9.
func TestNewtonPolishStopsAtRounding(t *testing.T) {
	l, _, err := models.SyntheticLogistic(100_000, 5, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	c := &countU{l: l}
	hess := func(x []float64) *mat.SymDense {
		h := mat.NewSymDense(l.P, nil)
		l.Hessian(h, x)
		h.ScaleSym(1.5, h)
		return h
	}
	x, u, ok := newtonPolish(c, hess, make([]float64, l.P), 0)
	if !ok {
		t.Fatalf("Newton's finish gave up after %d passes over the data", c.passes)
	}
	if c.passes > 80 {
		t.Errorf("%d passes over the data to polish one mode", c.passes)
	}
	// The point is the mode: Newton's decrement with U's own Hessian there
	// is at most the floor's, the mode to ~10⁻³ of its sds.
	g := make([]float64, l.P)
	l.Grad(g, x)
	h := mat.NewSymDense(l.P, nil)
	l.Hessian(h, x)
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		t.Fatal("the Hessian at the point is not positive definite")
	}
	d := mat.NewVecDense(l.P, nil)
	if err := ch.SolveVecTo(d, mat.NewVecDense(l.P, g)); err != nil {
		t.Fatal(err)
	}
	if dec := mat.Dot(d, mat.NewVecDense(l.P, g)); !(dec <= decrementFloor(u)) {
		t.Errorf("stopped at a Newton decrement of %v, above the floor %v at U = %v", dec, decrementFloor(u), u)
	}
	t.Logf("%d passes, U = %v, floor %v", c.passes, u, decrementFloor(u))
}
