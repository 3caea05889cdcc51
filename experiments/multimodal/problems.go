// Package multimodal is the study of replica exchange where it pays: a
// spike-and-slab linear regression on real data (diabetes, US crime) and on
// generated data of 10⁵ and 10⁶ rows with the diabetes features'
// correlation, every one with its exact posterior (models.LinRegExact), and
// a 2-D mixture of 25 Gaussians for mode coverage. It compares SGLD,
// cyclical SGLD, reSGLD and f-reSGLD on a fixed and an adaptive ladder at
// equal cost, and Stan's NUTS through rstan (nuts.R) where R is installed.
package multimodal

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/data"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/models"
)

// Prior is every problem's spike-and-slab prior: fresgld regress's
// defaults (w = 1/2, s0 = 0.02, s1 = 1 on the standardised scale).
var Prior = models.SlabPrior{W: 0.5, Spike: 0.02, Slab: 1}

// Problem is a spike-and-slab regression with its exact posterior and the
// settings every method shares.
type Problem struct {
	Name  string
	Names []string // coefficient names
	LR    *models.LinReg
	Exact *models.LinRegExact
	// Anchor is the control variates' anchor: the posterior mode under the
	// slab alone (the normal prior N(0, s1²)), one solve from XᵀX and Xᵀy.
	Anchor []float64
	// Eta is the step size, 0.2/λ_max with λ_max = λ_max(XᵀX)/σ² + 1/s0²,
	// a bound on the Hessian over all β (fresgld regress's rule).
	Eta float64
	// SetupCost is the per-example evaluations every SG run pays before
	// its first step: the anchor's full pass.
	SetupCost float64
	Note      string
}

// stats are a data set's sufficient statistics: XᵀX (p×p, row-major),
// Xᵀy and yᵀy, summed in one pass.
type stats struct {
	xtx, xty []float64
	yty      float64
}

func sufficient(x, y []float64, p int) stats {
	s := stats{xtx: make([]float64, p*p), xty: make([]float64, p)}
	for i, yi := range y {
		row := x[i*p : (i+1)*p]
		s.yty += yi * yi
		for j, a := range row {
			s.xty[j] += a * yi
			r := s.xtx[j*p : (j+1)*p]
			for k := j; k < p; k++ {
				r[k] += a * row[k]
			}
		}
	}
	for j := range p {
		for k := range j {
			s.xtx[j*p+k] = s.xtx[k*p+j]
		}
	}
	return s
}

// residualSD is the least-squares fit's residual standard error
// √(RSS/(N − p − 1)) on centred data, RSS = yᵀy − Xᵀyᵀ(XᵀX)⁻¹Xᵀy
// (fresgld regress's default σ).
func (s stats) residualSD(N, p int) (float64, error) {
	if N <= p+1 {
		return 0, fmt.Errorf("%d examples for %d coefficients: no residual degrees of freedom", N, p)
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(p, s.xtx)) {
		return 0, errors.New("XᵀX is singular: no least-squares fit")
	}
	var b mat.VecDense
	xty := mat.NewVecDense(p, s.xty)
	if err := ch.SolveVecTo(&b, xty); err != nil {
		return 0, err
	}
	rss := s.yty - mat.Dot(&b, xty)
	if !(rss > 0) {
		return 0, errors.New("the least-squares fit is exact")
	}
	return math.Sqrt(rss / float64(N-p-1)), nil
}

// newProblem builds the model, the exact posterior, the anchor and η.
func newProblem(name string, names []string, x, y []float64, p int, sigma float64, st stats, note string) (*Problem, error) {
	lr, err := models.NewLinReg(x, y, p, sigma, Prior)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ex, err := models.NewLinRegExact(st.xtx, st.xty, p, sigma, Prior)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	inv2 := 1 / (sigma * sigma)
	h := mat.NewSymDense(p, nil)
	for j := range p {
		for k := j; k < p; k++ {
			h.SetSym(j, k, st.xtx[j*p+k]*inv2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(h, false) {
		return nil, fmt.Errorf("%s: the eigenvalues of XᵀX did not converge", name)
	}
	ev := es.Values(nil)
	lmax := ev[p-1] + 1/(Prior.Spike*Prior.Spike)
	for j := range p {
		h.SetSym(j, j, h.At(j, j)+1/(Prior.Slab*Prior.Slab))
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil, fmt.Errorf("%s: the slab posterior's precision is singular", name)
	}
	b := mat.NewVecDense(p, nil)
	b.ScaleVec(inv2, mat.NewVecDense(p, st.xty))
	var m mat.VecDense
	if err := ch.SolveVecTo(&m, b); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	anchor := make([]float64, p)
	for j := range p {
		anchor[j] = m.AtVec(j)
	}
	return &Problem{Name: name, Names: names, LR: lr, Exact: ex, Anchor: anchor, Eta: 0.2 / lmax, SetupCost: float64(len(y)), Note: note}, nil
}

// real reads a shipped CSV as fresgld regress does: features and response
// centred and divided by their population sd, σ the residual standard
// error.
func real(name string, csv []byte, label string) (*Problem, error) {
	d, err := dataset.Read(bytes.NewReader(csv), name+".csv", dataset.Options{Label: label, Response: true})
	if err != nil {
		return nil, err
	}
	if _, _, err := d.StandardizeResponse(); err != nil {
		return nil, err
	}
	st := sufficient(d.X, d.Y, d.P)
	sigma, err := st.residualSD(d.N, d.P)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return newProblem(name, d.Names, d.X, d.Y, d.P, sigma, st,
		fmt.Sprintf("%d × %d, standardised, σ = %.4g (the least-squares residual standard error)", d.N, d.P, sigma))
}

// Diabetes is data/diabetes.csv, response progression.
func Diabetes() (*Problem, error) { return real("diabetes", data.Diabetes, "progression") }

// UScrime is data/uscrime.csv, response y.
func UScrime() (*Problem, error) { return real("uscrime", data.UScrime, "y") }

// TrueBeta is the generated data's coefficient vector: diabetes' least-squares
// fit on the standardised scale rounded to two decimals, with the two below
// 0.05 in size (age, s6) set to zero.
var TrueBeta = []float64{0, -0.15, 0.32, 0.2, -0.49, 0.29, 0.06, 0.11, 0.46, 0}

// Synthetic is the large-N variant with N rows: features x = Lz, z ~ N(0, I),
// L the Cholesky factor of the diabetes features' correlation matrix, and
// response y = x·β* + σ_N ε, ε ~ N(0, 1), β* = TrueBeta, all from a PCG
// stream of the given seed. The noise sd grows as σ_N = σ_d·√(N/442), σ_d
// diabetes' residual sd, so that the likelihood's precision XᵀX/σ_N² stays
// that of the diabetes data and the posterior stays as undecided between
// inclusion patterns: at a fixed σ every coefficient would be decided at
// N = 10⁵ and the posterior would have one mode. The model is the
// regression on these x and y as they are (no standardisation: the
// features have mean 0 and sd 1 by construction).
func Synthetic(N int, seed uint64) (*Problem, error) {
	d, err := Diabetes()
	if err != nil {
		return nil, err
	}
	p, n0 := d.LR.P, d.LR.Len()
	st := sufficient(d.LR.X, d.LR.Y, p)
	r := mat.NewSymDense(p, nil)
	for j := range p {
		for k := j; k < p; k++ {
			r.SetSym(j, k, st.xtx[j*p+k]/float64(n0))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(r) {
		return nil, errors.New("synthetic: the diabetes correlation matrix is singular")
	}
	var L mat.TriDense
	ch.LTo(&L)
	l := make([]float64, p*p)
	for j := range p {
		for k := 0; k <= j; k++ {
			l[j*p+k] = L.At(j, k)
		}
	}
	sigma := d.LR.Sigma * math.Sqrt(float64(N)/float64(n0))
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	x, y := make([]float64, N*p), make([]float64, N)
	z := make([]float64, p)
	for i := range N {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		row := x[i*p : (i+1)*p]
		var mu float64
		for j := range p {
			var v float64
			for k := 0; k <= j; k++ {
				v += l[j*p+k] * z[k]
			}
			row[j] = v
			mu += v * TrueBeta[j]
		}
		y[i] = mu + sigma*rng.NormFloat64()
	}
	return newProblem(syntheticName(N), d.Names, x, y, p, sigma, sufficient(x, y, p),
		fmt.Sprintf("%d × %d generated with diabetes' feature correlation, β* as stated, σ_N = %.4g", N, p, sigma))
}

// syntheticName is the name of the generated problem of N rows.
func syntheticName(N int) string { return "synthetic-" + countName(N) }

// countName writes 10⁵ and 10⁶ as 1e5 and 1e6, other counts as they are.
func countName(n int) string {
	e := math.Log10(float64(n))
	if e == math.Trunc(e) {
		return fmt.Sprintf("1e%d", int(e))
	}
	return fmt.Sprint(n)
}
