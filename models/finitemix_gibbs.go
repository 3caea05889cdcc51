package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fresgld/fresgld/diag"
)

// MixGibbs is the data-augmentation Gibbs sampler of Diebolt and Robert
// (1994), the fixed-K moves of Richardson and Green (1997), for a
// FiniteMixture's posterior: it samples the UNORDERED model, whose prior
// is exchangeable, jointly with the allocations z_i ∈ {0, …, K−1} of the
// data to components. A sweep draws, each from its exact full conditional,
//
//	z_i | θ        ~ Categorical(r_i·), r_ik ∝ w_k N(z_i; μ_k, 1/τ_k),
//	w | z          ~ Dirichlet(e0 + n_1, …, e0 + n_K),
//	μ_k | z, τ     ~ N((ξ/R² + τ_k S_k)/P_k, 1/P_k), P_k = 1/R² + τ_k n_k,
//	τ_k | z, μ     ~ Gamma(α + n_k/2, rate β + ½ Σ_(z_i=k) (z_i − μ_k)²),
//
// n_k the number of values allocated to k and S_k their sum (an empty
// component's μ_k and τ_k are drawn from their prior). The ordered
// posterior that FiniteMixture's θ describes is the law of the draws with
// their components sorted by mean, which State writes (ties between means
// have probability 0). A sweep allocates nothing. Not safe for concurrent
// use: give each chain its own.
type MixGibbs struct {
	m   *FiniteMixture
	rng *rand.Rand
	z   []int // allocations, in the unordered labels

	// The unordered state: means, precisions, log weights.
	mu, tau, logw [8]float64
	// Per-sweep scratch: counts, sums, sums of squares, ½ log τ, the
	// categorical's weights, the sorting permutation and its inverse.
	n             [8]int
	s, ss, hl, cw [8]float64
	ord, rank     [8]int
	p             MixParams
	pbuf          [4 * 8]float64
}

// Gibbs returns a data-augmentation Gibbs sampler of m's posterior that
// draws from rng, started at a draw (μ, τ, w) from the prior; its first
// sweep's allocations are drawn given that start.
func (m *FiniteMixture) Gibbs(rng *rand.Rand) *MixGibbs {
	g := &MixGibbs{m: m, rng: rng, z: make([]int, len(m.Z))}
	k := m.K
	g.p = MixParams{Mu: g.pbuf[0:k], Sigma: g.pbuf[8 : 8+k], W: g.pbuf[16 : 16+k], LogW: g.pbuf[24 : 24+k]}
	for j := range k {
		g.mu[j] = m.Xi + m.R*rng.NormFloat64()
		g.tau[j] = math.Exp(logGamma(rng, m.Alpha)) / m.Beta
		g.logw[j] = logGamma(rng, m.E0)
	}
	normaliseLog(g.logw[:k])
	return g
}

// Sweep draws the allocations given (μ, τ, w), then w, μ and τ given them.
func (g *MixGibbs) Sweep() {
	m, rng := g.m, g.rng
	k := m.K
	for j := range k {
		g.hl[j] = g.logw[j] + 0.5*math.Log(g.tau[j])
		g.n[j], g.s[j], g.ss[j] = 0, 0, 0
	}
	// z_i | θ: log r_ik = log w_k + ½ log τ_k − τ_k (z_i − μ_k)²/2 + const.
	for i, y := range m.Z {
		lmax := math.Inf(-1)
		for j := range k {
			d := y - g.mu[j]
			g.cw[j] = g.hl[j] - 0.5*g.tau[j]*d*d
			lmax = math.Max(lmax, g.cw[j])
		}
		var tot float64
		for j := range k {
			tot += math.Exp(g.cw[j] - lmax)
			g.cw[j] = tot
		}
		u, c := rng.Float64()*tot, k-1
		for j := range k - 1 {
			if u < g.cw[j] {
				c = j
				break
			}
		}
		g.z[i] = c
		g.n[c]++
		g.s[c] += y
	}
	// w | z ~ Dirichlet(e0 + n): normalised Gamma(e0 + n_k) draws, in logs
	// so that a small e0's draws cannot underflow.
	for j := range k {
		g.logw[j] = logGamma(rng, m.E0+float64(g.n[j]))
	}
	normaliseLog(g.logw[:k])
	// μ_k | z, τ.
	ir2 := 1 / (m.R * m.R)
	for j := range k {
		prec := ir2 + g.tau[j]*float64(g.n[j])
		g.mu[j] = (m.Xi*ir2+g.tau[j]*g.s[j])/prec + rng.NormFloat64()/math.Sqrt(prec)
	}
	// τ_k | z, μ.
	for i, y := range m.Z {
		d := y - g.mu[g.z[i]]
		g.ss[g.z[i]] += d * d
	}
	for j := range k {
		g.tau[j] = math.Exp(logGamma(rng, m.Alpha+0.5*float64(g.n[j]))) / (m.Beta + 0.5*g.ss[j])
	}
	g.sort()
}

// sort sets ord to the components in increasing order of mean and rank to
// its inverse (insertion sort: K ≤ 8).
func (g *MixGibbs) sort() {
	k := g.m.K
	for j := range k {
		g.ord[j] = j
	}
	for j := 1; j < k; j++ {
		for l := j; l > 0 && g.mu[g.ord[l]] < g.mu[g.ord[l-1]]; l-- {
			g.ord[l], g.ord[l-1] = g.ord[l-1], g.ord[l]
		}
	}
	for j := range k {
		g.rank[g.ord[j]] = j
	}
}

// State writes into theta (length Dim) the current draw, its components
// sorted by mean, as Pack writes it; the weights' logits are taken from
// the log weights, so that a weight that underflows stays finite.
func (g *MixGibbs) State(theta []float64) {
	k := g.m.K
	for j, c := range g.ord[:k] {
		g.p.Mu[j] = g.mu[c]
		g.p.Sigma[j] = 1 / math.Sqrt(g.tau[c])
		g.p.LogW[j] = g.logw[c]
		g.p.W[j] = math.Exp(g.logw[c])
	}
	g.m.Pack(theta, &g.p)
	for j := range k - 1 {
		theta[2*k+j] = g.p.LogW[j] - g.p.LogW[k-1]
	}
}

// Allocation writes into z (length N) the current allocations in the
// labels of State's sorted components: z[i] = j when value i is
// allocated to the component of the j-th smallest mean.
func (g *MixGibbs) Allocation(z []int) {
	for i, c := range g.z {
		z[i] = g.rank[c]
	}
}

// normaliseLog subtracts from the logs lw the log of the sum of their
// exponentials.
func normaliseLog(lw []float64) {
	lmax := math.Inf(-1)
	for _, v := range lw {
		lmax = math.Max(lmax, v)
	}
	var s float64
	for _, v := range lw {
		s += math.Exp(v - lmax)
	}
	ls := lmax + math.Log(s)
	for j := range lw {
		lw[j] -= ls
	}
}

// logGamma returns the log of a Gamma(a, rate 1) draw, a > 0, by
// Marsaglia and Tsang's (2000) squeeze method; for a < 1 it draws
// Gamma(a + 1) and multiplies by U^(1/a) (their section 6), in logs.
func logGamma(rng *rand.Rand, a float64) float64 {
	var boost float64
	if a < 1 {
		boost = math.Log(1-rng.Float64()) / a // U ∈ (0, 1]
		a++
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 {
			return math.Log(d*v) + boost
		}
		if u > 0 && math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return math.Log(d*v) + boost
		}
	}
}

// MixFunc writes into out the quantities of one draw: θ (components
// sorted by mean) and the allocations z in the same sorted labels. It is
// called concurrently from the chains, so it must not share scratch
// between calls without a lock.
type MixFunc func(out, theta []float64, z []int)

// MixReference is the Gibbs sampler's estimate of the posterior means of a
// MixFunc's quantities: per quantity the mean over the pooled kept draws,
// its Monte Carlo standard error (diag.MCSEMean: sd/√ESS, the ESS of the
// split chains, as posterior::mcse_mean), that ESS, and the split
// rank-normalised R̂ across the chains (diag.Rhat). A quantity constant
// over every kept draw has its value as mean, MCSE 0, ESS the number of
// draws and R̂ 1 (diag returns NaN for a constant series).
type MixReference struct {
	Mean, MCSE, ESS, Rhat []float64
	// Chains, Sweeps per chain, and the draws Kept per chain (the last
	// 90% of the sweeps).
	Chains, Sweeps, Kept int
	// Seconds is the wall time of the run (the chains run concurrently).
	Seconds float64
}

// MaxRhat is the largest R̂ Reference accepts.
const MaxRhat = 1.01

// Reference runs chains independent Gibbs chains of sweeps sweeps each,
// chain c drawing from rand.New(rand.NewPCG(seed, c)) and started from
// the prior, drops the first 10% of each chain's sweeps, and averages the
// nf quantities f writes over the rest. It returns the reference with an
// error if a quantity's mean, MCSE or R̂ is NaN or its R̂ exceeds MaxRhat.
func (m *FiniteMixture) Reference(chains, sweeps int, seed uint64, f MixFunc, nf int) (*MixReference, error) {
	if chains < 2 || nf < 1 {
		return nil, fmt.Errorf("mixture reference: %d chains, %d quantities: need 2 chains and 1 quantity", chains, nf)
	}
	burn := sweeps / 10
	kept := sweeps - burn
	if kept < 4 {
		return nil, fmt.Errorf("mixture reference: %d sweeps: need at least 5", sweeps)
	}
	draws := make([][][]float64, nf) // draws[q][c][t]
	for q := range draws {
		draws[q] = make([][]float64, chains)
		for c := range draws[q] {
			draws[q][c] = make([]float64, kept)
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for c := range chains {
		wg.Go(func() {
			g := m.Gibbs(rand.New(rand.NewPCG(seed, uint64(c))))
			theta, z, out := make([]float64, m.Dim()), make([]int, len(m.Z)), make([]float64, nf)
			for t := range sweeps {
				g.Sweep()
				if t < burn {
					continue
				}
				g.State(theta)
				g.Allocation(z)
				f(out, theta, z)
				for q, v := range out {
					draws[q][c][t-burn] = v
				}
			}
		})
	}
	wg.Wait()
	ref := &MixReference{
		Mean: make([]float64, nf), MCSE: make([]float64, nf), ESS: make([]float64, nf), Rhat: make([]float64, nf),
		Chains: chains, Sweeps: sweeps, Kept: kept, Seconds: time.Since(start).Seconds(),
	}
	var errs []error
	for q, ch := range draws {
		if v, ok := constant(ch); ok {
			ref.Mean[q], ref.MCSE[q], ref.ESS[q], ref.Rhat[q] = v, 0, float64(chains*kept), 1
			continue
		}
		var s float64
		for _, xs := range ch {
			for _, x := range xs {
				s += x
			}
		}
		ref.Mean[q] = s / float64(chains*kept)
		ref.MCSE[q], ref.ESS[q], ref.Rhat[q] = diag.MCSEMean(ch), diag.ESSMean(ch), diag.Rhat(ch)
		switch {
		case math.IsNaN(ref.Mean[q]) || math.IsNaN(ref.MCSE[q]) || math.IsNaN(ref.Rhat[q]):
			errs = append(errs, fmt.Errorf("quantity %d: mean %v, MCSE %v, R̂ %v", q, ref.Mean[q], ref.MCSE[q], ref.Rhat[q]))
		case ref.Rhat[q] > MaxRhat:
			errs = append(errs, fmt.Errorf("quantity %d: R̂ %.4f > %v", q, ref.Rhat[q], MaxRhat))
		}
	}
	if len(errs) > 0 {
		return ref, fmt.Errorf("mixture reference: %w", errors.Join(errs...))
	}
	return ref, nil
}

// constant reports whether every draw of every chain is the same number.
func constant(chains [][]float64) (float64, bool) {
	v := chains[0][0]
	for _, xs := range chains {
		for _, x := range xs {
			if x != v {
				return 0, false
			}
		}
	}
	return v, !math.IsNaN(v)
}

// Clusters writes into out[k] (k < K) the probability that allocations
// drawn independently, value i's from Categorical(r[i·K:(i+1)·K]), leave
// exactly k+1 components non-empty: the distribution of the number of
// clusters K+ (Malsiner-Walli, Frühwirth-Schnatter and Grün 2016) given
// the responsibilities r that Responsibilities writes. Under θ's
// posterior the allocations' conditional law is exactly that product, so
// Clusters averaged over posterior draws of θ is the Rao–Blackwellised
// posterior of K+.
//
// By inclusion–exclusion, with P_T = Π_i Σ_(k∈T) r_ik the probability
// that every allocation lies in T, P(the non-empty set is exactly S) =
// Σ_(T⊆S) (−1)^(|S|−|T|) P_T; summed over the S of size j, each T of size
// t appears C(K−t, j−t) times, so P(K+ = j) = Σ_(t≤j) (−1)^(j−t)
// C(K−t, j−t) A_t with A_t = Σ_(|T|=t) P_T. P_T for all 2^K subsets costs
// O(2^K) per value (each subset's row sum is a smaller subset's plus one
// entry), in scratch on the stack (K ≤ 8): no allocation. The sums cancel
// terms of order 1, so a result is exact only to about 1e-15·2^K: one
// below ClustersFloor is written as 0. That moves each by less than
// ClustersFloor and makes a number of clusters that no draw supports a
// constant 0 (MCSE 0) rather than round-off, whose split halves can have
// no variance (an MCSE and R̂ of NaN).
func (m *FiniteMixture) Clusters(out []float64, r []float64) {
	k := m.K
	nsub := 1 << k
	var prod, rs [256]float64
	for t := range nsub {
		prod[t] = 1
	}
	for i := range len(r) / k {
		row := r[i*k : (i+1)*k]
		rs[0] = 0
		for t := 1; t < nsub; t++ {
			low := t & -t
			j := 0
			for 1<<j != low {
				j++
			}
			rs[t] = rs[t&^low] + row[j]
			prod[t] *= rs[t]
		}
	}
	var a [9]float64
	for t := 1; t < nsub; t++ {
		a[popcount(t)] += prod[t]
	}
	for j := 1; j <= k; j++ {
		var p float64
		for t := 1; t <= j; t++ {
			term := binom(k-t, j-t) * a[t]
			if (j-t)%2 == 1 {
				term = -term
			}
			p += term
		}
		if p < ClustersFloor {
			p = 0
		}
		out[j-1] = p
	}
}

// ClustersFloor is the probability below which Clusters writes 0.
const ClustersFloor = 1e-12

func popcount(t int) int {
	c := 0
	for ; t != 0; t &= t - 1 {
		c++
	}
	return c
}

// binom is the binomial coefficient C(n, k) for 0 ≤ k ≤ n ≤ 8, exact.
func binom(n, k int) float64 {
	c := 1.0
	for i := range k {
		c = c * float64(n-i) / float64(i+1)
	}
	return c
}
