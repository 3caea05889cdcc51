package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// separableCSV writes data that a line separates exactly: x1 < −1 for every
// 0 label and x1 > 1 for every 1, x2 noise.
func separableCSV(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("x1,x2,y\n")
	for i := range 200 {
		y := i % 2
		x1 := (1 + rng.Float64()) * float64(2*y-1)
		fmt.Fprintf(&b, "%.4f,%.4f,%d\n", x1, rng.NormFloat64(), y)
	}
	return writeFile(t, "separable.csv", b.String())
}

// Each garbage-producing setting is caught by its warning, on stderr and in
// the summary (others may join it: a clamped chain's coefficients can be
// implausible too); the default run on the same data raises none of the
// command's own checks, so a check that fires always would fail here. (The
// default runs do clamp some steps, more than the summary's 1%, so the
// clamp warning is only required, not excluded; TestWarnings checks its
// threshold both ways.)
func TestLogisticWarnings(t *testing.T) {
	wdbc := dataFile(t, "wdbc.csv")
	sep := separableCSV(t)
	short := []string{"--burn", "1000", "--keep", "1000", "--thin", "2", "--chains", "2"}
	cases := []struct {
		name string
		args []string
		want string // "" for none of the checks below
	}{
		{"default wdbc", []string{"--data", wdbc, "--label", "benign"}, ""},
		{"eta 0.5", []string{"--data", wdbc, "--label", "benign", "--method", "fresgld", "--eta", "0.5"}, "of steps clamped"},
		{"raw features", []string{"--data", wdbc, "--label", "benign", "--method", "fresgld", "--no-standardize"}, "the chain is stuck"},
		{"default separable", []string{"--data", sep, "--label", "y"}, ""},
		{"separable, wide prior", []string{"--data", sep, "--label", "y", "--prior-sd", "1e6"}, "far beyond any plausible effect"},
	}
	checks := []string{"of steps clamped", "the chain is stuck", "has not settled", "far beyond any plausible effect"}
	for _, c := range cases {
		out := t.TempDir()
		var stderr bytes.Buffer
		rootCmd.SetErr(&stderr)
		err := run(t, append(append([]string{"logistic", "--out", out}, short...), c.args...)...)
		rootCmd.SetErr(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var sum struct {
			Warnings []string `json:"warnings"`
		}
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatalf("%s: summary: %v", c.name, err)
		}
		all := strings.Join(sum.Warnings, "\n")
		for _, chk := range checks {
			got := strings.Contains(all, chk)
			if c.want == "" && got && chk != checks[0] {
				t.Errorf("%s: warning %q on a sound run; warnings:\n%s", c.name, chk, all)
			}
			if chk == c.want && !got {
				t.Errorf("%s: no warning %q; warnings:\n%s", c.name, chk, all)
			}
		}
		if c.want != "" && !strings.Contains(stderr.String(), "warning: ") {
			t.Errorf("%s: no warning on stderr:\n%s", c.name, stderr.String())
		}
	}
}
