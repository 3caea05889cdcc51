package ladder

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fresgld/fresgld/diag"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// The studies' fixed settings, chosen before any run and the same for every
// ladder (docs/experiments/ladder.md repeats them). The noise is the paper's §5.1 kind:
// Gaussian, Û ~ N(U, 1²), ∇Û ~ N(∇U, 2²) on the coldest level and
// Û ~ N(U, 3²), ∇Û ~ N(∇U, 5²) on every hotter one, with the paper's step
// η = 0.03 and f-reSGLD (corrected noise, the paper's swap ratio).
const (
	studyEta             = 0.03
	coldESD, coldGSD     = 1.0, 2.0
	hotESD, hotGSD       = 3.0, 5.0
	deepLo, deepHi       = -14.0, 14.0
	deepCells, deepBins  = 28000, 56
	fourTau2, deepTau2   = 10.0, 100.0
	fourModesHalfSpacing = 3.0
)

func noisySetup(e energy.Energy, tau2 float64) exchange.Setup {
	return exchange.Setup{Tau1: 1, Tau2: tau2, Eta: langevin.Constant{Step: studyEta},
		Cold: energy.NewNoisy(e, coldESD, coldGSD), Hot: energy.NewNoisy(e, hotESD, hotGSD), PerStep: true}
}

// FourModes is study (a): the five-dimensional mixture of four unit
// Gaussians at (±3, ±3, 0, 0, 0) with weights 0.1, 0.2, 0.3, 0.4, τ from 1
// to 10, every chain starting at the origin. Its exact answer is the
// probability of each quadrant of (θ1, θ2) (the mode a sample is nearest),
// q_k = Σ_j w_j P(quadrant k | component j), where each sign agrees with the
// component's with probability Φ(3) independently: the weights up to the
// 0.13% of each component that leaks across an axis.
func FourModes() Problem {
	m := models.FourModes()
	exact := quadrantWeights(m)
	return Problem{
		Name: "four-modes-5d", Setup: noisySetup(m, fourTau2), Init: make([]float64, 5),
		Metrics: []string{"mode_tv", "mode_max_err"},
		Score: func(tr exchange.Trace) map[string]float64 {
			var w [4]float64
			for i := range tr.Len() {
				w[quadrant(tr.At(i))]++
			}
			var tv, mx float64
			for k := range w {
				d := math.Abs(w[k]/float64(tr.Len()) - exact[k])
				tv += d / 2
				mx = math.Max(mx, d)
			}
			return map[string]float64{"mode_tv": tv, "mode_max_err": mx}
		},
	}
}

// quadrant numbers the modes as models.FourModes orders them.
func quadrant(x []float64) int {
	k := 0
	if x[0] > 0 {
		k += 2
	}
	if x[1] > 0 {
		k++
	}
	return k
}

func quadrantWeights(m *models.IsoMixture) [4]float64 {
	var q [4]float64
	in := distuv.UnitNormal.CDF(fourModesHalfSpacing) // P(the sign of a coordinate matches its mean's)
	for j, w := range m.Weights {
		mu := m.Means[j]
		for k := range q {
			p := 1.0
			for c, pos := range [2]bool{k >= 2, k%2 == 1} {
				if (mu[c] > 0) == pos {
					p *= in
				} else {
					p *= 1 - in
				}
			}
			q[k] += w * p
		}
	}
	return q
}

// DeepModes is study (b): the paper's one-dimensional mixture
// 0.4 N(−8, 0.7²) + 0.6 N(8, 0.5²), its modes moved from −4 and 3 to ∓8.
// The barrier between them is about 65 in U, so the hottest level is
// τ = 100, where it is below one unit of temperature; every chain starts at
// θ = 0, on the barrier. The exact answer is the density on a grid of
// 28,000 cells on [−14, 14]; TV is taken over 56 equal bins (0.5 wide, the
// narrower mode's sd).
func DeepModes() Problem {
	mix, _ := models.NewMixture([]float64{0.4, 0.6}, []float64{-8, 8}, []float64{0.7, 0.5})
	u := func(x float64) float64 { return mix.U([]float64{x}) }
	exact := diag.Tempered1D(u, 1, deepLo, deepHi, deepCells)
	right := 1 - exact.CDF(0)
	return Problem{
		Name: "deep-modes-1d", Setup: noisySetup(mix, deepTau2), Init: []float64{0},
		Metrics: []string{"tv", "w1", "right_weight_err"},
		Score: func(tr exchange.Trace) map[string]float64 {
			xs := tr.Coord(0)
			n := 0
			for _, x := range xs {
				if x > 0 {
					n++
				}
			}
			return map[string]float64{"tv": exact.TV(xs, deepBins), "w1": exact.W1(xs), "right_weight_err": math.Abs(float64(n)/float64(len(xs)) - right)}
		},
	}
}

// Ladders are the compared ladders: a fixed geometric ladder of four levels
// (the paper's two plus two) with the sweep of every pair every step, the
// same ladder with DEO swaps, and DEO on a ladder tuned from that start in
// five rounds of doubling length (500 steps first) and grown to ⌈2Λ̂⌉
// levels, at most 16. Three more isolate why: the tuned ladder with DEO
// rounds of W = 5 steps (energies closer to fresh at each attempt, a fifth
// of the swap cost), and eight geometric levels with either scheme (where a
// reversible walk's O(K²) round trip should start to cost).
var Ladders = []Ladder{
	{Name: "geometric K=4, sweep", Scheme: exchange.Sweep, Levels: 4},
	{Name: "geometric K=4, DEO", Scheme: exchange.DEO, Levels: 4},
	{Name: "adaptive, DEO", Scheme: exchange.DEO, Levels: 4, Adapt: true, Rounds: 5, First: 500, MaxLevels: 16},
	{Name: "adaptive, DEO W=5", Scheme: exchange.DEO, Window: 5, Levels: 4, Adapt: true, Rounds: 5, First: 500, MaxLevels: 16},
	{Name: "geometric K=8, sweep", Scheme: exchange.Sweep, Levels: 8},
	{Name: "geometric K=8, DEO", Scheme: exchange.DEO, Levels: 8},
}
