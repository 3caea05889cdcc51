package results

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/fresgld/fresgld/models"
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
		b, in := row[n], row[InclusionCol(n)]
		if _, ok := row[InclusionCol(n)]; !ok { // the normal prior, or the intercept
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
