package analysis

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/variance"
)

// The tuning takes as many steps as the burn-in, rounded up to whole
// rounds, in AutoTune.Rounds rounds where the burn-in holds them with a
// first round long enough that a pair is unlikely to go without a swap
// attempt (MinAttempts/rate steps), in fewer where it does not, and in one
// such round where the burn-in is shorter still.
func TestTuneOptionsMatchBurn(t *testing.T) {
	for _, rate := range []float64{0.1, 1, 1.0 / 500} {
		least := int(math.Ceil(float64(AutoTune.MinAttempts) / rate))
		full := least * (1<<AutoTune.Rounds - 1)
		for _, burn := range []int{0, 1, 100, least, 3 * least, 5000, full - 1, full, 123457, 10_000_000} {
			o := tuneOptions(burn, rate, nil)
			whole := 1<<o.Rounds - 1
			steps := o.First * whole
			if !o.Grow || o.MaxLevels != AutoTune.MaxLevels || o.First < least {
				t.Errorf("burn %d, swap rate %v: %+v (first round under %d steps)", burn, rate, o, least)
			}
			// The most rounds, at most Rounds, whose first is least steps
			// long within the burn-in; one where none fits.
			fits := func(r int) bool { return least*(1<<r-1) <= burn }
			if o.Rounds < 1 || o.Rounds > AutoTune.Rounds || o.Rounds > 1 && !fits(o.Rounds) || o.Rounds < AutoTune.Rounds && fits(o.Rounds+1) {
				t.Errorf("burn %d, swap rate %v: %d rounds", burn, rate, o.Rounds)
			}
			if burn >= full && o.Rounds != AutoTune.Rounds {
				t.Errorf("burn %d ≥ %d, swap rate %v: %d rounds, want all %d", burn, full, rate, o.Rounds, AutoTune.Rounds)
			}
			if want := max(burn, least); steps < want || steps >= want+whole {
				t.Errorf("burn %d, swap rate %v: tuning of %d steps, want [%d, %d)", burn, rate, steps, want, want+whole)
			}
		}
	}
}

// splitTerms is the energy U of a one-dimensional target as N data terms
// U/N + c_i·θ with Σ c_i = 0: their sum is U exactly, while a minibatch's
// gradient and energy are noisy, the same noise at every θ.
type splitTerms struct {
	u models.Mixture
	c []float64
}

func (s splitTerms) Dim() int { return 1 }
func (s splitTerms) Len() int { return len(s.c) }
func (s splitTerms) Term(grad, theta []float64, i int) float64 {
	n := float64(len(s.c))
	if grad != nil {
		s.u.Grad(grad, theta)
		grad[0] = grad[0]/n + s.c[i]
	}
	return s.u.U(theta)/n + s.c[i]*theta[0]
}
func (s splitTerms) Prior(grad, _ []float64) float64 {
	clear(grad)
	return 0
}

// bimodal is a target whose two modes, 10 sds apart with weights 0.3 and
// 0.7, one level at τ = 1 crosses about never (a barrier of about 12 nats),
// while a ladder to τ = 20 crosses it freely; as 100 data terms, so that
// minibatches are noisy.
func bimodal(t *testing.T) plan.Model {
	t.Helper()
	mix, err := models.NewMixture([]float64{0.3, 0.7}, []float64{-5, 5}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	c := make([]float64, 100)
	for i := range c {
		c[i] = 0.05 * (float64(i) - 49.5) / 100 // Σ c_i = 0
	}
	return plan.Model{
		Terms: splitTerms{mix, c}, Names: []string{"x"},
		Generated: []string{"right"},
		Generate: func(out, theta []float64) {
			out[0] = 0
			if theta[0] > 0 {
				out[0] = 1
			}
		},
		NoChainChecks: true,
	}
}

func autoOptions(t *testing.T) Options {
	o := DefaultOptions()
	o.Method, o.Levels, o.Tau2, o.Out = exchange.FReSGLDMethod, AutoLevels, 20, t.TempDir()
	o.Eta, o.Burn, o.Keep, o.Thin = 0.05, 4000, 2000, 10
	return o
}

// Under --levels auto every chain runs the ladder the one tuning found, at
// its temperatures, from θ = 0 like the other methods' chains, on its own
// random stream; the tuning ran the steps of its burn-in and swap rate,
// and moved the starting geometric ladder.
func TestTunedSamplerRunsTunedLadder(t *testing.T) {
	m, o := bimodal(t), autoOptions(t)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := Defaults(context.Background(), m, &o, &Result{}); err != nil {
		t.Fatal(err)
	}
	ad, err := tuneLadder(context.Background(), m, o, o.swap.Energies)
	if err != nil {
		t.Fatal(err)
	}
	var smps []*exchange.Sampler
	for _, id := range []int{1, 2} {
		smp, err := tunedSampler(m, o, id, o.swap.Energies, map[int]*variance.AutoBatch{}, ad)
		if err != nil {
			t.Fatal(err)
		}
		defer smp.Close()
		smps = append(smps, smp)
		if smp.Levels() != len(ad.Taus) {
			t.Fatalf("chain %d: sampler of %d levels, tuning found %d", id, smp.Levels(), len(ad.Taus))
		}
		for l, tau := range ad.Taus {
			if smp.Tau(l) != tau {
				t.Errorf("chain %d, level %d: τ = %v, the tuning's %v", id, l, smp.Tau(l), tau)
			}
			if smp.State(l)[0] != 0 {
				t.Errorf("chain %d, level %d starts at %v, want 0", id, l, smp.State(l))
			}
		}
	}
	for range 10 {
		for _, smp := range smps {
			if err := smp.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if smps[0].State(0)[0] == smps[1].State(0)[0] {
		t.Errorf("chains 1 and 2 at the same state %v after 10 steps: one random stream", smps[0].State(0))
	}
	opt := tuneOptions(o.Burn, attemptRate(o.SwapRate, o.swap.Energies), nil)
	if want := opt.First * (1<<opt.Rounds - 1); ad.Steps != want {
		t.Errorf("tuning of %d steps for a burn-in of %d at swap rate %v, want %d", ad.Steps, o.Burn, o.SwapRate, want)
	}
	geo, err := exchange.Geometric(1, o.Tau2, AutoTune.Start)
	if err != nil {
		t.Fatal(err)
	}
	if slices.EqualFunc(ad.Taus, geo, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) {
		t.Errorf("tuning left the starting ladder %v as it was", geo)
	}
}

// Under exact swap energies every W steps a pair is offered a swap every W
// steps, whatever --swap-rate says, so the first round runs MinAttempts·W
// steps: sized from --swap-rate (1/0.1 = 10 steps an offer, 200 steps) it
// would offer no pair a swap at W = 500, and the tuning would fail. A
// burn-in of 100 steps holds no more than that one round.
func TestTuningSizedBySwapSpacing(t *testing.T) {
	m, o := bimodal(t), autoOptions(t)
	o.SwapEnergies, o.ExactEvery, o.Burn, o.SwapRate = "exact", 500, 100, 0.1
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := Defaults(context.Background(), m, &o, &Result{}); err != nil {
		t.Fatal(err)
	}
	if w := o.swap.Energies.Spacing(); w != 500 {
		t.Fatalf("swap energies %s attempted every %d steps, want 500", o.swap.Mode, w)
	}
	ad, err := tuneLadder(context.Background(), m, o, o.swap.Energies)
	if err != nil {
		t.Fatal(err)
	}
	if want := AutoTune.MinAttempts * 500; ad.Steps != want {
		t.Errorf("tuning of %d steps, want %d: one round of MinAttempts·W", ad.Steps, want)
	}
	// 10,000 steps against a burn-in of 100: the run says so, with the
	// spacing that set them; a tuning within twice the burn-in does not.
	ws := longTuning(o, ad.Steps, o.swap.Energies)
	if len(ws) != 1 || ws[0].Code != "long-tuning" || ws[0].Number != 100 || !strings.Contains(ws[0].Message, "one every 500 steps") || !strings.HasSuffix(ws[0].Message, ws[0].Remedy) {
		t.Errorf("warnings %+v, want one long-tuning at 100 times the burn-in naming the 500-step spacing", ws)
	}
	if ws := longTuning(o, 2*o.Burn, o.swap.Energies); len(ws) != 0 {
		t.Errorf("a tuning of twice the burn-in warned: %+v", ws)
	}
}

// The tuned ladder's cold level samples the target: every chain visits
// both modes, and the pooled weight of the right one is the exact 0.7
// within 4 MCSE. The two modes have the same shape, so Langevin's O(η)
// distortion of each is the same and leaves their weights alone to first
// order, as does the minibatch noise, the same at every θ; at η = 0.05
// the rest is far below the MCSE (about 0.015 here).
// One level at τ = 1 would not cross: without the ladder the chains stay
// where they start and fail both checks.
func TestLevelsAutoLaw(t *testing.T) {
	res, err := Run(context.Background(), bimodal(t), autoOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.Tuning == nil {
		t.Fatal("no tuning")
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "ladder tuned (--levels auto)") }) {
		t.Errorf("no tuning note: %q", res.Notes)
	}
	col := slices.Index(res.Chains[0].Columns, "right")
	for _, c := range res.Chains {
		var share float64
		for _, v := range c.Cols[col] {
			share += v / float64(len(c.Cols[col]))
		}
		if share < 0.4 || share > 0.95 {
			t.Errorf("chain %d: %.3f of its draws at the right mode (weight 0.7): it did not cross", c.Header.ID, share)
		}
	}
	i := slices.IndexFunc(res.Summary.Parameters, func(p results.ParamRow) bool { return p.Name == "right" })
	p := res.Summary.Parameters[i]
	if d := math.Abs(p.Mean - 0.7); !(d <= 4*p.MCSEMean) {
		t.Errorf("weight of the right mode %.4f ± %.4f, exact 0.7: off by %.1f MCSE", p.Mean, p.MCSEMean, d/p.MCSEMean)
	}
	t.Logf("weight %.4f ± %.4f; a ladder of %d levels", p.Mean, p.MCSEMean, len(res.Tuning.Taus))
}

// Exact swap energies chosen for the starting ladder are spaced again for
// the tuned one: a ladder grown to K levels attempts its swaps every
// swapPeriod(N, n, K) steps, so that its K passes an attempt stay within a
// quarter of n a step. Without tunedPeriod the attempts keep the starting
// ladder's spacing (its 4 levels) and the chains' attempts count fails.
func TestLevelsAutoSpacesExactSwaps(t *testing.T) {
	// From three levels, which this barrier (Λ̂ ≈ 1.9 up to τ = 2000) grows
	// to about four.
	start := AutoTune.Start
	AutoTune.Start = 3
	defer func() { AutoTune.Start = start }()
	o := autoOptions(t)
	o.Tau2, o.SwapEnergies, o.Keep = 2000, "exact", 500
	var log bytes.Buffer
	o.Log = &log
	res, err := Run(context.Background(), bimodal(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	K := len(res.Tuning.Taus)
	if K <= AutoTune.Start {
		t.Fatalf("the ladder kept %d levels: the test needs one grown beyond the start's %d; %q", K, AutoTune.Start, res.Notes)
	}
	W := swapPeriod(100, res.Options.Batch, K)
	if got := res.Swap.Swap.Energies.ExactEvery; got != W {
		t.Errorf("exact swaps every %d steps, want swapPeriod(N, n, %d) = %d", got, K, W)
	}
	if !strings.Contains(res.Swap.Swap.Rule, "tuned ladder's") {
		t.Errorf("the swap rule does not say it was spaced for the tuned ladder: %q", res.Swap.Swap.Rule)
	}
	if want := fmt.Sprintf("exact every W = %d steps for the tuned ladder's %d levels", W, K); !strings.Contains(log.String(), want) {
		t.Errorf("the log does not say %q:\n%s", want, log.String())
	}
	for _, c := range res.Chains {
		if a, want := c.Ladder.Pairs[0].Attempts, c.Ladder.Steps/W; a != want {
			t.Errorf("chain %d: %d attempts in %d steps, want one every %d: %d", c.Header.ID, a, c.Ladder.Steps, W, want)
		}
	}
	t.Logf("%d levels, exact swaps every %d steps", K, W)
}

// --levels auto is refused where no ladder is tuned.
func TestLevelsAutoRefused(t *testing.T) {
	for _, m := range []exchange.Method{AutoMethod, exchange.SGLDMethod, exchange.CorrectedMethod, exchange.CSGLDMethod} {
		o := DefaultOptions()
		o.Method, o.Levels = m, AutoLevels
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--levels auto") {
			t.Errorf("method %s: %v", m, err)
		}
	}
}

// A run whose chains were built with ladders of different lengths (as
// chains tuned one by one once were) is refused before any step, with the
// numbers, where its chain files would have needed columns of their own
// and the writer panicked.
func TestSampleRefusesUnequalLadders(t *testing.T) {
	mix, err := models.NewMixture([]float64{0.5, 0.5}, []float64{-2, 2}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	run := ChainRun{
		Header: results.ChainHeader{Command: "test", Seed: 1, Burn: 10, Keep: 10, Thin: 1},
		Names:  []string{"x"},
		Plan:   exchange.Plan{Burn: 10, Keep: 10, Thin: 1},
		New: func(id int) (*exchange.Sampler, error) {
			cold, hot := models.PaperFixedNoise(mix)
			cfg, err := exchange.FReSGLDMethod.Config(exchange.Setup{Tau1: 1, Tau2: 10, Levels: 1 + id, Eta: langevin.Constant{Step: 0.01},
				Cold: cold, Hot: hot, A: 1, Seed: exchange.ChainSeed(1, id)})
			if err != nil {
				return nil, err
			}
			return exchange.New(cfg, starts(len(cfg.Levels), 1))
		},
		Out: t.TempDir(),
	}
	_, err = Sample(context.Background(), run, []int{1, 2})
	if err == nil || !strings.Contains(err.Error(), "chain 2's ladder has 3 levels, chain 1's 2") {
		t.Errorf("chains of 2 and 3 levels: %v", err)
	}
}
