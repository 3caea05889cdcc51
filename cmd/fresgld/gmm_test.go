package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/results"
)

func TestGMMEndToEnd(t *testing.T) {
	for _, m := range []string{"sgld", "resgld", "mresgld", "fresgld"} {
		out := t.TempDir()
		if err := run(t, "gmm", "--method", m, "--chains", "2", "--keep", "500", "--burn", "100", "--thin", "2", "--out", out, "--seed", "3"); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		files := []string{"chain-1.csv", "chain-2.csv", "summary.json", "summary.txt", "density.png", "density.svg", "trace.svg", "ranks.svg", "marginals.svg", "report.html"}
		figs := []string{`id="fig-density"`, `id="fig-trace"`, `id="fig-ranks"`, `id="fig-marginals"`}
		if m != "sgld" { // a ladder: which replica sits where
			files, figs = append(files, "replicas.svg"), append(figs, `id="fig-replicas"`)
		} else if _, err := os.Stat(filepath.Join(out, "replicas.svg")); err == nil {
			t.Errorf("%s: a replicas figure of one level", m)
		}
		for _, f := range files {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %s missing or empty", m, f)
			}
		}
		// The report holds the table's rows and every figure the run drew.
		page, _ := os.ReadFile(filepath.Join(out, "report.html"))
		for _, s := range append([]string{`<td class="name">theta1</td>`, `<td class="name">lp__</td>`}, figs...) {
			if !strings.Contains(string(page), s) {
				t.Errorf("%s: report.html lacks %s", m, s)
			}
		}
		var sum struct {
			Draws   int                `json:"draws_per_chain"`
			Chains  []int              `json:"chains"`
			Metrics map[string]float64 `json:"metrics"`
			Stats   struct {
				Pairs []struct {
					Accepts int `json:"accepts"`
				} `json:"pairs"`
			} `json:"stats"`
		}
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatalf("%s: summary: %v", m, err)
		}
		if sum.Draws != 500 || len(sum.Chains) != 2 || math.IsNaN(sum.Metrics["tv"]) || math.IsNaN(sum.Metrics["w1"]) {
			t.Errorf("%s: summary %+v", m, sum)
		}
		c, err := results.ReadStanCSV(filepath.Join(out, "chain-2.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Cols[0]) != 500 || c.Header.ID != 2 || c.Stats.Steps != 1100 {
			t.Errorf("%s: chain-2.csv has %d draws of %d steps, id %d; want 500 of 1100, id 2", m, len(c.Cols[0]), c.Stats.Steps, c.Header.ID)
		}
	}
}

func TestGMMNoSwapAttempts(t *testing.T) {
	// a·η so small that no swap is attempted: the summary must still be
	// valid JSON (no NaN rate).
	out := t.TempDir()
	mustRun(t, "gmm", "--swap-a", "1e-9", "--chains", "1", "--keep", "100", "--burn", "0", "--thin", "1", "--out", out)
	var sum struct {
		Swaps []results.PairRow `json:"swap_acceptance"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Swaps) != 1 || sum.Swaps[0].Rate != nil || sum.Swaps[0].Attempts != 0 {
		t.Errorf("summary swaps %+v, error %v; want one pair, rate null", sum.Swaps, err)
	}
}

func TestGMMBadSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "hmc"}, `unknown method "hmc"`},
		{[]string{"--tau2", "0.5"}, "--tau2 = 0.5: must exceed --tau1 = 1"},
		{[]string{"--eta", "0"}, "--eta = 0"},
		{[]string{"--eta", "NaN"}, "--eta = NaN"},
		{[]string{"--tau1", "Inf"}, "--tau1 = +Inf"},
		{[]string{"--swap-a", "-2"}, "--swap-a = -2"},
		{[]string{"--swap-a", "100"}, "--swap-a = 100: a·η = 3 exceeds 1"},
		{[]string{"--a1", "NaN"}, "--a1 = NaN"},
		{[]string{"--a1", "2"}, "--a1 = 2"},
		{[]string{"--variance", "magic"}, `--variance "magic"`},
		{[]string{"--variance", "running", "--repeats", "1"}, "--repeats = 1"},
		{[]string{"--keep", "0"}, "--keep = 0"},
		{[]string{"--thin", "0"}, "--thin = 0"},
		{[]string{"--burn", "-1"}, "--burn = -1"},
		{[]string{"--keep", "2000000000"}, "--keep = 2000000000"},
		{[]string{"--levels", "1"}, "--levels = 1"},
		{[]string{"--decay-gamma", "1.5"}, "--decay-gamma = 1.5"},
		{[]string{"--decay-gamma", "0.5", "--decay-b", "0"}, "--decay-b = 0"},
		{[]string{"--chains", "0"}, "--chains = 0"},
		{[]string{"--chain", "-1"}, "--chain = -1"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		err := run(t, append([]string{"gmm", "--out", out}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
		// Checked before any work: nothing was written, not even --out.
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: --out was created before the flags were checked", c.args)
		}
	}
}

// TestGMMDivergence: a step size far beyond the curvature makes every chain
// blow up; the run keeps each chain's draws, reports it on stderr and in
// summary.json, and fails.
func TestGMMDivergence(t *testing.T) {
	// --eta 5 is refused before sampling (stepStability); this test is of
	// what a run does when its chains diverge all the same.
	checkStepStability = false
	t.Cleanup(func() { checkStepStability = true })
	out := t.TempDir()
	err := run(t, "gmm", "--eta", "5", "--chains", "2", "--keep", "1000", "--burn", "0", "--thin", "1", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "chain 1 of 2 stopped after") {
		t.Fatalf("error %v, want one saying chain 1 stopped", err)
	}
	var sum results.Summary
	readSummaryInto(t, out, &sum)
	if len(sum.Stopped) != 2 || sum.Draws == 0 || len(sum.Warnings) == 0 {
		t.Errorf("summary: %d chains stopped, %d draws, warnings %q", len(sum.Stopped), sum.Draws, sum.Warnings)
	}
	for _, l := range sum.Clamped {
		if !(l.Share <= 1) {
			t.Errorf("level %d: clamped share %v", l.Level, l.Share)
		}
	}
	c, err := results.ReadStanCSV(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Stats.Stopped == "" || len(c.Cols[0]) == 0 {
		t.Errorf("chain-1.csv: stopped %q with %d draws", c.Stats.Stopped, len(c.Cols[0]))
	}
}

func TestGMMLadderAuto(t *testing.T) {
	out := t.TempDir()
	if err := run(t, "gmm", "--levels", "auto", "--swaps", "deo", "--window", "2", "--auto-rounds", "2", "--auto-first", "100",
		"--keep", "200", "--burn", "0", "--thin", "2", "--chains", "2", "--out", out); err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Ladders []struct {
			Taus       []float64  `json:"taus"`
			Scheme     string     `json:"scheme"`
			Rejection  []*float64 `json:"rejection"`
			Lambda     float64    `json:"lambda"`
			RoundTrips int        `json:"round_trips"`
			Tuning     struct {
				Rounds []struct {
					Steps int `json:"steps"`
				} `json:"rounds"`
			} `json:"tuning"`
		} `json:"ladders"`
	}
	readSummaryInto(t, out, &sum)
	if len(sum.Ladders) != 2 {
		t.Fatalf("%d ladders in the summary, want one per chain (2)", len(sum.Ladders))
	}
	lines := 1
	for _, L := range sum.Ladders {
		if L.Scheme != "deo" || len(L.Tuning.Rounds) != 2 || L.Tuning.Rounds[1].Steps != 200 || len(L.Rejection) != len(L.Taus)-1 ||
			L.Taus[0] != 1 || L.Taus[len(L.Taus)-1] != 10 || !(L.Lambda > 0) {
			t.Errorf("ladder summary %+v", L)
		}
		lines += len(L.Tuning.Rounds) + 1
	}
	csv, _ := os.ReadFile(filepath.Join(out, "rounds.csv"))
	if n := strings.Count(string(csv), "\n"); n != lines {
		t.Errorf("rounds.csv has %d lines, want %d: a header, then each chain's rounds and its sampling run", n, lines)
	}
	for _, f := range []string{"ladder-trace.png", "ladder-trace.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty", f)
		}
	}
}

func TestGMMLadderBadSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--swaps", "odd"}, `--swaps: unknown swap scheme "odd"`},
		{[]string{"--swaps", "deo", "--window", "0"}, "--window = 0"},
		{[]string{"--window", "3"}, "--window = 3"},
		{[]string{"--swaps", "deo", "--swap-a", "1"}, "--swap-a = 1"},
		{[]string{"--levels", "many"}, `--levels "many"`},
		{[]string{"--levels", "auto", "--method", "sgld"}, "--levels auto"},
		{[]string{"--levels", "auto", "--auto-rounds", "0"}, "--auto-rounds = 0"},
		{[]string{"--levels", "auto", "--auto-levels", "1"}, "--auto-levels = 1"},
		{[]string{"--levels", "auto", "--max-levels", "3"}, "--max-levels = 3"},
	} {
		err := run(t, append([]string{"gmm", "--out", t.TempDir()}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// TestGMMLadderWarning: two levels at τ = 1 and 100 on the mixture reject
// nearly every swap; the run says so, with the number and a remedy, on
// stderr and in summary.json.
func TestGMMLadderWarning(t *testing.T) {
	out := t.TempDir()
	mustRun(t, "gmm", "--tau2", "100", "--keep", "500", "--burn", "100", "--thin", "2", "--chains", "1", "--out", out)
	var sum struct {
		Warnings []string `json:"warnings"`
	}
	readSummaryInto(t, out, &sum)
	found := false
	for _, w := range sum.Warnings {
		found = found || (strings.Contains(w, "levels 1–2 (τ = 1, 100) rejected") && strings.Contains(w, "--levels auto"))
	}
	if !found {
		t.Errorf("no warning about the rejecting pair in %q", sum.Warnings)
	}
}
