package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"gonum.org/v1/gonum/mat"
)

// CoefRow is one coefficient's line of summary.json: the sampled mean,
// sd and inclusion probability, and the exact ones when computed.
type CoefRow struct {
	Name           string   `json:"variable"`
	Mean           JSONNum  `json:"mean"`
	SD             JSONNum  `json:"sd"`
	Inclusion      JSONNum  `json:"inclusion"`
	InclusionMCSE  JSONNum  `json:"inclusion_mcse"`
	ExactMean      *float64 `json:"exact_mean,omitempty"`
	ExactSD        *float64 `json:"exact_sd,omitempty"`
	ExactInclusion *float64 `json:"exact_inclusion,omitempty"`
	// The reference's Monte Carlo errors, where it has them.
	ExactMeanMCSE      *float64 `json:"exact_mean_mcse,omitempty"`
	ExactInclusionMCSE *float64 `json:"exact_inclusion_mcse,omitempty"`
	ExactQ5            *float64 `json:"exact_q5,omitempty"`
	ExactQ50           *float64 `json:"exact_q50,omitempty"`
	ExactQ95           *float64 `json:"exact_q95,omitempty"`
}

// PatternRow is one of the heaviest inclusion patterns of the exact
// posterior: the coefficients in the slab and the pattern's weight.
type PatternRow struct {
	Included []string `json:"included"`
	Weight   float64  `json:"weight"`
}

// ExactDistance is a run's distance to the exact posterior.
type ExactDistance struct {
	MeanErr          JSONNum `json:"max_mean_error_sds"` // max_j |mean_j − exact_j|/exact sd_j
	MeanErrMCSE      JSONNum `json:"max_mean_error_mcse"`
	MeanErrVar       string  `json:"max_mean_error_variable"`
	InclusionErr     JSONNum `json:"max_inclusion_error"`
	InclusionErrMCSE JSONNum `json:"max_inclusion_error_mcse"`
	InclusionErrVar  string  `json:"max_inclusion_error_variable"`
}

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

// Reference is a posterior a run is compared with: regress's exact one
// (models.LinRegExact) or spike-and-slab logistic regression's
// (models.SlabExact, whose values carry Monte Carlo errors).
type Reference interface {
	// Moments are coefficient j's mean, sd and inclusion probability.
	Moments(j int) (mean, sd, inclusion float64)
	Quantile(j int, q float64) float64
	// Heaviest are the heaviest inclusion patterns, heaviest first.
	Heaviest() []models.LinRegPattern
	// Heading is the table's first line, without its colon.
	Heading() string
}

// ReferenceError is a Reference with Monte Carlo errors: the standard
// errors of Moments and of Heaviest's weights.
type ReferenceError interface {
	MomentsSE(j int) (mean, sd, inclusion float64)
	HeaviestSE() []float64
}

// CompareExact reads each coefficient's sampled mean, sd and inclusion
// (with its MCSE) from the table s, beside the reference's when ref is
// set (quantiles only with withQuantiles), and the largest errors. Where
// the reference has Monte Carlo errors, an error's MCSE is the run's and
// the reference's in quadrature (they are independent).
func CompareExact(s Summary, names []string, ref Reference, withQuantiles bool) ([]CoefRow, *ExactDistance) {
	row := map[string]ParamRow{}
	for _, r := range s.Parameters {
		row[r.Name] = r
	}
	var rows []CoefRow
	var dist *ExactDistance
	if ref != nil {
		dist = &ExactDistance{MeanErr: -1, InclusionErr: -1}
	}
	re, _ := ref.(ReferenceError)
	for j, n := range names {
		b, in := row[n], row[inclusionCol(n)]
		if _, ok := row[inclusionCol(n)]; !ok { // the normal prior, or the intercept
			in.Mean, in.MCSEMean = 1, math.NaN()
		}
		c := CoefRow{Name: n, Mean: JSONNum(b.Mean), SD: JSONNum(b.SD), Inclusion: JSONNum(in.Mean), InclusionMCSE: JSONNum(in.MCSEMean)}
		if ref != nil {
			em, es, ei := ref.Moments(j)
			var sm, si float64 // the reference's own errors
			if re != nil {
				sm, _, si = re.MomentsSE(j)
				c.ExactMeanMCSE, c.ExactInclusionMCSE = &sm, &si
			}
			if withQuantiles {
				q5, q50, q95 := ref.Quantile(j, 0.05), ref.Quantile(j, 0.5), ref.Quantile(j, 0.95)
				c.ExactMean, c.ExactSD, c.ExactInclusion = &em, &es, &ei
				c.ExactQ5, c.ExactQ50, c.ExactQ95 = &q5, &q50, &q95
			}
			if e := JSONNum(math.Abs(b.Mean-em) / es); e > dist.MeanErr || math.IsNaN(float64(e)) {
				dist.MeanErr, dist.MeanErrMCSE, dist.MeanErrVar = e, JSONNum(math.Hypot(b.MCSEMean, sm)/es), n
			}
			if e := JSONNum(math.Abs(in.Mean - ei)); e > dist.InclusionErr || math.IsNaN(float64(e)) {
				mcse := in.MCSEMean
				if si > 0 {
					mcse = math.Hypot(mcse, si)
				}
				dist.InclusionErr, dist.InclusionErrMCSE, dist.InclusionErrVar = e, JSONNum(mcse), n
			}
		}
		rows = append(rows, c)
	}
	return rows, dist
}

// line is the distance's one-line report.
func (d *ExactDistance) Line(normal bool) string {
	s := fmt.Sprintf("distance to exact: largest |mean − exact|/sd %.3g (%s, MCSE %.2g)", d.MeanErr, d.MeanErrVar, d.MeanErrMCSE)
	if !normal {
		s += fmt.Sprintf(", largest inclusion error %.3g (%s, MCSE %.2g)", d.InclusionErr, d.InclusionErrVar, d.InclusionErrMCSE)
	}
	return s
}

// WriteExactTable prints the reference posterior beside the sampled mean
// and inclusion probability, and the heaviest inclusion patterns (with
// the reference's standard errors where it has them).
func WriteExactTable(w io.Writer, names []string, ref Reference, rows []CoefRow, normal bool) {
	width := len("variable")
	for _, n := range names {
		width = max(width, len(n))
	}
	if normal {
		fmt.Fprintln(w, "exact posterior (σ fixed; Gaussian):")
	} else {
		fmt.Fprintln(w, ref.Heading()+":")
	}
	if normal {
		fmt.Fprintf(w, "%-*s %10s %9s %10s %10s %10s │ %10s %9s\n", width, "variable", "mean", "sd", "5%", "50%", "95%", "run mean", "run sd")
		for j, n := range names {
			r := rows[j]
			m, sd, _ := ref.Moments(j)
			fmt.Fprintf(w, "%-*s %10.4g %9.3g %10.4g %10.4g %10.4g │ %10.4g %9.3g\n", width, n, m, sd, *r.ExactQ5, *r.ExactQ50, *r.ExactQ95, r.Mean, r.SD)
		}
		return
	}
	re, _ := ref.(ReferenceError)
	if re != nil {
		fmt.Fprintf(w, "%-*s %10s %9s %10s %10s %10s %9s %8s │ %10s %9s %9s\n", width, "variable", "mean", "sd", "5%", "50%", "95%", "inclusion", "±mcse", "run mean", "run incl", "mcse")
	} else {
		fmt.Fprintf(w, "%-*s %10s %9s %10s %10s %10s %9s │ %10s %9s %9s\n", width, "variable", "mean", "sd", "5%", "50%", "95%", "inclusion", "run mean", "run incl", "mcse")
	}
	for j, n := range names {
		r := rows[j]
		m, sd, in := ref.Moments(j)
		if re != nil {
			_, _, se := re.MomentsSE(j)
			fmt.Fprintf(w, "%-*s %10.4g %9.3g %10.4g %10.4g %10.4g %9.4f %8.2g │ %10.4g %9.4f %9.2g\n", width, n, m, sd, *r.ExactQ5, *r.ExactQ50, *r.ExactQ95, in, se, r.Mean, r.Inclusion, r.InclusionMCSE)
			continue
		}
		fmt.Fprintf(w, "%-*s %10.4g %9.3g %10.4g %10.4g %10.4g %9.4f │ %10.4g %9.4f %9.2g\n", width, n, m, sd, *r.ExactQ5, *r.ExactQ50, *r.ExactQ95, in, r.Mean, r.Inclusion, r.InclusionMCSE)
	}
	pts := ref.Heaviest()
	for k, pt := range pts[:min(len(pts), 5)] {
		pr := PatternOf(pt, names)
		if re != nil {
			fmt.Fprintf(w, "pattern %d: weight %.4f ± %.2g, slab: %s\n", k+1, pr.Weight, re.HeaviestSE()[k], joinNames(pr.Included))
			continue
		}
		fmt.Fprintf(w, "pattern %d: weight %.4f, slab: %s\n", k+1, pr.Weight, joinNames(pr.Included))
	}
}

func PatternOf(pt models.LinRegPattern, names []string) PatternRow {
	r := PatternRow{Weight: pt.Weight, Included: []string{}}
	for j, in := range pt.Include {
		if in {
			r.Included = append(r.Included, names[j])
		}
	}
	return r
}

func joinNames(ns []string) string {
	if len(ns) == 0 {
		return "(none)"
	}
	s := ns[0]
	for _, n := range ns[1:] {
		s += " " + n
	}
	return s
}

// JSONNum is a float64 that marshals NaN and ±Inf (an undefined MCSE, of
// a constant inclusion probability) as null, as diag.Summary does.
type JSONNum float64

func (x JSONNum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
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
			m.Generated = append(m.Generated, inclusionCol(n))
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
			if inclusionCol(n) == o {
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
