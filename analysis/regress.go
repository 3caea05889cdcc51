package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/results"
)

// residualSD is the least-squares fit's residual standard error
// √(RSS/(N − p − 1)) on standardised data (the −1 for the centring).
func residualSD(x, y []float64, N, p int) (float64, error) {
	if N <= p+1 {
		return 0, fmt.Errorf("%d examples for %d coefficients: the least-squares fit leaves no residual degrees of freedom (need N > p + 1)", N, p)
	}
	X := mat.NewDense(N, p, x)
	var xtx mat.SymDense
	xtx.SymOuterK(1, X.T())
	var ch mat.Cholesky
	if !ch.Factorize(&xtx) {
		return 0, errors.New("the features are collinear (XᵀX is singular): no least-squares fit")
	}
	var xty, beta mat.VecDense
	xty.MulVec(X.T(), mat.NewVecDense(N, y))
	if err := ch.SolveVecTo(&beta, &xty); err != nil {
		return 0, fmt.Errorf("the least-squares fit: %v", err)
	}
	var rss float64
	for i := range N {
		r := y[i] - mat.Dot(X.RowView(i), &beta)
		rss += r * r
	}
	s := math.Sqrt(rss / float64(N-p-1))
	if !(s > 0) {
		return 0, errors.New("the least-squares fit is exact (residual sd 0): the response is a linear function of the features")
	}
	if s < exactFitSD {
		return 0, fmt.Errorf("the least-squares fit is exact to rounding: its residual sd, %.3g of the response's sd, is below %g (R² > 1 − %g): the response is a linear function of the features, and a noise sd that small leaves a posterior whose exact answer breaks down numerically: leave out the features that fit the response exactly", s, exactFitSD, exactFitSD*exactFitSD)
	}
	return s, nil
}

// exactFitSD is the smallest automatic noise sd, on the standardised
// scale (the response's sd is 1): below it (R² above 1 − 10⁻¹², beyond
// the precision any measured response has) the residuals are rounding,
// not noise. A perfect fit, y = 2·x1 − x2 exactly, gave σ = 2.7e-16, at
// which the exact posterior weighed all 32 patterns alike.
const exactFitSD = 1e-6

// regressCurvature bounds the Hessian of U: λ_max ≤ λ_max(XᵀX)/σ² + c0
// over all β (c0 the prior's largest curvature, 1/s0² or 1/s1²) and the
// slowest direction λ_min(XᵀX)/σ² + 1/s1² (the prior at its flattest).
// It also returns the normal-prior posterior mode, the start's distance
// from which sets the burn-in.
func regressCurvature(x, y []float64, N, p int, sigma float64, pr models.SlabPrior) (lmin, lmax float64, dist float64, err error) {
	X := mat.NewDense(N, p, x)
	var h mat.SymDense
	h.SymOuterK(1/(sigma*sigma), X.T())
	var es mat.EigenSym
	if !es.Factorize(&h, false) {
		return 0, 0, 0, errors.New("the eigenvalues of XᵀX did not converge")
	}
	ev := es.Values(nil)
	c1 := 1 / (pr.Slab * pr.Slab)
	c0 := c1
	if !pr.Normal() {
		c0 = 1 / (pr.Spike * pr.Spike)
	}
	lmin, lmax = ev[0]+c1, ev[len(ev)-1]+c0
	// D² = mᵀ A m for the slab's Gaussian posterior N(m, A⁻¹), A = H + I/s1²:
	// the Mahalanobis distance of the start, 0, from its mode.
	for j := range p {
		h.SetSym(j, j, h.At(j, j)+c1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&h) {
		return lmin, lmax, 0, nil
	}
	var b, m mat.VecDense
	b.MulVec(X.T(), mat.NewVecDense(N, y))
	b.ScaleVec(1/(sigma*sigma), &b)
	if err := ch.SolveVecTo(&m, &b); err != nil {
		return lmin, lmax, 0, nil
	}
	return lmin, lmax, math.Sqrt(math.Max(0, mat.Dot(&m, &b))), nil
}

// RegressModel is a Bayesian linear regression with noise sd sigma and a
// normal or spike-and-slab prior as an analysis model: the curvature
// bounds from XᵀX, and per coefficient its inclusion probability as a
// generated quantity (spike-and-slab). Its spike-and-slab posterior has a
// mode per undecided inclusion pattern, so the one-mode chain checks are
// off: the run is compared with the exact posterior instead.
func RegressModel(lr *models.LinReg, names []string, pr models.SlabPrior) Model {
	m := Model{Terms: lr, Names: names, NoChainChecks: true, Kernel: func(lambda float64) (exchange.Kernel, energy.Energy) {
		return lr.NewTemperedGibbs(lambda), lr.Power(lambda)
	}, KernelName: "gibbs", KernelAbout: func() string {
		return "George and McCulloch's Gibbs sampler: each inclusion indicator given β, then β from its Gaussian given them, no step size and no pass over the data"
	}}
	m.Curvature = func(uint64) (Curvature, error) {
		lmin, lmax, dist, err := regressCurvature(lr.X, lr.Y, lr.Len(), lr.Dim(), lr.Sigma, pr)
		return Curvature{Lmin: lmin, Lmax: lmax, Dist: dist, Note: fmt.Sprintf("λ_max ≤ λ_max(XᵀX)/σ² + (largest prior curvature) = %.4g over all β", lmax)}, err
	}
	if !pr.Normal() {
		for _, n := range names {
			m.Generated = append(m.Generated, results.InclusionCol(n))
		}
		m.Generate = func(out, theta []float64) {
			for j, b := range theta {
				out[j] = pr.Inclusion(b)
			}
		}
	}
	return m
}

// CheckInclusionNames refuses data (read from path) where a column has the
// name of another's inclusion column.
func CheckInclusionNames(path string, names []string) error {
	for _, n := range names {
		for _, o := range names {
			if results.InclusionCol(n) == o {
				return fmt.Errorf("--data %s: column %q has the name of the inclusion column of %q; rename it", path, o, n)
			}
		}
	}
	return nil
}

// RegressionFit says how Regression built its model: the response's
// standardisation and the noise sd, with how it was chosen.
type RegressionFit struct {
	ResponseMean, ResponseSD, NoiseSD float64
	NoiseRule                         string
}

// Regression is the Bayesian linear regression of data d (read from path,
// which errors name) with prior pr: the response standardised, the noise
// sd sigma on that scale (0: the least-squares fit's residual standard
// error).
func Regression(path string, d *dataset.Data, sigma float64, pr models.SlabPrior) (*models.LinReg, RegressionFit, error) {
	var fit RegressionFit
	var err error
	if fit.ResponseMean, fit.ResponseSD, err = d.StandardizeResponse(); err != nil {
		return nil, fit, fmt.Errorf("--data %s: %w", path, err)
	}
	if err := CheckInclusionNames(path, d.Names); err != nil {
		return nil, fit, err
	}
	fit.NoiseSD, fit.NoiseRule = sigma, "set by --noise-sd"
	if sigma == 0 {
		if fit.NoiseSD, err = residualSD(d.X, d.Y, d.N, d.P); err != nil {
			return nil, fit, fmt.Errorf("--noise-sd auto: %w; give --noise-sd", err)
		}
		fit.NoiseRule = fmt.Sprintf("auto: the least-squares fit's residual standard error √(RSS/(N − p − 1)) = %.4g on the standardised scale", fit.NoiseSD)
	}
	lr, err := models.NewLinReg(d.X, d.Y, d.P, fit.NoiseSD, pr)
	if err != nil {
		return nil, fit, fmt.Errorf("%s: %w", path, err)
	}
	return lr, fit, nil
}
