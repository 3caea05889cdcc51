package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/dataset"
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
