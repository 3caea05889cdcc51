package plan

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/modes"

	"gonum.org/v1/gonum/mat"
)

// Where one mode is found and the model has no kernel of its own, the plan
// weighs two samplers: MALA preconditioned by the Hessian at the mode (the
// log-concave plan), cheap where the Laplace fit is good, and NUTS with a
// metric adapted in warmup, which follows a posterior whose scale changes
// with position. NUTS's warmup is the pilot that tells them apart: its
// metric is the posterior's variances as the chains met them.
const (
	// laplaceMisfit is the largest ratio, either way, of a coordinate's
	// variance in NUTS's warmup to the inverse Hessian's at the mode for
	// which the Laplace fit is taken as good: past it the fit's sd is off
	// by more than √2 (one_comp_mm_elim_abs's were 0.37–0.53 of the
	// reference's). The warmup's last window holds some hundreds of
	// draws, so its variances are within about 20% of the truth.
	laplaceMisfit = 2
	// malaMinAccept is the MALA pilot's acceptance under which the Laplace
	// fit is taken as poor whatever the variances: the plan's MALA aims at
	// MALAAccept, and a pilot far below it found no step that the
	// posterior's shape allows.
	malaMinAccept = 0.2
	// nutsPilotWarmup is the transitions of the one NUTS warmup that
	// decides: Stan's short-warmup schedule gives it one metric window of
	// 225 transitions, whose variances are within about 20% at the
	// hundreds of effective draws NUTS takes there. Only a chosen NUTS
	// warms up every chain in full.
	nutsPilotWarmup = 300
)

// oneModePlan chooses between the log-concave plan at the one mode s found
// and NUTS.
func oneModePlan(m Model, s *modes.ModeSearch, seed uint64, ids []int, status *Status) (ChainPlan, string, error) {
	mode := s.Modes[0]
	lc, lerr := newLogConcaveAt(m.Terms, mode.Theta, mode.H, seed, status)
	if lerr == nil {
		lc.dispersed = true
	}
	oneNote := s.Line() + ": one chain per --chains, no hot chain, which could only idle (for a ladder, give --method fresgld)"
	if lerr == nil && lc.Choice.CV {
		// Control variates on minibatches cost less than a full pass a
		// step, which NUTS takes at every leapfrog step.
		return lc, oneNote, nil
	}
	if err := status.Stopped(); err != nil {
		return nil, "", err
	}
	status.Set("a NUTS pilot (%d warmup transitions) against MALA at the mode's Hessian", nutsPilotWarmup)
	inv := laplaceMetric(mode.H, m.Terms.Dim() <= nutsDenseMax)
	// The pilot starts at the mode: it measures the posterior's spread
	// there, and a far start's transient would fill its one short window
	// (from θ = 0 on a regression on heights, 628 times the variance).
	cfg := nutsConfig(m.Terms.Dim(), inv, status)
	cfg.Stop = status.Stop()
	cfg.Progress = warmupProgress(status, 1, nutsPilotWarmup, "a NUTS pilot against MALA at the mode's Hessian")
	pilot := warmUp(m.Terms, cfg, nutsPilotWarmup, exchange.ChainSeed(seed, 0), nil, nil, mode.Theta)
	if err := status.Stopped(); err != nil {
		return nil, "", err // the pilot, cut short, decides nothing
	}
	if err := modelFailure(m.Terms); err != nil {
		return nil, "", err // not the posterior's shape: see modelFailure
	}
	// nuts runs NUTS, its warmups starting from the inverse metric inv.
	// Where the Laplace fit is poor, they start from the identity, as
	// Stan's: each metric window is estimated from draws made under the
	// last one, so a start narrower than the posterior can stay narrow.
	// On posteriordb's one_comp_mm_elim_abs, whose K_m has a heavy tail
	// along a ridge, warmups from the inverse Hessian gave K_m an sd of
	// 0.41–0.45 of the reference on 3 seeds, 2 of them with no divergence
	// and no warning; from the identity, 0.54 and 0.91 with divergences,
	// and a chain lost up the ridge on the third.
	nuts := func(why string, inv []float64) (ChainPlan, string, error) {
		if err := status.Stopped(); err != nil {
			return nil, "", err
		}
		np, err := NewNUTSPlan(m.Terms, ids, seed, m.Init, mode.Theta, inv, why, status)
		if serr := status.Stopped(); err != nil && serr != nil {
			// Interrupted, not failed: no fallback to MALA, which ran its
			// chains, on the stopped context, with a burn-in of −2⁶³.
			return nil, "", serr
		}
		if merr := modelFailure(m.Terms); err != nil && merr != nil {
			return nil, "", merr
		}
		if err != nil && lerr == nil {
			return lc, oneNote + "; NUTS failed: " + err.Error(), nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("%w; and NUTS: %w", lerr, err)
		}
		return np, oneNote, nil
	}
	switch {
	case pilot.err != nil && lerr != nil:
		return nil, "", fmt.Errorf("%w; and NUTS: %w", lerr, pilot.err)
	case pilot.err != nil:
		return lc, oneNote + "; NUTS was not tried: its pilot failed: " + pilot.err.Error(), nil
	case lerr != nil:
		return nuts("MALA at the mode failed: "+lerr.Error(), inv)
	}
	// MALA's τ_int from the rate of its slowest direction assumes the
	// Laplace fit; below 1 (an antithetic step on a Gaussian) it is taken
	// as 1, a gradient an effective draw, which no other target grants.
	_, _, malaIAT := lc.RunLength(PlanKeep)
	malaIAT = max(malaIAT, 1)
	misfit, worst := laplaceFit(pilot.variances(), mode.H)
	name := fmt.Sprintf("coordinate %d", worst+1)
	if m.Names != nil {
		name = m.Names[worst]
	}
	nutsCost := meanLeapfrogs(pilot.stats.Trace) * nutsIAT
	costs := fmt.Sprintf("gradients per effective draw: NUTS about %.3g, MALA at the mode's Hessian about %.3g", nutsCost, malaIAT)
	switch {
	case !(lc.Accept >= malaMinAccept):
		return nuts(fmt.Sprintf("chosen over MALA at the mode's Hessian, whose pilot accepted %.2f of its proposals (the Laplace fit is poor)", lc.Accept), nil)
	case !(misfit <= laplaceMisfit):
		return nuts(fmt.Sprintf("chosen over MALA at the mode's Hessian: the Laplace fit is poor, NUTS's pilot found %s's variance %.3g times the inverse Hessian's", name, misfit), nil)
	case nutsCost < malaIAT:
		return nuts("chosen over MALA at the mode's Hessian, "+costs, inv)
	}
	lc.why = fmt.Sprintf("; chosen over NUTS: the Laplace fit is good (variances within %.2g× of NUTS's pilot's), %s", misfit, costs)
	return lc, oneNote, nil
}

// laplaceFit is the largest ratio, either way, of the variances v to the
// diagonal of H⁻¹, and the coordinate where it is; +Inf where H is not
// positive definite, NaN where a variance is.
func laplaceFit(v []float64, h *mat.SymDense) (float64, int) {
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return math.Inf(1), 0
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return math.Inf(1), 0
	}
	worst, at := 1.0, 0
	for j, vj := range v {
		r := vj / inv.At(j, j)
		if math.IsNaN(r) {
			return r, j
		}
		r = max(r, 1/r)
		if r > worst {
			worst, at = r, j
		}
	}
	return worst, at
}

// modelFailure is the failure a model that keeps one has had (a model
// process or a Stan model, whose Err holds it; from then on it answers
// NaN), nil for one that works or has no such record. A pilot that failed
// on those NaNs says "no step size is small enough; the posterior may not
// be continuous" of a model that hung or crashed, and the plan would go on
// to sample with the pilot's rival: the model's failure is the error.
func modelFailure(t energy.Terms) error {
	if f, ok := t.(interface{ Err() error }); ok {
		return f.Err()
	}
	return nil
}
