package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReproduceLadderSmoke(t *testing.T) {
	out := t.TempDir()
	md := runCLI(t, "reproduce", "ladder", "--smoke", "--problems", "deep-modes", "--out", out)
	for _, want := range []string{"deep-modes-1d", "geometric K=4, sweep", "geometric K=4, DEO", "adaptive, DEO"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	var rows []struct {
		Ladder     string  `json:"ladder"`
		Units      float64 `json:"units"`
		RoundTrips int     `json:"round_trips"`
	}
	b, err := os.ReadFile(filepath.Join(out, "ladder.json"))
	if err != nil || json.Unmarshal(b, &rows) != nil || len(rows) != 12 {
		t.Fatalf("ladder.json: %v, %d rows", err, len(rows))
	}
	// Equal cost: every run stops at the first step reaching the budget,
	// which overshoots by less than one step's cost (under 100 units here).
	for _, r := range rows {
		if r.Units < 1e5 || r.Units > 1e5+100 {
			t.Errorf("%s: spent %v units, budget 1e5", r.Ladder, r.Units)
		}
	}
}

func TestReproduceLadderBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--problems", "three-modes"}, `--problems: unknown problem "three-modes"`},
		{[]string{"--budget", "0"}, "--budget = 0"},
	} {
		err := run(t, append([]string{"reproduce", "ladder", "--out", t.TempDir()}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

func TestReproduceLadderHeatSmoke(t *testing.T) {
	out := t.TempDir()
	md := runCLI(t, "reproduce", "ladder-heat", "--seeds", "1", "--keep", "200", "--burn", "10", "--rounds", "2", "--first", "20", "--grid", "100", "--out", out)
	for _, want := range []string{"s-reSGLD (sd 0.1), 2 levels", "adaptive DEO ladder", "(sd 0.8 on U/τ), 2 levels", "seed 1: τ = 0.08"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "ladder-heat.csv"))
	if err != nil || strings.Count(string(b), "\n") != 4 {
		t.Errorf("ladder-heat.csv: %v\n%s", err, b)
	}
	if err := run(t, "reproduce", "ladder-heat", "--grid", "120", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--grid = 120") {
		t.Errorf("--grid 120: error %v", err)
	}
}
