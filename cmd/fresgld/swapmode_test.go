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
	pilotNoise, pilotSwap := 0.0, 1.0
	calls := 0
	pilot := func(e exchange.Energies) (pilotResult, error) {
		calls++
		if e.Mode != exchange.PairTaylorEnergies || e.AnchorEvery != 80 {
			t.Errorf("pilot under %v, anchors every %d (want pair-taylor, 80)", e.Mode, e.AnchorEvery)
		}
		return pilotResult{pilotNoise, 0.3, pilotSwap, 1234}, nil
	}
	// Exact at every attempt is cheap: 2·10·0.1 = 2 ≤ 10/4.
	c, err := chooseSwapEnergies("auto", 10, 10, 0, 0.1, pilot)
	if err != nil || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != 10 || calls != 0 {
		t.Errorf("cheap exact: %+v, %v, %d pilot calls", c, err, calls)
	}
	// Dear: 2·100·0.1 = 20 > 10/4; the pilot decides.
	pilotNoise = 0.4
	if c, err = chooseSwapEnergies("auto", 100, 10, 0, 0.1, pilot); err != nil || c.Energies.Mode != exchange.PairTaylorEnergies || c.PilotCost != 1234 {
		t.Errorf("quiet pilot: %+v, %v", c, err)
	}
	// Quiet but dear: screens confirmed so often that swaps cost 6 > n/2.
	pilotSwap = 6
	if c, err = chooseSwapEnergies("auto", 100, 10, 0, 0.1, pilot); err != nil || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != 80 {
		t.Errorf("dear pilot: %+v, %v", c, err)
	}
	pilotNoise, pilotSwap = 3, 5
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

func TestNoisiestPair(t *testing.T) {
	ps := []exchange.PairStats{{Noise: 0.2, Attempts: 1}, {Noise: 3, Attempts: 2}, {Noise: 0.5, Attempts: 3}}
	if w := noisiestPair(ps); w.Attempts != 2 {
		t.Errorf("noisiest pair %+v, want the one with 3 nats", w)
	}
}

func TestSwapNoiseAndWarnings(t *testing.T) {
	ladders := []exchange.Stats{
		{Pairs: []exchange.PairStats{{Attempts: 10, Noise: 2}}},
		{Pairs: []exchange.PairStats{{Attempts: 30, Noise: 6}}},
	}
	ladders[1].Pairs[0].Capped = 3
	noise, lines := swapNoise(ladders, "cv")
	// pooled by attempts: (10·2 + 30·6)/40 = 5
	if len(noise) != 1 || noise[0] != 5 || !strings.Contains(lines[0], "mean τδ²V/2 = 5 nats over 40 attempts, 3 declined for noise above --swap-noise-cap") {
		t.Errorf("noise %v, lines %q", noise, lines)
	}
	w := noiseWarnings([]float64{0.5, 12.5}, "pair")
	if len(w) != 1 || !strings.Contains(w[0], "levels 2 and 3") || !strings.Contains(w[0], "12.5 nats > 1") || !strings.Contains(w[0], "--swap-energies pair-taylor") {
		t.Errorf("warnings %q", w)
	}
	// The mode in use is not offered as its own remedy.
	if w := noiseWarnings([]float64{2190}, "pair-taylor"); len(w) != 1 || strings.Contains(w[0], "--swap-energies pair-taylor") || !strings.Contains(w[0], "e^-2.19e+03") {
		t.Errorf("cv warnings %q", w)
	}
}

func TestLogisticLevels(t *testing.T) {
	out := t.TempDir()
	if err := run(t, "logistic", "--data", smallCSV(t), "--label", "y", "--method", "fresgld", "--levels", "3", "--swap-energies", "exact", "--exact-every", "5", "--burn", "100", "--keep", "200", "--thin", "1", "--out", out); err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Swaps []struct {
			Attempts int `json:"attempts"`
		} `json:"swap_acceptance"`
		Noise []float64 `json:"swap_noise"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	// 4 chains × 300 steps, an exact attempt every 5 at each of the 2 pairs.
	if len(sum.Swaps) != 2 || sum.Swaps[1].Attempts != 4*60 || len(sum.Noise) != 2 || sum.Noise[0] != 0 {
		t.Errorf("swaps %+v, noise %v", sum.Swaps, sum.Noise)
	}
	if err := run(t, "logistic", "--data", smallCSV(t), "--label", "y", "--levels", "1", "--out", out); err == nil || !strings.Contains(err.Error(), "--levels") {
		t.Errorf("--levels 1: %v", err)
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
			Noise []float64 `json:"swap_noise"`
			Cost  swapCost  `json:"swap_cost"`
		}
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
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
		if err := run(t, "logistic", "--data", data, "--label", "y", "--method", "fresgld", "--swap-energies", "pair-taylor", "--swap-noise-cap", cap, "--chains", "1", "--burn", "100", "--keep", "200", "--thin", "1", "--out", out); err != nil {
			t.Fatal(err)
		}
		var sum swaps
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
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
