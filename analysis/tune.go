package analysis

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/variance"
)

// AutoLevels is Options.Levels under --levels auto: the ladder's
// temperatures are tuned before the burn-in (exchange.Adapt).
const AutoLevels = 0

// AutoTune is --levels auto's tuning: it starts from a geometric ladder of
// Start levels from 1 to --tau2 and runs Rounds rounds of doubling length,
// adding levels up to MaxLevels where the barrier calls for them. Its
// steps, First·(2^Rounds − 1), are as many as the burn-in's, so that
// tuning costs what burning in does whatever the data's size (a fixed
// count of steps once cost more than a whole run at N = 10⁶); but the
// first round offers each pair MinAttempts swaps on average, First ≥
// MinAttempts/rate at the rate a pair is offered swaps (attemptRate),
// since a pair never offered one has no rejection rate to tune by (the
// chance of that is e^−MinAttempts). Where the burn-in cannot hold Rounds
// rounds so long, the tuning runs fewer (at least one): under exact swap
// energies every W steps a first round is 20·W steps, and at N = 10⁶ (W
// in the thousands) six rounds of doubling length would cost some 63
// times that, many times the run.
var AutoTune = struct {
	Start, Rounds, MinAttempts, MaxLevels int
}{Start: 4, Rounds: 6, MinAttempts: 20, MaxLevels: 16}

// tuneOptions are the tuning's rounds for a burn-in of burn steps, with
// each pair offered swaps at rate a step: as many rounds, up to
// AutoTune.Rounds, as the burn-in holds with a first round of at least
// MinAttempts/rate steps.
func tuneOptions(burn int, rate float64, stop <-chan struct{}) exchange.AdaptOptions {
	least := int(math.Ceil(float64(AutoTune.MinAttempts) / rate))
	rounds := AutoTune.Rounds
	for rounds > 1 && least*((1<<rounds)-1) > burn {
		rounds--
	}
	first := max(least, (burn+(1<<rounds)-2)/((1<<rounds)-1))
	return exchange.AdaptOptions{Rounds: rounds, First: first, Grow: true, MaxLevels: AutoTune.MaxLevels, Stop: stop}
}

// tuneLadder tunes the ladder of every chain under --levels auto: from
// the starting geometric ladder until every pair rejects as often
// (exchange.Adapt, under the ladder's own noisy swap rule), on chain 1's
// random stream whichever chains run. One ladder for all chains, so that
// their draws share one set of columns (levels added for one chain alone
// would give it replica columns the others lack) and a chain run on its
// own (--chain c) gets the ladder of the run it joins; tuning once also
// costs a quarter of tuning four chains.
func tuneLadder(ctx context.Context, m plan.Model, o Options, energies exchange.Energies) (*exchange.Adapted, error) {
	setup, err := samplerSetup(m, o, 1, energies, nil)
	if err != nil {
		return nil, err
	}
	taus, err := exchange.Geometric(1, o.Tau2, AutoTune.Start)
	if err != nil {
		return nil, fmt.Errorf("--tau2: %w", err)
	}
	opt := tuneOptions(o.Burn, attemptRate(o.SwapRate, energies), ctx.Done())
	// Said before it starts: tuning runs before the progress lines do.
	rounds := fmt.Sprintf("%d rounds", opt.Rounds)
	if opt.Rounds == 1 {
		rounds = "1 round"
	}
	writeLog(o.Log, "tuning the ladder (--levels auto): %s, %d steps from %d levels\n", rounds, opt.First*(1<<opt.Rounds-1), len(taus))
	ad, err := exchange.Adapt(o.Method.Build(setup), taus, starts(len(taus), m.Terms.Dim()), opt)
	if err != nil {
		return nil, fmt.Errorf("--levels auto: %w", err)
	}
	return &ad, nil
}

// longTuning warns where the tuning took more than twice the burn-in's
// steps: its first round offers each pair MinAttempts swaps whatever the
// burn-in, MinAttempts·W steps under exact or thinned energies every W
// steps, which at large N can outlast the run.
func longTuning(o Options, steps int, e exchange.Energies) []results.Warning {
	if steps <= 2*max(o.Burn, 1) {
		return nil
	}
	ratio := float64(steps) / float64(max(o.Burn, 1))
	remedy := "raise --burn (the tuning then runs as many steps as the burn-in), offer swaps more often (--swap-energies thinned where offered, or a smaller --exact-every), or give the ladder with --levels K"
	return []results.Warning{{Code: "long-tuning", Number: ratio, Remedy: remedy,
		Message: fmt.Sprintf("--levels auto: the ladder's tuning took %d steps, %.3g times the burn-in's %d, since its first round offers each pair %d swaps, one every %.3g steps; %s", steps, ratio, o.Burn, AutoTune.MinAttempts, 1/attemptRate(o.SwapRate, e), remedy)}}
}

// attemptRate is how often a pair is offered a swap a step: every
// Spacing steps where the swap energies fix the attempts (exact or
// thinned energies every W steps, whatever --swap-rate says), else at
// --swap-rate.
func attemptRate(rate float64, e exchange.Energies) float64 {
	if w := e.Spacing(); w > 0 {
		return 1 / float64(w)
	}
	return rate
}

// startLevels is the number of levels the swap energies are chosen for:
// --levels, or the starting ladder's under --levels auto.
func (o Options) startLevels() int {
	if o.Levels == AutoLevels {
		return AutoTune.Start
	}
	return o.Levels
}

// tunedPeriod spaces automatic exact swap attempts for the tuned ladder's K
// levels: they were chosen for the starting ladder's (startLevels), and a
// grown ladder's attempts make more passes, so that they would cost more
// than a quarter of n a step (swapPeriod). It says so on the log, after the
// tuning's line, and in the swap choice's rule, which the summary gives.
func tunedPeriod(m plan.Model, o Options, e exchange.Energies, K int) exchange.Energies {
	if o.ExactEvery != 0 || e.Mode != exchange.ExactEnergies || o.swap == nil {
		return e
	}
	if w := swapPeriod(m.Terms.Len(), o.Batch, passLevels(m.Terms, K)); w > e.ExactEvery {
		e.ExactEvery = w
		o.swap.Energies.ExactEvery = w
		o.swap.Rule += fmt.Sprintf("; every W = %d steps for the tuned ladder's %d levels, so that their K·N/W ≤ n/4", w, K)
		writeLog(o.Log, "swap energies: exact every W = %d steps for the tuned ladder's %d levels (K·N/W ≤ n/4)\n", w, K)
	}
	return e
}

// tunedSampler is chain id's ladder at the tuned temperatures ad.Taus,
// fixed from its first step. It starts where the other methods' chains do
// (every level at θ = 0), not from the tuning's last states, so that the
// chains share no start and their R̂ keeps its power.
func tunedSampler(m plan.Model, o Options, id int, energies exchange.Energies, autos map[int]*variance.AutoBatch, ad *exchange.Adapted) (*exchange.Sampler, error) {
	setup, err := samplerSetup(m, o, id, energies, autos)
	if err != nil {
		return nil, err
	}
	setup.Taus = ad.Taus
	cfg, err := o.Method.Config(setup)
	if err != nil {
		return nil, err
	}
	return exchange.New(cfg, starts(len(cfg.Levels), m.Terms.Dim()))
}

// starts are K states at θ = 0, the start of every level.
func starts(K, p int) [][]float64 {
	out := make([][]float64, K)
	for l := range out {
		out[l] = make([]float64, p)
	}
	return out
}

// tuneNote says what the tuning found, for Result.Notes.
func tuneNote(ad *exchange.Adapted) string {
	taus := make([]string, len(ad.Taus))
	for i, t := range ad.Taus {
		taus[i] = fmt.Sprintf("%.3g", t)
	}
	var units float64
	for _, r := range ad.Rounds {
		units += r.Units()
	}
	return fmt.Sprintf("ladder tuned (--levels auto) in %d rounds, %d steps (%.3g per-example terms), for every chain: %d levels, τ = %s, barrier Λ̂ = %.2f (about %d levels recommended)",
		len(ad.Rounds), ad.Steps, units, len(ad.Taus), strings.Join(taus, ", "), ad.Lambda, ad.Recommended)
}

// levelsSetting is --levels as the run's settings record it.
func levelsSetting(levels int) string {
	if levels == AutoLevels {
		return "auto"
	}
	return fmt.Sprint(levels)
}
