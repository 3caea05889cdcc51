package plan

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/modes"
)

// unequalModes is exp(−U) = 0.9·N(θ; 0, I) + 0.1·N(θ; (30, 0), 4I) in
// two dimensions: modes of different weights and widths, whose heights
// differ by 3.6 nats.
type unequalModes struct{}

func (unequalModes) Dim() int              { return 2 }
func (unequalModes) U(x []float64) float64 { return unequalModes{}.UGrad(nil, x) }
func (unequalModes) Grad(g, x []float64)   { unequalModes{}.UGrad(g, x) }
func (unequalModes) UGrad(g, x []float64) float64 {
	d := x[0] - 30
	a := math.Log(0.9/(2*math.Pi)) - (x[0]*x[0]+x[1]*x[1])/2
	b := math.Log(0.1/(4*2*math.Pi)) - (d*d+x[1]*x[1])/8
	top := math.Max(a, b)
	pa, pb := math.Exp(a-top), math.Exp(b-top)
	if g != nil {
		g[0] = (pa*x[0] + pb*d/4) / (pa + pb)
		g[1] = (pa*x[1] + pb*x[1]/4) / (pa + pb)
	}
	return -top - math.Log(pa+pb)
}

// TestModeJumpsTemperedWeights: modeJumps's proposal q for a level at τ
// is the exact tempered law π of unequalModes but for its defensive
// share (and the modes' overlap, some e^−12 at τ = 4). Then w = π/q is at
// most 1/(1 − share), so an independence sampler accepts a draw y with
// probability min(1, w(y)/w(x)) ≥ w(y)·(1 − share), whose mean under q is
// 1 − share. Jumps alone at τ = 1 and 4 must be accepted that often, less
// 4 binomial sds. Weights at τ = 1 on the level at τ = 4 put 6 times too
// little on the wide mode, weights without the Hessians' determinants 4
// times, and the acceptance at τ = 4 falls below the floor, to 0.44 and
// 0.62.
func TestModeJumpsTemperedWeights(t *testing.T) {
	const steps, share = 100_000, 0.2 // share: exchange's jumpTailShare
	modes := []modes.Mode{
		{Theta: []float64{0, 0}, U: unequalModes{}.U([]float64{0, 0}), H: mat.NewSymDense(2, []float64{1, 0, 0, 1})},
		{Theta: []float64{30, 0}, U: unequalModes{}.U([]float64{30, 0}), H: mat.NewSymDense(2, []float64{0.25, 0, 0, 0.25})},
	}
	taus := []float64{1, 4}
	jumps, err := modeJumps(modes, taus)
	if err != nil {
		t.Fatal(err)
	}
	for l, tau := range taus {
		jumps[l].Rate = 1 // every step a jump
		lv := exchange.Level{Tau: tau, Est: energy.Exact{E: unequalModes{}}, Eta: langevin.Constant{Step: 0.1}, Metropolis: true, Jumps: jumps[l]}
		s, err := exchange.New(exchange.Config{Levels: []exchange.Level{lv}, Seed: 7}, [][]float64{{0, 0}})
		if err != nil {
			t.Fatal(err)
		}
		stepKeep(t, s, 0, steps, nil)
		st := s.Stats().Levels[0]
		acc := float64(st.JumpsAccepted) / float64(st.Jumps)
		floor := 1 - share - 4*math.Sqrt(share*(1-share)/steps)
		t.Logf("τ = %g: jumps accepted %.4f (%d of %d), floor %.4f", tau, acc, st.JumpsAccepted, st.Jumps, floor)
		if !(acc >= floor) {
			t.Errorf("τ = %g: jumps accepted %.4f of the time; their proposal at the exact tempered weights must be accepted at least %.4f", tau, acc, floor)
		}
	}
}
