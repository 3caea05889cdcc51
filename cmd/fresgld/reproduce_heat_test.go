package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The study runs end to end at a smoke size: every method, the tables and
// both figures.
func TestReproduceHeatSmoke(t *testing.T) {
	docs := docsSnapshot(t)
	err := run(t, "reproduce", "heat", "--seeds", "2", "--keep", "200", "--early", "100", "--burn", "10",
		"--grid", "100", "--error-grid", "8")
	if err != nil {
		t.Fatal(err)
	}
	docs.untouched(t)
	res := filepath.Join("out", "heat")
	for _, f := range []string{"heat-100.png", "heat-100.svg", "heat-200.png", "heat-200.svg",
		"heat-fidelity.md", "heat-table.md", "heat-runs.csv"} {
		if st, err := os.Stat(filepath.Join(res, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
	table, _ := os.ReadFile(filepath.Join(res, "heat-table.md"))
	for _, want := range []string{"| s-reSGLD | 200 |", "| f-reSGLD | 100 |", "| l-reSGLD | 200 |", "| exact (independent draws) | 200 |"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(string(table), "NaN") {
		t.Errorf("table has NaN:\n%s", table)
	}
	runs, _ := os.ReadFile(filepath.Join(res, "heat-runs.csv"))
	if n := strings.Count(string(runs), "\n"); n != 1+3*2*2 {
		t.Errorf("heat-runs.csv has %d lines, want %d", n, 1+3*2*2)
	}
}

// f-reSGLD also runs with the running-average variance estimate.
func TestReproduceHeatRunningVariance(t *testing.T) {
	dir := t.TempDir()
	err := run(t, "reproduce", "heat", "--seeds", "1", "--keep", "300", "--early", "300", "--burn", "0",
		"--grid", "50", "--error-grid", "2", "--variance", "running", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	table, _ := os.ReadFile(filepath.Join(dir, "heat-table.md"))
	if !strings.Contains(string(table), "| f-reSGLD | 300 |") || strings.Contains(string(table), "NaN") {
		t.Errorf("table:\n%s", table)
	}
}

func TestReproduceHeatBadSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "0"}, "--seeds = 0"},
		{[]string{"--keep", "100", "--early", "200"}, "--early = 200"},
		{[]string{"--grid", "75"}, "--grid = 75"},
		{[]string{"--fine-n", "2"}, "grid too small: N = 2"},
		{[]string{"--coarse-steps", "0"}, "time steps = 0"},
		{[]string{"--variance", "magic"}, `--variance "magic"`},
		{[]string{"--eta", "-1"}, "--eta = -1"},
		{[]string{"--eta", "NaN"}, "--eta = NaN"},
		{[]string{"--tau1", "0"}, "--tau1 = 0"},
		{[]string{"--tau2", "0.01"}, "--tau2 = 0.01: must exceed --tau1 = 0.08"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		err := run(t, append([]string{"reproduce", "heat", "--out", dir}, c.args...)...)
		if _, serr := os.Stat(dir); serr == nil {
			t.Errorf("%v: --out created before the flags were checked", c.args)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}
