package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
)

// TestLogisticRunLength checks the command's wiring of the rule: with
// --burn and --thin auto, the run uses plan.RunLengthFor at the run's own η and
// n, λ_min of the Hessian at the mode and D² = 2(U(0) − U(mode)), all
// recomputed here from the data as the command prepares them (standardised,
// intercept, σ₀ = 1); with --thin given, that thin and the rule's burn.
func TestLogisticRunLength(t *testing.T) {
	data := smallCSV(t)
	d, err := dataset.ReadFile(data, dataset.Options{Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	x, p := d.TakeWithIntercept()
	lr, err := models.NewLogistic(x, d.Y, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	mode, lmin, _, err := mala.Curvature(lr, make([]float64, p))
	if err != nil {
		t.Fatal(err)
	}
	dist := math.Sqrt(2 * (lr.U(make([]float64, p)) - lr.U(mode)))
	for _, c := range []struct {
		args []string
		thin int // 0: the rule's
	}{{nil, 0}, {[]string{"--thin", "3"}, 3}} {
		out := t.TempDir()
		args := append([]string{"logistic", "--data", data, "--label", "y", "--method", "sgld", "--chains", "1", "--keep", "40", "--out", out}, c.args...)
		mustRun(t, args...)
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		var s struct {
			Settings struct {
				Eta               float64
				Batch, Burn, Thin int
				BurnAuto          bool `json:"burn_automatic"`
				ThinAuto          bool `json:"thin_automatic"`
			} `json:"settings"`
			Rule string `json:"run_length_rule"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		r, ok := plan.RunLengthFor(s.Settings.Eta, lmin, dist, 40, s.Settings.Batch, p)
		if !ok || r.Capped {
			t.Fatalf("rule %+v, ok %v: the test wants a run within the budget", r, ok)
		}
		wantThin := r.Thin
		if c.thin > 0 {
			wantThin = c.thin
		}
		if s.Settings.Burn != r.Burn || s.Settings.Thin != wantThin || !s.Settings.BurnAuto || s.Settings.ThinAuto != (c.thin == 0) || s.Rule == "" {
			t.Errorf("%v: burn %d thin %d (automatic %v, %v), want %d, %d from the rule %q", c.args, s.Settings.Burn, s.Settings.Thin, s.Settings.BurnAuto, s.Settings.ThinAuto, r.Burn, wantThin, s.Rule)
		}
	}
}
