package analysis

import (
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
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
	c, err := chooseSwapEnergies("auto", 10, 10, 2, 0, 0.1, 0, pilot)
	if err != nil || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != 10 || calls != 0 {
		t.Errorf("cheap exact: %+v, %v, %d pilot calls", c, err, calls)
	}
	// Dear: 2·100·0.1 = 20 > 10/4; the pilot decides.
	pilotNoise = 0.4
	if c, err = chooseSwapEnergies("auto", 100, 10, 2, 0, 0.1, 0, pilot); err != nil || c.Energies.Mode != exchange.PairTaylorEnergies || c.PilotCost != 1234 {
		t.Errorf("quiet pilot: %+v, %v", c, err)
	}
	// Quiet but dear: screens confirmed so often that swaps cost 6 > n/2.
	pilotSwap = 6
	if c, err = chooseSwapEnergies("auto", 100, 10, 2, 0, 0.1, 0, pilot); err != nil || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != 80 {
		t.Errorf("dear pilot: %+v, %v", c, err)
	}
	pilotNoise, pilotSwap = 3, 5
	if c, err = chooseSwapEnergies("auto", 100, 10, 2, 0, 0.1, 0, pilot); err != nil || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != 80 {
		t.Errorf("noisy pilot: %+v, %v", c, err)
	}
	if c, err = chooseSwapEnergies("pair", 100, 10, 2, 7, 0.1, 0, pilot); err != nil || c.Energies.Mode != exchange.PairEnergies || c.Energies.ExactEvery != 7 {
		t.Errorf("named mode: %+v, %v", c, err)
	}
	if _, err = chooseSwapEnergies("bogus", 100, 10, 2, 0, 0.1, 0, pilot); err == nil || !strings.Contains(err.Error(), "--swap-energies") {
		t.Errorf("bad mode: %v", err)
	}
	// Thinned attempts where they are offered and cheap: 30·0.1 = 3 ≤ 10/4
	// fails, 20·0.1 = 2 passes, at the swap rate and without a pilot.
	calls = 0
	if c, err = chooseSwapEnergies("auto", 100, 10, 2, 0, 0.1, 30, pilot); err != nil || c.Energies.Mode == exchange.ThinnedEnergies || calls != 1 || !strings.Contains(c.Rule, "thinned attempts, predicted at 3 per step") {
		t.Errorf("dear thinned: %+v, %v, %d pilot calls", c, err, calls)
	}
	if c, err = chooseSwapEnergies("auto", 100, 10, 2, 0, 0.1, 20, pilot); err != nil || c.Energies.Mode != exchange.ThinnedEnergies || c.Energies.ExactEvery != 10 || calls != 1 {
		t.Errorf("cheap thinned: %+v, %v, %d pilot calls", c, err, calls)
	}
	// Cheap exact attempts come first.
	if c, err = chooseSwapEnergies("auto", 10, 10, 2, 0, 0.1, 1, pilot); err != nil || c.Energies.Mode != exchange.ExactEnergies {
		t.Errorf("cheap exact beside thinned: %+v, %v", c, err)
	}
	// Named, thinned attempts come at the swap rate, not every ⌈4KN/n⌉ steps.
	if c, err = chooseSwapEnergies("thinned", 100, 10, 2, 0, 0.1, 0, pilot); err != nil || c.Energies.Mode != exchange.ThinnedEnergies || c.Energies.ExactEvery != 10 {
		t.Errorf("named thinned: %+v, %v", c, err)
	}
}

// The exact swaps' price grows with the ladder: K passes an attempt, so a
// rate cheap for two levels is dear for four, and the period that keeps
// them within n/4 a step is ⌈4KN/n⌉. A data set with exact differences
// from sufficient statistics makes no pass and keeps the two-level price.
func TestSwapPeriodLevels(t *testing.T) {
	if a, b := swapPeriod(100, 10, 2), swapPeriod(100, 10, 5); a != 80 || b != 200 {
		t.Errorf("periods %d and %d for 2 and 5 levels, want 80 and 200", a, b)
	}
	calls := 0
	pilot := func(e exchange.Energies) (pilotResult, error) {
		calls++
		return pilotResult{3, 0.3, 5, 1}, nil
	}
	// 2·10·0.1 = 2 ≤ 10/4, but 4·10·0.1 = 4 is not.
	c, err := chooseSwapEnergies("auto", 10, 10, 4, 0, 0.1, 0, pilot)
	if err != nil || calls != 1 || c.Energies.Mode != exchange.ExactEnergies || c.Energies.ExactEvery != swapPeriod(10, 10, 4) {
		t.Errorf("four levels: %+v, %v, %d pilot calls; want the pilot, then exact every %d", c, err, calls, swapPeriod(10, 10, 4))
	}
	pr := models.SlabPrior{W: 0.5, Spike: 0.01, Slab: 1}
	lr, err := models.NewLinReg([]float64{1, 2, 3}, []float64{1, 0, 2}, 1, 1, pr)
	if err != nil {
		t.Fatal(err)
	}
	mix, err := models.NewMixture([]float64{1}, []float64{0}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if k, j := passLevels(lr, 6), passLevels(splitTerms{mix, make([]float64, 10)}, 6); k != 2 || j != 6 {
		t.Errorf("passLevels: %d with sufficient statistics (want 2), %d with passes (want 6)", k, j)
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
	ladders[0].Pairs[0].Confirmed, ladders[1].Pairs[0].Confirmed = 2, 5
	if c, d := swapDecisions(ladders); len(c) != 1 || c[0] != 7 || d[0] != 3 {
		t.Errorf("confirmed %v, declined %v: want [7], [3]", c, d)
	}
	noise, lines := swapNoise(ladders, "cv")
	// pooled by attempts: (10·2 + 30·6)/40 = 5
	if len(noise) != 1 || noise[0] != 5 || !strings.Contains(lines[0], "mean τδ²V/2 = 5 nats over 40 attempts, 3 declined for noise above --swap-noise-cap") {
		t.Errorf("noise %v, lines %q", noise, lines)
	}
	w := noiseWarnings([]float64{0.5, 12.5}, "pair")
	if len(w) != 1 || !strings.Contains(w[0].Message, "levels 2 and 3") || !strings.Contains(w[0].Message, "12.5 nats > 1") || !strings.Contains(w[0].Message, "--swap-energies pair-taylor") {
		t.Errorf("warnings %q", w)
	}
	// The mode in use is not offered as its own remedy.
	if w := noiseWarnings([]float64{2190}, "pair-taylor"); len(w) != 1 || strings.Contains(w[0].Message, "--swap-energies pair-taylor") || !strings.Contains(w[0].Message, "e^-2.19e+03") {
		t.Errorf("cv warnings %q", w)
	}
}
