package exchange

import (
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// A screen draws each difference at the size the rule names (reSGLD: the
// cold size n0; f-reSGLD: ⌈(n0 + n1)/2⌉, not the cold size; m-reSGLD: n0
// and n1), at both states, and a confirmation costs 2N. At the anchors the
// first-order modes' screen is exact, with no noise.
func TestScreenCost(t *testing.T) {
	const n0, n1 = 5, 2
	o := curvedOutliers
	N := float64(o.Len())
	for _, mode := range dataModes {
		for _, c := range []struct {
			rule Rule
			n    float64 // examples per state and screen
		}{{ReSGLD, n0}, {FReSGLD, (n0 + n1 + 1) / 2}, {MReSGLD, n0 + n1}} {
			ax, ay := []float64{0.2}, []float64{-0.4}
			s, err := New(Config{Levels: []Level{
				{Tau: 1, Est: energy.Exact{E: gauss1{}}, Eta: langevin.Constant{Step: 0.01}},
				{Tau: 4, Est: energy.Exact{E: gauss1{}}, Eta: langevin.Constant{Step: 0.01}},
			}, Swap: Swap{Rule: c.rule, PerStep: true, A1: 0.5}, Seed: 3,
				Energies: Energies{Mode: mode, Terms: o, Sizes: []int{n0, n1}}}, [][]float64{ax, ay})
			if err != nil {
				t.Fatal(err)
			}
			units := func() float64 {
				st := s.Stats()
				return st.Levels[0].Cost.Energy.Units + st.Levels[1].Cost.Energy.Units
			}
			const T = 50
			for range T {
				if _, err := s.decide(0, []float64{0.6}, []float64{0}); err != nil {
					t.Fatal(err)
				}
			}
			p := s.Stats().Pairs[0]
			want := T*2*c.n + float64(p.Confirmed)*2*N
			if got := units(); got != want || p.Screened != int64(T*2*c.n) {
				t.Errorf("%v/%v: %d attempts, %d confirmed, cost %v evaluations (screens %d), want %v (screens %v)", mode, c.rule, T, p.Confirmed, got, p.Screened, want, T*2*c.n)
			}
			if p.Confirmed == 0 || p.Confirmed == T {
				t.Errorf("%v/%v: %d of %d attempts confirmed: the count above checks nothing", mode, c.rule, p.Confirmed, T)
			}
			_, noise, err := s.LogRatioNoise(0, ax, ay)
			if err != nil {
				t.Fatal(err)
			}
			if mode.taylor() && noise != 0 {
				t.Errorf("%v/%v at the anchors: screen noise %v, want 0", mode, c.rule, noise)
			}
		}
	}
}

// gauss1 is U(θ) = θ²/2 in one dimension.
type gauss1 struct{}

func (gauss1) Dim() int                   { return 1 }
func (gauss1) U(theta []float64) float64  { return theta[0] * theta[0] / 2 }
func (gauss1) Grad(grad, theta []float64) { grad[0] = theta[0] }

// MaxNoise declines exactly the attempts whose swap noise exceeds it: with
// the cap below every attempt's noise none is accepted and all are counted
// as capped; with it above, none is capped and the chains swap as without.
func TestNoiseCapDeclines(t *testing.T) {
	cfg := func(maxNoise float64) Config {
		est, _ := energy.NewMinibatch(outliers, 3)
		return Config{Levels: []Level{
			{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}},
			{Tau: 4, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 5,
			Energies: Energies{Mode: PairEnergies, Terms: outliers, MaxNoise: maxNoise}}
	}
	run := func(maxNoise float64) (PairStats, []float64) {
		s := mustNew(t, cfg(maxNoise), [][]float64{{0}, {0.5}})
		var noise []float64
		s.onSwap = func(_ int, _, _ []float64, _, n float64, _ bool) { noise = append(noise, n) }
		stepN(t, s, 2000)
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
