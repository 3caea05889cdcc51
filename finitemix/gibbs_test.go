package finitemix

import (
	"math"
	"math/rand/v2"
	"testing"
)

// mixGibbsData is the exactness test's data: six values in two groups
// close enough that which group the middle values join, and whether one
// component takes everything, are undecided.
var mixGibbsData = []float64{-1.1, -0.7, -0.2, 0.3, 0.9, 1.2}

// mixLogMarginal is log ∫∫ Π_(y∈ys) N(y; μ, 1/τ) N(μ; ξ, R²) Gamma(τ; α, β)
// dμ dτ, the marginal likelihood of the values allocated to one component
// (0 for none). Given τ the μ-integral is closed form,
//
//	(τ/2π)^(n/2) e^(−τ·SS/2) √(2π/(nτ)) N(ȳ; ξ, R² + 1/(nτ)),
//
// SS = Σ (y − ȳ)², and τ = e^u is integrated by the trapezoid rule in u
// with step h on [−40, 40]. Accuracy: the integrand in u is analytic in
// the strip |Im u| < π/2 (where Re e^u > 0, so e^(−βτ) still decays;
// √(R² + e^(−u)/n) has its branch points at Im u = ±π), decays like
// e^((α+1/2)u) as u → −∞ and doubly exponentially as u → ∞, so the
// trapezoid rule's error is O(e^(−2π·(π/2)/h)) (Trefethen and Weideman
// 2014, SIAM Review 56, Theorem 5.1): below 1e-100 for h = 0.02, and the
// truncation at ±40 leaves e^(−40·2.5) of the lower tail and nothing of
// the upper (βe^40 ≫ 1). TestMixtureGibbsExact checks both numerically:
// halving h and widening the range change no log marginal by 1e-12.
func mixLogMarginal(m *FiniteMixture, ys []float64, h, lim float64) float64 {
	n := float64(len(ys))
	if n == 0 {
		return 0
	}
	var mean, ss float64
	for _, y := range ys {
		mean += y
	}
	mean /= n
	for _, y := range ys {
		ss += (y - mean) * (y - mean)
	}
	lg, _ := math.Lgamma(m.Alpha)
	lmax, vals := math.Inf(-1), []float64{}
	for u := -lim; u <= lim+h/2; u += h {
		tau := math.Exp(u)
		v := m.Alpha*math.Log(m.Beta) - lg + m.Alpha*u - m.Beta*tau // Gamma density × dτ/du
		v += n/2*(u-math.Log(2*math.Pi)) - tau*ss/2 + 0.5*(math.Log(2*math.Pi)-math.Log(n)-u)
		s2 := m.R*m.R + 1/(n*tau)
		d := mean - m.Xi
		v += -0.5*math.Log(2*math.Pi*s2) - d*d/(2*s2)
		vals = append(vals, v)
		lmax = math.Max(lmax, v)
	}
	var s float64
	for _, v := range vals {
		s += math.Exp(v - lmax) // the end points' weight ½ is immaterial: they are e^(−100) of the peak
	}
	return lmax + math.Log(s*h)
}

// mixExact enumerates the K^n allocations of m's data and returns each
// one's posterior probability, p(z | y) ∝ p(z) Π_k m(y_(z=k)), p(z) the
// Dirichlet(e0)-multinomial, z as a base-K number (value 0 the lowest
// digit).
func mixExact(m *FiniteMixture, h, lim float64) []float64 {
	n, k := len(m.Z), m.K
	nz := 1
	for range n {
		nz *= k
	}
	// Marginal likelihood of every subset of the data, by bitmask.
	lm := make([]float64, 1<<n)
	for s := range lm {
		var ys []float64
		for i := range n {
			if s>>i&1 == 1 {
				ys = append(ys, m.Z[i])
			}
		}
		lm[s] = mixLogMarginal(m, ys, h, lim)
	}
	lp := make([]float64, nz)
	lmax := math.Inf(-1)
	lge0, _ := math.Lgamma(m.E0)
	for zc := range nz {
		sets, counts := make([]int, k), make([]int, k)
		for i, c := 0, zc; i < n; i, c = i+1, c/k {
			sets[c%k] |= 1 << i
			counts[c%k]++
		}
		var v float64
		for j := range k {
			lg, _ := math.Lgamma(m.E0 + float64(counts[j]))
			v += lg - lge0 + lm[sets[j]]
		}
		lp[zc] = v // the Dirichlet-multinomial's Γ(K·e0)/Γ(K·e0 + n) is common to all z
		lmax = math.Max(lmax, v)
	}
	var s float64
	for zc := range lp {
		lp[zc] = math.Exp(lp[zc] - lmax)
		s += lp[zc]
	}
	for zc := range lp {
		lp[zc] /= s
	}
	return lp
}

// TestMixtureGibbsExact: the Gibbs sampler's draws of the allocations
// match the exact posterior over all 2^6 of them on six values, K = 2,
// e0 = 1: (a) the probability that the first and last values share a
// component and (b) that the allocation leaves one component empty
// (K+ = 1), both invariant to labels, and (c) the Rao–Blackwellised (b),
// Clusters of the responsibilities under the drawn θ, averaged. Each
// within 4 Monte Carlo standard errors (diag.MCSEMean, from the ESS of
// the split chains): 4 chains × 200,000 sweeps (the first 10% dropped)
// give an ESS of about 8·10^4 for each quantity, so an MCSE of about
// 0.0014 for a probability near 0.2 (√(p(1−p)/ESS)); a correct sampler
// fails by chance (a normal variable beyond 4 of its sds) about once in
// 16,000 runs per quantity, and the seeds are fixed. The exact answers'
// quadrature error (see mixLogMarginal) is below 1e-12, nothing against
// that. (A one-off run of 4 × 10^6 sweeps, two seeds, agreed within
// 0.35 MCSEs of 0.0006.)
//
// The test detects a broken sweep. Each mutation below, put by hand in
// the data-augmentation sweep (weights drawn, then allocations given
// them) that the collapsed one replaced, failed it by at least 100 MCSEs
// (TestMixtureGibbsExactDirichlet lists the present sweep's):
// dropping τ_k S_k from μ_k's conditional mean (P(z_1 = z_n) 0.736
// against 0.196), τ_k's shape α + n_k for α + n_k/2 (0.030), its rate
// β + SS_k for β + SS_k/2 (0.477), w drawn from Dirichlet(e0) ignoring
// the counts (0.116), and the responsibilities without ½ log τ_k (0.508).
func TestMixtureGibbsExact(t *testing.T) {
	m, err := NewFiniteMixture(mixGibbsData, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := mixExact(m, 0.02, 40)
	// The quadrature: half the step, a wider range, the same answer.
	for s := range 1 << len(m.Z) {
		var ys []float64
		for i := range m.Z {
			if s>>i&1 == 1 {
				ys = append(ys, m.Z[i])
			}
		}
		a, b := mixLogMarginal(m, ys, 0.02, 40), mixLogMarginal(m, ys, 0.01, 60)
		if math.Abs(a-b) > 1e-12 {
			t.Fatalf("subset %b: log marginal %v at h = 0.02, %v at h = 0.01", s, a, b)
		}
	}
	n := len(m.Z)
	var same, one float64
	for zc, pz := range p {
		first, last := zc&1, zc>>(n-1)&1
		if first == last {
			same += pz
		}
		if zc == 0 || zc == len(p)-1 {
			one += pz
		}
	}
	f := func(out, theta []float64, z []int) {
		out[0], out[1] = 0, 1
		if z[0] == z[n-1] {
			out[0] = 1
		}
		for _, c := range z {
			if c != z[0] {
				out[1] = 0
			}
		}
		r, k := make([]float64, n*m.K), make([]float64, m.K)
		m.Responsibilities(r, m.NewParams(), theta)
		m.Clusters(k, r)
		out[2] = k[0]
	}
	ref, err := m.Reference(4, 200000, 7, f, 3)
	if err != nil {
		t.Fatal(err)
	}
	exact := []float64{same, one, one}
	for q, name := range []string{"P(z_1 = z_n)", "P(K+ = 1)", "P(K+ = 1), Rao–Blackwellised"} {
		d := ref.Mean[q] - exact[q]
		if !(math.Abs(d) <= 4*ref.MCSE[q]) {
			t.Errorf("%s: Gibbs %.5f, exact %.5f: %.1f MCSEs (%.2g) off", name, ref.Mean[q], exact[q], d/ref.MCSE[q], ref.MCSE[q])
		}
		t.Logf("%s: Gibbs %.5f, exact %.5f, MCSE %.2g (%.2f MCSEs), ESS %.0f, R̂ %.4f", name, ref.Mean[q], exact[q], ref.MCSE[q], d/ref.MCSE[q], ref.ESS[q], ref.Rhat[q])
	}
	t.Logf("%d chains × %d sweeps in %.2f s", ref.Chains, ref.Sweeps, ref.Seconds)
}

// A sweep allocates nothing, nor do State and Allocation.
func TestMixtureGibbsAllocates(t *testing.T) {
	m, err := NewFiniteMixture(mixThreeGroups(60), 4, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Gibbs(rand.New(rand.NewPCG(1, 2)))
	theta, z := make([]float64, m.Dim()), make([]int, len(m.Z))
	if a := testing.AllocsPerRun(100, func() { g.Sweep(); g.State(theta); g.Allocation(z) }); a != 0 {
		t.Errorf("a sweep allocates %v times", a)
	}
	out, r := make([]float64, m.K), make([]float64, len(m.Z)*m.K)
	m.Responsibilities(r, m.NewParams(), theta)
	if a := testing.AllocsPerRun(100, func() { m.Clusters(out, r) }); a != 0 {
		t.Errorf("Clusters allocates %v times", a)
	}
}

// mixThreeGroups is n values in three groups of different spreads.
func mixThreeGroups(n int) []float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, n)
	for i := range y {
		switch i % 3 {
		case 0:
			y[i] = -5 + 0.5*rng.NormFloat64()
		case 1:
			y[i] = rng.NormFloat64()
		default:
			y[i] = 4 + 0.3*rng.NormFloat64()
		}
	}
	return y
}

// TestMixtureGibbsState: every draw State writes unpacks to strictly
// increasing means, and to the sampler's own components in that order
// (means, sds, weights summing to 1), and Pack of the unpacked draw gives
// θ back; the allocations are labelled in the same order (each value's
// component is one a value can come from: its weight is positive).
func TestMixtureGibbsState(t *testing.T) {
	m, err := NewFiniteMixture(mixThreeGroups(60), 4, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Gibbs(rand.New(rand.NewPCG(5, 6)))
	theta, back, z := make([]float64, m.Dim()), make([]float64, m.Dim()), make([]int, len(m.Z))
	p := m.NewParams()
	for s := range 500 {
		g.Sweep()
		g.State(theta)
		g.Allocation(z)
		m.Unpack(p, theta)
		var wsum float64
		for j := range m.K {
			c := g.ord[j]
			if j > 0 && !(p.Mu[j] > p.Mu[j-1]) {
				t.Fatalf("sweep %d: means %v not increasing", s, p.Mu)
			}
			if e := math.Abs(p.Mu[j] - g.mu[c]); e > 1e-9*(1+math.Abs(g.mu[c])) {
				t.Fatalf("sweep %d: mean %d is %v, the sampler's %v", s, j, p.Mu[j], g.mu[c])
			}
			if e := math.Abs(p.Sigma[j]*math.Sqrt(g.tau[c]) - 1); e > 1e-12 {
				t.Fatalf("sweep %d: sd %d is %v, the sampler's %v", s, j, p.Sigma[j], 1/math.Sqrt(g.tau[c]))
			}
			if e := math.Abs(p.LogW[j] - g.logw[c]); e > 1e-9 {
				t.Fatalf("sweep %d: log weight %d is %v, the sampler's %v", s, j, p.LogW[j], g.logw[c])
			}
			wsum += p.W[j]
		}
		if math.Abs(wsum-1) > 1e-12 {
			t.Fatalf("sweep %d: weights sum to %v", s, wsum)
		}
		for i, c := range z {
			if g.ord[c] != g.z[i] {
				t.Fatalf("sweep %d: value %d in sorted component %d, the sampler's %d", s, i, c, g.z[i])
			}
		}
		m.Pack(back, p)
		for j := range theta {
			if e := math.Abs(back[j] - theta[j]); e > 1e-9*(1+math.Abs(theta[j])) {
				t.Fatalf("sweep %d: Pack(Unpack(θ))_%d = %v, θ_%d = %v", s, j, back[j], j, theta[j])
			}
		}
	}
}

// TestMixtureClusters: Clusters against the brute-force sum over all K^n
// allocations of the probability of each number of non-empty components,
// n = 5, K = 3 (and n = 4, K = 4), random responsibilities, some rows
// nearly certain.
func TestMixtureClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, c := range []struct{ n, k int }{{5, 3}, {4, 4}, {3, 2}} {
		m := &FiniteMixture{K: c.k}
		for trial := range 20 {
			r := make([]float64, c.n*c.k)
			for i := range c.n {
				var s float64
				for j := range c.k {
					v := rng.Float64()
					if trial%4 == 3 && j > 0 {
						v *= 1e-9
					}
					r[i*c.k+j] = v
					s += v
				}
				for j := range c.k {
					r[i*c.k+j] /= s
				}
			}
			want := make([]float64, c.k)
			nz := 1
			for range c.n {
				nz *= c.k
			}
			for zc := range nz {
				pz, used := 1.0, 0
				for i, x := 0, zc; i < c.n; i, x = i+1, x/c.k {
					pz *= r[i*c.k+x%c.k]
					used |= 1 << (x % c.k)
				}
				want[popcount(used)-1] += pz
			}
			got := make([]float64, c.k)
			m.Clusters(got, r)
			for j := range got {
				// Sums of at most 2^K terms of size ≤ C(K, K/2) ≤ 70:
				// rounding below 1e-13.
				if math.Abs(got[j]-want[j]) > 1e-13 || got[j] < 0 {
					t.Errorf("n = %d, K = %d, trial %d: P(K+ = %d) = %v, enumeration %v", c.n, c.k, trial, j+1, got[j], want[j])
				}
			}
		}
	}
}

// TestMixtureGammaDraw: exp of logGamma's draws has the Gamma(a, 1) mean
// and variance, a both, for shapes below 1 (the boosted branch), 1 and
// above, within 4 standard errors of 200,000 independent draws.
func TestMixtureGammaDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	const n = 200000
	for _, a := range []float64{0.05, 0.4, 1, 2.5, 30} {
		var s1, s2 float64
		for range n {
			x := math.Exp(logGamma(rng, a))
			s1 += x
			s2 += x * x
		}
		mean, v := s1/n, s2/n-(s1/n)*(s1/n)
		// Var of the sample mean a/n; of the sample variance ≈ (μ4 − σ⁴)/n
		// with μ4 = 3a² + 6a for Gamma(a, 1).
		if se := math.Sqrt(a / n); math.Abs(mean-a) > 4*se {
			t.Errorf("a = %v: mean %v, want %v (se %.2g)", a, mean, a, se)
		}
		if se := math.Sqrt((3*a*a + 6*a - a*a) / n); math.Abs(v-a) > 4*se {
			t.Errorf("a = %v: variance %v, want %v (se %.2g)", a, v, a, se)
		}
	}
}

// TestMixtureMarginalFormula: mixLogMarginal's closed-form μ-integral
// against a plain 2-D trapezoid rule over (μ, log τ), for one, two and
// three of the exactness test's values. The trapezoid rule converges
// geometrically for smooth integrands that decay (Trefethen and Weideman
// 2014): on a Gaussian of sd σ its relative error is about
// 2·e^(−2π²σ²/h²), so the step h = 0.02 in μ errs by under 1e-17 where
// the μ-integrand's sd 1/√(nτ) is above 0.1 (τ < 100/n) and by under 6e-9
// where it is above h (τ < 2500/n), and beyond that the τ-integrand,
// decaying as e^(−βτ) with β ≈ 0.13, has e^(−100) of its mass; the step
// 0.05 in log τ is as accurate (see mixLogMarginal). The two agree to
// 1e-12 in practice; the tolerance is 1e-8.
func TestMixtureMarginalFormula(t *testing.T) {
	m, err := NewFiniteMixture(mixGibbsData, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	lg, _ := math.Lgamma(m.Alpha)
	for _, ys := range [][]float64{m.Z[:1], m.Z[1:3], m.Z[3:]} {
		const hu, hm = 0.05, 0.02
		var s float64
		for u := -15.0; u <= 8; u += hu {
			tau := math.Exp(u)
			lgam := m.Alpha*math.Log(m.Beta) - lg + m.Alpha*u - m.Beta*tau
			for mu := m.Xi - 8*m.R; mu <= m.Xi+8*m.R; mu += hm {
				d := (mu - m.Xi) / m.R
				v := lgam - 0.5*math.Log(2*math.Pi) - math.Log(m.R) - d*d/2
				for _, y := range ys {
					v += 0.5*(u-math.Log(2*math.Pi)) - tau*(y-mu)*(y-mu)/2
				}
				s += math.Exp(v)
			}
		}
		want, got := math.Log(s*hu*hm), mixLogMarginal(m, ys, 0.02, 40)
		t.Logf("%d values: log marginal %.12f, 2-D quadrature %.12f", len(ys), got, want)
		if math.Abs(got-want) > 1e-8 {
			t.Errorf("%d values: log marginal %v, 2-D quadrature %v", len(ys), got, want)
		}
	}
}

// Reference reports a quantity that is NaN as an error, and a constant
// one as exact (MCSE 0, R̂ 1) rather than NaN.
func TestMixtureReferenceErrors(t *testing.T) {
	m, err := NewFiniteMixture(mixGibbsData, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := m.Reference(4, 200, 1, func(out, theta []float64, z []int) { out[0], out[1] = 3, math.NaN() }, 2)
	if err == nil {
		t.Error("a NaN quantity: no error")
	}
	if ref == nil || ref.Mean[0] != 3 || ref.MCSE[0] != 0 || ref.Rhat[0] != 1 {
		t.Errorf("a constant quantity: %+v", ref)
	}
	if _, err := m.Reference(3, 200, 1, func(out, theta []float64, z []int) {}, 1); err == nil {
		t.Error("three chains: no error (a reference needs 4, started over-dispersed)")
	}
}

// A number of clusters with probability below ClustersFloor is written as
// exactly 0, never as the round-off of the inclusion–exclusion sums (which
// can be negative, and makes a constant column's MCSE NaN); every value
// moves by less than the floor. Here every example sits in component 1
// but for ε = 1e-15 in each other one: P(K+ = 2) ≈ 2·4·ε and P(K+ = 3)
// ≈ 36ε², both below the floor.
func TestMixtureClustersFloor(t *testing.T) {
	const n, k, eps = 4, 3, 1e-15
	r := make([]float64, n*k)
	for i := range n {
		r[i*k], r[i*k+1], r[i*k+2] = 1-2*eps, eps, eps
	}
	m := &FiniteMixture{K: k}
	got := make([]float64, k)
	m.Clusters(got, r)
	// P(K+ = 1) is every z_i = 1 (the others are at most ε^n); P(K+ = 2)
	// is, for j = 2, 3, every z_i in {1, j} but not all in 1.
	want := []float64{math.Pow(1-2*eps, n), 2 * (math.Pow(1-eps, n) - math.Pow(1-2*eps, n)), 0}
	if math.Abs(got[0]-want[0]) > ClustersFloor {
		t.Errorf("P(K+ = 1) = %v, want %v", got[0], want[0])
	}
	for j := 1; j < k; j++ {
		if got[j] != 0 {
			t.Errorf("P(K+ = %d) = %v (exact about %.3g, below the floor %g): want exactly 0", j+1, got[j], want[j], ClustersFloor)
		}
	}
}
