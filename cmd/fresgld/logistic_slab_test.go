package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// pairCSV writes N = 100 examples of two features a and b of correlation
// 0.97 and labels from σ((a + b)/2): either feature explains the labels,
// so the spike-and-slab posterior has a mode with a alone in the slab, one
// with b alone and one with both.
func pairCSV(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 28))
	return writeFile(t, "pair.csv", csvRows("a,b,y\n", 100, func(int) string {
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		x1, x2 := z1, 0.97*z1+math.Sqrt(1-0.97*0.97)*z2
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-(x1+x2)/2)) {
			y = 1
		}
		return fmt.Sprintf("%.5f,%.5f,%d", x1, x2, y)
	}))
}

// slabRun is what the tests read back from a spike-and-slab run's
// summary.json.
type slabRun struct {
	Prior *struct {
		Prior   string  `json:"prior"`
		SpikeSD float64 `json:"spike_sd"`
	} `json:"prior"`
	Coef []struct {
		Name               string   `json:"variable"`
		Inclusion          float64  `json:"inclusion"`
		InclusionMCSE      *float64 `json:"inclusion_mcse"`
		ExactInclusion     *float64 `json:"exact_inclusion"`
		ExactInclusionMCSE *float64 `json:"exact_inclusion_mcse"`
	} `json:"per_coefficient"`
	Patterns []results.PatternRow `json:"exact_patterns"`
	Plan     *plan.PlanSummary    `json:"plan"`
}

// TestLogisticSlabPlanAgainstReference runs the default sampler (the plan)
// on a posterior with three separated modes and compares each inclusion
// probability with the reference's (--exact): within 4 MCSE, the run's
// and the reference's in quadrature, plus a slack of 0.005, two draws'
// worth of the 400 pooled (an inclusion probability is an average of
// draws that are mostly 0 or 1, and the MCSE itself is estimated from a
// few hundred effective draws). The posterior must be multimodal for the
// test to mean anything: the reference's patterns with a alone and b
// alone in the slab must each weigh ≥ 0.1, and the plan must have found
// more than one mode. Swapping the spike and the slab in the reference, or
// inverting the inclusion probability, fails it (tried).
func TestLogisticSlabPlanAgainstReference(t *testing.T) {
	out := t.TempDir()
	mustRun(t, "logistic", "--data", pairCSV(t), "--label", "y", "--prior", "spike-slab", "--exact", "--chains", "2", "--keep", "200", "--out", out)
	var r slabRun
	readSummaryInto(t, out, &r)
	if r.Prior == nil || r.Prior.Prior != "spike-slab" || r.Prior.SpikeSD != 0.02 {
		t.Errorf("summary.json's prior: %+v", r.Prior)
	}
	alone := map[string]float64{}
	for _, pt := range r.Patterns {
		alone[strings.Join(pt.Included, " ")] = pt.Weight
	}
	if !(alone["intercept a"] >= 0.1 && alone["intercept b"] >= 0.1) {
		t.Errorf("reference patterns %v: a alone and b alone should each weigh ≥ 0.1 (a multimodal posterior)", r.Patterns)
	}
	if r.Plan == nil || r.Plan.Modes < 2 {
		t.Errorf("plan %+v: want more than one mode found", r.Plan)
	}
	if len(r.Coef) != 3 {
		t.Fatalf("%d coefficients in per_coefficient, want 3", len(r.Coef))
	}
	for _, c := range r.Coef[1:] {
		if c.InclusionMCSE == nil || c.ExactInclusion == nil || c.ExactInclusionMCSE == nil {
			t.Fatalf("%s: no inclusion MCSE or reference in summary.json", c.Name)
		}
		se := math.Hypot(*c.InclusionMCSE, *c.ExactInclusionMCSE)
		if !(se > 0) {
			t.Errorf("%s: MCSE %v: want positive", c.Name, se)
		}
		if e := math.Abs(c.Inclusion - *c.ExactInclusion); !(e <= 4*se+0.005) {
			t.Errorf("%s: inclusion %.4f, reference %.4f: error %.3g > 4 MCSE + 0.005 = %.3g", c.Name, c.Inclusion, *c.ExactInclusion, e, 4*se+0.005)
		}
	}
	ch, err := results.ReadStanCSV(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"#   prior = spike-slab", "#   slab_weight = 0.5", "#   spike_sd = 0.02", "#   slab_sd = 1", "#   prior_sd = 1"} {
		if !slices.Contains(ch.Comments, line) {
			t.Errorf("chain-1.csv's header has no %q", line)
		}
	}
	if !slices.Contains(ch.Columns, "inclusion_a") || slices.Contains(ch.Columns, "inclusion_intercept") {
		t.Errorf("chain-1.csv's columns %q: want inclusion_a and no inclusion_intercept", ch.Columns)
	}
}

// TestLogisticNormalPriorWritesNoSlab: under the default normal prior the
// chain header and summary.json say nothing of a spike-and-slab, so that
// they are what they were before it existed.
func TestLogisticNormalPriorWritesNoSlab(t *testing.T) {
	out := t.TempDir()
	mustRun(t, "logistic", "--data", smallCSV(t), "--label", "y", "--chains", "1", "--keep", "100", "--out", out)
	ch, err := results.ReadStanCSV(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ch.Comments {
		if strings.Contains(c, "prior =") || strings.Contains(c, "spike") || strings.Contains(c, "slab") {
			t.Errorf("chain-1.csv's header under the normal prior: %q", c)
		}
	}
	b := readFile(t, filepath.Join(out, "summary.json"))
	for _, k := range []string{`"prior"`, `"per_coefficient"`, `"plan"`, "spike", "slab"} {
		if strings.Contains(string(b), k) {
			t.Errorf("summary.json under the normal prior holds %s", k)
		}
	}
}

// TestLogisticSlabRejects: each bad prior setting is refused, naming its
// flag, before any work.
func TestLogisticSlabRejects(t *testing.T) {
	good := smallCSV(t)
	widePath := noiseCSV(t, 40, 13, 1, 2)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--prior", "lasso"}, `--prior "lasso"`},
		{[]string{"--prior", "spike-slab", "--spike-sd", "2"}, "--spike-sd = 2: must be below --slab-sd = 1"},
		{[]string{"--prior", "spike-slab", "--spike-sd", "0"}, "--spike-sd = 0"},
		{[]string{"--prior", "spike-slab", "--slab-weight", "1"}, "--slab-weight = 1"},
		{[]string{"--prior", "spike-slab", "--slab-sd", "NaN"}, "--slab-sd = NaN"},
		{[]string{"--spike-sd", "0.01"}, "--spike-sd: only with --prior spike-slab"},
		{[]string{"--exact"}, "--exact: only with --prior spike-slab"},
		{[]string{"--data", widePath, "--prior", "spike-slab", "--exact"}, "--exact: 13 spike-and-slab coefficients"},
	} {
		args := append([]string{"logistic", "--data", good, "--label", "y", "--out", filepath.Join(t.TempDir(), "out")}, c.args...)
		err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}
