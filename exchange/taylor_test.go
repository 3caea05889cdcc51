package exchange

import (
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/target"
)

// Under the Taylor modes V comes from a fresh draw at the attempt's states:
// at the anchors themselves it is 0, however large the spreads of earlier
// attempts far from them (a window would still hold those), and each
// attempt pays for the second draw.
func TestTaylorVarianceIsFresh(t *testing.T) {
	const n = 3
	for _, c := range []struct {
		mode EnergyMode
		per  float64 // evaluations per attempt, both levels
	}{{TaylorEnergies, 4 * n}, {PairTaylorEnergies, 4 * n}, {CVEnergies, 2 * n}} {
		o := curvedOutliers
		mb := func() *target.Minibatch {
			m, err := target.NewMinibatch(o, n)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		ax, ay := []float64{0.2}, []float64{-0.4}
		s, err := New(Config{Levels: []Level{
			{Tau: 1, Est: mb(), Eta: langevin.Constant{Step: 0.01}},
			{Tau: 4, Est: mb(), Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: ReSGLD, PerStep: true}, Seed: 3,
			Energies: Energies{Mode: c.mode, Terms: o, Sizes: []int{n, n}}}, [][]float64{ax, ay})
		if err != nil {
			t.Fatal(err)
		}
		units := func() float64 {
			st := s.Stats()
			return st.Levels[0].Cost.Energy.Units + st.Levels[1].Cost.Energy.Units
		}
		for range 20 { // far from the anchors: large residual spreads
			if _, noise, err := s.LogRatioNoise(0, []float64{3}, []float64{-0.5}); err != nil || !(noise > 0.1) {
				t.Fatalf("%v far from the anchors: noise %v, %v", c.mode, noise, err)
			}
		}
		before := units()
		_, noise, err := s.LogRatioNoise(0, ax, ay)
		if err != nil {
			t.Fatal(err)
		}
		if got := units() - before; got != c.per {
			t.Errorf("%v: an attempt cost %v evaluations, want %v", c.mode, got, c.per)
		}
		if c.mode.taylor() && noise != 0 {
			t.Errorf("%v at the anchors: swap noise %v, want 0 (V from a fresh draw)", c.mode, noise)
		}
		if !c.mode.taylor() && !(noise > 0.1) {
			t.Errorf("%v at the anchors: swap noise %v; the windowed V should still hold the far spreads", c.mode, noise)
		}
	}
}

// MaxNoise declines exactly the attempts whose swap noise exceeds it: with
// the cap below every attempt's noise none is accepted and all are counted
// as capped; with it above, none is capped and the chains swap as without.
func TestNoiseCapDeclines(t *testing.T) {
	cfg := func(maxNoise float64) Config {
		est, _ := target.NewMinibatch(outliers, 3)
		return Config{Levels: []Level{
			{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}},
			{Tau: 4, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 5,
			Energies: Energies{Mode: PairEnergies, Terms: outliers, MaxNoise: maxNoise}}
	}
	run := func(maxNoise float64) (PairStats, []float64) {
		s, err := New(cfg(maxNoise), [][]float64{{0}, {0.5}})
		if err != nil {
			t.Fatal(err)
		}
		var noise []float64
		s.onSwap = func(_ int, _, _ []float64, _, n float64, _ bool) { noise = append(noise, n) }
		for range 2000 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return s.Stats().Pairs[0], noise
	}
	free, noise := run(0)
	lo, hi := noise[0], noise[0]
	for _, n := range noise {
		lo, hi = min(lo, n), max(hi, n)
	}
	if free.Capped != 0 || free.Accepts == 0 || !(lo > 0) {
		t.Fatalf("uncapped: %+v, noise in [%v, %v]", free, lo, hi)
	}
	if p, _ := run(lo / 2); p.Capped != p.Attempts || p.Accepts != 0 {
		t.Errorf("cap %v below every attempt's noise: %d capped, %d accepted of %d", lo/2, p.Capped, p.Accepts, p.Attempts)
	}
	if p, _ := run(2 * hi); p.Capped != 0 || p.Accepts != free.Accepts || p.Attempts != free.Attempts {
		t.Errorf("cap %v above every attempt's noise: %+v, uncapped %+v", 2*hi, p, free)
	}
	for _, bad := range []float64{math.NaN(), -1} {
		if _, err := New(cfg(bad), [][]float64{{0}, {0.5}}); err == nil || !strings.Contains(err.Error(), "noise cap") {
			t.Errorf("noise cap %v: %v", bad, err)
		}
	}
}
