package analysis

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// setRunLength fills in the automatic burn and thin from the curvature at
// the mode: the note for the summary and, when the budget cut the run, the
// warning.
func (o *Options) setRunLength(m plan.Model, curv plan.Curvature) (note string, warn *results.Warning) {
	p := m.Terms.Dim()
	r, ok := plan.RunLength{}, false
	need := "λ_min at the mode and "
	switch {
	case curv.Dist > 0: // the model knows the start's distance: no mode needed
		need = ""
		r, ok = plan.RunLengthFor(o.Eta, curv.Lmin, curv.Dist, o.Keep, o.Batch, p)
	case curv.Mode != nil && curv.Lmin > 0:
		u := energyOf(m.Terms)
		dist := math.Sqrt(max(0, 2*(u(make([]float64, p))-u(curv.Mode))))
		r, ok = plan.RunLengthFor(o.Eta, curv.Lmin, dist, o.Keep, o.Batch, p)
	}
	burnAuto, thinAuto := o.Burn == Auto, o.Thin == 0
	if !ok {
		if burnAuto {
			o.Burn = plan.FallbackBurn
		}
		if thinAuto {
			o.Thin = plan.FallbackThin
		}
		return fmt.Sprintf("fixed burn %d, thin %d: the rule needs %s0 < ηλ_min < 1 (λ_min = %.4g, η = %.4g)", o.Burn, o.Thin, need, curv.Lmin, o.Eta), nil
	}
	switch {
	case burnAuto && thinAuto:
		o.Burn, o.Thin = r.Burn, r.Thin
		if msg := r.Warning(o.Keep); msg != "" {
			warn = &results.Warning{Code: "run-length", Message: msg, Number: r.ESS, Remedy: fmt.Sprintf("give --burn %d --thin %d", r.NeedBurn, r.NeedThin)}
		}
	case burnAuto:
		o.Burn = r.NeedBurn
	default:
		o.Thin = r.NeedThin
	}
	return r.Note() + fmt.Sprintf("; running burn %d, thin %d", o.Burn, o.Thin), warn
}
