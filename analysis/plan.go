package analysis

import (
	"fmt"

	"github.com/fresgld/fresgld/exchange"
)

// AutoMethod is Options.Method for the plan of a log-concave posterior
// (LogConcave): one preconditioned chain per requested chain, on the
// gradients GradRule picks, with no ladder. The model's Terms must be a
// PlanModel (models.Logistic is).
const AutoMethod exchange.Method = "auto"

// PlanMaxDim is the most coordinates the log-concave plan takes: its
// preconditioner is a dense p×p factor, p² a step and p³ to find, which
// at p = 1000 already matches a full pass over 10⁴ examples a step. Above
// it, AutoMethod runs the corrected chain (exchange.CorrectedMethod).
const PlanMaxDim = 1000

// planDefaults fills in o's automatic values from the log-concave plan of
// m: the step and minibatch the plan chose, and the run length in the
// coordinates where the Hessian at the mode is I. It records the rules and
// the lines that say them in res.
func planDefaults(m Model, o *Options, res *Result) (*LogConcave, error) {
	N, p := m.Terms.Len(), m.Terms.Dim()
	pm, ok := m.Terms.(PlanModel)
	if !ok {
		return nil, fmt.Errorf("--method auto: the model (%T) has no mode finder for the log-concave plan; give a --method", m.Terms)
	}
	if err := heldDraws(o.Keep, p, len(o.Chains), N); err != nil {
		return nil, err
	}
	plan, err := NewLogConcave(pm, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("default sampler: %w (give a --method and --eta)", err)
	}
	burn, thin, iat := plan.RunLength(o.Keep)
	res.StepRule = plan.Note()
	res.RunRule = fmt.Sprintf("in the coordinates where the Hessian at the mode is I: ρ = 1 − %.4g, τ_int = %.4g steps, starts within %.3g posterior sds of the mode: burn %d, thin %d for bulk ESS ≈ %d per chain", plan.Rate(), iat, plan.StartDistance(), burn, thin, PlanESS)
	res.Notes = []string{"sampler: " + plan.Note(), "note: " + SingleChainNote}
	if o.Burn == Auto {
		o.Burn = burn
	}
	if o.Thin == 0 {
		o.Thin = thin
	}
	o.Eta, o.Batch = plan.Eta, plan.Choice.Batch
	return plan, o.runSize(p)
}
