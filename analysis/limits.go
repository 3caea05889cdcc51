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
// posterior scale could then be computed.
func RawScale(d *dataset.Data) error {
	for j := range d.P {
		var m float64
		for i := range d.N {
			m = math.Max(m, math.Abs(d.X[i*d.P+j]))
		}
		if !(m*m*float64(d.N) < math.MaxFloat64) {
			return fmt.Errorf("--no-standardize: column %d (%q) has values up to %g, whose squares summed over %d examples overflow; standardise (drop --no-standardize) or rescale the column",
				d.Column(j), d.Names[j], m, d.N)
		}
	}
	return nil
}
