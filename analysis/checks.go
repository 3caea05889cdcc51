package analysis

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/meanvar"
	"github.com/fresgld/fresgld/results"
)

// chainChecks holds what a chain is checked against: facts the run can
// compute, so that a run that produced garbage says so, with the numbers
// and what to change.
type chainChecks struct {
	eta      float64
	stats    exchange.Stats
	trace    exchange.Trace
	names    []string
	mean, sd []float64
	lmin     float64 // smallest Hessian eigenvalue at the mode; 0 if unknown
}

// Thresholds of the checks.
const (
	// maxLogOdds: a coefficient whose effect over one standard deviation of
	// its feature exceeds 30 on the log-odds scale (odds × 10¹³) is not an
	// estimate but a sign of separable data with too wide a prior.
	maxLogOdds = 30
	// driftSDs: a chain whose second-half mean lies this many within-half
	// sds beyond its first-half mean, away from 0, is still moving out: a
	// stationary chain's half means differ by a fraction of an sd, a
	// linear drift by 2√3 ≈ 3.5 within-half sds.
	driftSDs = 3
)

// warnings returns one warning per failed check. Clamped steps and swaps
// are checked for every run, on all chains, by the summary.
func (c chainChecks) warnings() []results.Warning {
	var w []results.Warning
	steps := c.stats.Steps
	if c.lmin > 0 && steps > 0 {
		// Langevin at τ = 1 moves each coordinate by about √(2η) per step;
		// crossing the posterior's widest direction (sd ≈ 1/√λ_min under
		// the Laplace approximation) takes about 1/(2ηλ_min) steps.
		scale := 1 / math.Sqrt(c.lmin)
		need := 1 / (2 * c.eta * c.lmin)
		if float64(steps) < need {
			const remedy = "Raise --eta, or raise --burn and --keep (logistic: standardise the features, leaving out --no-standardize)"
			w = append(w, results.Warning{Code: "stuck", Number: need, Remedy: remedy, Message: fmt.Sprintf("the chain is stuck: it moves about %.3g per 1000 steps (√(2η·1000), η = %.3g), but the posterior's widest direction has sd ≈ %.3g; crossing it once takes about %.3g steps and the run took %d. %s",
				math.Sqrt(2*c.eta*1000), c.eta, scale, need, steps, remedy)})
		}
	}
	if d := c.drifting(); d != nil {
		w = append(w, *d)
	}
	return w
}

// separable checks a logistic regression's posterior means: an effect of
// more than maxLogOdds on the log-odds scale per sd of its feature means
// separable data and too wide a prior.
func separable(names []string, mean, featureSD []float64, priorSD float64) []string {
	worst, wj := 0.0, -1
	for j, m := range mean {
		if lo := math.Abs(m) * featureSD[j]; lo > worst || math.IsNaN(lo) {
			worst, wj = lo, j
			if math.IsNaN(lo) {
				break
			}
		}
	}
	if wj >= 0 && !(worst <= maxLogOdds) {
		return []string{fmt.Sprintf("coefficient %s has posterior mean %.3g, %.3g on the log-odds scale per sd of its feature, far beyond any plausible effect (|·| ≤ %d): the data are probably separable and the prior too wide; lower --prior-sd (now %g), e.g. to 1–10",
			names[wj], mean[wj], worst, maxLogOdds, priorSD)}
	}
	return nil
}

// drifting reports the coordinate that moves furthest outward (away from 0,
// where every chain starts) between the halves of the run, if it moves by
// more than driftSDs within-half sds: a diverging chain, or one still far
// from its posterior.
func (c chainChecks) drifting() *results.Warning {
	n := c.trace.Len()
	if n < 20 {
		return nil
	}
	worst, wj := 0.0, -1
	var w1, w2 float64
	for j := range c.trace.P {
		var s1, s2, q1, q2 float64
		h := n / 2
		for i := range 2 * h {
			x := c.trace.At(i)[j]
			if i < h {
				s1, q1 = s1+x, q1+x*x
			} else {
				s2, q2 = s2+x, q2+x*x
			}
		}
		m1, m2 := s1/float64(h), s2/float64(h)
		sd := math.Sqrt(math.Max(q1/float64(h)-m1*m1, q2/float64(h)-m2*m2))
		if math.Abs(m2) <= math.Abs(m1) {
			continue
		}
		z := math.Abs(m2-m1) / sd
		if math.IsNaN(z) || z > worst {
			worst, wj, w1, w2 = z, j, m1, m2
			if math.IsNaN(z) {
				break
			}
		}
	}
	if wj < 0 || !(worst > driftSDs || math.IsNaN(worst)) {
		return nil
	}
	return &results.Warning{Code: "drift", Number: worst, Remedy: "raise --burn", Message: fmt.Sprintf("the chain has not settled: coefficient %s moves outward from a mean of %.3g over the first half of the samples to %.3g over the second (%.1f within-half sds); if it keeps moving the chain is diverging and the posterior may be improper (separable data: lower --prior-sd), else raise --burn",
		c.names[wj], w1, w2, worst)}
}

// sampledScales returns each column's standard deviation in the design
// matrix sampled (n×p, row-major), 1 for a constant column (the intercept):
// the scale on which a coefficient changes the log-odds.
func sampledScales(x []float64, n, p int) []float64 {
	s := make([]float64, p)
	for j := range p {
		s[j] = meanvar.ColumnSD(x, n, p, j)
		if s[j] == 0 {
			s[j] = 1
		}
	}
	return s
}
