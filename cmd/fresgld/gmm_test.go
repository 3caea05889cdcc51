package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGMMEndToEnd(t *testing.T) {
	for _, m := range []string{"sgld", "resgld", "mresgld", "fresgld"} {
		out := t.TempDir()
		if err := run(t, "gmm", "--method", m, "--keep", "500", "--burn", "100", "--thin", "2", "--out", out, "--seed", "3"); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for _, f := range []string{"samples.csv", "swaps.csv", "summary.json", "density.png", "density.svg"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %s missing or empty", m, f)
			}
		}
		var sum struct {
			Samples int                `json:"samples"`
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
		if sum.Samples != 500 || math.IsNaN(sum.Metrics["tv"]) || math.IsNaN(sum.Metrics["w1"]) {
			t.Errorf("%s: summary %+v", m, sum)
		}
		swaps, _ := os.ReadFile(filepath.Join(out, "swaps.csv"))
		accepts := 0
		for _, p := range sum.Stats.Pairs {
			accepts += p.Accepts
		}
		if n := strings.Count(string(swaps), "\n") - 1; n != accepts || (m != "sgld" && n == 0) {
			t.Errorf("%s: swaps.csv has %d rows for %d swaps", m, n, accepts)
		}
		csv, _ := os.ReadFile(filepath.Join(out, "samples.csv"))
		if n := strings.Count(string(csv), "\n"); n != 501 {
			t.Errorf("%s: samples.csv has %d lines, want 501", m, n)
		}
	}
}

func TestGMMNoSwapAttempts(t *testing.T) {
	// a·η so small that no swap is attempted: the summary must still be
	// valid JSON (no NaN rate).
	out := t.TempDir()
	if err := run(t, "gmm", "--swap-a", "1e-9", "--keep", "100", "--burn", "0", "--thin", "1", "--out", out); err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Rate []*float64 `json:"swap_acceptance_rate"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || len(sum.Rate) != 1 || sum.Rate[0] != nil {
		t.Errorf("summary rate %v, error %v; want [null]", sum.Rate, err)
	}
}

func TestGMMBadSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "hmc"}, `unknown method "hmc"`},
		{[]string{"--tau2", "0.5"}, "must exceed"},
		{[]string{"--eta", "0"}, "step size η = 0"},
		{[]string{"--swap-a", "-2"}, "swap intensity a = -2"},
		{[]string{"--variance", "magic"}, `--variance "magic"`},
		{[]string{"--variance", "running", "--repeats", "1"}, "repeats = 1"},
		{[]string{"--keep", "0"}, "samples to keep = 0"},
		{[]string{"--levels", "1"}, "levels = 1"},
		{[]string{"--decay-gamma", "1.5"}, "γ = 1.5"},
		{[]string{"--decay-gamma", "0.5", "--decay-b", "0"}, "--decay-b = 0"},
	} {
		err := run(t, append([]string{"gmm", "--out", t.TempDir()}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}
