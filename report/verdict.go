package report

import (
	"fmt"
	"math"
	"strings"
)

// The thresholds of trust, the same for every command: the commands'
// warnings and the report's verdict both read them from here. R̂ and ESS
// follow Stan's and posterior's guidance (Vehtari et al. 2021: R̂ below
// 1.01 and a bulk ESS of 400 over four chains, 100 a chain, before the
// means and quantiles are trusted).
const (
	RhatMax        = 1.01
	ESSPerChainMin = 100
	ESSTotalMin    = 400
	// RhatFail is the R̂ above which a run has failed, not merely not
	// converged yet: 1.1 is Gelman and Rubin's original threshold (BDA,
	// 3rd ed., §11.4), where the pooled variance exceeds the within-chain
	// variance by 21%: the chains sample visibly different distributions,
	// so the pooled means and quantiles describe none of them.
	RhatFail = 1.1
	// ESSFailMin is the bulk ESS below which a run has failed: with fewer
	// than 10 effective draws a mean's MCSE exceeds a third of the sd and
	// ESS itself is too noisy to say how many there are (posterior's
	// estimates need a few effective draws per chain to be read at all).
	ESSFailMin = 10
	// SwapAcceptMin is the least share of swap attempts between adjacent
	// levels that the ladder must accept: below it, a replica crosses
	// the pair too rarely for the cold chain to inherit the hot chain's
	// moves between modes, and levels should be added.
	SwapAcceptMin = 0.1
	// EBFMIMin is the least E-BFMI of a NUTS chain (Stan's threshold,
	// Betancourt 2016): below it the momenta's resampling changes the
	// energy too little between transitions for the chain to reach the
	// tails.
	EBFMIMin = 0.3
	// TreedepthShareMax is the largest share of a NUTS chain's
	// transitions that may stop at the largest tree depth.
	TreedepthShareMax = 0.01
	// KHatMax is the largest Pareto k̂ of a variable's tails
	// (diag.Summary.KHat) at which its summary is trusted. A tail of shape
	// k has finite moments only below order 1/k: from k = 1/2 on, the
	// variance is infinite, so the sd estimates nothing and the MCSE of the
	// mean, which the central limit theorem gives, does not hold (Vehtari
	// et al. 2024, JMLR 25(72), §3); the quantiles still do. sample warns
	// past it, on the models others write (so the verdict is at best
	// doubtful); the other commands' posteriors have every moment.
	KHatMax = 0.5
)

// Verdict levels.
const (
	Trusted  = "trusted"
	Doubtful = "doubtful"
	Failed   = "failed"
)

// Verdict is the report's first line: whether to trust the run, and why
// not.
type Verdict struct {
	Level   string
	Reasons []string
	// Criteria say what a trusted run met.
	Criteria string
}

// Judged is what a verdict reads from a run.
type Judged struct {
	Parameters []Variable
	Chains     int // the chains the diagnostics use
	Pairs      []Pair
	Warnings   int
	// Stopped are the chains that ended early, with how (interrupted,
	// killed, the error that stopped them); Failed says one failed on an
	// error rather than on a signal.
	Stopped []string
	Failed  bool
	Draws   int // the draws the tables pool
	// ExactFailed are the comparisons with an exact answer, printed on
	// the same page, that failed: a run is never trusted beside them.
	ExactFailed []string
}

// Judge is the verdict on a run: failed when a chain stopped on an error,
// there are no draws, a variable's R̂ exceeds RhatFail or its bulk ESS is
// below ESSFailMin; doubtful when a variable's R̂ or bulk ESS, a pair's
// swap acceptance, a failed comparison with an exact answer or any
// warning says so; trusted otherwise. A
// constant variable (sd 0) is not judged: its R̂ and ESS are undefined and
// nothing is left to mix (the commands warn when a parameter is stuck).
func Judge(j Judged) Verdict {
	v := Verdict{Criteria: fmt.Sprintf("every R̂ ≤ %g, every bulk ESS ≥ %d and ≥ %d a chain, every pair of levels accepting ≥ %g of its swap attempts, no warning, every chain finished",
		RhatMax, ESSTotalMin, ESSPerChainMin, SwapAcceptMin)}
	if j.Failed || j.Draws == 0 {
		v.Level = Failed
		if j.Draws == 0 {
			v.Reasons = append(v.Reasons, "no draws")
		}
		v.Reasons = append(v.Reasons, j.Stopped...)
		return v
	}
	v.Reasons = append(v.Reasons, j.Stopped...)
	var badR, badE int
	worstR, worstE := "", ""
	rmax, emin := 0.0, math.Inf(1)
	for _, p := range j.Parameters {
		if p.SD == 0 {
			continue
		}
		if !(p.Rhat <= RhatMax) {
			badR++
			if worstR == "" || !(p.Rhat <= rmax) {
				worstR, rmax = p.Name, p.Rhat
			}
		}
		if !(p.ESSBulk >= ESSTotalMin) || !(p.ESSBulk >= ESSPerChainMin*float64(j.Chains)) {
			badE++
			if worstE == "" || !(p.ESSBulk >= emin) {
				worstE, emin = p.Name, p.ESSBulk
			}
		}
	}
	failed := false
	if badR > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("R̂ > %g for %d variable(s) (largest: %s, %.4g)", RhatMax, badR, worstR, rmax))
		if rmax > RhatFail { // a NaN R̂ stays doubtful
			failed = true
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s's R̂ of %.4g exceeds %g: the chains sample different distributions", worstR, rmax, RhatFail))
		}
	}
	if badE > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("bulk ESS below %d in all or %d a chain for %d variable(s) (smallest: %s, %.0f)", ESSTotalMin, ESSPerChainMin, badE, worstE, emin))
		if emin < ESSFailMin {
			failed = true
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s's bulk ESS of %.3g is below %d: too few effective draws to estimate anything", worstE, emin, ESSFailMin))
		}
	}
	if len(j.ExactFailed) > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("the comparison with the exact answer, below, failed: %s", strings.Join(j.ExactFailed, "; ")))
	}
	for _, p := range j.Pairs {
		if p.Attempts > 0 && float64(p.Accepts) < SwapAcceptMin*float64(p.Attempts) {
			v.Reasons = append(v.Reasons, fmt.Sprintf("levels %d–%d accepted %s of their swap attempts, below %g", p.Levels[0], p.Levels[1], p.Rate(), SwapAcceptMin))
		}
	}
	if j.Warnings > 0 {
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d warning(s), below", j.Warnings))
	}
	v.Level = Trusted
	switch {
	case failed:
		v.Level = Failed
	case len(v.Reasons) > 0:
		v.Level = Doubtful
	}
	return v
}
