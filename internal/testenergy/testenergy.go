// Package testenergy holds the test posteriors that the tests of more than
// one package share: the heavy-tailed logistic regression of the
// clamp-heat forecast (plan) and of its warning (analysis), the double
// well and the one-dimensional mixture of the mode search (modes), the
// plan and the run's planning (analysis), the curved valley of the path
// barrier (modes, plan), and the breast-cancer regression of the
// benchmarks (exchange, models).
package testenergy

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/data"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/models"
)

// Logistic is a logistic regression of 500 examples and 8 features,
// each example's features an AR(1) sequence of correlation rho, whose
// first 2% are gross outliers, features ×4 and labels flipped: their
// per-example gradients are far larger than the others' and lie along
// their own feature vectors, so a small minibatch's gradient noise is
// heavy-tailed and strongly correlated between coordinates (issue 50's
// wine data with 4 such rows, made here).
func Logistic(t testing.TB, rho float64) *models.Logistic {
	const N, p = 500, 8
	rng := rand.New(rand.NewPCG(11, 7))
	truth := make([]float64, p)
	for j := range truth {
		truth[j] = 2 / math.Sqrt(p) * rng.NormFloat64()
	}
	x, y := make([]float64, N*p), make([]float64, N)
	for i := range N {
		row := x[i*p : (i+1)*p]
		row[0] = rng.NormFloat64()
		for j := 1; j < p; j++ {
			row[j] = rho*row[j-1] + math.Sqrt(1-rho*rho)*rng.NormFloat64()
		}
		var z float64
		for j, v := range row {
			z += v * truth[j]
		}
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	for i := range N / 50 {
		for j := range p {
			x[i*p+j] *= 4
		}
		y[i] = 1 - y[i]
	}
	l, err := models.NewLogistic(x, y, p, 5)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// BreastCancer is the minibatch study's breast-cancer posterior, the
// logistic regression of wdbc's label benign on its features (as
// dataset.Read reads them) and an intercept, prior N(0, I): the
// benchmarks' real data set (exchange, models).
func BreastCancer(t testing.TB) *models.Logistic {
	d, err := dataset.Read(bytes.NewReader(data.WDBC), "wdbc.csv", dataset.Options{Label: "benign"})
	if err != nil {
		t.Fatal(err)
	}
	x, p := d.WithIntercept()
	l, err := models.NewLogistic(x, d.Y, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Mode is the posterior mode of l and λ_max of the Hessian there.
func Mode(t testing.TB, l *models.Logistic) ([]float64, float64) {
	rows := make([]int, l.Len())
	for i := range rows {
		rows[i] = i
	}
	mode, h, err := l.Mode(make([]float64, l.P), rows, 100)
	if err != nil {
		t.Fatal(err)
	}
	var es mat.EigenSym
	if !es.Factorize(h, false) {
		t.Fatal("no eigen decomposition of the Hessian")
	}
	ev := es.Values(nil)
	return mode, ev[len(ev)-1]
}

// DoubleWell is exp(−h·(x² − 1)² − y²/2): minima at x = ±1, a barrier of
// h nats between them at x = 0.
type DoubleWell struct{ H float64 }

func (d DoubleWell) Dim() int { return 2 }
func (d DoubleWell) U(x []float64) float64 {
	a := x[0]*x[0] - 1
	return d.H*a*a + x[1]*x[1]/2
}
func (d DoubleWell) Grad(g, x []float64) {
	g[0] = 4 * d.H * x[0] * (x[0]*x[0] - 1)
	g[1] = x[1]
}

// MixTerms is a one-dimensional energy as a model of one example: U_0 = 0
// and U_1 the energy of a Gaussian mixture.
type MixTerms struct{ M models.Mixture }

func (MixTerms) Dim() int { return 1 }
func (MixTerms) Len() int { return 1 }
func (t MixTerms) Term(grad, theta []float64, _ int) float64 {
	if grad != nil {
		t.M.Grad(grad, theta)
	}
	return t.M.U(theta)
}
func (MixTerms) Prior(grad, _ []float64) float64 {
	clear(grad)
	return 0
}

var _ energy.Terms = MixTerms{}

// Valley is U(x, y) = h(x² − 1)² + (y − c(1 − x²))²/(2s²): two modes at
// (±1, 0), U = 0, joined by the curved valley y = c(1 − x²), along which
// U = h(x² − 1)². The lowest path's barrier is exactly h, at (0, c); the
// straight segment crosses x = 0 at y = 0, Segment() high. The path
// barrier (modes) and the ladder sized from the segment (plan) read it.
type Valley struct{ H, C, S float64 }

func (v Valley) Dim() int { return 2 }

func (v Valley) U(t []float64) float64 {
	x, y := t[0], t[1]
	r := y - v.C*(1-x*x)
	return v.H*(x*x-1)*(x*x-1) + r*r/(2*v.S*v.S)
}

func (v Valley) Grad(g, t []float64) {
	x, y := t[0], t[1]
	r := y - v.C*(1-x*x)
	g[0] = 4*v.H*x*(x*x-1) + r*2*v.C*x/(v.S*v.S)
	g[1] = r / (v.S * v.S)
}

// Segment is the barrier on the straight segment between the modes,
// h + c²/(2s²).
func (v Valley) Segment() float64 { return v.H + v.C*v.C/(2*v.S*v.S) }
