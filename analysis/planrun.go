package analysis

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/progress"
)

// ladderSettings are the settings of the ladders and minibatch samplers
// that a planned run does not read.
var ladderSettings = []string{"tau2", "levels", "correction", "hot_batch", "hot_batch_automatic", "hot_share", "swap_probability_per_step", "swap_energies", "exact_every", "swap_pilot", "swap_noise_cap", "swap_batch", "cycle", "cycle_automatic", "explore", "batch", "batch_automatic"}

// planSettings drops from a planned run's settings those it does not read,
// so that its chain CSVs describe the run they hold.
func planSettings(s [][2]string) [][2]string {
	return slices.DeleteFunc(slices.Clone(s), func(kv [2]string) bool { return slices.Contains(ladderSettings, kv[0]) })
}

// planDefaults fills in o's automatic values from m's plan: the
// log-concave plan (LogConcave) for a model that finds its own mode (a
// PlanModel, whose posterior is log-concave), else the mode search's
// (ModePlan). It records the rules and the lines that say them in res.
//
// ctx cancelled (SIGINT, SIGTERM) stops the plan within a step of
// whichever stage it is in, with ErrInterrupted.
func planDefaults(ctx context.Context, m plan.Model, o *Options, res *Result) (plan.ChainPlan, error) {
	N, p := m.Terms.Len(), m.Terms.Dim()
	if err := heldDraws(o.Keep, p, len(o.Chains), N); err != nil {
		return nil, err
	}
	// A plan that takes longer than progress.FirstLine (a model in another
	// process, a slow one) says so, as sampling's progress does, and then
	// what it is doing every progress.LineEvery.
	status := plan.NewStatus(ctx, o.AdaptDelta)
	began := time.Now()
	if o.Progress != nil {
		defer reportPlan(status, o.Progress, o.Command)()
	}
	var cp plan.ChainPlan
	var note string
	var err error
	if o.NUTS {
		cp, err = plan.NewNUTSPlan(m.Terms, o.Chains, o.Seed, m.Init, nil, nil, "--method nuts", status)
		note = "one chain per --chains, each after its own warmup; no mode search (--method nuts)"
	} else {
		cp, note, err = plan.PlanFor(m, o.Seed, o.Levels == 1, o.Chains, status)
	}
	if err != nil {
		return nil, err
	}
	o.Eta = cp.Step()
	if lc, ok := cp.(*plan.LogConcave); ok {
		o.Batch = lc.Choice.Batch
	}
	burn, thin, iat := cp.RunLength(o.Keep)
	res.StepRule = cp.Note()
	res.RunRule = fmt.Sprintf("in the coordinates where the Hessian at the mode is I: ρ = 1 − %.4g, τ_int = %.4g steps, starts within %.3g posterior sds of the mode: burn %d, thin %d for bulk ESS ≈ %d per chain", cp.Rate(), iat, cp.StartDistance(), burn, thin, plan.PlanESS)
	if r, ok := cp.(runRuler); ok {
		res.RunRule = r.RunRuleLine(burn, thin, iat)
	}
	if _, ok := cp.(*plan.ModePlan); ok {
		res.RunRule = fmt.Sprintf("τ_int = %.4g steps, from the pilot's %d chains of %d steps (the slowest coordinate or generated quantity): burn %d, at least two τ_int, thin %d for bulk ESS ≈ %d per chain", iat, plan.PilotChains, plan.PilotSteps, burn, thin, plan.PlanESS)
	}
	res.Notes = []string{"sampler: " + cp.Note(), "note: " + note}
	res.SDBias = cp.SDBias()
	res.Plan = plan.Summarize(cp)
	if ms := status.Searched(); ms != nil {
		res.Plan.Search = ms
		res.Notes = append(res.Notes, "search: "+ms.Searched)
	}
	keep, th := o.Keep, o.Thin
	if th == 0 {
		th = thin
	}
	b := o.Burn
	if b == Auto {
		b = burn
	}
	if c := plan.Cost(cp, time.Since(began), len(o.Chains), b, keep, th); c != nil {
		res.Plan.Cost = c
		if mp, ok := cp.(*plan.MixturePlan); ok && o.Progress != nil {
			// Before the first draw: what the pilot decided, and what it
			// will cost.
			fmt.Fprintf(o.Progress, "%s: planned in %s: τ_int = %.3g sweeps, so %d chain(s) × (burn %d + %d × thin %d) sweeps at the pilot's %.3g s a sweep: about %s\n",
				o.Command, time.Since(began).Round(time.Second), iat, len(o.Chains), b, keep, th, mp.StepSeconds(), time.Duration(c.RunSeconds*float64(time.Second)).Round(time.Second))
		}
		if c.Why != "" {
			// Said before the first draw, not only in the notes after.
			res.Notes = append(res.Notes, "plan cost: "+c.Why)
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "%s: plan cost: %s\n", o.Command, c.Why)
			}
		}
	}
	if o.Burn == Auto {
		o.Burn = burn
	}
	if o.Thin == 0 {
		o.Thin = thin
	}
	return cp, o.runSize(p)
}

// runRuler is a plan that says its own run-length rule (MixturePlan).
type runRuler interface {
	RunRuleLine(burn, thin int, iat float64) string
}

// reportPlan writes "<command>: planning the run: <status> (started …
// ago)" to w after progress.FirstLine and then every progress.LineEvery, until the returned
// stop is called.
func reportPlan(s *plan.Status, w io.Writer, command string) (stop func()) {
	start, done, finished := time.Now(), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		wait := progress.FirstLine
		for {
			select {
			case <-done:
				return
			case <-time.After(wait):
			}
			fmt.Fprintf(w, "%s: planning the run: %s (started %s ago)\n", command, s.Now(), time.Since(start).Round(time.Second))
			wait = progress.LineEvery
		}
	}()
	return func() { close(done); <-finished }
}

// AutoMethod is Options.Method for the plan: for a log-concave posterior
// whose model finds its mode (a PlanModel, as models.Logistic is), one
// preconditioned chain per requested chain on the gradients GradRule picks
// (LogConcave); for any other model, the modes a search finds and a
// preconditioned MALA chain, or a ladder of them where a barrier between
// the modes needs one (ModePlan).
const AutoMethod exchange.Method = "auto"
