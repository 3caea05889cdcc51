package nuts

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"gonum.org/v1/gonum/mat"
)

// gauss is U(x) = ½(x − μ)ᵀΣ⁻¹(x − μ): a Gaussian of covariance Σ.
type gauss struct {
	n         int
	mu, prec  []float64 // prec is Σ⁻¹ row by row
	cov, chol []float64 // Σ and its lower Cholesky factor, for exact draws
	d         []float64
}

func newGauss(mu, cov []float64) *gauss {
	n := len(mu)
	sym := mat.NewSymDense(n, append([]float64(nil), cov...))
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		panic("covariance not positive definite")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		panic(err)
	}
	var l mat.TriDense
	ch.LTo(&l)
	g := &gauss{n: n, mu: mu, cov: cov, prec: make([]float64, n*n), chol: make([]float64, n*n), d: make([]float64, n)}
	for i := range n {
		for j := range n {
			g.prec[i*n+j] = inv.At(i, j)
			g.chol[i*n+j] = l.At(i, j)
		}
	}
	return g
}

var _ energy.EnergyGrad = (*gauss)(nil)

func (g *gauss) Dim() int { return g.n }

func (g *gauss) UGrad(grad, x []float64) float64 {
	for j := range g.d {
		g.d[j] = x[j] - g.mu[j]
	}
	var u float64
	for i := range g.n {
		row := g.prec[i*g.n : (i+1)*g.n]
		var s float64
		for j, v := range row {
			s += v * g.d[j]
		}
		if grad != nil {
			grad[i] = s
		}
		u += 0.5 * g.d[i] * s
	}
	return u
}

func (g *gauss) U(x []float64) float64  { return g.UGrad(nil, x) }
func (g *gauss) Grad(grad, x []float64) { g.UGrad(grad, x) }

// draw writes an exact draw into x.
func (g *gauss) draw(x []float64, rng *rand.Rand) {
	for j := range g.d {
		g.d[j] = rng.NormFloat64()
	}
	for i := range g.n {
		s := g.mu[i]
		for j := 0; j <= i; j++ {
			s += g.chol[i*g.n+j] * g.d[j]
		}
		x[i] = s
	}
}

// whiten writes L⁻¹(x − μ) into y: a standard normal vector when x is a
// draw.
func (g *gauss) whiten(y, x []float64) {
	for i := range g.n {
		y[i] = x[i] - g.mu[i]
	}
	g.whitenNoMean(y)
}

// whitenNoMean replaces v by L⁻¹v, by forward substitution.
func (g *gauss) whitenNoMean(v []float64) {
	for i := range g.n {
		s := v[i]
		for j := range i {
			s -= g.chol[i*g.n+j] * v[j]
		}
		v[i] = s / g.chol[i*g.n+i]
	}
}

// equicorr returns the covariance with standard deviations sd and every
// correlation rho.
func equicorr(sd []float64, rho float64) []float64 {
	n := len(sd)
	c := make([]float64, n*n)
	for i := range n {
		for j := range n {
			r := rho
			if i == j {
				r = 1
			}
			c[i*n+j] = r * sd[i] * sd[j]
		}
	}
	return c
}

// variances are the squares of sd: the diagonal of equicorr(sd, 0), or a
// diagonal inverse metric.
func variances(sd []float64) []float64 {
	v := make([]float64, len(sd))
	for j, s := range sd {
		v[j] = s * s
	}
	return v
}

// within reports lo ≤ x ≤ hi; NaN is never within.
func within(x, lo, hi float64) bool { return x >= lo && x <= hi }

// zOfMean is the z-score of the mean of the series xs against the exact
// value want, with the MCSE sd/√ESS from the series' own sd and its mean's
// ESS (posterior's ess_mean): NaN when the ESS is undefined, so that a
// check |z| < k fails.
func zOfMean(xs []float64, want float64) (z, ess float64) {
	ess = diag.ESSMean([][]float64{xs})
	var m, v float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	v /= float64(len(xs) - 1)
	return (m - want) / math.Sqrt(v/ess), ess
}

// ksNormal is the Kolmogorov–Smirnov distance of xs from N(0, 1).
func ksNormal(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := float64(len(s))
	var d float64
	for i, x := range s {
		f := 0.5 * math.Erfc(-x/math.Sqrt2)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(float64(i+1)/n-f))
	}
	return d
}

// ksCrit is the KS distance a sample of n iid draws exceeds with
// probability alpha, asymptotically: √(−ln(α/2)/2)/√n.
func ksCrit(n int, alpha float64) float64 {
	return math.Sqrt(-math.Log(alpha/2)/2) / math.Sqrt(float64(n))
}

// checkMoments checks the draws ys (each a whitened state, so exactly
// N(0, I) under the target) for their means and second moments E[y_i y_j]
// = δ_ij, each by a z-score with the MCSE of its series' ESS, |z| < zmax.
// It returns the worst |z|.
func checkMoments(t *testing.T, ys [][]float64, zmax float64) float64 {
	t.Helper()
	n := len(ys[0])
	worst := 0.0
	series := make([]float64, len(ys))
	for i := range n {
		for k, y := range ys {
			series[k] = y[i]
		}
		z, ess := zOfMean(series, 0)
		if !(math.Abs(z) < zmax) {
			t.Errorf("coordinate %d: mean z = %.2f (ESS %.0f), want |z| < %v", i, z, ess, zmax)
		}
		worst = max(worst, math.Abs(z))
		for j := i; j < n; j++ {
			for k, y := range ys {
				series[k] = y[i] * y[j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			z, ess := zOfMean(series, want)
			if !(math.Abs(z) < zmax) {
				t.Errorf("E[y_%d y_%d]: z = %.2f (ESS %.0f), want |z| < %v", i, j, z, ess, zmax)
			}
			worst = max(worst, math.Abs(z))
		}
	}
	return worst
}
