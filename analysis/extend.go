package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/report"
	"github.com/fresgld/fresgld/results"
)

// ExtendMax bounds a run's extension: at most this many times the draws a
// chain that were planned. A run that needs more is far from its plan
// (chains that do not mix, a quantity the plan's rate does not see): it
// stops as planned and its warnings say how much longer it needs.
const ExtendMax = 2

// extendMargin aims the extension past the thresholds: the ESS and R̂ of
// the extended run are estimates, scattered about what the shortfall
// predicts by some percent, and a run aimed exactly at 400 misses it about
// half the time.
const extendMargin = 1.1

// extension reads the chains of a finished run whose length the plan
// chose (r.Extend) and returns the draws a chain to extend them to, with
// the note that says why, or 0 where every variable's bulk ESS and R̂ meet
// the verdict's thresholds, where a chain stopped, or where the shortfall
// is beyond ExtendMax. The plan's run length is read from the posterior's
// rate at the mode or from a pilot, which a rare move (a discrete
// generated quantity that flips in 1% of draws) can outlast; the extension
// continues the same frozen kernel, so the chains stay exact in law.
func (r ChainRun) extension(chains []*results.Chain, res []exchange.ChainResult) (int, string) {
	if !r.Extend || r.Single {
		return 0, ""
	}
	for _, c := range res {
		if c.Err != nil {
			return 0, ""
		}
	}
	s, err := results.SummarizeChains(chains)
	if err != nil {
		return 0, ""
	}
	f, worst := results.Shortfall(s, r.Header.Settings)
	if !(f > 1) {
		return 0, ""
	}
	n := len(chains[0].Cols[0]) // the plan's draws a chain
	most := ExtendMax * r.Plan.Keep
	if f*float64(n) > float64(most) {
		return 0, ""
	}
	to := min(int(math.Ceil(extendMargin*f*float64(n))), most)
	return to, fmt.Sprintf("after %d draws a chain %s's bulk ESS was %.0f and its R̂ %.3f, short of the verdict's %.0f and %g: every chain ran on with its frozen kernel to %d draws (%.2f times the %.3g times it asks, at most %d times the plan's %d)",
		n, worst.Name, worst.ESSBulk, worst.Rhat, s.ESSGoal(), report.RhatMax, to, extendMargin, f, ExtendMax, r.Plan.Keep)
}

// mostSteps is the most steps a chain of r may have taken: the plan's, or,
// where r may extend, ExtendMax times its draws.
func (r ChainRun) mostSteps() int {
	p := r.Plan
	if r.Extend && !r.Single {
		p.Keep *= ExtendMax
	}
	return p.Steps()
}

// sayExtended makes the extended chains' headers say the draws planned at
// the end, keep a chain, in their files and in memory: a CmdStan CSV reader
// checks them against the rows.
func sayExtended(chains []*results.Chain, keep int) error {
	var errs []error
	for _, c := range chains {
		h := c.Header
		h.Keep = keep
		from, to := c.Header.Lines(), h.Lines()
		if err := results.RewriteHeader(c.Path, from, to); err != nil {
			errs = append(errs, err)
			continue
		}
		c.Header = h
		for j, l := range c.Comments {
			if k := slices.Index(from, l); k >= 0 {
				c.Comments[j] = to[k]
			}
		}
	}
	return errors.Join(errs...)
}
