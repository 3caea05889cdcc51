package finitemix

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fresgld/fresgld/diag"
)

// daRun runs chains of the DA kernel (moves pair moves a sweep), chain c
// started at the θ of MixGibbs's over-dispersed start MixStart(c mod 4),
// and returns each quantity f writes, per chain, after dropping the first
// 10% of the sweeps.
func daRun(m *FiniteMixture, moves float64, chains, sweeps int, seed uint64, nq int, f func(out, theta []float64, z []int)) [][][]float64 {
	draws := make([][][]float64, nq)
	for q := range draws {
		draws[q] = make([][]float64, chains)
	}
	burn := sweeps / 10
	for c := range chains {
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		theta := make([]float64, m.Dim())
		m.GibbsFrom(rng, MixStart(c%4)).State(theta)
		d := m.DA(moves)
		z, out := make([]int, len(m.Z)), make([]float64, nq)
		for t := range sweeps {
			d.Step(theta, rng)
			if t < burn {
				continue
			}
			d.Allocation(z)
			f(out, theta, z)
			for q, v := range out {
				draws[q][c] = append(draws[q][c], v)
			}
		}
	}
	return draws
}

// TestMixtureDAExact: the default's kernel against the exact posterior,
// enumerated over all K^n allocations (mixExactSummaries), on the cases of
// TestMixtureGibbsExactDirichlet: P(K+ = k) from the allocations and
// Rao–Blackwellised, P(z_1 = z_n) and E[μ_(z_1)], each within 4.5 MCSE
// (diag.MCSEMean over 4 chains started over-dispersed, 30,000 sweeps
// each: a correct sampler fails one of the 28 quantities by chance about
// once in 5,000 runs, and the seeds are fixed). E[μ_(z_1)] and
// P(z_1 = z_n) read the allocations the parameters were drawn given, so
// they check moves 1–5 jointly, not θ alone.
//
// Checked by hand, each mutation of finitemix_da.go fails it: the means'
// full-conditional sd ×1.1 (by 10.3 MCSE), the precisions' rate with
// 0.55·SS for 0.5·SS (6.9), the pair move's ratio without the reverse
// proposal's probability (47), that probability read from the wrong
// branch (10⁹), no pair moves (the e0 = 1e-8 chains never cross: R̂
// 9·10¹³). A change of the proposal alone (its weights with n + 1 for
// n + e0) stays exact and fails only by R̂ (8.9·10¹³ at e0 = 1e-8): it
// mixes slowly, never biases.
func TestMixtureDAExact(t *testing.T) {
	for _, c := range []struct {
		y  []float64
		k  int
		e0 float64
	}{{mixGibbsData, 2, 1}, {mixRefillData, 3, 1}, {mixRefillData, 3, 0.01}, {mixRefillData, 3, 1e-8}, {mixRefillData12, 2, 1e-8}} {
		checkDAEnumerated(t, c.y, c.k, c.e0)
	}
}

// checkDAEnumerated holds MixDA on the mixture of y (k components,
// Dirichlet e0) to its posterior enumerated over every allocation.
func checkDAEnumerated(t *testing.T, y []float64, k int, e0 float64) {
	t.Run(fmt.Sprintf("n=%d,K=%d,e0=%g", len(y), k, e0), func(t *testing.T) {
		m, err := NewFiniteMixture(y, k, e0)
		if err != nil {
			t.Fatal(err)
		}
		checkDA(t, m, m.K, mixExactQuantities(m))
	})
}

// The pair move as large data run it, on the enumerated cases with the
// most members (six values at e0 = 1, twelve at e0 = 1e-8): its
// predictive updated on a sparse schedule (at a part's first value, then
// at counts 3, 6, 9, 13, 19, …: every third or every half of the count),
// its walk in blocks (of 2 members, in a random order, once a move has
// more than 3) and its shares cut at a log ratio of ±2 (the heavier
// side certain): still exact. A schedule read differently
// by the forward walk and the replay (the replay updating at every
// value) fails it (by 4.9 MCSEs), as does a walk whose blocks overrun
// (every block taken whole from its start to the end: 1 block → all).
func TestMixtureDAExactSparseSchedule(t *testing.T) {
	defer func(f, e, g, m, b int, c float64) {
		predFresh, predEvery, predGrow, shuffleMax, shuffleBlock, shareCut = f, e, g, m, b, c
	}(predFresh, predEvery, predGrow, shuffleMax, shuffleBlock, shareCut)
	predFresh, predEvery, predGrow, shuffleMax, shuffleBlock = 2, 3, 2, 3, 2
	// A cut the few values reach: certain sides, and moves rejected
	// because the current allocation has a side of probability 0.
	shareCut = 2
	for _, c := range []struct {
		y  []float64
		k  int
		e0 float64
	}{{mixGibbsData, 2, 1}, {mixRefillData12, 2, 1e-8}} {
		checkDAEnumerated(t, c.y, c.k, c.e0)
	}
}

// checkDA runs the kernel at moves = K and compares the summaries of
// TestMixtureDAExact with exact, returning the largest |error| in MCSEs.
func checkDA(t *testing.T, m *FiniteMixture, moves int, exact []float64) float64 {
	nq, f := mixQuantities(m)
	draws := daRun(m, float64(moves), 4, 30000, 17, nq, f)
	var worst float64
	for q := range nq {
		name := mixQuantityName(q, m.K)
		mean := diag.PooledMean(draws[q])
		var cnt int
		for _, xs := range draws[q] {
			cnt += len(xs)
		}
		mcse := diag.MCSEMean(draws[q])
		d := mean - exact[q]
		if _, ok := constant(draws[q]); ok || math.IsNaN(mcse) {
			// No draw differs: as many as exact·draws were due, so the
			// allowance is 4.5 binomial sds at the draws' count (an
			// ESS no larger), as for a quantity that varies.
			pe := math.Min(exact[q], 1-exact[q])
			if math.Abs(d) > 4.5*math.Sqrt(pe*(1-pe)/float64(cnt))+1e-9 {
				t.Errorf("%s: constant %.6f, exact %.6f", name, mean, exact[q])
				worst = math.Inf(1)
			}
			continue
		}
		worst = math.Max(worst, math.Abs(d)/mcse)
		// Chains that never cross have an MCSE as wide as their
		// disagreement; R̂ says so. 1.05, not MaxRhat: a correct run
		// reads 1.0101 on P(K+ = 1) = 0.0002 (a rare event's R̂ is
		// noisy), stuck chains 1.3 and more.
		if r := rhat(draws[q]); !(r <= 1.05) {
			t.Errorf("%s: R̂ %.3g > 1.05: the over-dispersed chains disagree", name, r)
		}
		if math.Abs(d) > 4.5*mcse {
			t.Errorf("%s: DA %.5f, exact %.5f: %.1f MCSEs (%.2g) off", name, mean, exact[q], d/mcse, mcse)
		}
		t.Logf("%s: DA %.5f, exact %.5f, MCSE %.2g (%.2f MCSEs)", name, mean, exact[q], mcse, d/mcse)
	}
	return worst
}

// The kernel allocates nothing a sweep.
func TestMixtureDAAllocs(t *testing.T) {
	m, err := NewFiniteMixture(mixThreeGroups(300), 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, m.Dim())
	m.Gibbs(rng).State(theta)
	d := m.DA(4)
	if a := testing.AllocsPerRun(50, func() { d.Step(theta, rng) }); a != 0 {
		t.Errorf("%v allocations a sweep", a)
	}
}

// BenchmarkMixtureDA is a sweep (K = 4, the plan's K pair moves) on 272
// to 10⁶ values in three groups, started from a prior draw and run 20
// sweeps before the clock starts; ns/op is a sweep, and allocs/op must
// be 0 at every N (`go test ./models -run '^$' -bench MixtureDA/`).
func BenchmarkMixtureDA(b *testing.B) {
	for _, n := range []int{272, 10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m, err := NewFiniteMixture(mixThreeGroups(n), 4, 1)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			theta := make([]float64, m.Dim())
			d := m.DA(4)
			d.Start(theta, rng, StartPrior)
			for range 20 {
				d.Step(theta, rng)
			}
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				d.Step(theta, rng)
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/float64(n), "ns/value")
		})
	}
}

// ClustersAt gives Clusters's numbers on the responsibilities (to 1e-12:
// it leaves out shares below e^−40, which change no sum, and the
// Clusters floor), on data where every number of clusters has weight
// and at θ where components are far from the data.
func TestMixtureClustersAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{7, 300} {
		m, err := NewFiniteMixture(mixThreeGroups(n), 4, 1)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, m.Dim())
		r := make([]float64, n*m.K)
		want, got := make([]float64, m.K), make([]float64, m.K)
		for range 50 {
			for j := range theta {
				theta[j] = 2 * rng.NormFloat64()
			}
			m.Responsibilities(r, m.NewParams(), theta)
			m.Clusters(want, r)
			m.ClustersAt(got, theta)
			for j := range want {
				if math.Abs(got[j]-want[j]) > 1e-12 {
					t.Fatalf("n = %d, θ = %.3g: ClustersAt %.15g, Clusters %.15g", n, theta, got, want)
				}
			}
		}
	}
}

// BenchmarkMixtureDAMillion is a sweep on 10⁶ values in two clusters 20
// sds apart, K = 4, with the plan's K pair moves, and the draw's
// Rao–Blackwellised P(K+ = k) (ClustersAt) apart.
func BenchmarkMixtureDAMillion(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, 1_000_000)
	for i := range y {
		y[i] = rng.NormFloat64() + 20*float64(i%2)
	}
	m, err := NewFiniteMixture(y, 4, 1)
	if err != nil {
		b.Fatal(err)
	}
	theta := make([]float64, m.Dim())
	d := m.DA(4)
	d.Start(theta, rng, StartPrior)
	for range 20 {
		d.Step(theta, rng)
	}
	out := make([]float64, 4)
	b.Run("sweep", func(b *testing.B) {
		for b.Loop() {
			d.Step(theta, rng)
		}
	})
	b.Run("clusters", func(b *testing.B) {
		for b.Loop() {
			m.ClustersAt(out, theta)
		}
	})
}

// TestMixtureDAFastDraw: move 1's draw through fastExp is the draw that
// math.Exp's weights make from the same uniforms (the first component
// whose cumulative weight exceeds u·total), value for value, at θs from
// the prior and at the kernel's own states; with the margin widened to
// half the total, so that most values go through drawExact, as well.
func TestMixtureDAFastDraw(t *testing.T) {
	defer func(s float64) { allocSlack = s }(allocSlack)
	m, err := NewFiniteMixture(mixThreeGroups(3000), 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	k := m.K
	rng := rand.New(rand.NewPCG(8, 9))
	theta := make([]float64, m.Dim())
	d := m.DA(float64(k))
	for it := range 200 {
		if it%2 == 0 {
			d.Start(theta, rng, StartPrior)
		} else {
			d.Step(theta, rng)
		}
		allocSlack = 10 * expRelErr
		if it%3 == 0 {
			allocSlack = 0.5
		}
		// The state allocate reads: the last sweep's parameters.
		seed := rng.Uint64()
		d.allocate(rand.New(rand.NewPCG(seed, 1)))
		ref := rand.New(rand.NewPCG(seed, 1))
		for i, y := range m.Z {
			var lw [8]float64
			lmax := math.Inf(-1)
			for j := range k {
				e := y - d.mu[j]
				lw[j] = d.logw[j] + 0.5*math.Log(d.tau[j]) - 0.5*d.tau[j]*e*e
				lmax = math.Max(lmax, lw[j])
			}
			var cw [8]float64
			var tot float64
			for j := range k {
				if e := lw[j] - lmax; e >= expFloor {
					tot += math.Exp(e)
				}
				cw[j] = tot
			}
			u := ref.Float64() * tot
			c := k - 1
			for j := range k - 1 {
				if u < cw[j] {
					c = j
					break
				}
			}
			if int(d.z[i]) != c {
				t.Fatalf("sweep %d, value %d (%v): fast draw %d, math.Exp's %d", it, i, y, d.z[i], c)
			}
		}
	}
}
