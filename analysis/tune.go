package analysis

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/fresgld/fresgld/exchange"
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
// MinAttempts/--swap-rate, since a pair never offered one has no
// rejection rate to tune by (the chance of that is e^−MinAttempts).
var AutoTune = struct {
	Start, Rounds, MinAttempts, MaxLevels int
}{Start: 4, Rounds: 6, MinAttempts: 20, MaxLevels: 16}

// tuneOptions are the tuning's rounds for a burn-in of burn steps, with
// swaps attempted at rate a step.
func tuneOptions(burn int, rate float64, stop <-chan struct{}) exchange.AdaptOptions {
	rounds := AutoTune.Rounds
	first := max(int(math.Ceil(float64(AutoTune.MinAttempts)/rate)), (burn+(1<<rounds)-2)/((1<<rounds)-1))
	return exchange.AdaptOptions{Rounds: rounds, First: first, Grow: true, MaxLevels: AutoTune.MaxLevels, Stop: stop}
}

// tunedSampler is chain id's ladder under --levels auto: its temperatures
// tuned from the starting geometric ladder so that every pair rejects as
// often (exchange.Adapt, under the ladder's own noisy swap rule), then
// fixed. Tuning ends before the burn-in: the sampling run's ladder never
// changes. The chain starts from the tuning's last states.
func tunedSampler(ctx context.Context, m Model, o Options, id int, energies exchange.Energies, autos map[int]*variance.AutoBatch) (*exchange.Sampler, *exchange.Adapted, error) {
	setup, err := samplerSetup(m, o, id, energies, autos)
	if err != nil {
		return nil, nil, err
	}
	taus, err := exchange.Geometric(1, o.Tau2, AutoTune.Start)
	if err != nil {
		return nil, nil, fmt.Errorf("--tau2: %w", err)
	}
	inits := make([][]float64, len(taus))
	for l := range inits {
		inits[l] = make([]float64, m.Terms.Dim())
	}
	ad, err := exchange.Adapt(o.Method.Build(setup), taus, inits, tuneOptions(o.Burn, o.SwapRate, ctx.Done()))
	if err != nil {
		return nil, nil, fmt.Errorf("--levels auto: %w", err)
	}
	// The hot minibatch reported is the sampling run's, not a round's.
	delete(autos, id)
	setup.Taus = ad.Taus
	cfg, err := o.Method.Config(setup)
	if err != nil {
		return nil, nil, err
	}
	smp, err := exchange.New(cfg, ad.States)
	return smp, &ad, err
}

// tuneNote says what chain id's tuning found, for Result.Notes.
func tuneNote(id int, ad *exchange.Adapted) string {
	taus := make([]string, len(ad.Taus))
	for i, t := range ad.Taus {
		taus[i] = fmt.Sprintf("%.3g", t)
	}
	var units float64
	for _, r := range ad.Rounds {
		units += r.Units()
	}
	return fmt.Sprintf("ladder of chain %d tuned in %d rounds, %d steps (%.3g per-example terms): %d levels, τ = %s, barrier Λ̂ = %.2f (about %d levels recommended)",
		id, len(ad.Rounds), ad.Steps, units, len(ad.Taus), strings.Join(taus, ", "), ad.Lambda, ad.Recommended)
}

// levelsSetting is --levels as the run's settings record it.
func levelsSetting(levels int) string {
	if levels == AutoLevels {
		return "auto"
	}
	return fmt.Sprint(levels)
}
