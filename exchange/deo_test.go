package exchange

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/meanvar"
	"github.com/fresgld/fresgld/langevin"
)

// exactConfig is a ladder of levels with exact energies on U at the given temperatures.
func exactConfig(e energy.Energy, taus []float64, eta float64, sw Swap, seed uint64) Config {
	lv := make([]Level, len(taus))
	for l, tau := range taus {
		lv[l] = Level{Tau: tau, Est: energy.Exact{E: e}, Eta: langevin.Constant{Step: eta}, Noise: langevin.SGLD}
	}
	sw.Rule, sw.PerStep = Exact, true
	return Config{Levels: lv, Swap: sw, Seed: seed}
}

func zeros(K, p int) [][]float64 {
	init := make([][]float64, K)
	for l := range init {
		init[l] = make([]float64, p)
	}
	return init
}

func TestOfferedPairs(t *testing.T) {
	// K = 5 levels, pairs 0..3. DEO with W = 3: rounds are steps {0,1,2},
	// {3,4,5}, ...; the even pairs are offered at step 2 (round 0), the odd
	// pairs at step 5 (round 1), the even ones again at step 8, and so on.
	deo3 := Swap{Scheme: DEO, Window: 3, PerStep: true}
	want := map[int][]int{2: {0, 2}, 5: {1, 3}, 8: {0, 2}, 11: {1, 3}}
	for k := range 12 {
		var got []int
		for l := range 4 {
			if deo3.Offered(l, k) {
				got = append(got, l)
			}
		}
		if !slices.Equal(got, want[k]) {
			t.Errorf("DEO W=3 step %d: offered pairs %v, want %v", k, got, want[k])
		}
		if r := deo3.Round(k); r != k/3 {
			t.Errorf("DEO W=3 step %d: round %d, want %d", k, r, k/3)
		}
	}
	// W = 1 (and the zero value) alternate every step.
	for _, w := range []int{0, 1} {
		sw := Swap{Scheme: DEO, Window: w, PerStep: true}
		for k := range 6 {
			for l := range 4 {
				if got, want := sw.Offered(l, k), l%2 == k%2; got != want {
					t.Errorf("DEO W=%d step %d pair %d: offered %v, want %v", w, k, l, got, want)
				}
			}
		}
	}
	// Sweep offers every pair at every step.
	for k := range 6 {
		for l := range 4 {
			if !(Swap{}).Offered(l, k) {
				t.Errorf("sweep step %d pair %d: not offered", k, l)
			}
		}
	}
}

// TestDEOSwapTimes runs a ladder on a flat energy, where every swap is
// accepted, so the steps at which each pair swapped are exactly the steps at
// which it was offered a swap, and at most one attempt a window is made.
func TestDEOSwapTimes(t *testing.T) {
	flat := energy.Quadratic{Lambda: []float64{0}}
	taus := []float64{1, 2, 4, 8, 16}
	const W, steps = 4, 40
	for _, sw := range []Swap{{Scheme: DEO, Window: W}, {Scheme: Sweep}} {
		cfg := exactConfig(flat, taus, 0.01, sw, 3)
		cfg.RecordSwaps = true
		smp := mustNew(t, cfg, zeros(len(taus), 1))
		stepN(t, smp, steps)
		for l, p := range smp.Stats().Pairs {
			var want []int
			for k := range steps {
				if sw.Scheme == Sweep || ((k+1)%W == 0 && (k/W)%2 == l%2) {
					want = append(want, k)
				}
			}
			if !slices.Equal(p.Times, want) || p.Attempts != len(want) || p.Accepts != len(want) {
				t.Errorf("%v pair %d: swaps at %v (%d attempts, %d accepted), want at %v", sw.Scheme, l, p.Times, p.Attempts, p.Accepts, want)
			}
			if p.Rejection() != 0 {
				t.Errorf("%v pair %d: rejection %v on a flat energy, want 0", sw.Scheme, l, p.Rejection())
			}
		}
	}
}

func TestSchemeValidation(t *testing.T) {
	flat := energy.Quadratic{Lambda: []float64{1}}
	for _, c := range []struct {
		sw   Swap
		want string
	}{
		{Swap{Scheme: DEO, Window: -1}, "window"},
		{Swap{Scheme: Sweep, Window: 5}, "window"},
		{Swap{Scheme: Scheme(7)}, "scheme"},
	} {
		if _, err := New(exactConfig(flat, []float64{1, 2}, 0.1, c.sw, 1), zeros(2, 1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.sw, err, c.want)
		}
	}
	cfg := exactConfig(flat, []float64{1, 2}, 0.1, Swap{Scheme: DEO}, 1)
	cfg.Swap.PerStep, cfg.Swap.A = false, 1
	if _, err := New(cfg, zeros(2, 1)); err == nil || !strings.Contains(err.Error(), "PerStep") {
		t.Errorf("DEO with an intensity: error %v, want one naming PerStep", err)
	}
	if _, err := ParseScheme("even-odd"); err == nil {
		t.Error("ParseScheme accepted an unknown name")
	}
	for _, s := range []Scheme{Sweep, DEO} {
		if got, err := ParseScheme(s.String()); err != nil || got != s {
			t.Errorf("ParseScheme(%q) = %v, %v", s.String(), got, err)
		}
	}
}

func TestRoundTripCounting(t *testing.T) {
	// Three levels, three replicas; at[l] is the replica at level l.
	// r0 starts at the bottom, goes up (t2), comes back down (t5): one
	// round trip, one restart. r1 first reaches the bottom at t1, goes up
	// (t4) and comes down (t7): one of each. r2 starts at the top and comes
	// down (t3): a restart but no round trip, since it had not been at the
	// bottom before.
	seq := [][]int{
		{0, 1, 2}, // t0
		{1, 0, 2}, // t1
		{1, 2, 0}, // t2
		{2, 1, 0}, // t3
		{2, 0, 1}, // t4
		{0, 2, 1}, // t5
		{0, 1, 2}, // t6
		{1, 0, 2}, // t7
	}
	tr := newTrips(3)
	for _, at := range seq {
		tr.observe(at)
	}
	want := []ReplicaStats{{1, 1}, {1, 1}, {0, 1}}
	if !slices.Equal(tr.reps, want) {
		t.Errorf("counts %v, want %v", tr.reps, want)
	}
	if s := Sum(tr.reps); s != (ReplicaStats{2, 3}) {
		t.Errorf("sum %v, want {2 3}", s)
	}
	// Lingering at an extreme, or moving among the middle levels, counts
	// nothing more.
	for range 5 {
		tr.observe([]int{1, 0, 2})
		tr.observe([]int{1, 2, 0})
	}
	if !slices.Equal(tr.reps, want) {
		t.Errorf("after lingering: counts %v, want %v", tr.reps, want)
	}
}

// eulerGaussian is U = λθ²/2 in one dimension with a gradient λ'θ chosen
// so that the Euler step at η leaves N(0, τ/λ) exactly invariant at every τ:
// the step θ' = (1 − ηλ')θ + √(2ητ)ξ has stationary variance
// 2τ/(λ'(2 − ηλ')), which is τ/λ when λ'(2 − ηλ') = 2λ, i.e.
// λ' = (1 − √(1 − 2ηλ))/η. Langevin steps and exact swaps then share the
// invariant law ∏ π^(1/τ_l), and a test needs no allowance for the step.
type eulerGaussian struct{ lambda, lambdaEff float64 }

func newEulerGaussian(lambda, eta float64) eulerGaussian {
	return eulerGaussian{lambda, (1 - math.Sqrt(1-2*eta*lambda)) / eta}
}

func (eulerGaussian) Dim() int                     { return 1 }
func (g eulerGaussian) U(theta []float64) float64  { return g.lambda * theta[0] * theta[0] / 2 }
func (g eulerGaussian) Grad(grad, theta []float64) { grad[0] = g.lambdaEff * theta[0] }

// TestDEOLevelsMatchTemperedGaussian: with exact energies, K = 5 levels and
// DEO swaps, every level's states follow π^(1/τ_l) = N(0, τ_l) for U = θ²/2.
func TestDEOLevelsMatchTemperedGaussian(t *testing.T) {
	skipSlow(t)
	taus := []float64{1, 2, 4, 8, 16}
	const eta, burn, n, thin = 0.1, 2000, 200_000, 2
	for _, w := range []int{1, 5} {
		t.Run(fmt.Sprintf("W=%d", w), func(t *testing.T) {
			smp := mustNew(t, exactConfig(newEulerGaussian(1, eta), taus, eta, Swap{Scheme: DEO, Window: w}, 5), zeros(len(taus), 1))
			sq := make([][]float64, len(taus))
			for i := range burn + n*thin {
				if err := smp.Step(); err != nil {
					t.Fatal(err)
				}
				if i >= burn && i%thin == 0 {
					for l := range taus {
						x := smp.State(l)[0]
						sq[l] = append(sq[l], x*x)
					}
				}
			}
			for l, tau := range taus {
				want := tau
				m, sd := meanvar.MeanSD(sq[l])
				// The mean of θ² has standard error sd(θ²)/√ESS, ESS the
				// effective size of the recorded θ² (Geyer's estimator);
				// 5 standard errors leave a false alarm below 1e-6.
				se := sd / math.Sqrt(diag.ESS(sq[l]))
				if !(math.Abs(m-want) <= 5*se) {
					t.Errorf("level %d (τ = %v): E θ² = %.4f, exact %.4f, tolerance %.4f", l, tau, m, want, 5*se)
				}
			}
			st := smp.Stats()
			for l, p := range st.Pairs {
				if p.Accepts == 0 {
					t.Errorf("pair %d: no swaps in %d attempts", l, p.Attempts)
				}
			}
			if s := Sum(st.Replicas); s.RoundTrips == 0 {
				t.Errorf("no round trips in %d steps", st.Steps)
			}
		})
	}
}
