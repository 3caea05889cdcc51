package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The default logistic run is the log-concave plan: one chain per
// --chains, no swaps, the sampler and why in one line, the note on the
// ladder; flags it would ignore are refused.
func TestLogisticAuto(t *testing.T) {
	out := t.TempDir()
	table, err := stdoutOf(t, "logistic", "--data", smallCSV(t), "--label", "y", "--chains", "2", "--keep", "500", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sampler: full-data gradients with a Metropolis correction (MALA), preconditioned by the Hessian at the mode", "note: one chain per --chains, no hot chain", "--method fresgld", "Metropolis acceptance: level 1 0."} {
		if !strings.Contains(table, want) {
			t.Errorf("output lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "swap acceptance") {
		t.Errorf("a single chain reports swaps:\n%s", table)
	}
	b := readFile(t, filepath.Join(out, "summary.json"))
	var sum struct {
		Settings struct {
			Method     string  `json:"method"`
			Eta        float64 `json:"eta"`
			Burn, Thin int
		} `json:"settings"`
		StepRule string `json:"step_rule"`
		RunRule  string `json:"run_length_rule"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Settings.Method != "auto" || !(sum.Settings.Eta > 0) || sum.Settings.Burn < 1 || sum.Settings.Thin < 1 || !strings.Contains(sum.StepRule, "MALA") || !strings.Contains(sum.RunRule, "Hessian at the mode is I") {
		t.Errorf("summary: %+v", sum)
	}
	for _, bad := range [][]string{{"--eta", "0.1"}, {"--batch", "50"}, {"--levels", "3"}, {"--tau2", "8"}} {
		err := run(t, append([]string{"logistic", "--data", smallCSV(t), "--label", "y", "--out", t.TempDir()}, bad...)...)
		if err == nil || !strings.Contains(err.Error(), "--method auto (the default)") || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: error %v", bad, err)
		}
	}
}
