package exchange

import (
	"math"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

// stateSD makes an energy noise σ that depends on the state, so the test
// covers σ(x) ≠ σ(y).
func stateSD(base float64) func([]float64, float64) float64 {
	return func(theta []float64, _ float64) float64 { return base * (1 + 0.3*math.Tanh(theta[0])) }
}

func TestSwapRatiosUnbiased(t *testing.T) {
	mix := models.PaperMixture()
	cold := &energy.Noisy{E: mix, EnergySD: stateSD(0.3)}
	hot := &energy.Noisy{E: mix, EnergySD: stateSD(0.6)}
	const tau1, tau2 = 1.0, 2.0
	td := 1/tau1 - 1/tau2
	x, y := []float64{2.6}, []float64{-3.1}
	S := math.Exp(td * (mix.U(x) - mix.U(y)))
	sd := func(e *energy.Noisy, th []float64) float64 { return e.EnergySD(th, 0) }
	for _, c := range []struct {
		rule Rule
		a1   float64
		v    float64 // variance of the estimate D of U(x) − U(y)
	}{
		{ReSGLD, 0, sq(sd(cold, x)) + sq(sd(cold, y))},
		{MReSGLD, 0.3, 0.09*(sq(sd(cold, x))+sq(sd(cold, y))) + 0.49*(sq(sd(hot, x))+sq(sd(hot, y)))},
		{FReSGLD, 0, sq(sd(cold, x)) + sq(sd(hot, y))},
	} {
		cfg := Config{Levels: []Level{
			{Tau: tau1, Est: cold, Eta: langevin.Constant{Step: 0.01}},
			{Tau: tau2, Est: hot, Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: c.rule, PerStep: true, A1: c.a1}, Seed: 3}
		smp := mustNew(t, cfg, [][]float64{x, y})
		const n = 200_000
		var sum float64
		for range n {
			lr, err := smp.LogRatio(0, x, y)
			if err != nil {
				t.Fatal(err)
			}
			sum += math.Exp(lr)
		}
		mean := sum / n
		// Ŝ is log-normal: Var(Ŝ) = S²(exp(τδ²V) − 1). Tolerance: 5 standard errors.
		se := S * math.Sqrt(math.Expm1(td*td*c.v)/n)
		if !(math.Abs(mean-S) <= 5*se) {
			t.Errorf("%v: E[Ŝ] = %.6g, S = %.6g (tolerance %.2g)", c.rule, mean, S, 5*se)
		}
		// Without the correction the estimate is biased by exp(τδ²V/2):
		// check the test could tell.
		if bias := S * math.Expm1(td*td*c.v/2); bias < 10*se {
			t.Errorf("%v: the test cannot see the uncorrected bias %.3g (se %.3g)", c.rule, bias, se)
		}
		wantEvals := int64(2 * n)
		if c.rule == MReSGLD {
			wantEvals = 4 * n
		}
		st := smp.Stats()
		if got := st.Levels[0].Cost.Energy.Calls + st.Levels[1].Cost.Energy.Calls; got != wantEvals {
			t.Errorf("%v: %d energy evaluations for %d ratios, want %d", c.rule, got, n, wantEvals)
		}
	}
}

func sq(x float64) float64 { return x * x }
