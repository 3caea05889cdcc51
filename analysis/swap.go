package analysis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/variance"
)

// swapPeriod is ⌈4KN/n⌉: the anchor or exact-swap period whose full passes
// (one for each of the K levels' states a period: K·N; ⌈8N/n⌉ for two
// levels) cost a quarter of n per step.
func swapPeriod(N, n, K int) int { return (4*K*N + n - 1) / n }

// passLevels is the K that prices a ladder of levels full passes under
// swapPeriod. A data set that gives exact differences from its sufficient
// statistics (energy.DiffTerms) makes no pass: each pair's difference
// costs DiffCost, far below 2N, so it keeps the two-level price and the
// swap rate the user set rather than spacing its swaps as the ladder grows.
func passLevels(t energy.Terms, levels int) int {
	if _, ok := t.(energy.DiffTerms); ok {
		return 2
	}
	return levels
}

// SwapChoice is the resolved swap-energy setting and how it was chosen.
type SwapChoice struct {
	Energies    exchange.Energies `json:"-"`
	Mode        string            `json:"mode"`
	Rule        string            `json:"rule"`
	PilotNoise  float64           `json:"pilot_noise,omitempty"`
	PilotAccept float64           `json:"pilot_acceptance,omitempty"`
	PilotSwap   float64           `json:"pilot_swap_cost_per_step,omitempty"`
	PilotCost   float64           `json:"pilot_evaluations,omitempty"`
}

// pilotResult is what a swap-energy pilot measured: the largest mean
// screen noise over the pairs and that pair's acceptance, the swap cost per
// step (anchor passes, screens, confirmations) and all its evaluations.
type pilotResult struct {
	Noise, Accept, SwapPerStep, Cost float64
}

// chooseSwapEnergies resolves mode ("auto" or an exchange.EnergyMode name)
// for K levels of n-example cold minibatches on N examples (K as
// passLevels prices them); thin is a thinned attempt's predicted
// per-example evaluations (thinnedCost; 0 where thinned swaps are not
// offered), and pilot runs a short ladder under the given energies, which
// auto calls only when exact energies at every attempt and thinned ones
// are both too dear.
func chooseSwapEnergies(mode string, N, n, K, every int, rate, thin float64, pilot func(exchange.Energies) (pilotResult, error)) (SwapChoice, error) {
	period := swapPeriod(N, n, K)
	set := every != 0
	if !set {
		every = period
	}
	e := exchange.Energies{AnchorEvery: period, ExactEvery: every}
	if mode != "auto" {
		m, err := exchange.ParseEnergyMode(mode)
		if err != nil {
			return SwapChoice{}, fmt.Errorf("--swap-energies: %w", err)
		}
		e.Mode = m
		if m == exchange.ThinnedEnergies && !set {
			// Thinned attempts cost a few examples, not passes: at the
			// swap rate, as exact attempts are when they are cheap.
			e.ExactEvery = max(1, int(math.Round(1/rate)))
		}
		return SwapChoice{Energies: e, Mode: m.String(), Rule: "set by --swap-energies"}, nil
	}
	// An attempt offers every pair a swap, and each of the K states' energies
	// is one pass (exchange.ExactEnergies evaluates a state once for both
	// its pairs).
	if c := float64(K*N) * rate; c <= float64(n)/4 {
		e.Mode, e.ExactEvery = exchange.ExactEnergies, max(1, int(math.Round(1/rate)))
		return SwapChoice{Energies: e, Mode: "exact", Rule: fmt.Sprintf("auto: exact energies at every attempt cost K·N·rate = %.3g ≤ n/4 = %.3g per step (K = %d)", c, float64(n)/4, K)}, nil
	}
	// Thinned attempts are exact in law too, at the budget exact ones were
	// refused: a quarter of n a step.
	if c := thin * rate; thin > 0 && c <= float64(n)/4 {
		e.Mode, e.ExactEvery = exchange.ThinnedEnergies, max(1, int(math.Round(1/rate)))
		return SwapChoice{Energies: e, Mode: "thinned", Rule: fmt.Sprintf("auto: exact energies at every attempt cost K·N·rate = %.3g per step, thinned ones %.3g ≤ n/4 = %.3g (the Laplace approximation's prediction)", float64(K*N)*rate, c, float64(n)/4)}, nil
	}
	refused := ""
	if thin > 0 {
		refused = fmt.Sprintf(" (thinned attempts, predicted at %.3g per step, exceed n/4 = %.3g)", thin*rate, float64(n)/4)
	}
	e.Mode = exchange.PairTaylorEnergies
	r, err := pilot(e)
	if err != nil {
		return SwapChoice{}, fmt.Errorf("swap-energy pilot: %w", err)
	}
	c := SwapChoice{PilotNoise: r.Noise, PilotAccept: r.Accept, PilotSwap: r.SwapPerStep, PilotCost: r.Cost}
	if r.Noise < 1 && r.SwapPerStep <= float64(n)/2 {
		c.Energies, c.Mode = e, e.Mode.String()
		c.Rule = fmt.Sprintf("auto: first-order control-variate screens in the pilot: noise %.3g nats < 1, swap cost %.3g ≤ n/2 = %.3g per step%s", r.Noise, r.SwapPerStep, float64(n)/2, refused)
		return c, nil
	}
	e.Mode = exchange.ExactEnergies
	c.Energies, c.Mode = e, "exact"
	c.Rule = fmt.Sprintf("auto: first-order control-variate screens in the pilot: noise %.3g nats, swap cost %.3g per step against n/2 = %.3g (acceptance %.3g): exact energies every W = %d steps%s", r.Noise, r.SwapPerStep, float64(n)/2, r.Accept, e.ExactEvery, refused)
	return c, nil
}

// shapeDraws is the number of energy draws whose excess kurtosis tests the
// draw mode's Gaussian noise: its standard error under a Gaussian law is
// √(24/shapeDraws) ≈ 0.11.
const shapeDraws = 2000

// energyKurtosis draws n-example minibatch estimates of U at theta and
// returns their excess kurtosis and its standard error under a Gaussian law,
// √(24/draws); draws that vary only by rounding have none (0).
func energyKurtosis(t energy.Terms, n int, theta []float64, draws int, seed uint64) (kurt, se float64, err error) {
	mb, err := energy.NewMinibatch(t, n)
	if err != nil {
		return 0, 0, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b757274))
	us := make([]float64, draws)
	for i := range us {
		us[i], _ = mb.Energy(theta, rng)
	}
	mean, sd := stat.MeanStdDev(us, nil)
	if !(sd > 1e-9*math.Abs(mean)) {
		return 0, math.Sqrt(24 / float64(draws)), nil // no noise (n = N, or equal terms) but rounding
	}
	k := stat.ExKurtosis(us, nil)
	return k, math.Sqrt(24 / float64(draws)), nil
}

// checkDrawNoise refuses --swap-energies draw unless --swap-gaussian says
// the minibatch energies' noise may be taken for Gaussian, and warns, with
// the number, when the draws' excess kurtosis says it is not. The energies
// are drawn at the mode (the chains' start when it is unknown) at the
// smallest size the swaps use: the hottest level's automatic size by its
// rule at the mode, when it is automatic.
func checkDrawNoise(t energy.Terms, o Options, mode []float64) (*results.Warning, error) {
	at := mode
	if at == nil {
		at = make([]float64, t.Dim())
	}
	n, which := o.SwapBatch, "--swap-batch"
	if n == 0 {
		n, which = o.Batch, "the cold level's"
		if o.HotBatch > 0 {
			n, which = min(n, o.HotBatch), "the smaller of --batch and --hot-batch"
		} else if _, _, s2, err := coldSize(t, [][]float64{at}, o.Eta, o.Tau2, o.Seed); err == nil && s2 > 0 {
			hot := int(math.Ceil(variance.SizeFor(t.Len(), s2, o.Eta, o.Tau2, o.HotShare)))
			if hot < n {
				n, which = max(hot, 2), "the hottest level's automatic size, by its rule at the mode"
			}
		}
	}
	k, se, err := energyKurtosis(t, n, at, shapeDraws, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("--swap-energies draw: %w", err)
	}
	shape := fmt.Sprintf("the minibatch energy at the mode (n = %d, %s) has excess kurtosis %.3g ± %.2g over %d draws (0 for Gaussian noise)", n, which, k, se, shapeDraws)
	remedy := "--swap-energies pair, pair-taylor or exact, which need no Gaussian law"
	if !o.SwapGaussian {
		return nil, fmt.Errorf("--swap-energies draw: the draw mode's penalty rule keeps the levels' laws only for Gaussian energy noise, and %s; use %s, or give --swap-gaussian to run it all the same", shape, remedy)
	}
	if math.Abs(k) <= 3*se {
		return nil, nil
	}
	return &results.Warning{Code: "swap-gaussian", Number: k, Remedy: remedy,
		Message: fmt.Sprintf("--swap-gaussian: %s, %.1f standard errors from Gaussian: the draw mode's swaps may not keep the levels' laws; use %s", shape, math.Abs(k)/se, remedy)}, nil
}

// runPilot steps the pilot ladder smp for steps steps (stopping with
// ErrInterrupted once ctx is done) and measures what the rule of --swap-energies auto
// (docs/reference/swap-energies.md) reads:
// the noisiest pair's screen noise and acceptance, the swap cost per step
// (swap energies and anchor passes) and all the pilot's evaluations.
func runPilot(ctx context.Context, smp *exchange.Sampler, steps int) (pilotResult, error) {
	defer smp.Close()
	for range steps {
		if ctx.Err() != nil {
			return pilotResult{}, fmt.Errorf("%w before sampling: nothing to keep", results.ErrInterrupted)
		}
		if err := smp.Step(); err != nil {
			return pilotResult{}, err
		}
	}
	st := smp.Stats()
	var swap float64
	for _, l := range st.Levels {
		swap += l.Cost.Energy.Units + l.Cost.Anchor.Units
	}
	w := noisiestPair(st.Pairs)
	return pilotResult{w.Noise, w.Rate(), swap / float64(steps), smp.Units()}, nil
}

// reportSwaps measures the swap noise and cost over the chains into sum:
// the lines that say them and the warnings of noise-governed swaps.
func reportSwaps(chains []*results.Chain, sum *SwapSummary) (lines []string, warnings []results.Warning) {
	var ladders []exchange.Stats
	for _, c := range chains {
		ladders = append(ladders, c.Ladder)
	}
	sum.SwapNoise, lines = swapNoise(ladders, sum.Swap.Mode)
	sum.SwapConfirmed, sum.SwapDeclined = swapDecisions(ladders)
	c := swapCosts(ladders)
	sum.SwapCost = &c
	lines = append(lines, fmt.Sprintf("swap cost: %.4g per-example evaluations of swap energies and %.4g of anchor passes, %.1f%% of the %.4g of gradients", c.Energies, c.Anchors, 100*(c.Energies+c.Anchors)/c.Gradients, c.Gradients))
	return lines, noiseWarnings(sum.SwapNoise, sum.Swap.Mode)
}

// SwapSummary is the swap part of a minibatch command's summary.json.
type SwapSummary struct {
	Swap      *SwapChoice `json:"swap_energies,omitempty"`
	SwapNoise []float64   `json:"swap_noise,omitempty"` // per pair, mean τδ²V/2 in nats over all chains' attempts
	SwapCost  *SwapCost   `json:"swap_cost,omitempty"`  // per-example evaluations, all chains
	// Per pair, over all chains: the attempts decided on the full data
	// after their screen passed, and those declined for noise above the
	// cap.
	SwapConfirmed []int `json:"swap_confirmed,omitempty"`
	SwapDeclined  []int `json:"swap_declined,omitempty"`
}

// swapDecisions sums each pair's confirmed and declined attempts over the
// chains' ladders.
func swapDecisions(ladders []exchange.Stats) (confirmed, declined []int) {
	if len(ladders) == 0 {
		return nil, nil
	}
	confirmed = make([]int, len(ladders[0].Pairs))
	declined = make([]int, len(ladders[0].Pairs))
	for _, st := range ladders {
		for l := range min(len(st.Pairs), len(confirmed)) {
			confirmed[l] += st.Pairs[l].Confirmed
			declined[l] += st.Pairs[l].Capped
		}
	}
	return confirmed, declined
}

// noisiestPair is the pair with the largest mean swap noise: the one that
// decides whether a ladder's swap energies are quiet enough.
func noisiestPair(ps []exchange.PairStats) exchange.PairStats {
	if len(ps) == 0 { // one level: no pair, no noise
		return exchange.PairStats{}
	}
	w := 0
	for l := range ps {
		if ps[l].Noise > ps[w].Noise {
			w = l
		}
	}
	return ps[w]
}

// swapNoise pools each pair's swap noise τδ²V/2 over the chains' ladders
// (weighted by attempts) and describes it, one line per pair.
func swapNoise(ladders []exchange.Stats, mode string) (noise []float64, lines []string) {
	if len(ladders) == 0 {
		return nil, nil
	}
	for l := range ladders[0].Pairs {
		var sum, n, screened float64
		capped, confirmed := 0, 0
		for _, st := range ladders {
			if l < len(st.Pairs) {
				sum += st.Pairs[l].Noise * float64(st.Pairs[l].Attempts)
				n += float64(st.Pairs[l].Attempts)
				capped += st.Pairs[l].Capped
				confirmed += st.Pairs[l].Confirmed
				screened += float64(st.Pairs[l].Screened)
			}
		}
		v := 0.0
		if n > 0 {
			v = sum / n
		}
		noise = append(noise, v)
		line := fmt.Sprintf("swap noise, levels %d–%d (%s energies): mean τδ²V/2 = %.3g nats over %.0f attempts", l+1, l+2, mode, v, n)
		if screened > 0 {
			line += fmt.Sprintf("; screens of %.3g examples a state, %d attempts (%.1f%%) confirmed on the full data", screened/n/2, confirmed, 100*float64(confirmed)/n)
		}
		if capped > 0 {
			line += fmt.Sprintf(", %d declined for noise above --swap-noise-cap", capped)
		}
		lines = append(lines, line)
	}
	return noise, lines
}

// noiseWarnings names the pairs whose swaps the noise governs, with the
// number and the remedies other than the mode in use.
func noiseWarnings(noise []float64, mode string) []results.Warning {
	var rem []string
	for _, r := range []struct{ mode, text string }{
		{"", "a larger energy batch (--swap-batch)"},
		{"pair-taylor", "first-order control variates (--swap-energies pair-taylor)"},
		{"", "more levels (--levels)"},
		{"exact", "exact swaps every W steps (--swap-energies exact --exact-every W)"},
	} {
		if r.mode == "" || r.mode != mode {
			rem = append(rem, r.text)
		}
	}
	var w []results.Warning
	for l, v := range noise {
		if v > 1 {
			w = append(w, results.Warning{Code: "swap-noise", Number: v, Remedy: strings.Join(rem, ", "), Message: fmt.Sprintf("levels %d and %d: swaps are governed by noise: mean τδ²V/2 = %.3g nats > 1, so acceptance is at most about e^-%.3g whatever the states; remedies: %s",
				l+1, l+2, v, v, strings.Join(rem, ", "))})
		}
	}
	return w
}

// SwapCost splits a run's per-example evaluations: gradients (variance
// estimation included), swap energies (pilot draws included) and anchor
// passes.
type SwapCost struct {
	Gradients float64 `json:"gradients"`
	Energies  float64 `json:"swap_energies"`
	Anchors   float64 `json:"anchor_passes"`
}

func swapCosts(ladders []exchange.Stats) SwapCost {
	var c SwapCost
	for _, st := range ladders {
		for _, l := range st.Levels {
			c.Gradients += l.Cost.TotalGrad().Units
			c.Energies += l.Cost.TotalEnergy().Units
			c.Anchors += l.Cost.Anchor.Units
		}
	}
	return c
}
