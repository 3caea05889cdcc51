package plan

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/diag"
)

// TestRunLengthRule checks the rule's integers against the formulas,
// computed here from η and λ_min: thin is the least with
// keep·thin/τ_int ≥ essMargin·essGoal, τ_int = (2 − ηλ)/(ηλ) (the AR(1)
// correlation time with ρ = 1 − ηλ); burn the least with
// ρ^burn·max(D, 1) ≤ burnBias; a run past runWork is cut to the budget,
// its burn to at most half of it, and says so.
func TestRunLengthRule(t *testing.T) {
	for _, c := range []struct {
		eta, lmin, dist float64
		keep, n, p      int
		capped          bool
	}{
		{2.34e-3, 1, 26.7, 5000, 143, 31, false}, // data/wdbc.csv
		{0.01, 3, 0.2, 1000, 10, 5, false},       // D < 1: the spread's growth sets burn
		{0.1, 1, 5, 4000, 10, 5, false},          // thin of 1 would do
		{7.58e-9, 54400, 700, 5000, 2048, 101, true},
	} {
		r, ok := RunLengthFor(c.eta, c.lmin, c.dist, c.keep, c.n, c.p)
		if !ok {
			t.Fatalf("%+v: rule not applied", c)
		}
		el := c.eta * c.lmin
		tau := (2 - el) / el
		want := float64(essMargin * essGoal)
		if ess := float64(c.keep*r.NeedThin) / tau; ess < want*(1-1e-12) || (r.NeedThin > 1 && float64(c.keep*(r.NeedThin-1))/tau >= want) {
			t.Errorf("%+v: thin %d gives keep·thin/τ_int = %v, want the least thin reaching %v", c, r.NeedThin, ess, want)
		}
		d := max(c.dist, 1)
		if b := math.Pow(1-el, float64(r.NeedBurn)) * d; b > burnBias*(1+1e-9) || math.Pow(1-el, float64(r.NeedBurn-1))*d <= burnBias {
			t.Errorf("%+v: burn %d leaves ρ^burn·D = %v, want the least burn below %v", c, r.NeedBurn, b, burnBias)
		}
		if r.Capped != c.capped {
			t.Fatalf("%+v: capped %v", c, r.Capped)
		}
		steps := float64(r.Burn + c.keep*r.Thin)
		if !c.capped {
			if r.Burn != r.NeedBurn || r.Thin != r.NeedThin || r.Warning(c.keep) != "" {
				t.Errorf("%+v: within the budget, yet burn %d thin %d (rule %d, %d), warning %q", c, r.Burn, r.Thin, r.NeedBurn, r.NeedThin, r.Warning(c.keep))
			}
			continue
		}
		budget := math.Floor(runWork / float64(c.n*c.p))
		if steps > budget && r.Thin > 1 || float64(r.Burn) > budget/2 {
			t.Errorf("%+v: capped run of %v steps, burn %d, past the budget of %v steps", c, steps, r.Burn, budget)
		}
		if w := r.Warning(c.keep); !strings.Contains(w, "--thin "+strconv.Itoa(r.NeedThin)) || !strings.Contains(w, "--burn "+strconv.Itoa(r.NeedBurn)) {
			t.Errorf("capped run's warning names no remedy: %q", w)
		}
		if got, want := r.ESS, float64(c.keep*r.Thin)/tau; math.Abs(got-want) > 1e-9*want {
			t.Errorf("expected ESS %v, want keep·thin/τ_int = %v", got, want)
		}
	}
	for _, el := range []float64{0, 1, 2.5, math.NaN()} {
		if _, ok := RunLengthFor(el, 1, 1, 100, 10, 5); ok {
			t.Errorf("ηλ_min = %v: rule applied, want the fixed defaults", el)
		}
	}
}

// TestRunLengthMixes runs what the rule is for on a target where the
// Langevin chain is exactly the rule's model: U = Σ λ_j θ_j²/2 with
// λ = (λ_min, 8λ_min) and exact gradients, four chains started 1000
// posterior sds from the mode along the slow axis, with the rule's burn and
// thin. The rule aims at a bulk ESS of essMargin·essGoal = 200 per chain;
// the ESS estimate of four chains of that size has a relative sd of about
// √(2(2M + 1)/(4·keep)) ≈ 16% (Sokal's window M ≈ 5τ_int of the thinned
// chain, τ_int ≈ keep/200), so the 100 the command asks for lies 3 sds
// below and R̂ − 1 ≈ 1/ESS far below 0.01. A burn-in cut to 0 fails the
// sd (R̂ and bulk ESS, rank-based, hardly notice the few early draws); a
// halved correlation time fails TestRunLengthRule.
func TestRunLengthMixes(t *testing.T) {
	const eta, lmin, keep, dist = 0.01, 1.0, 1000, 1000.0
	r, ok := RunLengthFor(eta, lmin, dist, keep, 10, 2)
	if !ok || r.Capped {
		t.Fatalf("rule %+v, ok %v", r, ok)
	}
	lam := []float64{lmin, 8 * lmin}
	draws := [2][][]float64{}
	for c := range 4 {
		rng := rand.New(rand.NewPCG(11, uint64(c)))
		x := []float64{dist / math.Sqrt(lmin), 0}
		var ch [2][]float64
		for k := 1; k <= r.Burn+keep*r.Thin; k++ {
			for j := range x {
				x[j] += -eta*lam[j]*x[j] + math.Sqrt(2*eta)*rng.NormFloat64()
			}
			if k > r.Burn && (k-r.Burn)%r.Thin == 0 {
				for j := range x {
					ch[j] = append(ch[j], x[j])
				}
			}
		}
		for j := range ch {
			draws[j] = append(draws[j], ch[j])
		}
	}
	for j := range draws {
		ess, rhat := diag.ESSBulk(draws[j])/4, diag.Rhat(draws[j])
		if !(ess >= essGoal) || !(rhat <= 1.01) {
			t.Errorf("θ_%d (λ = %v): bulk ESS %.0f per chain, R̂ %.4f; the rule (burn %d, thin %d) promises ≥ %d and ≤ 1.01", j, lam[j], ess, rhat, r.Burn, r.Thin, essGoal)
		}
		// The pooled mean and sd against the exact 0 and 1/√λ: within 5
		// Monte Carlo standard errors (the mean's from diag.MCSEMean, the
		// sd's relative one 1/√(2·ESS) for a Gaussian).
		var s1, s2, n float64
		for _, ch := range draws[j] {
			for _, x := range ch {
				s1, s2, n = s1+x, s2+x*x, n+1
			}
		}
		mean, sd := s1/n, math.Sqrt(s2/n-(s1/n)*(s1/n))
		want := 1 / math.Sqrt(lam[j])
		if se := diag.MCSEMean(draws[j]); !(math.Abs(mean) <= 5*se) {
			t.Errorf("θ_%d: mean %v, exact 0 ± %v", j, mean, 5*se)
		}
		if tol := 5 * want / math.Sqrt(2*4*ess); !(math.Abs(sd-want) <= tol) {
			t.Errorf("θ_%d: sd %v, exact %v ± %v", j, sd, want, tol)
		}
	}
}
