package plan

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/langevin"
)

// steepGauss is U = ½x² out to |x| = 1 and far steeper past it (a
// boundary the Laplace fit at 0 does not see).
type steepGauss struct{}

func (steepGauss) Dim() int { return 1 }
func (steepGauss) U(x []float64) float64 {
	u := x[0] * x[0] / 2
	if a := math.Abs(x[0]); a > 1 {
		u += 1e3 * (a - 1) * (a - 1)
	}
	return u
}
func (steepGauss) Grad(g, x []float64) {
	g[0] = x[0]
	if a := math.Abs(x[0]); a > 1 {
		g[0] += math.Copysign(2e3*(a-1), x[0])
	}
}

// Over-dispersed starts: chains 1–4 start at 2, 4, 2 and 4 Laplace sds
// (times one draw of |z|, the same for the four here, as they share a
// seed), where U follows the Laplace fit (a Gaussian); where U is far
// steeper than the fit says, the start comes in by halves to where it is
// not.
func TestDispersedStarts(t *testing.T) {
	h := mat.NewSymDense(1, []float64{1})
	pre, err := langevin.NewPrecond(h)
	if err != nil {
		t.Fatal(err)
	}
	var z float64
	for id := 1; id <= 4; id++ {
		x := dispersedStart(illScaledFree{}, []float64{0}, 0, pre, rand.New(rand.NewPCG(1, 2)), id)
		if id == 1 {
			z = x[0] / 2
		}
		if want := startSpread[(id-1)%2] * z; math.Abs(x[0]-want) > 1e-12 {
			t.Errorf("Gaussian, chain %d: start %v, want %v", id, x[0], want)
		}
		y := dispersedStart(steepGauss{}, []float64{0}, 0, pre, rand.New(rand.NewPCG(1, 2)), id)
		if math.Abs(y[0]) > 1.05 {
			t.Errorf("steep beyond 1 sd, chain %d: start %v", id, y[0])
		}
	}
	if math.Abs(z) < 0.2 {
		t.Fatalf("|z| = %v: too small a draw for the test to tell", z)
	}
}

// illScaledFree is the standard Gaussian in one coordinate.
type illScaledFree struct{}

func (illScaledFree) Dim() int              { return 1 }
func (illScaledFree) U(x []float64) float64 { return x[0] * x[0] / 2 }
func (illScaledFree) Grad(g, x []float64)   { g[0] = x[0] }
