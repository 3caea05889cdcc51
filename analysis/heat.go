package analysis

import (
	"errors"
	"fmt"
	"math"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/variance"
)

// heatWarning says, before sampling, how far the gradient noise will move
// the corrected cold chain of o from the posterior at the mode, in sign
// and size (NoiseForecast), when it changes a coordinate's variance by more
// than HeatTolerance, with the batch that would bring it under (doubling n
// up to four times) or the other remedies. Under --method fresgld with two
// levels it forecasts the ladder's cold level, swaps included
// (ladderHeatWarning). Where no forecast can be made (p > 1000, the
// Hessian at the mode not positive definite) it says nothing.
func heatWarning(m plan.Model, o Options, mode []float64) (*results.Warning, error) {
	N := m.Terms.Len()
	if mode == nil || o.Batch >= N || (o.Method != exchange.FReSGLDMethod && o.Method != exchange.CorrectedMethod) {
		return nil, nil
	}
	c := o.Correction
	if o.Method != exchange.FReSGLDMethod {
		c = exchange.Diagonal // only f-reSGLD takes --correction
	}
	nm, err := plan.NewNoiseModel(m.Terms, mode, o.Seed)
	if err != nil {
		return nil, forecastErr(err)
	}
	f, err := nm.Forecast(o.Batch, o.Eta, 1, c, plan.HeatDraws)
	if err != nil {
		return nil, forecastErr(err)
	}
	j := f.Worst()
	share := f.Noise(j)
	if math.Abs(share) <= plan.HeatTolerance && f.Excess <= f.EulerExcess {
		// The lone chain within the tolerance, and its noise adding no
		// more energy than the Euler step's own bias, which a ladder with
		// exact gradients has too (0.98–1.02 of MALA's sds on the
		// heavy-tailed wdbc: docs/experiments/minibatch.md): the swaps
		// have nothing to read. No ladder is simulated (nor the hot
		// level's minibatches drawn: a model process's requests).
		return nil, nil
	}
	if o.Method == exchange.FReSGLDMethod && o.Levels == 2 {
		w, err := ladderHeatWarning(m, o, nm, f, c)
		var nf plan.NoForecast
		if !errors.As(err, &nf) {
			return w, err
		}
		// No ladder forecast (too costly to simulate): the lone chain's,
		// with the ladder's direction said.
	}
	if math.Abs(share) <= plan.HeatTolerance {
		return nil, nil
	}
	remedy, err := heatRemedy(nm, o, c, nil)
	if err != nil {
		return nil, forecastErr(err)
	}
	why := loneWhy(share, c)
	if o.Method == exchange.FReSGLDMethod {
		why += fmt.Sprintf("; this forecasts the cold level's own steps: in a ladder the noise adds %.1f nats to the cold level's energy, which the swap rule reads as a state too hot for its level, so it takes the hot levels' states more often and they arrive wide in the slow directions: measured on two levels (heavy-tailed wdbc, docs/experiments/minibatch.md), the cold level's mean sd ratio came out 0.00 to 0.19 above the lone chain's, from an attempt every 10⁴ steps to one every 10 (a ladder's forecast is made for two levels only)", f.Excess)
	}
	name := modelNames(m)[j]
	lo, hi := f.SDRange()
	total := f.VarRatio[j] - 1
	return &results.Warning{Code: "clamp-heat", Number: total, Remedy: remedy, Message: fmt.Sprintf(
		"the gradient noise of cold minibatches (n = %d) at the mode will make %s's variance come out about %.1f%% too %s, its sd about %.1f%% (%s; %.0f%% of minibatches there exceed the noise budget 2τη); with the Euler step's own bias the forecast sds are %.3f to %.3f of the posterior's over the coordinates (%s's variance %.3f of it); use %s",
		o.Batch, name, 100*math.Abs(share), direction(share), 100*math.Abs(math.Sqrt(1+share)-1), why, 100*f.Over, lo, hi, name, 1+total, remedy)}, nil
}

// direction is "large" for a positive change, else "small".
func direction(share float64) string {
	if share < 0 {
		return "small"
	}
	return "large"
}

// loneWhy is the cause of a lone corrected chain's change share.
func loneWhy(share float64, c exchange.Correction) string {
	switch {
	case share >= 0:
		return "the clamp: a step cannot inject less than nothing"
	case c == exchange.Full:
		return "the covariances the correction leaves"
	}
	return "the covariances between coordinates that the diagonal correction leaves in the noise outweigh the clamp"
}

// heatRemedy is the remedy of a clamp-heat warning: the smallest doubled
// batch (up to 16n) at which the forecast is within HeatTolerance, or
// --correction full where that is, or the generic one. For a ladder
// (ladder not nil) a batch is taken only where the ladder's forecast at it
// is within the tolerance too; the lone chain's forecasts choose the
// batches to try, and at most two ladders are simulated (about a second
// each at p = 11).
func heatRemedy(nm *plan.NoiseModel, o Options, c exchange.Correction, ladder func(n int, c exchange.Correction) (*plan.LadderForecast, error)) (string, error) {
	N := nm.Len()
	remedy := "a larger --batch or a smaller --eta"
	sims := 0
	for n := 2 * o.Batch; n <= 16*o.Batch && n < N; n *= 2 {
		g, err := nm.Forecast(n, o.Eta, 1, c, plan.HeatDraws)
		if err != nil {
			return "", err
		}
		e := g.Noise(g.Worst())
		if math.Abs(e) > plan.HeatTolerance {
			continue
		}
		if ladder != nil {
			if sims == 2 {
				break
			}
			sims++
			l, err := ladder(n, c)
			var nf plan.NoForecast
			if errors.As(err, &nf) {
				continue
			} else if err != nil {
				return "", err
			}
			w := l.Worst()
			if !l.Within(plan.HeatTolerance) {
				continue
			}
			remedy = fmt.Sprintf("--batch %d (%+.1f%% ± %.1f%% there, swaps included) or a smaller --eta", n, 100*l.Noise(w), 100*l.SE[w]/l.Cold.EulerRatio[w])
			break
		}
		remedy = fmt.Sprintf("--batch %d (%+.1f%% there) or a smaller --eta", n, 100*e)
		break
	}
	if c == exchange.Diagonal && o.Method == exchange.FReSGLDMethod {
		if g, err := nm.Forecast(o.Batch, o.Eta, 1, exchange.Full, plan.HeatDraws); err == nil {
			e := g.Noise(g.Worst())
			ok := math.Abs(e) <= plan.HeatTolerance
			if ok && ladder != nil {
				if sims == 2 {
					return remedy, nil
				}
				l, err := ladder(o.Batch, exchange.Full)
				if ok = err == nil && l.Within(plan.HeatTolerance); ok {
					e = l.Noise(l.Worst())
				}
			}
			if ok {
				remedy = fmt.Sprintf("--correction full (%+.1f%% there), or %s", 100*e, remedy)
			}
		}
	}
	return remedy, nil
}

// ladderHeatWarning is heatWarning for a two-level f-reSGLD ladder: the
// cold level's forecast with the swaps (plan.NoiseModel.Ladder) at the hot
// level's batch (--hot-batch, or its automatic rule's size at the mode)
// and τ₂, the swaps attempted every o.swap's spacing (exact energies) or
// at --swap-rate a step. f is the cold level's own forecast. It is nil,
// nil where the ladder forecast is within the tolerance, and nil with a
// plan.NoForecast error where it cannot be made.
func ladderHeatWarning(m plan.Model, o Options, nm *plan.NoiseModel, f *plan.NoiseForecast, c exchange.Correction) (*results.Warning, error) {
	N := m.Terms.Len()
	hot, hotWhy := o.HotBatch, "--hot-batch"
	if hot == 0 {
		hot, hotWhy = o.Batch, "the cold level's, the automatic hot batch's start"
		if _, _, s2, err := coldSize(m.Terms, [][]float64{nm.Mode()}, o.Eta, o.Tau2, o.Seed); err == nil && s2 > 0 {
			hot, hotWhy = max(2, min(N, int(math.Ceil(variance.SizeFor(N, s2, o.Eta, o.Tau2, o.HotShare))))), "the automatic rule's size at the mode"
		}
	}
	spacing, rate := 0, o.SwapRate
	if o.swap != nil {
		spacing = o.swap.Energies.Spacing()
	}
	K := passLevels(m.Terms, 2)
	ladder := func(n int, c exchange.Correction) (*plan.LadderForecast, error) {
		every := spacing
		if spacing > 0 && o.ExactEvery == 0 && spacing == swapPeriod(N, o.Batch, K) {
			every = swapPeriod(N, n, K) // the automatic period at batch n
		}
		return nm.Ladder(plan.LadderLevel{N: n, Tau: 1}, plan.LadderLevel{N: hot, Tau: o.Tau2}, o.Eta, c, every, rate, plan.HeatDraws)
	}
	lf, err := ladder(o.Batch, c)
	if err != nil {
		return nil, err
	}
	j := lf.Worst()
	share := lf.Noise(j)
	if lf.Within(plan.HeatTolerance) {
		return nil, nil
	}
	remedy, err := heatRemedy(nm, o, c, ladder)
	if err != nil {
		return nil, err
	}
	own := f.Noise(j)
	attempts := fmt.Sprintf("an attempt every %d steps", spacing)
	if spacing == 0 {
		attempts = fmt.Sprintf("attempts at %.3g a step, each taken as on exact energies: screened swaps accept fewer and widen it less", rate)
	}
	name := modelNames(m)[j]
	lo, hi := lf.SDRange()
	olo, ohi := f.SDRange()
	var se float64
	for k, s := range lf.SE {
		se = max(se, s/(2*math.Sqrt(lf.VarRatio[k])))
	}
	total := lf.VarRatio[j] - 1
	why := fmt.Sprintf("the cold level's own steps alone make it %+.1f%%, by %s; the noise adds %.1f nats to the cold level's energy, which the swap rule reads as a state too hot for its level: it accepts %.0f%% of the attempts and brings in the hot level's states, wide in the slow directions that the cold level's steps take %.0f steps to relax",
		100*own, loneWhy(own, c), f.Excess, 100*lf.Accept, lf.Relax)
	return &results.Warning{Code: "clamp-heat", Number: total, Remedy: remedy, Message: fmt.Sprintf(
		"the gradient noise of cold minibatches (n = %d) at the mode, with swaps from the hot level (n = %d, %s; τ₂ = %g; %s), will make %s's variance in the cold level come out about %.1f%% too %s, its sd about %.1f%% (%s; %.0f%% of cold minibatches there exceed the noise budget 2τη); with the Euler step's own bias the forecast sds of the cold level are %.3f to %.3f of the posterior's over the coordinates (each ± %.3f, the forecast's simulation; the cold level's own steps alone %.3f to %.3f); use %s",
		o.Batch, hot, hotWhy, o.Tau2, attempts, name, 100*math.Abs(share), direction(share), 100*math.Abs(math.Sqrt(1+share)-1), why, 100*f.Over, lo, hi, se, olo, ohi, remedy)}, nil
}

// forecastErr is nil for a forecast that cannot be made (NoForecast: the
// run is not warned) and err for a broken gradient noise (the run stops).
func forecastErr(err error) error {
	var nf plan.NoForecast
	if errors.As(err, &nf) {
		return nil
	}
	return err
}
