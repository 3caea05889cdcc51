package finitemix

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// mixSubsetMean is E[μ | the values ys form one component] under the
// prior, by the quadrature of mixLogMarginal: E[μ | τ, ys] = (ξ/R² + τ S)
// / (1/R² + nτ) averaged over p(τ | ys).
func mixSubsetMean(m *FiniteMixture, ys []float64, h, lim float64) float64 {
	n := float64(len(ys))
	var s, mean, ss float64
	for _, y := range ys {
		s += y
	}
	mean = s / n
	for _, y := range ys {
		ss += (y - mean) * (y - mean)
	}
	lg, _ := math.Lgamma(m.Alpha)
	ir2 := 1 / (m.R * m.R)
	var lv, ev []float64
	lmax := math.Inf(-1)
	for u := -lim; u <= lim+h/2; u += h {
		tau := math.Exp(u)
		v := m.Alpha*math.Log(m.Beta) - lg + m.Alpha*u - m.Beta*tau
		v += n/2*(u-math.Log(2*math.Pi)) - tau*ss/2 + 0.5*(math.Log(2*math.Pi)-math.Log(n)-u)
		s2 := m.R*m.R + 1/(n*tau)
		d := mean - m.Xi
		v += -0.5*math.Log(2*math.Pi*s2) - d*d/(2*s2)
		lv = append(lv, v)
		ev = append(ev, (m.Xi*ir2+tau*s)/(ir2+n*tau))
		lmax = math.Max(lmax, v)
	}
	var w, we float64
	for i, v := range lv {
		e := math.Exp(v - lmax)
		w += e
		we += e * ev[i]
	}
	return we / w
}

// mixExactSummaries are the exact posterior's label-invariant summaries
// of m on its (few) values: P(K+ = k) for k = 1 … K, P(z_1 = z_n), and
// E[μ_(z_1)], the posterior mean of the mean of value 1's component (on
// the standardised scale).
func mixExactSummaries(m *FiniteMixture) (kplus []float64, same, mean1 float64) {
	n, k := len(m.Z), m.K
	p := mixExact(m, 0.02, 40)
	kplus = make([]float64, k)
	sub := map[int]float64{}
	for zc, pz := range p {
		used, set1 := 0, 0
		for i, c := 0, zc; i < n; i, c = i+1, c/k {
			used |= 1 << (c % k)
			if c%k == zc%k {
				set1 |= 1 << i
			}
		}
		kplus[popcount(used)-1] += pz
		if zc%k == (zc/pow(k, n-1))%k {
			same += pz
		}
		e, ok := sub[set1]
		if !ok {
			var ys []float64
			for i := range n {
				if set1>>i&1 == 1 {
					ys = append(ys, m.Z[i])
				}
			}
			e = mixSubsetMean(m, ys, 0.02, 40)
			sub[set1] = e
		}
		mean1 += pz * e
	}
	return kplus, same, mean1
}

// The exact tests' quantities (TestMixtureGibbsExactDirichlet,
// TestMixtureDAExact), 2K + 2 of them: out[0:K] the indicator that
// K+ = q + 1, out[K:2K] P(K+ = q − K + 1 | θ) Rao–Blackwellised
// (Clusters), out[2K] the indicator that z_1 = z_n, out[2K+1] μ_(z_1).
// mixQuantities writes them (safe for the reference's concurrent
// chains), mixQuantityName names them and mixExactQuantities gives their
// exact values.
func mixQuantities(m *FiniteMixture) (nq int, f func(out, theta []float64, z []int)) {
	n, k := len(m.Z), m.K
	return 2*k + 2, func(out, theta []float64, z []int) {
		used := 0
		for _, c := range z {
			used |= 1 << c
		}
		clear(out[:k])
		out[popcount(used)-1] = 1
		r := make([]float64, n*k)
		p := m.NewParams()
		m.Responsibilities(r, p, theta)
		m.Clusters(out[k:2*k], r)
		out[2*k] = 0
		if z[0] == z[n-1] {
			out[2*k] = 1
		}
		out[2*k+1] = p.Mu[z[0]]
	}
}

func mixQuantityName(q, k int) string {
	switch {
	case q < k:
		return fmt.Sprintf("P(K+ = %d)", q+1)
	case q < 2*k:
		return fmt.Sprintf("P(K+ = %d), Rao–Blackwellised", q-k+1)
	case q == 2*k:
		return "P(z_1 = z_n)"
	default:
		return "E[μ_(z_1)]"
	}
}

func mixExactQuantities(m *FiniteMixture) []float64 {
	kplus, same, mean1 := mixExactSummaries(m)
	return append(append(append([]float64{}, kplus...), kplus...), same, mean1)
}

func pow(k, n int) int {
	r := 1
	for range n {
		r *= k
	}
	return r
}

// mixRefillData are five values in two groups; mixRefillData12 twelve
// in two tight groups far enough apart that under e0 = 1e-8, where each
// extra cluster costs a factor of about e0, two clusters keep a posterior
// probability of 0.0078: a sampler that cannot refill an empty component
// gives 0 (or, started with both used, 1).
var (
	mixRefillData   = []float64{-4.1, -3.6, -3.9, 3.8, 4.3}
	mixRefillData12 = []float64{-4.75, -4.45, -4.15, -3.85, -3.55, -3.25, 3.25, 3.55, 3.85, 4.15, 4.45, 4.75}
)

// TestMixtureGibbsExactDirichlet: the Gibbs sampler against the exact
// posterior, enumerated over all K^n allocations: on five values with
// K = 3 at e0 = 1, 0.01 and 1e-8, and on twelve with K = 2 at e0 = 1e-8.
// P(K+ = k) from the allocations and Rao–Blackwellised (Clusters of the
// drawn θ), P(z_1 = z_n) and E[μ_(z_1)] (label-invariant: the mean of
// value 1's component), each within 4.5 MCSE (diag.MCSEMean over 4 chains
// started over-dispersed, 50,000 sweeps each; a correct sampler fails a
// quantity by chance about once in 150,000, and the seeds are fixed). The
// reference must call itself converged.
//
// Checked by hand, each mutation of finitemix_gibbs.go below fails it:
// no threshold move (e0 = 1e-8: P(K+ = 1) = 1 exactly against 0.99996 and
// 0.99221, the chains never leave one cluster; and
// TestMixtureReferenceRefills gives P(K+ = 2) = 0.5, the chains started
// in one cluster stay there, R̂ +Inf, "did not converge"); the collapsed
// allocation's weight n_k for n_k + e0 (126 MCSE at e0 = 1); the threshold
// proposal without the Dirichlet-multinomial's terms (83 MCSE); its
// acceptance without the current state's ratio ρ (19 MCSE at e0 = 1, 14
// at 0.01, 5.7 at 1e-8).
func TestMixtureGibbsExactDirichlet(t *testing.T) {
	for _, c := range []struct {
		y  []float64
		k  int
		e0 float64
	}{{mixRefillData, 3, 1}, {mixRefillData, 3, 0.01}, {mixRefillData, 3, 1e-8}, {mixRefillData12, 2, 1e-8}} {
		t.Run(fmt.Sprintf("n=%d,K=%d,e0=%g", len(c.y), c.k, c.e0), func(t *testing.T) {
			m, err := NewFiniteMixture(c.y, c.k, c.e0)
			if err != nil {
				t.Fatal(err)
			}
			nq, f := mixQuantities(m)
			ref, err := m.Reference(4, 50000, 11, f, nq)
			if err != nil {
				t.Fatal(err)
			}
			exact := mixExactQuantities(m)
			for q := range nq {
				name := mixQuantityName(q, m.K)
				d := ref.Mean[q] - exact[q]
				ok := math.Abs(d) <= 4.5*ref.MCSE[q] || (ref.MCSE[q] == 0 && math.Abs(d) < 1e-6)
				if !ok {
					t.Errorf("%s: Gibbs %.5f, exact %.5f: %.1f MCSEs (%.2g) off", name, ref.Mean[q], exact[q], d/ref.MCSE[q], ref.MCSE[q])
				}
				t.Logf("%s: Gibbs %.5f, exact %.5f, MCSE %.2g (%.2f MCSEs), ESS %.0f, R̂ %.4f", name, ref.Mean[q], exact[q], ref.MCSE[q], d/ref.MCSE[q], ref.ESS[q], ref.Rhat[q])
			}
			if !ref.Converged {
				t.Errorf("not converged: %s", ref.Problem)
			}
			t.Logf("%d chains × %d sweeps in %.2f s", ref.Chains, ref.Sweeps, ref.Seconds)
		})
	}
}

// TestMixtureReferenceRefills: issue 51's case, 40 values in two clusters
// 20 sds apart, K = 4, under Dirichlet(1e-8) weights, where one-
// dimensional quadrature gives log odds of +41 for two clusters against
// one: the reference must give P(K+ = 2) ≈ 1 (above 0.99) and call itself
// converged. The sampler it replaced gave P(K+ = 1) = 1.0000 ± 0 here.
func TestMixtureReferenceRefills(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 20))
	y := make([]float64, 40)
	for i := range y {
		y[i] = rng.NormFloat64()
		if i%2 == 1 {
			y[i] += 20
		}
	}
	m, err := NewFiniteMixture(y, 4, 1e-8)
	if err != nil {
		t.Fatal(err)
	}
	f := func(out, theta []float64, _ []int) {
		r := make([]float64, len(y)*m.K)
		m.Responsibilities(r, m.NewParams(), theta)
		m.Clusters(out, r)
	}
	ref, err := m.Reference(4, 5000, 3, f, m.K)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("P(K+ = k) %.5f ± %.2g, %s", ref.Mean, ref.MCSE, ref.Problem)
	if !(ref.Mean[1] > 0.99) {
		t.Errorf("P(K+ = 2) = %.5f, want ≈ 1", ref.Mean[1])
	}
	if !ref.Converged {
		t.Errorf("not converged: %s", ref.Problem)
	}
}

// A reference whose chains disagree or are too short says so, with the
// numbers: R̂ above MaxRhat or a bulk ESS below MinESS, by name.
func TestMixtureReferenceNotConverged(t *testing.T) {
	m, err := NewFiniteMixture(mixGibbsData, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// 4 chains × 50 kept draws: fewer than MinESS in all.
	ref, err := m.Reference(4, 56, 1, func(out, theta []float64, z []int) {
		out[0] = 0
		if z[0] == z[len(z)-1] {
			out[0] = 1
		}
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref.Name([]string{"P(z_1 = z_n)"})
	if ref.Converged || !strings.Contains(ref.Problem, "bulk ESS") || !strings.Contains(ref.Problem, "< 400") {
		t.Errorf("200 draws: converged %v, %q", ref.Converged, ref.Problem)
	}
	// Chains that disagree: R̂ far above 1.01, named.
	ref.Checks = []MixCheck{{Name: "P(K+ = 1)", Rhat: 2.7, ESS: 8}, {Name: "sorted mean 1", Rhat: 1.001, ESS: 5000}}
	ref.judge()
	if ref.Converged || !strings.Contains(ref.Problem, "R̂ 2.7 > 1.01 (P(K+ = 1))") || !strings.Contains(ref.Problem, "bulk ESS 8 < 400 (P(K+ = 1))") {
		t.Errorf("R̂ 2.7: converged %v, %q", ref.Converged, ref.Problem)
	}
	if r, e := ref.Worst(); r != 2.7 || e != 8 {
		t.Errorf("Worst: %v, %v", r, e)
	}
	ref.Checks = ref.Checks[1:]
	if ref.judge(); !ref.Converged || ref.Problem != "" {
		t.Errorf("R̂ 1.001, ESS 5000: converged %v, %q", ref.Converged, ref.Problem)
	}
}
