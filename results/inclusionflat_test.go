package results

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
)

// An inclusion probability strictly between 0 and 1 that is one number in
// every draw is the prior's, not the data's: logistic --prior spike-slab
// --no-standardize on features ×1e100 gave 0.0196 for every coefficient,
// equal to the reference, with no warning and a trusted verdict. The
// warning names the remedy the command has; an inclusion of 1 in every
// draw (a coefficient the data fix in the slab) is no such case.
func TestWarnsOfInclusionFixedByThePrior(t *testing.T) {
	row := func(name string, mean, sd float64) ParamRow {
		return ParamRow{Name: name, Summary: diag.Summary{Mean: mean, SD: sd, Rhat: 1, ESSBulk: 4000}}
	}
	s := Summary{Command: "logistic", Parameters: []ParamRow{
		row("x1", 2e-100, 3e-101), row("inclusion_x1", 0.0196, 0), row("inclusion_x2", 0.0196, 0), row("inclusion_x3", 1, 0), row("inclusion_x4", 0.3, 0.2),
	}}
	find := func(ws []Warning) *Warning {
		for i := range ws {
			if ws[i].Code == "inclusion-flat" {
				return &ws[i]
			}
		}
		return nil
	}
	w := find(chainWarnings(s, remediesFor("logistic", [][2]string{{"no_standardize", "true"}}), false))
	if w == nil || !strings.Contains(w.Message, "2 coefficient(s) (x1, x2) is 0.0196 in every draw") || !strings.Contains(w.Message, "drop --no-standardize") {
		t.Errorf("logistic --no-standardize: warning %+v", w)
	}
	s.Command = "regress"
	w = find(chainWarnings(s, remediesFor("regress", nil), false))
	if w == nil || strings.Contains(w.Message, "--no-standardize") || !strings.Contains(w.Message, "--spike-sd") {
		t.Errorf("regress (which has no --no-standardize): warning %+v", w)
	}
	s.Parameters = s.Parameters[3:]
	if w := find(chainWarnings(s, remediesFor("regress", nil), false)); w != nil {
		t.Errorf("an inclusion of 1 in every draw warned: %+v", w)
	}
}
