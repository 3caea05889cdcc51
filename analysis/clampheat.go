package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
)

// heatDraws is the number of minibatch gradients clampHeat draws.
const heatDraws = 2000

// heatTolerance is the expected excess share of the noise budget beyond
// which a run is warned before sampling: the coordinate's variance comes
// out about that much too large, its sd about half of it.
const heatTolerance = 0.02

// clampHeat draws minibatch gradients of size n at theta and returns the
// expected share of the noise budget 2τη by which the gradient noise
// exceeds it, E[max(0, η·ŝ_j²/(2τ) − 1)], at the coordinate j where it is
// largest, and the share of draws with some coordinate over the budget.
// The corrected step injects max(0, 2τη − η²ŝ_j²): where a draw's noise
// exceeds the budget (an outlier in the batch) it cannot inject less than
// nothing, and the chain runs hotter on that coordinate by about this
// share. Under heavy-tailed gradients the variance estimate is unbiased,
// but its rare large draws are all clamped.
func clampHeat(t energy.Terms, n int, eta, tau float64, theta []float64, draws int, seed uint64) (share float64, coord int, clamped float64, err error) {
	mb, err := energy.NewMinibatch(t, n)
	if err != nil {
		return 0, 0, 0, err
	}
	p := t.Dim()
	rng := rand.New(rand.NewPCG(seed, 0x68656174))
	grad, gv, excess := make([]float64, p), make([]float64, p), make([]float64, p)
	over := 0
	for range draws {
		mb.Grad(grad, gv, theta, rng)
		any := false
		for j, v := range gv {
			if e := eta*v/(2*tau) - 1; e > 0 {
				excess[j] += e / float64(draws)
				any = true
			}
		}
		if any {
			over++
		}
	}
	for j, e := range excess {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return 0, 0, 0, fmt.Errorf("the gradient noise of coordinate %d is not finite at the mode", j)
		}
		if e > share {
			share, coord = e, j
		}
	}
	return share, coord, float64(over) / float64(draws), nil
}

// heatWarning says, before sampling, how much hotter the corrected cold
// chain of o will run at the mode than its temperature, when that exceeds
// heatTolerance, with the batch that would bring it under (doubling n up to
// four times) or the other remedy.
func heatWarning(m Model, o Options, mode []float64) (*Warning, error) {
	N := m.Terms.Len()
	if mode == nil || o.Batch >= N || (o.Method != exchange.FReSGLDMethod && o.Method != exchange.CorrectedMethod) {
		return nil, nil
	}
	share, j, over, err := clampHeat(m.Terms, o.Batch, o.Eta, 1, mode, heatDraws, o.Seed)
	if err != nil || share <= heatTolerance {
		return nil, err
	}
	remedy := "a larger --batch or a smaller --eta"
	for n := 2 * o.Batch; n <= 16*o.Batch && n < N; n *= 2 {
		s, _, _, err := clampHeat(m.Terms, n, o.Eta, 1, mode, heatDraws, o.Seed)
		if err != nil {
			return nil, err
		}
		if s <= heatTolerance {
			remedy = fmt.Sprintf("--batch %d (%.1f%% there) or a smaller --eta", n, 100*s)
			break
		}
	}
	name := m.names()[j]
	return &Warning{Code: "clamp-heat", Number: share, Remedy: remedy, Message: fmt.Sprintf(
		"at the mode, %.1f%% of cold minibatches (n = %d) carry gradient noise above the noise budget 2τη, and the corrected step cannot inject less than nothing: %s's variance will come out about %.1f%% too large (its sd about %.1f%%); use %s",
		100*over, o.Batch, name, 100*share, 100*(math.Sqrt(1+share)-1), remedy)}, nil
}
