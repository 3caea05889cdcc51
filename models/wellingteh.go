package models

import (
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
)

// WellingTeh is the bimodal posterior of Welling & Teh (2011, §5.1), the
// first experiment of stochastic gradient Langevin dynamics:
//
//	θ1 ~ N(0, σ1²), θ2 ~ N(0, σ2²),
//	x_i ~ ½N(θ1, σx²) + ½N(θ1 + θ2, σx²),  i = 1..N,
//
// with σ1² = 10, σ2² = 1, σx² = 2 and N = 100 points drawn at the true
// values θ = (0, 1). The posterior has a mode near (0, 1) and, because the
// components can trade places (θ1 + θ2 = 1, θ2 → −θ2), a second near (1, −1).
//
// The energy is U(θ) = U_0(θ) + Σ U_i(θ) with U_0 = θ1²/(2σ1²) + θ2²/(2σ2²)
// and U_i = −log(e^{−a_i} + e^{−b_i}), a_i = (x_i − θ1)²/(2σx²),
// b_i = (x_i − θ1 − θ2)²/(2σx²): the negative log posterior up to a constant.
type WellingTeh struct {
	X                []float64 // the data
	Var1, Var2, VarX float64   // σ1², σ2², σx²
}

// WellingTehSeed seeds the data of PaperWellingTeh (PCG(WellingTehSeed, 0)).
// Most draws of 100 points give a single ridge rather than the two separated
// modes of Welling & Teh's figure; 14 is the first seed from 1 up whose
// posterior has exactly two local maxima on both an 80² and a 160² grid with
// an energy barrier between them (near (−0.31, 1.63) and (1.31, −1.63), the
// barrier about 2 above the higher one).
const WellingTehSeed = 14

// PaperWellingTeh is the experiment's posterior with the project's fixed
// draw of the data.
func PaperWellingTeh() *WellingTeh {
	return NewWellingTeh(100, 0, 1, rand.New(rand.NewPCG(WellingTehSeed, 0)))
}

// NewWellingTeh draws n points at (θ1, θ2) with the paper's variances.
func NewWellingTeh(n int, theta1, theta2 float64, rng *rand.Rand) *WellingTeh {
	m := &WellingTeh{X: make([]float64, n), Var1: 10, Var2: 1, VarX: 2}
	sx := math.Sqrt(m.VarX)
	for i := range m.X {
		mu := theta1
		if rng.IntN(2) == 1 {
			mu += theta2
		}
		m.X[i] = mu + sx*rng.NormFloat64()
	}
	return m
}

var _ energy.Terms = (*WellingTeh)(nil)

// Dim is 2.
func (m *WellingTeh) Dim() int { return 2 }

// Len is the number of data points.
func (m *WellingTeh) Len() int { return len(m.X) }

// Term is U_i and its gradient.
func (m *WellingTeh) Term(grad, theta []float64, i int) float64 {
	x := m.X[i]
	ra, rb := x-theta[0], x-theta[0]-theta[1]
	a, b := ra*ra/(2*m.VarX), rb*rb/(2*m.VarX)
	// −log(e^{−a} + e^{−b}) = min(a, b) − log1p(e^{−|a−b|}); the weights of
	// the two components are wa = e^{−a}/(e^{−a} + e^{−b}) and wb = 1 − wa.
	lo := math.Min(a, b)
	u := lo - math.Log1p(math.Exp(-math.Abs(a-b)))
	if grad != nil {
		wa := 1 / (1 + math.Exp(a-b))
		wb := 1 - wa
		grad[0] = -(wa*ra + wb*rb) / m.VarX
		grad[1] = -wb * rb / m.VarX
	}
	return u
}

// Prior is U_0 and its gradient.
func (m *WellingTeh) Prior(grad, theta []float64) float64 {
	if grad != nil {
		grad[0] = theta[0] / m.Var1
		grad[1] = theta[1] / m.Var2
	}
	return theta[0]*theta[0]/(2*m.Var1) + theta[1]*theta[1]/(2*m.Var2)
}

// U is the full energy.
func (m *WellingTeh) U(theta []float64) float64 {
	u := m.Prior(nil, theta)
	for i := range m.X {
		u += m.Term(nil, theta, i)
	}
	return u
}

// WellingTehBox is the rectangle [θ1 range]×[θ2 range] on which the
// posterior of PaperWellingTeh is tabulated; the mass outside is below
// 1e−12 of the total (checked by the tests).
var WellingTehBox = [4]float64{-3, 4, -4.5, 4.5}

// Posterior tabulates the exact posterior at temperature tau on nx×ny cells
// of WellingTehBox (mass ∝ exp(−U/τ) at the cell centres).
func (m *WellingTeh) Posterior(tau float64, nx, ny int) diag.Grid2D {
	b := WellingTehBox
	th := []float64{0, 0}
	return diag.Tabulate2D(func(x, y float64) float64 {
		th[0], th[1] = x, y
		return -m.U(th) / tau
	}, b[0], b[1], b[2], b[3], nx, ny)
}
