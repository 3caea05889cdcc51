package plan

import (
	"testing"

	"github.com/fresgld/fresgld/models"
)

// TestLogConcaveRate checks the run-length rule's input in φ: the lag-one
// autocorrelation of every coefficient of a default chain is 1 − Rate(),
// the correlation of the slowest direction of the posterior in the
// coordinates where its Hessian at the mode is I, and not the 1 − ηλ_min of
// θ. Under control variates (N = 50,000, where the posterior is Gaussian to
// within a few per cent) the Euler step's correlation is exactly 1 − η on a
// Gaussian; under MALA (N = 300) 1 − ah is the mean contraction of a step
// (see MALAIAT), an approximation that errs on the slow side (acceptance
// is higher where the contraction moves the chain further), so there the
// test asks only that the chain mix no slower than the rule says. A
// lag-one autocorrelation from T steps with τ_int steps of correlation has
// sd about √((1 − ρ²)·τ_int/T), below 0.01 here; the tolerance is 10% of
// 1 − ρ.
func TestLogConcaveRate(t *testing.T) {
	for _, c := range []struct {
		N, p  int
		cv    bool
		steps int
	}{{50_000, 3, true, 100_000}, {300, 3, false, 100_000}} {
		lr, _, err := models.SyntheticLogistic(c.N, c.p, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		lc, err := NewLogConcave(lr, 1)
		if err != nil {
			t.Fatal(err)
		}
		if lc.Choice.CV != c.cv {
			t.Fatalf("N = %d: the rule chose %s", c.N, lc.Choice.Rule)
		}
		s, err := lc.Sampler(1, 1)
		if err != nil {
			t.Fatal(err)
		}
		var sum, sq, lag [8]float64
		prev := append([]float64(nil), lc.Mode...)
		for k := range c.steps + 1000 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			x := s.State(0)
			if k >= 1000 {
				for j, v := range x {
					sum[j] += v
					sq[j] += v * v
					lag[j] += v * prev[j]
				}
			}
			copy(prev, x)
		}
		want := 1 - lc.Rate()
		T := float64(c.steps)
		for j := range c.p {
			m := sum[j] / T
			rho := (lag[j]/T - m*m) / (sq[j]/T - m*m)
			if d := rho - want; !(d <= 0.1*(1-want)) || c.cv && !(-d <= 0.1*(1-want)) {
				t.Errorf("N = %d, coefficient %d: lag-one autocorrelation %.4f, the rule's 1 − Rate() = %.4f", c.N, j, rho, want)
			}
		}
	}
}

// TestRunLength checks the plan's run length against its definition by
// search: thin the least with keep·thin/τ_int ≥ PlanESS, burn the least with
// ρ^burn·D ≤ planBurnBias, in φ where ρ = 1 − Rate().
func TestPlanRunLength(t *testing.T) {
	for _, c := range []struct {
		eta, accept float64
		p, keep     int
	}{{CVEta, 1, 101, 5000}, {0.36, 0.6, 31, 5000}, {CVEta, 1, 3, 100}} {
		lc := &LogConcave{Mode: make([]float64, c.p), Eta: c.eta, Accept: c.accept}
		burn, thin, iat := lc.RunLength(c.keep)
		rho := 1 - c.eta*c.accept
		if want := (1 + rho) / (1 - rho); iat != want {
			t.Errorf("%+v: τ_int %v, want %v", c, iat, want)
		}
		wantThin := 1
		for float64(c.keep*wantThin)/iat < PlanESS {
			wantThin++
		}
		wantBurn := 0
		for d := lc.StartDistance(); d > planBurnBias; d *= rho {
			wantBurn++
		}
		if thin != wantThin || burn != wantBurn {
			t.Errorf("%+v: burn %d, thin %d, want %d, %d", c, burn, thin, wantBurn, wantThin)
		}
	}
}
