package analysis

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/testenergy"
	"github.com/fresgld/fresgld/plan"
)

// TestDefaultsForecastsTheNoise checks that a Go caller gets the forecast:
// Defaults (which analysis.Run calls before sampling) on the heavy-tailed
// logistic regression with correlated features, a forced batch of 64 and
// the corrected method, puts a clamp-heat warning in Result.Warnings that
// says the sds come out too small, with a negative Number (the forecast
// variance ratio minus 1 at the coordinate the noise moves most). It fails
// if Defaults stops calling the forecast or drops its warning.
func TestDefaultsForecastsTheNoise(t *testing.T) {
	l := testenergy.Logistic(t, 0.6)
	o := DefaultOptions()
	o.Method, o.Batch = exchange.CorrectedMethod, 64
	var res Result
	if _, err := Defaults(context.Background(), plan.Model{Terms: l}, &o, &res); err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		if w.Code == "clamp-heat" {
			t.Log(w.Message)
			if !strings.Contains(w.Message, "too small") || !(w.Number < -0.05) {
				t.Errorf("clamp-heat warning %q, number %.4f: want too small, below −0.05", w.Message, w.Number)
			}
			return
		}
	}
	t.Errorf("no clamp-heat warning among %v", res.Warnings)
}

// TestDefaultsForecastsTheLadder checks that a Go caller of a two-level
// f-reSGLD ladder gets the ladder's forecast, not the lone chain's: on the
// heavy-tailed data at n = 32, the hot level at n = 16 and τ₂ = 3, swaps on
// exact energies every 10 steps (plan's TestLadderForecastAgainstMALA
// measures this ladder: its cold level's sds 0.95–1.04 of MALA's, the lone
// chain's forecast 0.86–1.01), Defaults puts in Result.Warnings a
// clamp-heat warning whose Number is the ladder forecast's at its worst
// coordinate, computed here from the same inputs (deterministic: the same
// seed), which names the hot level's batch, τ₂ and the swaps' spacing. It
// fails if the warning falls back on the lone chain's forecast, or if the
// ladder is fed another batch, temperature or spacing than the run's
// (the numbers differ by far more than the 10⁻⁹ allowed for rounding).
func TestDefaultsForecastsTheLadder(t *testing.T) {
	if testing.Short() {
		t.Skip("two ladder forecasts")
	}
	l := testenergy.Logistic(t, 0.6)
	o := DefaultOptions()
	o.Method, o.Levels, o.Batch, o.HotBatch, o.Tau2 = exchange.FReSGLDMethod, 2, 32, 16, 3
	o.SwapEnergies, o.ExactEvery = "exact", 10
	var res Result
	curv, err := Defaults(context.Background(), plan.Model{Terms: l}, &o, &res)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := plan.NewNoiseModel(l, curv.Mode, o.Seed)
	if err != nil {
		t.Fatal(err)
	}
	f, err := nm.Ladder(plan.LadderLevel{N: 32, Tau: 1}, plan.LadderLevel{N: 16, Tau: 3}, o.Eta, exchange.Diagonal, 10, 0, plan.HeatDraws)
	if err != nil {
		t.Fatal(err)
	}
	j := f.Worst()
	want := f.VarRatio[j] - 1
	lone := f.Cold.VarRatio[f.Cold.Worst()] - 1
	dir := "too large"
	if f.Noise(j) < 0 {
		dir = "too small"
	}
	for _, w := range res.Warnings {
		if w.Code != "clamp-heat" {
			continue
		}
		t.Log(w.Message)
		if math.Abs(w.Number-want) > 1e-9 {
			t.Errorf("clamp-heat number %.6f, want the ladder's %.6f (the lone chain's %.6f)", w.Number, want, lone)
		}
		for _, s := range []string{"swaps from the hot level (n = 16", "τ₂ = 3", "every 10 steps", dir} {
			if !strings.Contains(w.Message, s) {
				t.Errorf("clamp-heat warning %q does not say %q", w.Message, s)
			}
		}
		return
	}
	t.Errorf("no clamp-heat warning among %v", res.Warnings)
}
