package main

import (
	"strings"
	"testing"
)

// addRuns takes another study's runs that the study lacks, by posterior,
// method and seed, and never replaces one it has; the totals by posterior
// then count them.
func TestAddRuns(t *testing.T) {
	fr := func(seed int, right bool, verdict string, grad, cpu num) *Run {
		return &Run{Method: "fresgld", Seed: seed, Status: "ok", Errors: Errors{Right: right}, Verdict: verdict, GradientsPerESS: grad, CPUPerESS: cpu}
	}
	nu := func(seed int, grad, cpu num) *Run {
		return &Run{Method: "nuts", Seed: seed, Status: "ok", GradientsPerESS: grad, CPUPerESS: cpu}
	}
	s := &Study{Results: []*Result{
		{Posterior: "a", Status: "ok", Runs: []*Run{fr(1, true, "trusted", 1, 1), fr(2, true, "trusted", 4, 4), nu(1, 99, 99)}},
		{Posterior: "b", Status: "ok", Runs: []*Run{fr(1, true, "trusted", 1, 3), fr(2, false, "trusted", 1, 3)}},
	}}
	o := &Study{Results: []*Result{
		{Posterior: "a", Status: "ok", Runs: []*Run{nu(1, 1, 1), nu(2, 1, 1)}},
		{Posterior: "b", Status: "ok", Runs: []*Run{nu(1, 2, 1), nu(2, 2, 1)}},
		{Posterior: "c", Status: "ok", Runs: []*Run{nu(1, 2, 2)}},
	}}
	if n := s.addRuns(o); n != 4 {
		t.Errorf("added %d runs, want 4 (a's seed 2, b's two, c's)", n)
	}
	if x := s.Results[0].run("nuts", 1); x.GradientsPerESS != 99 {
		t.Errorf("a's NUTS seed 1 replaced: %+v", x)
	}
	if len(s.Results) != 3 || s.Results[2].Posterior != "c" {
		t.Errorf("posterior c not added whole: %d results", len(s.Results))
	}
	// a: gradient ratios 1/99 and 4/1 (geometric mean 0.2), CPU the same;
	// b: 0.5 and 0.5, CPU 3 and 3; c has no fresgld run and is not counted.
	got := s.perPosterior()
	for _, want := range []string{"right and trusted on every seed on 1 of 2 (50%)", "(2 posteriors;", "median 0.35 (range 0.2–0.5)", "below NUTS's on 1 (50%)"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
