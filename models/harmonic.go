package models

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
)

// Harmonic is a sinusoid of unknown frequency in a series observed at
// equal steps, on a straight line (Bretthorst's spectral line model):
//
//	y_t = b0 + b1·t/(N−1) + a·cos(ωt) + c·sin(ωt) + ε_t,  ε_t ~ N(0, σ²),
//
// t = 0 … N−1, y standardised, with b = (b0, b1, a, c) ~ N(0, (σ·S)² I)
// given σ, Jeffreys's p(σ) ∝ 1/σ and ω uniform on (2π/N, π): periods from
// the series' length down to two steps. Its frequency posterior has a
// peak at every period the data support, and peaks far apart are
// different explanations of the series (a season or a slow swing) that a
// gradient step does not cross: between them the sinusoid fits nothing.
//
// The state θ ∈ ℝ⁶ is unconstrained: θ_0 = logit((ω − ω_lo)/(π − ω_lo)),
// θ_1…θ_4 = b, θ_5 = log σ. Its prior carries the Jacobian of ω's map.
// Given ω the model is linear and conjugate, so ω's marginal posterior
// is known in closed form (HarmonicExact).
type Harmonic struct {
	// Z is the standardised series; Mean and SD undo it.
	Z        []float64
	Mean, SD float64
	// S is the coefficients' prior sd in units of σ; Lo is ω's lower end.
	S, Lo float64
}

var (
	_ energy.Terms = (*Harmonic)(nil)
)

// HarmonicPriorSD is Harmonic's S: coefficients up to some ten times the
// noise on the standardised scale, a prior that is flat where the data
// speak.
const HarmonicPriorSD = 10

// NewHarmonic standardises y and returns its model.
func NewHarmonic(y []float64) (*Harmonic, error) {
	if len(y) < 8 {
		return nil, fmt.Errorf("harmonic: %d values: need at least 8", len(y))
	}
	z, mean, sd, err := Standardise(y)
	if err != nil {
		return nil, fmt.Errorf("harmonic: %w", err)
	}
	if !(sd > 0) {
		return nil, fmt.Errorf("harmonic: all %d values are %v: no signal", len(y), y[0])
	}
	m := &Harmonic{Z: z, Mean: mean, SD: sd, S: HarmonicPriorSD, Lo: 2 * math.Pi / float64(len(y))}
	return m, nil
}

func (m *Harmonic) Dim() int { return 6 }
func (m *Harmonic) Len() int { return len(m.Z) }

// Omega is the frequency of θ and dω/dθ_0.
func (m *Harmonic) Omega(theta []float64) (omega, slope float64) {
	p := 1 / (1 + math.Exp(-theta[0]))
	w := math.Pi - m.Lo
	return m.Lo + w*p, w * p * (1 - p)
}

// Period is the period of θ's sinusoid in steps of the series.
func (m *Harmonic) Period(theta []float64) float64 {
	w, _ := m.Omega(theta)
	return 2 * math.Pi / w
}

// Term is U_t = (y_t − μ_t)²/(2σ²) + log σ.
func (m *Harmonic) Term(grad, theta []float64, i int) float64 {
	w, slope := m.Omega(theta)
	t := float64(i)
	x := t / float64(len(m.Z)-1)
	sn, cs := math.Sincos(w * t)
	mu := theta[1] + theta[2]*x + theta[3]*cs + theta[4]*sn
	ls := theta[5]
	iv := math.Exp(-2 * ls)
	r := m.Z[i] - mu
	if grad != nil {
		g := -r * iv
		grad[0] = g * t * (theta[4]*cs - theta[3]*sn) * slope
		grad[1], grad[2], grad[3], grad[4] = g, g*x, g*cs, g*sn
		grad[5] = 1 - r*r*iv
	}
	return r*r*iv/2 + ls
}

// Prior is U_0 = |b|²/(2σ²S²) + 4 log σ − log dω/dθ_0 (p(σ) ∝ 1/σ is flat
// in log σ).
func (m *Harmonic) Prior(grad, theta []float64) float64 {
	ls := theta[5]
	k := math.Exp(-2*ls) / (m.S * m.S)
	var bb float64
	for j := 1; j <= 4; j++ {
		bb += theta[j] * theta[j]
	}
	// log dω/dθ_0 = log(π − lo) + log p + log(1 − p), p the logistic of θ_0.
	u := theta[0]
	logSlope := math.Log(math.Pi-m.Lo) - softplus(-u) - softplus(u)
	if grad != nil {
		grad[0] = -(1 - 2/(1+math.Exp(-u))) // −d/du [log p + log(1−p)] = −(1 − 2p)
		for j := 1; j <= 4; j++ {
			grad[j] = theta[j] * k
		}
		grad[5] = -bb*k + 4
	}
	return bb*k/2 + 4*ls - logSlope
}

// softplus is log(1 + eˣ) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// Starts are the states at the n highest peaks of the series' profile
// likelihood over a grid of frequencies four times finer than the Fourier
// frequencies, each with its least-squares coefficients and residual sd:
// the frequency posterior's peaks are 1/N wide or narrower, too narrow for
// random starts of a mode search to hit.
func (m *Harmonic) Starts(n int) [][]float64 {
	N := len(m.Z)
	pts := 2*N + 1
	rss := make([]float64, pts)
	fits := make([][]float64, pts)
	for k := range pts {
		w := m.Lo + (math.Pi-m.Lo)*float64(k)/float64(pts-1)
		fits[k], rss[k] = m.leastSquares(w)
	}
	var top []int
	for k := range pts {
		if (k == 0 || rss[k] <= rss[k-1]) && (k == pts-1 || rss[k] < rss[k+1]) {
			top = append(top, k)
		}
	}
	sort.Slice(top, func(i, j int) bool { return rss[top[i]] < rss[top[j]] })
	var out [][]float64
	for _, k := range top[:min(n, len(top))] {
		w := m.Lo + (math.Pi-m.Lo)*float64(k)/float64(pts-1)
		// θ_0 = logit((ω − lo)/(π − lo)), kept off ±∞ at the ends.
		p := math.Min(math.Max((w-m.Lo)/(math.Pi-m.Lo), 1e-6), 1-1e-6)
		th := append([]float64{math.Log(p / (1 - p))}, fits[k]...)
		out = append(out, append(th, math.Log(math.Sqrt(rss[k]/float64(N)))))
	}
	return out
}

// leastSquares fits b at frequency w and returns it with the residual
// sum of squares.
func (m *Harmonic) leastSquares(w float64) ([]float64, float64) {
	N := len(m.Z)
	X := mat.NewDense(N, 4, nil)
	for i := range N {
		t := float64(i)
		sn, cs := math.Sincos(w * t)
		X.SetRow(i, []float64{1, t / float64(N-1), cs, sn})
	}
	y := mat.NewVecDense(N, m.Z)
	var b mat.VecDense
	if err := b.SolveVec(X, y); err != nil {
		return make([]float64, 4), math.Inf(1)
	}
	var r mat.VecDense
	r.MulVec(X, &b)
	r.SubVec(y, &r)
	return []float64{b.AtVec(0), b.AtVec(1), b.AtVec(2), b.AtVec(3)}, mat.Dot(&r, &r)
}
