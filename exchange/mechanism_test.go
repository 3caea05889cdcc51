package exchange

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// recorder is a one-dimensional estimator with a linear energy
// U(θ) = A·θ + B, a state-dependent energy variance σ²(θ) = V0 + θ² and a
// zero gradient, that logs every energy evaluation as "name@θ". Its draws
// are deterministic, so a swap ratio built from them is a closed form.
type recorder struct {
	name  string
	A, B  float64
	V0    float64
	log   *[]string
	noVar bool
}

func (r *recorder) Dim() int { return 1 }
func (r *recorder) Grad(grad, gradVar, _ []float64, _ *rand.Rand) {
	grad[0] = 0
	if gradVar != nil {
		gradVar[0] = 0
	}
}
func (r *recorder) Energy(theta []float64, _ *rand.Rand) (float64, float64) {
	*r.log = append(*r.log, fmt.Sprintf("%s@%v", r.name, theta[0]))
	return r.u(theta[0]), r.v(theta[0])
}
func (r *recorder) KnowsVariance() bool { return true }

// EnergyVarAt tells σ²(θ) without a draw (and without a log entry), so
// f-reSGLD learns its reverse variance for free.
func (r *recorder) EnergyVarAt(theta []float64) float64 { return r.v(theta[0]) }
func (r *recorder) u(x float64) float64                 { return r.A*x + r.B }
func (r *recorder) v(x float64) float64 {
	if r.noVar {
		return 0
	}
	return r.V0 + x*x
}

// For each rule: which level's estimator evaluates which state, the ratio
// it forms from them (D, V and m-reSGLD's weights), and the level each
// evaluation is charged to. x sits at the colder level (τ = 1), y at the
// hotter (τ = 4): τδ = 3/4.
func TestRuleEvaluatesAndCorrects(t *testing.T) {
	const x, y, tl, th, a1 = 1.5, -0.5, 1.0, 4.0, 0.3
	td := 1/tl - 1/th
	var log []string
	c := &recorder{name: "cold", A: 2, B: 0, V0: 0.3, log: &log}
	h := &recorder{name: "hot", A: 5, B: 1, V0: 0.7, log: &log}
	a2 := 1 - a1
	for _, k := range []struct {
		rule      Rule
		calls     []string
		d, v      float64
		cold, hot int64 // energy evaluations charged
	}{
		{FReSGLD, []string{"cold@1.5", "hot@-0.5"}, c.u(x) - h.u(y), c.v(x) + h.v(y), 1, 1},
		{ReSGLD, []string{"cold@1.5", "cold@-0.5"}, c.u(x) - c.u(y), c.v(x) + c.v(y), 2, 0},
		{MReSGLD, []string{"cold@1.5", "cold@-0.5", "hot@1.5", "hot@-0.5"},
			a1*(c.u(x)-c.u(y)) + a2*(h.u(x)-h.u(y)), a1*a1*(c.v(x)+c.v(y)) + a2*a2*(h.v(x)+h.v(y)), 2, 2},
	} {
		log = log[:0]
		cfg := Config{Levels: []Level{
			{Tau: tl, Est: c, Eta: langevin.Constant{Step: 0.01}},
			{Tau: th, Est: h, Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: k.rule, A: 1, A1: a1}}
		s := mustNew(t, cfg, [][]float64{{0}, {0}})
		got, err := s.LogRatio(0, []float64{x}, []float64{y})
		if err != nil {
			t.Fatal(err)
		}
		// log Ŝ = τδ·D − τδ²·V/2 (E Ŝ = S for Gaussian energy noise).
		want := td*k.d - td*td*k.v/2
		if !(math.Abs(got-want) <= 1e-14*math.Abs(want)) {
			t.Errorf("%v: log Ŝ = %v, want τδD − τδ²V/2 = %v", k.rule, got, want)
		}
		if !slices.Equal(log, k.calls) {
			t.Errorf("%v: evaluations %v, want %v", k.rule, log, k.calls)
		}
		st := s.Stats()
		if cc, hc := st.Levels[0].Cost.Energy.Calls, st.Levels[1].Cost.Energy.Calls; cc != k.cold || hc != k.hot {
			t.Errorf("%v: energy evaluations charged %d to the cold level and %d to the hot, want %d and %d", k.rule, cc, hc, k.cold, k.hot)
		}
	}
}

// Swap acceptance is min(1, Ŝ), and the attempt probability is a·η_k with
// η_k the colder level's step at step k (PerStep: every step). The energies
// are constant in θ, so log Ŝ is the same at every attempt; the rates are
// binomial, and each tolerance is 4.5 binomial standard errors
// √(p(1 − p)/n): a false alarm has probability below 10⁻⁵.
func TestSwapAcceptanceAndIntensity(t *testing.T) {
	const n = 40000
	run := func(logS float64, sw Swap, coldEta langevin.Schedule) PairStats {
		var log []string
		// FReSGLD with zero variance: log Ŝ = τδ(B_c − B_h) with τδ = 1/2.
		c := &recorder{name: "c", B: 2 * logS, noVar: true, log: &log}
		h := &recorder{name: "h", noVar: true, log: &log}
		cfg := Config{Levels: []Level{
			{Tau: 1, Est: c, Eta: coldEta},
			{Tau: 2, Est: h, Eta: langevin.Constant{Step: 0.001}},
		}, Swap: sw, Seed: 9}
		s := mustNew(t, cfg, [][]float64{{0}, {0}})
		for range n {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			log = log[:0]
		}
		return s.Stats().Pairs[0]
	}
	check := func(what string, got, trials int, p float64) {
		t.Helper()
		se := math.Sqrt(p * (1 - p) / float64(trials))
		if r := float64(got) / float64(trials); math.IsNaN(r) || math.Abs(r-p) > 4.5*se+1e-12 {
			t.Errorf("%s: rate %v over %d, want %v ± %.4f", what, r, trials, p, 4.5*se)
		}
	}
	eta := langevin.Constant{Step: 0.01}
	for _, logS := range []float64{math.Log(0.3), math.Log(0.8), 0.5} {
		p := run(logS, Swap{Rule: FReSGLD, PerStep: true}, eta)
		if p.Attempts != n {
			t.Errorf("per step: %d attempts in %d steps", p.Attempts, n)
		}
		check(fmt.Sprintf("acceptance at S = %.2f", math.Exp(logS)), p.Accepts, p.Attempts, math.Min(1, math.Exp(logS)))
	}
	// a = 30, η = 0.01 on the cold level (0.001 on the hot): attempts at
	// rate 0.3, accepted always (S > 1).
	p := run(0.5, Swap{Rule: FReSGLD, A: 30}, eta)
	check("attempts at a·η = 0.3", p.Attempts, n, 0.3)
	if p.Accepts != p.Attempts {
		t.Errorf("S > 1: %d of %d attempts accepted", p.Accepts, p.Attempts)
	}
	// A decreasing step: the attempts are a sum of Bernoulli(a·η_k), whose
	// mean and variance are Σ a·η_k and Σ a·η_k(1 − a·η_k).
	dec := langevin.Decreasing{A: 0.02, B: 100, Gamma: 1}
	p = run(0.5, Swap{Rule: FReSGLD, A: 40}, dec)
	var mean, vr float64
	for k := range n {
		q := 40 * dec.Eta(k)
		mean += q
		vr += q * (1 - q)
	}
	if !(math.Abs(float64(p.Attempts)-mean) <= 4.5*math.Sqrt(vr)) {
		t.Errorf("decreasing η: %d attempts, want %.0f ± %.0f", p.Attempts, mean, 4.5*math.Sqrt(vr))
	}
	if p := run(0.5, Swap{Rule: FReSGLD, A: 0}, eta); p.Attempts != 0 {
		t.Errorf("a = 0: %d attempts", p.Attempts)
	}
}

// Cost shares mean the same in every method: the hot share is the hot
// chain's own work (its gradients), the swap share every swap energy,
// whichever level's estimator drew it. With unit costs, a swap attempt
// every step and n steps: f-reSGLD and reSGLD spend 2n gradients and 2n
// energies (hot share 1/4, swap share 1/2), m-reSGLD 2n and 4n (1/6, 2/3).
func TestCostShares(t *testing.T) {
	const n = 50
	for _, k := range []struct {
		rule      Rule
		hot, swap float64
	}{{FReSGLD, 0.25, 0.5}, {ReSGLD, 0.25, 0.5}, {MReSGLD, 1.0 / 6, 2.0 / 3}} {
		var log []string
		cfg := Config{Levels: []Level{
			{Tau: 1, Est: &recorder{name: "c", log: &log}, Eta: langevin.Constant{Step: 0.01}},
			{Tau: 2, Est: &recorder{name: "h", log: &log}, Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: k.rule, PerStep: true, A1: 0.5}}
		s := mustNew(t, cfg, [][]float64{{0}, {0}})
		stepN(t, s, n)
		st := s.Stats()
		if h, sw := st.HotShare(), st.SwapShare(); math.Abs(h-k.hot) > 1e-15 || math.Abs(sw-k.swap) > 1e-15 {
			t.Errorf("%v: hot share %v, swap share %v; want %v and %v", k.rule, h, sw, k.hot, k.swap)
		}
		if tot := st.Total(); tot.Calls != int64(2*n)+int64(math.Round(k.swap/(1-k.swap)*2*n)) {
			t.Errorf("%v: total %d calls", k.rule, tot.Calls)
		}
	}
}

// alternating is η_k = Big at even k and a negligible Small at odd k.
type alternating struct{ Big, Small float64 }

func (a alternating) Eta(k int) float64 {
	if k%2 == 0 {
		return a.Big
	}
	return a.Small
}
func (alternating) Validate() error { return nil }

// The attempt at step k uses η_k of that very step: with a·η_k = 1 at even
// k and 10⁻¹¹ at odd k, and S > 1, swaps happen at exactly the even steps.
func TestIntensityUsesThisStepsEta(t *testing.T) {
	var log []string
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: &recorder{name: "c", B: 1, noVar: true, log: &log}, Eta: alternating{0.1, 1e-12}},
		{Tau: 2, Est: &recorder{name: "h", noVar: true, log: &log}, Eta: alternating{0.1, 1e-12}},
	}, Swap: Swap{Rule: FReSGLD, A: 10}, Seed: 5, RecordSwaps: true}
	s := mustNew(t, cfg, [][]float64{{0}, {0}})
	stepN(t, s, 40)
	var want []int
	for k := 0; k < 40; k += 2 {
		want = append(want, k)
	}
	if got := s.Stats().Pairs[0].Times; !slices.Equal(got, want) {
		t.Errorf("swaps at %v, want at the even steps %v", got, want)
	}
}

// Cost is counted in the estimator's own units: a minibatch of n = 7 with
// energies of 11 examples costs 7 a gradient draw and 11 an energy draw.
// f-reSGLD's attempt draws each level's energy twice: once for its ratio
// and once, at the other state, for the variance the reverse swap would
// carry (a minibatch cannot tell it without a draw).
func TestCostInEstimatorUnits(t *testing.T) {
	terms := newLocTerms(100, []float64{1}, 6)
	var ests [2]*energy.Minibatch
	for l := range ests {
		ests[l], _ = energy.NewMinibatch(terms, 7)
		ests[l].SetEnergySize(11)
	}
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: ests[0], Eta: langevin.Constant{Step: 1e-3}},
		{Tau: 2, Est: ests[1], Eta: langevin.Constant{Step: 1e-3}},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 2, Energies: Energies{Gaussian: true}}
	s := mustNew(t, cfg, [][]float64{{0}, {0}})
	stepN(t, s, 30)
	for l, lv := range s.Stats().Levels {
		c := lv.Cost
		if c.Grad.Calls != 30 || c.Grad.Units != 7*30 || c.Energy.Calls != 60 || c.Energy.Units != 11*60 {
			t.Errorf("level %d: gradients %+v, energies %+v; want 30 calls of 7 and 60 of 11", l, c.Grad, c.Energy)
		}
	}
}
