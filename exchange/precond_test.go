package exchange

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// gauss2 is U = ½θᵀAθ in two dimensions with its gradient scaled by hg:
// preconditioned by H = A, the Euler step's stationary law is exactly
// N(0, τA⁻¹) when hg = (1 − √(1 − 2η))/η (see eulerExact).
type gauss2 struct {
	a  [4]float64
	hg float64
}

func (g gauss2) Dim() int { return 2 }
func (g gauss2) U(x []float64) float64 {
	return (g.a[0]*x[0]*x[0] + 2*g.a[1]*x[0]*x[1] + g.a[3]*x[1]*x[1]) / 2
}
func (g gauss2) Grad(grad, x []float64) {
	grad[0] = g.hg * (g.a[0]*x[0] + g.a[1]*x[1])
	grad[1] = g.hg * (g.a[1]*x[0] + g.a[3]*x[1])
}

// TestPreconditionedLadder runs a two-level ladder (τ = 1 and 4, exact
// swaps every step) whose levels step with the dense preconditioner H = A
// on a Gaussian of correlation 0.95 and variances 1 and 100: each level's
// covariance must be τA⁻¹. Unpreconditioned, the same step size η = 0.5
// diverges (ηλ_max ≈ 10); with H the covariance matrix's inverse, every
// direction relaxes at once. The sample covariance of 4·10⁵ steps with
// autocorrelation ρ ≈ 0.7 has relative sd about 0.5% per entry; the
// tolerance is 4% of the larger variance.
func TestPreconditionedLadder(t *testing.T) {
	const eta, steps = 0.5, 400_000
	r := 0.95
	a := [4]float64{1 / (1 - r*r), -r / (1 - r*r) / 10, -r / (1 - r*r) / 10, 1 / (1 - r*r) / 100}
	g := gauss2{a: a, hg: (1 - math.Sqrt(1-2*eta)) / eta}
	pc, err := langevin.NewPrecond(mat.NewSymDense(2, a[:]))
	if err != nil {
		t.Fatal(err)
	}
	taus := []float64{1, 4}
	var lv []Level
	for _, tau := range taus {
		lv = append(lv, Level{Tau: tau, Est: energy.Exact{E: g}, Eta: langevin.Constant{Step: eta}, Precond: pc})
	}
	s := mustNew(t, Config{Levels: lv, Swap: Swap{Rule: Exact, PerStep: true}, Seed: 2}, [][]float64{{0, 0}, {0, 0}})
	var cov [2][3]float64
	sampleLevels(t, s, 1000, steps, func(l int, x []float64) {
		cov[l][0] += x[0] * x[0] / steps
		cov[l][1] += x[0] * x[1] / steps
		cov[l][2] += x[1] * x[1] / steps
	})
	// A⁻¹ has variances 1 and 100 and covariance 0.95·1·10.
	inv := [3]float64{1, r * 10, 100}
	for l, tau := range taus {
		for k := range 3 {
			if want := tau * inv[k]; !(math.Abs(cov[l][k]-want) <= 0.04*tau*100) {
				t.Errorf("level %d: covariance entry %d is %.4g, want %.4g", l, k, cov[l][k], want)
			}
		}
	}
	if p := s.Stats().Pairs[0]; p.Accepts < steps/20 {
		t.Errorf("%d swaps accepted: too few to test their law", p.Accepts)
	}
	// A dense preconditioner cannot count gradient noise per coordinate.
	lv[0].Noise = langevin.Corrected
	if _, err := New(Config{Levels: lv, Swap: Swap{Rule: Exact, PerStep: true}}, [][]float64{{0, 0}, {0, 0}}); err == nil || !strings.Contains(err.Error(), "diagonal preconditioner") {
		t.Errorf("dense preconditioner under Corrected: error %v", err)
	}
}
