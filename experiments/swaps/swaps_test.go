package swaps

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/models"
)

// The mode mass from the two local grids against the mass on θ2 < 0 of the
// study's exact 280 × 360 grid of the whole box, for the paper's N = 100:
// two independent quadratures. The box grid's cells of 0.025 against
// posterior sds of about 0.2 give errors of order 10⁻³ (midpoint rule on a
// smooth density: O(h²)·curvature); tolerance 5·10⁻³.
func TestModeMassMatchesFullGrid(t *testing.T) {
	w := models.PaperWellingTeh()
	got, err := ModeMass(w, []float64{1.3, -1.6}, []float64{-0.3, 1.6}, 8, 120)
	if err != nil {
		t.Fatal(err)
	}
	g := w.Posterior(1, minibatch.WTCellsX, minibatch.WTCellsY)
	var want float64
	dy := (g.Y1 - g.Y0) / float64(g.NY)
	for i := range g.NX {
		for j := range g.NY {
			if g.Y0+(float64(j)+0.5)*dy < 0 {
				want += g.Mass[i*g.NY+j]
			}
		}
	}
	t.Logf("mass on θ2 < 0: local grids %.5f, full grid %.5f", got, want)
	if !(math.Abs(got-want) < 5e-3) {
		t.Errorf("local grids give %.5f, the full grid %.5f", got, want)
	}
}

// smokeProblem is the Welling–Teh problem at the smoke size, which Run's
// tests run on.
func smokeProblem(t *testing.T) minibatch.Problem {
	t.Helper()
	pr, err := minibatch.WellingTehProblem(minibatch.Smoke)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// A run under a data mode counts its swap energies and anchors in its cost,
// and reproduces itself.
func TestRunCountsSwapCostAndRepeats(t *testing.T) {
	pr := smokeProblem(t)
	a, err := Run(pr, exchange.FReSGLDMethod, exchange.CVEnergies, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(pr, exchange.FReSGLDMethod, exchange.CVEnergies, 0, 3)
	if a.Cost != b.Cost || a.Accepts != b.Accepts || a.Score[len(a.Score)-1][0] != b.Score[len(b.Score)-1][0] {
		t.Errorf("same seed, different runs: %+v vs %+v", a, b)
	}
	if !(a.AnchorCost > 0 && a.SwapCost > 0 && a.Cost >= pr.Setting.Budgets[len(pr.Setting.Budgets)-1]) {
		t.Errorf("cost %v, swap energies %v, anchors %v", a.Cost, a.SwapCost, a.AnchorCost)
	}
	// Anchor passes: 2 levels at the start and every m steps, N each,
	// until the burn-in ends at step F, and none after: ⌊F/m⌋ refreshes
	// (a burn-in counted in cost is known only once its step is taken,
	// so there is no extra refresh at F). A run that went on refreshing
	// (adapting) while it samples pays for ⌊a.Steps/m⌋.
	m := Periods(pr.Terms.Len(), pr.Setting.NCold)
	if want := float64(2 * pr.Terms.Len() * (1 + a.FrozenStep/m)); a.FrozenStep == 0 || a.FrozenStep >= a.Steps || a.AnchorCost != want {
		t.Errorf("anchor cost %v after %d steps (frozen at %d), want %v", a.AnchorCost, a.Steps, a.FrozenStep, want)
	}
	// With AnchorScale k the passes come every k·m steps.
	pr.Setting.AnchorScale = 3
	c, err := Run(pr, exchange.FReSGLDMethod, exchange.CVEnergies, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(2 * pr.Terms.Len() * (1 + c.FrozenStep/(3*m))); c.AnchorCost != want {
		t.Errorf("anchor scale 3: anchor cost %v after %d steps (frozen at %d), want %v", c.AnchorCost, c.Steps, c.FrozenStep, want)
	}
}

// The cap declines the attempts of a mode whose swap noise is far above it:
// zero-order minibatch energies on Welling–Teh carry hundreds of nats.
func TestRunCapsNoisyAttempts(t *testing.T) {
	pr := smokeProblem(t)
	r, err := Run(pr, exchange.FReSGLDMethod, exchange.MinibatchEnergies, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.Noise > 10*MaxNoise) || r.Attempts == 0 || r.Capped != r.Attempts || r.Accepts != 0 {
		t.Errorf("noise %v nats: %d of %d attempts capped, %d accepted", r.Noise, r.Capped, r.Attempts, r.Accepts)
	}
}
