package exchange

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/fresgld/fresgld/models"
)

// thinnedThree is thinnedLadder's model on three levels, τ = 1, 2, 5 (the
// likelihood's powers λ = 1, 0.5, 0.2; the pairs' τδ = 0.5 and 0.3).
func thinnedThree(t *testing.T, seed uint64) (*Sampler, *models.Logistic, []float64) {
	t.Helper()
	lr, mode := thinnedModel(t)
	taus := []float64{1, 2, 5}
	etas := make([]float64, len(taus))
	for l, tau := range taus {
		etas[l] = 0.001 * tau
	}
	return thinnedSampler(t, lr, lr, mode, taus, etas, seed), lr, taus
}

// ThinnedEnergies' attempt between levels l and l + 1 draws its factors at
// τδ = 1/τ_l − 1/τ_{l+1}, on a ladder whose hot pair has both levels at
// λ = 1/τ < 1 (τ = 2 and 5). Each factor is checked against its
// definition, without the sampler's arithmetic, at two states where
// Φ = Σ_i max(0, −τδ·ρ_i) is ln 2:
//
//   - a passed attempt returns τδ·[U(x) − U(y) − Σ_i ρ_i], the prior and
//     the data read in full, to 10⁻⁹ (deterministic);
//   - it passes with probability exp(−Φ) = 1/2: over 20,000 attempts the
//     pass rate's binomial se is √(P(1 − P)/n) = 0.0035, and it must lie
//     within 4 of them;
//   - it reads, on average, Λ·(1 − e^{−Φ})/Φ examples, Λ =
//     τδ·(M/6)·(‖Δ_x‖³_A + ‖Δ_y‖³_A)·Σ_i w_i (events at rate Λ up to the
//     first kept one, at rate Φ: the mean count to that stopping time is Λ
//     times its mean, E[min(1, T)], T ~ Exp(Φ)); the attempts are
//     independent, so the mean's se is the counts' sd/√n, and it must lie
//     within 4 of them. No attempt takes the full pass.
//
// A normal error beyond 4 happens once in 16,000; two seeds. What it
// catches, in thinnedRatio: the expansion's factor at a wrong power of
// τδ (1 or τδ²: a wrong log-ratio on every pass), the remainders' φ at a
// wrong power (the pass rate, tens of se off), and the thinning's
// intensity at a wrong power (the events' mean: at τδ = 0.3, τδ² makes it
// 0.3 times, 1 makes it 3.3 times, tens of se off).
func TestThinnedSwapFactorsAtPowers(t *testing.T) {
	const draws, z = 20_000, 4
	for _, seed := range []uint64{1, 2} {
		s, lr, taus := thinnedThree(t, seed)
		e := s.data.expansion
		m := e.Point()[0]
		for l := range len(taus) - 1 {
			td := 1/taus[l] - 1/taus[l+1]
			x, y := []float64{0}, []float64{0}
			phiAt := func(r float64) float64 {
				x[0], y[0] = m-r, m+r/2
				var phi float64
				for i := range lr.Len() {
					phi += max(0, -td*e.Remainder(i, x, y))
				}
				return phi
			}
			lo, hi := 0.0, 0.01
			for phiAt(hi) < math.Ln2 {
				lo, hi = hi, 2*hi
			}
			for range 50 {
				if r := (lo + hi) / 2; phiAt(r) < math.Ln2 {
					lo = r
				} else {
					hi = r
				}
			}
			phi := phiAt(hi)
			var rho float64
			for i := range lr.Len() {
				rho += e.Remainder(i, x, y)
			}
			rx, ry := e.Radius(x), e.Radius(y)
			rate := td * lr.ThirdBound() / 6 * (rx*rx*rx + ry*ry*ry) * e.Weight()
			if !(thinEventCost*rate < 2*float64(lr.Len())) {
				t.Fatalf("τ %g–%g: Λ = %.3g takes the full pass", taus[l], taus[l+1], rate)
			}
			wantLR, wantPass := td*(lr.U(x)-lr.U(y)-rho), math.Exp(-phi)
			wantEvents := rate * (1 - wantPass) / phi
			p := &s.pairs[l]
			passed, events := 0, make([]float64, draws)
			for q := range draws {
				before := p.Screened
				got, err := s.thinnedRatio(l, x, y)
				if err != nil {
					t.Fatal(err)
				}
				events[q] = float64(p.Screened-before) / 2
				if math.IsInf(got, -1) {
					continue
				}
				passed++
				if !(math.Abs(got-wantLR) <= 1e-9*(1+math.Abs(wantLR))) {
					t.Fatalf("τ %g–%g: a passed attempt returns %v, want τδ·[U(x) − U(y) − Σρ] = %v", taus[l], taus[l+1], got, wantLR)
				}
			}
			if p.Confirmed != 0 {
				t.Errorf("τ %g–%g: %d attempts took the full pass at Λ = %.3g", taus[l], taus[l+1], p.Confirmed, rate)
			}
			got := float64(passed) / draws
			se := math.Sqrt(wantPass * (1 - wantPass) / draws)
			mean, sd := stat.MeanStdDev(events, nil)
			seN := sd / math.Sqrt(draws)
			t.Logf("seed %d, τ %g–%g: pass rate %.4f against %.4f (%.1f se); %.3f examples read against %.3f (%.1f se), Λ = %.3g",
				seed, taus[l], taus[l+1], got, wantPass, (got-wantPass)/se, mean, wantEvents, (mean-wantEvents)/seN, rate)
			if !(math.Abs(got-wantPass) <= z*se) {
				t.Errorf("seed %d, τ %g–%g: pass rate %.4f, want exp(−Φ) = %.4f ± %.4f", seed, taus[l], taus[l+1], got, wantPass, z*se)
			}
			if !(math.Abs(mean-wantEvents) <= z*seN) {
				t.Errorf("seed %d, τ %g–%g: %.3f examples read an attempt, want Λ(1 − e^{−Φ})/Φ = %.3f ± %.3f", seed, taus[l], taus[l+1], mean, wantEvents, z*seN)
			}
		}
		s.Close()
	}
}
