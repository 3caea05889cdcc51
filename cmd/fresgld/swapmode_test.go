package main

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/analysis"
)

func TestLogisticLevels(t *testing.T) {
	out := t.TempDir()
	mustRun(t, "logistic", "--data", smallCSV(t), "--label", "y", "--method", "fresgld", "--levels", "3", "--swap-energies", "exact", "--exact-every", "5", "--burn", "100", "--keep", "200", "--thin", "1", "--out", out)
	var sum struct {
		Swaps []struct {
			Attempts int `json:"attempts"`
		} `json:"swap_acceptance"`
		Noise []float64 `json:"swap_noise"`
	}
	readSummaryInto(t, out, &sum)
	// 4 chains × 300 steps, an exact attempt every 5 at each of the 2 pairs.
	if len(sum.Swaps) != 2 || sum.Swaps[1].Attempts != 4*60 || len(sum.Noise) != 2 || sum.Noise[0] != 0 {
		t.Errorf("swaps %+v, noise %v", sum.Swaps, sum.Noise)
	}
	// One level is the plan's alone (--method auto); a ladder's method
	// needs two, and the plan chooses its own ladder.
	for _, args := range [][]string{{"--method", "fresgld", "--levels", "1"}, {"--levels", "3"}} {
		if err := run(t, append([]string{"logistic", "--data", smallCSV(t), "--label", "y", "--out", out, "--overwrite"}, args...)...); err == nil || !strings.Contains(err.Error(), "--levels") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func TestLogisticSwapEnergies(t *testing.T) {
	data := smallCSV(t)
	for _, mode := range []string{"auto", "cv", "pair"} {
		out := t.TempDir()
		if err := run(t, "logistic", "--data", data, "--label", "y", "--method", "fresgld", "--swap-energies", mode, "--swap-pilot", "300", "--chains", "1", "--burn", "100", "--keep", "200", "--thin", "1", "--out", out); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var sum struct {
			Swap struct {
				Mode string `json:"mode"`
				Rule string `json:"rule"`
			} `json:"swap_energies"`
			Noise []float64         `json:"swap_noise"`
			Cost  analysis.SwapCost `json:"swap_cost"`
		}
		readSummaryInto(t, out, &sum)
		if mode == "cv" && !(sum.Cost.Anchors > 0 && sum.Cost.Energies > 0 && sum.Cost.Gradients > 0) {
			t.Errorf("cv: swap cost %+v", sum.Cost)
		}
		if sum.Swap.Mode == "" || sum.Swap.Rule == "" || (mode != "auto" && sum.Swap.Mode != mode) || len(sum.Noise) != 1 {
			t.Errorf("%s: summary swap %+v, noise %v", mode, sum.Swap, sum.Noise)
		}
	}
	if err := run(t, "logistic", "--data", data, "--label", "y", "--swap-energies", "nope", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--swap-energies") {
		t.Errorf("bad --swap-energies: %v", err)
	}
	for _, bad := range []string{"-1", "NaN", "+Inf"} {
		if err := run(t, "logistic", "--data", data, "--label", "y", "--swap-noise-cap", bad, "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--swap-noise-cap") {
			t.Errorf("--swap-noise-cap %s: %v", bad, err)
		}
	}
}

// A cap below every attempt's noise declines them all: none is accepted,
// where the same run without a cap accepts some.
func TestLogisticSwapNoiseCap(t *testing.T) {
	data := smallCSV(t)
	type swaps struct {
		Swaps []struct {
			Attempts int `json:"attempts"`
			Accepts  int `json:"accepts"`
		} `json:"swap_acceptance"`
		Settings struct {
			Cap float64 `json:"swap_noise_cap"`
		} `json:"settings"`
	}
	runCap := func(cap string) swaps {
		out := t.TempDir()
		mustRun(t, "logistic", "--data", data, "--label", "y", "--method", "fresgld", "--swap-energies", "pair-taylor", "--swap-noise-cap", cap, "--chains", "1", "--burn", "100", "--keep", "200", "--thin", "1", "--out", out)
		var sum swaps
		readSummaryInto(t, out, &sum)
		if len(sum.Swaps) != 1 || sum.Swaps[0].Attempts == 0 {
			t.Fatalf("cap %s: swaps %+v", cap, sum.Swaps)
		}
		return sum
	}
	if free := runCap("0"); free.Swaps[0].Accepts == 0 {
		t.Fatalf("without a cap no swap was accepted (%+v): the test needs a run that swaps", free.Swaps)
	}
	if capped := runCap("1e-9"); capped.Swaps[0].Accepts != 0 || capped.Settings.Cap != 1e-9 {
		t.Errorf("under a tiny cap: %+v, cap recorded %v", capped.Swaps, capped.Settings.Cap)
	}
}
