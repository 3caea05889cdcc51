package analysis

import (
	"errors"
	"fmt"
	"math"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

// heatWarning says, before sampling, how far the gradient noise will move
// the corrected cold chain of o from the posterior at the mode, in sign
// and size (NoiseForecast), when it changes a coordinate's variance by more
// than HeatTolerance, with the batch that would bring it under (doubling n
// up to four times) or the other remedies. Where no forecast can be made
// (p > 1000, the Hessian at the mode not positive definite) it says nothing.
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
	if math.Abs(share) <= plan.HeatTolerance {
		return nil, nil
	}
	remedy := "a larger --batch or a smaller --eta"
	for n := 2 * o.Batch; n <= 16*o.Batch && n < N; n *= 2 {
		g, err := nm.Forecast(n, o.Eta, 1, c, plan.HeatDraws)
		if err != nil {
			return nil, forecastErr(err)
		}
		if e := g.Noise(g.Worst()); math.Abs(e) <= plan.HeatTolerance {
			remedy = fmt.Sprintf("--batch %d (%+.1f%% there) or a smaller --eta", n, 100*e)
			break
		}
	}
	if c == exchange.Diagonal && o.Method == exchange.FReSGLDMethod {
		if g, err := nm.Forecast(o.Batch, o.Eta, 1, exchange.Full, plan.HeatDraws); err == nil {
			if e := g.Noise(g.Worst()); math.Abs(e) <= plan.HeatTolerance {
				remedy = fmt.Sprintf("--correction full (%+.1f%% there), or %s", 100*e, remedy)
			}
		}
	}
	dir, why := "large", "the clamp: a step cannot inject less than nothing"
	if share < 0 {
		dir, why = "small", "the covariances between coordinates that the diagonal correction leaves in the noise outweigh the clamp"
		if c == exchange.Full {
			why = "the covariances the correction leaves"
		}
	}
	if o.Method == exchange.FReSGLDMethod {
		// Measured on wdbc's ten mean features with 6 gross outliers
		// (n = 32, hot n = 16, τ₂ = 3): the corrected chain alone 0.95–1.11
		// of MALA's sds, as forecast, the ladder's cold level 1.01–1.14.
		why += "; this forecasts the cold level's own steps, and swaps bring it states from the hot level, whose noise it does not forecast"
	}
	name := modelNames(m)[j]
	lo, hi := f.SDRange()
	total := f.VarRatio[j] - 1
	return &results.Warning{Code: "clamp-heat", Number: total, Remedy: remedy, Message: fmt.Sprintf(
		"the gradient noise of cold minibatches (n = %d) at the mode will make %s's variance come out about %.1f%% too %s, its sd about %.1f%% (%s; %.0f%% of minibatches there exceed the noise budget 2τη); with the Euler step's own bias the forecast sds are %.3f to %.3f of the posterior's over the coordinates (%s's variance %.3f of it); use %s",
		o.Batch, name, 100*math.Abs(share), dir, 100*math.Abs(math.Sqrt(1+share)-1), why, 100*f.Over, lo, hi, name, 1+total, remedy)}, nil
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
