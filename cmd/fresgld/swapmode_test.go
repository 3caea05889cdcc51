package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
)

func TestChooseSwapEnergiesRule(t *testing.T) {
	pilotNoise := 0.0
	calls := 0
	pilot := func(e exchange.Energies) (float64, float64, float64, error) {
		calls++
		if e.Mode != exchange.CVEnergies || e.AnchorEvery != 80 {
			t.Errorf("pilot under %v, anchors every %d (want cv, 80)", e.Mode, e.AnchorEvery)
		}
		return pilotNoise, 0.3, 1234, nil
	}
	// Exact at every attempt is cheap: 2·10·0.1 = 2 ≤ 10/4.
	c, err := chooseSwapEnergies("auto", 10, 10, 0, 0.1, pilot)
	if err != nil || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != 10 || calls != 0 {
		t.Errorf("cheap exact: %+v, %v, %d pilot calls", c, err, calls)
	}
	// Dear: 2·100·0.1 = 20 > 10/4; the pilot decides.
	pilotNoise = 0.4
	if c, err = chooseSwapEnergies("auto", 100, 10, 0, 0.1, pilot); err != nil || c.Energies.Mode != exchange.CVEnergies || c.PilotCost != 1234 {
		t.Errorf("quiet pilot: %+v, %v", c, err)
	}
	pilotNoise = 3
	if c, err = chooseSwapEnergies("auto", 100, 10, 0, 0.1, pilot); err != nil || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != 80 {
		t.Errorf("noisy pilot: %+v, %v", c, err)
	}
	if c, err = chooseSwapEnergies("pair", 100, 10, 7, 0.1, pilot); err != nil || c.Energies.Mode != exchange.PairEnergies || c.Energies.ExactEvery != 7 {
		t.Errorf("named mode: %+v, %v", c, err)
	}
	if _, err = chooseSwapEnergies("bogus", 100, 10, 0, 0.1, pilot); err == nil || !strings.Contains(err.Error(), "--swap-energies") {
		t.Errorf("bad mode: %v", err)
	}
}

func TestReportSwapsWarns(t *testing.T) {
	var out, warn strings.Builder
	reportSwaps(&out, &warn, exchange.Stats{Pairs: []exchange.PairStats{{Attempts: 50, Accepts: 1, Noise: 12.5}}}, "draw")
	if !strings.Contains(out.String(), "1 of 50 accepted") || !strings.Contains(warn.String(), "12.5 nats > 1") || !strings.Contains(warn.String(), "--swap-energies cv") {
		t.Errorf("noisy swaps: out %q, warning %q", out.String(), warn.String())
	}
	out.Reset()
	warn.Reset()
	reportSwaps(&out, &warn, exchange.Stats{Pairs: []exchange.PairStats{{Attempts: 50, Noise: 0.2}}}, "exact")
	if !strings.Contains(warn.String(), "no swap 0↔1 accepted in 50 attempts") || !strings.Contains(warn.String(), "lower --tau2") {
		t.Errorf("no swaps: warning %q", warn.String())
	}
	warn.Reset()
	reportSwaps(&out, &warn, exchange.Stats{Pairs: []exchange.PairStats{{Attempts: 50, Accepts: 20, Noise: 0.2}}}, "cv")
	if warn.Len() != 0 {
		t.Errorf("healthy swaps warned: %q", warn.String())
	}
}

func TestLogisticLevels(t *testing.T) {
	out := t.TempDir()
	if err := run(t, "logistic", "--data", smallCSV(t), "--label", "y", "--method", "fresgld", "--levels", "3", "--swap-energies", "exact", "--exact-every", "5", "--burn", "100", "--keep", "200", "--thin", "1", "--out", out); err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Stats exchange.Stats `json:"stats"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	// 300 steps, an exact attempt every 5 at each of the 2 pairs.
	if len(sum.Stats.Levels) != 3 || len(sum.Stats.Pairs) != 2 || sum.Stats.Pairs[1].Attempts != 60 {
		t.Errorf("levels %d, pairs %+v", len(sum.Stats.Levels), sum.Stats.Pairs)
	}
	if err := run(t, "logistic", "--data", smallCSV(t), "--label", "y", "--levels", "1", "--out", out); err == nil || !strings.Contains(err.Error(), "--levels") {
		t.Errorf("--levels 1: %v", err)
	}
}

func TestLogisticSwapEnergies(t *testing.T) {
	data := smallCSV(t)
	for _, mode := range []string{"auto", "cv", "pair"} {
		out := t.TempDir()
		if err := run(t, "logistic", "--data", data, "--label", "y", "--method", "fresgld", "--swap-energies", mode, "--swap-pilot", "300", "--burn", "100", "--keep", "200", "--thin", "1", "--out", out); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var sum struct {
			Swap struct {
				Mode string `json:"mode"`
				Rule string `json:"rule"`
			} `json:"swap_energies"`
			Stats exchange.Stats `json:"stats"`
		}
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Swap.Mode == "" || sum.Swap.Rule == "" || (mode != "auto" && sum.Swap.Mode != mode) || len(sum.Stats.Pairs) != 1 {
			t.Errorf("%s: summary swap %+v", mode, sum.Swap)
		}
		if st := sum.Stats.Levels; mode == "cv" && st[0].Cost.Anchor.Units == 0 {
			t.Errorf("cv: no anchor cost in the summary")
		}
	}
	if err := run(t, "logistic", "--data", data, "--label", "y", "--swap-energies", "nope", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--swap-energies") {
		t.Errorf("bad --swap-energies: %v", err)
	}
}
