package analysis

import (
	"errors"
	"fmt"
	"math"

	"github.com/fresgld/fresgld/dataset"
)

// maxHeld bounds the draws of a run with more coefficients than examples:
// numbers over all chains (400 MB in memory, and about 1 GB of chain CSV
// text), every variable's R̂, ESS and quantiles computed from them. On issue
// 20's 60 × 10,000 file, 4 chains × 5000 draws of 10,002 variables took 8.5
// minutes and 3.1 GB, most of it after sampling, for coefficients that
// the data mostly leave to the prior.
const maxHeld = 5e7

// heldDraws refuses, before any work, a run with p > N whose draws would
// exceed maxHeld, saying why so many coefficients are a poor use of the
// data and giving the --keep that fits. With p ≤ N the draws are bounded
// only by memory (runSize): long runs on tall data are the usual case.
func heldDraws(keep, p, chains, N int) error {
	vars := p + 1 // with lp__
	if p <= N || float64(keep)*float64(vars)*float64(chains) <= maxHeld {
		return nil
	}
	fit := int(maxHeld / (float64(vars) * float64(chains)))
	msg := fmt.Sprintf("--keep = %d: p = %d coefficients but N = %d examples: the data inform at most %d directions of the coefficients, the other %d are the prior's; and %d chain(s) × %d draws × %d variables = %.3g numbers (%.2g GB) to hold, summarise and write, more than the %.3g a run with p > N allows",
		keep, p, N, N, p-N, chains, keep, vars, float64(keep)*float64(vars)*float64(chains), float64(keep)*float64(vars)*float64(chains)*8/1e9, maxHeld)
	if fit >= 1 {
		msg += fmt.Sprintf(": give --keep %d or less (or fewer --chains), or better, fewer features (selected, or projected onto principal components)", fit)
	} else {
		msg += ": use fewer features (selected, or projected onto principal components)"
	}
	return errors.New(msg)
}

// RawScale rejects unstandardised features so large that the likelihood's
// curvature, a sum of N squared values, overflows: no step size or
// posterior scale could then be computed. It also rejects columns whose
// sizes (root mean squares) differ by more than rawScaleSpread, the
// intercept's 1 among them where the model adds one: the curvature grows
// as a column's size squared, and a Hessian whose scales differ by more
// than 1/ε (ε the double's 2.2e-16) is refused as near-singular when the
// mode is found, which said only "give a --method and --eta" (on 200
// rows, a column of normal draws ×3e7 beside the intercept was sampled,
// ×1e8 refused at a condition number of 1.03e16).
func RawScale(d *dataset.Data, intercept bool) error {
	small, big := math.Inf(1), 0.0
	var smallCol, bigCol string
	if intercept {
		small, big, smallCol, bigCol = 1, 1, "the intercept's", "the intercept's"
	}
	for j := range d.P {
		var m float64
		for i := range d.N {
			m = math.Max(m, math.Abs(d.X[i*d.P+j]))
		}
		if !(m*m*float64(d.N) < math.MaxFloat64) {
			return fmt.Errorf("--no-standardize: column %d (%q) has values up to %g, whose squares summed over %d examples overflow; standardise (drop --no-standardize) or rescale the column",
				d.Column(j), d.Names[j], m, d.N)
		}
		// The column's size in the curvature Σ x²·p(1 − p): its root mean
		// square, on the values over their largest (which cannot overflow).
		if m == 0 {
			continue // a column of zeros has no scale
		}
		var ss float64
		for i := range d.N {
			v := d.X[i*d.P+j] / m
			ss += v * v
		}
		rms := m * math.Sqrt(ss/float64(d.N))
		name := fmt.Sprintf("column %d's (%q)", d.Column(j), d.Names[j])
		if rms > 0 && rms < small {
			small, smallCol = rms, name
		}
		if rms > big {
			big, bigCol = rms, name
		}
	}
	if big > rawScaleSpread*small {
		return fmt.Errorf("--no-standardize: %s values have a root mean square of %.3g and %s only %.3g: the curvature's scales differ by %.3g, beyond the 1/ε = %.3g at which a double's Hessian can be factored; standardise (drop --no-standardize) or rescale the columns to similar sizes",
			bigCol, big, smallCol, small, (big/small)*(big/small), 1/epsilon)
	}
	return nil
}

// epsilon is the double's machine epsilon, 2^−52.
const epsilon = 0x1p-52

// rawScaleSpread is the largest ratio of two columns' sizes whose squares,
// the scales of the likelihood's curvature, stay within 1/epsilon.
var rawScaleSpread = 1 / math.Sqrt(epsilon)
