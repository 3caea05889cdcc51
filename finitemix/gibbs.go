package finitemix

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fresgld/fresgld/diag"
)

// MixGibbs is an exact Gibbs sampler of a FiniteMixture's posterior. It
// samples the UNORDERED model, whose prior is exchangeable, jointly with
// the allocations z_i ∈ {0, …, K−1} of the data to components, with the
// weights w integrated out (the Dirichlet-multinomial; Neal 2000, whose
// algorithm 8 with the empty components' parameters as its auxiliary
// ones). A sweep is, each move leaving the posterior invariant:
//
//  1. each z_i in turn from p(z_i = k | z_−i, μ, τ) ∝ (n_k^(−i) + e0)·
//     N(y_i; μ_k, 1/τ_k), n_k^(−i) the other values allocated to k (an
//     empty component's μ_k and τ_k are its prior draw);
//  2. K times, a pair of components (j, k) drawn uniformly, whatever the
//     state, and a move of the values C allocated to either: when, in the
//     data's sorted order, C's allocation is a threshold one (all of C in
//     one of the two, or the lower values in one and the upper in the
//     other), a new threshold allocation of C is drawn from its exact
//     conditional among all 2|C| of them, with μ_j and μ_k integrated out
//     given τ (normal–normal, closed form), and μ_j, μ_k are then drawn
//     given it; otherwise nothing moves. This is an exact block move of
//     (z_C, μ_j, μ_k) (the set of threshold allocations depends on C
//     alone, which no threshold allocation changes), and it is what lets
//     a whole group move into an empty component, or two merge, in one
//     step: under a small e0 (sparse finite mixtures) one value at a time
//     cannot, as each first mover pays the factor e0;
//  3. μ_k | z, τ ~ N((ξ/R² + τ_k S_k)/P_k, 1/P_k), P_k = 1/R² + τ_k n_k;
//  4. τ_k | z, μ ~ Gamma(α + n_k/2, rate β + ½ Σ_(z_i=k) (y_i − μ_k)²);
//  5. w | z ~ Dirichlet(e0 + n_1, …, e0 + n_K), drawn for State alone (the
//     moves above do not read it), in logs so that a small e0's draws
//     cannot underflow;
//
// n_k the number of values allocated to k and S_k their sum (an empty
// component's μ_k and τ_k come from their prior). The ordered posterior
// that FiniteMixture's θ describes is the law of the draws with their
// components sorted by mean, which State writes (ties between means have
// probability 0). A sweep allocates nothing. Not safe for concurrent use:
// give each chain its own.
type MixGibbs struct {
	m   *FiniteMixture
	rng *rand.Rand
	z   []int // allocations, in the unordered labels

	// The unordered state: means, precisions, log weights.
	mu, tau, logw [8]float64
	// Counts, sums and sums of squares of the allocations (n is kept up
	// to date through the sweep), ½ log τ, the categorical's weights, the
	// sorting permutation and its inverse.
	n             [8]int
	s, ss, hl, cw [8]float64
	ord, rank     [8]int
	p             MixParams
	pbuf          [4 * 8]float64

	// The data's indices in increasing order of value (ties by index),
	// log Γ(n + e0) and log Γ(α + n/2) for n = 0 … N, and scratch for the threshold move:
	// its members in that order and the log weights of its 2|C| options.
	sorted []int
	lgn    []float64
	lga    []float64
	memb   []int
	lopt   []float64
}

// Gibbs returns an exact Gibbs sampler of m's posterior that draws from
// rng, started at a draw (μ, τ) from the prior with the allocations drawn
// given it (each value to component k with probability ∝ N(y; μ_k,
// 1/τ_k)). GibbsFrom starts it elsewhere.
func (m *FiniteMixture) Gibbs(rng *rand.Rand) *MixGibbs { return m.GibbsFrom(rng, StartPrior) }

// A MixStart is where GibbsFrom starts a chain.
type MixStart int

// The starts of MixReference's chains, over-dispersed in the number of
// clusters: chain c starts at MixStart(c mod 4).
const (
	// StartPrior: (μ, τ) from the prior, the allocations given it.
	StartPrior MixStart = iota
	// StartOne: every value in one component.
	StartOne
	// StartSplit: the values in K groups of equal size in sorted order,
	// every component non-empty.
	StartSplit
	// StartScatter: each value in a component drawn uniformly.
	StartScatter
)

func (s MixStart) String() string {
	return [...]string{"a prior draw", "every value in one component", "K groups in sorted order", "each value in a random component"}[s]
}

// GibbsFrom returns an exact Gibbs sampler of m's posterior that draws
// from rng, started at start: the allocations, then (τ from the prior)
// μ | z, τ and τ | z, μ, and w | z.
func (m *FiniteMixture) GibbsFrom(rng *rand.Rand, start MixStart) *MixGibbs {
	n, k := len(m.Z), m.K
	g := &MixGibbs{m: m, rng: rng, z: make([]int, n), sorted: make([]int, n), lgn: make([]float64, n+1), lga: make([]float64, n+1),
		memb: make([]int, n), lopt: make([]float64, 2*n+2)}
	g.p = MixParams{Mu: g.pbuf[0:k], Sigma: g.pbuf[8 : 8+k], W: g.pbuf[16 : 16+k], LogW: g.pbuf[24 : 24+k]}
	for i := range g.sorted {
		g.sorted[i] = i
	}
	slices.SortStableFunc(g.sorted, func(a, b int) int { return cmp.Compare(m.Z[a], m.Z[b]) })
	for c := range g.lgn {
		g.lgn[c], _ = math.Lgamma(float64(c) + m.E0)
		g.lga[c], _ = math.Lgamma(m.Alpha + 0.5*float64(c))
	}
	for j := range k {
		g.mu[j] = m.Xi + m.R*rng.NormFloat64()
		g.tau[j] = math.Exp(logGamma(rng, m.Alpha)) / m.Beta
	}
	switch start {
	case StartOne:
		// z = 0 everywhere already.
	case StartSplit:
		for r, i := range g.sorted {
			g.z[i] = r * k / n
		}
	case StartScatter:
		for i := range g.z {
			g.z[i] = rng.IntN(k)
		}
	default:
		for i, y := range m.Z {
			g.z[i] = g.draw(y, false)
		}
	}
	for _, c := range g.z {
		g.n[c]++
	}
	g.params()
	return g
}

// draw returns a component drawn with probability ∝ (n_k + e0)·N(y; μ_k,
// 1/τ_k) when counts, ∝ N(y; μ_k, 1/τ_k) otherwise; hl must hold ½ log τ
// when counts, and is set here otherwise.
func (g *MixGibbs) draw(y float64, counts bool) int {
	k := g.m.K
	lmax := math.Inf(-1)
	for j := range k {
		d := y - g.mu[j]
		if counts {
			g.cw[j] = g.hl[j] - 0.5*g.tau[j]*d*d
		} else {
			g.cw[j] = 0.5*math.Log(g.tau[j]) - 0.5*g.tau[j]*d*d
		}
		lmax = math.Max(lmax, g.cw[j])
	}
	var tot float64
	for j := range k {
		w := math.Exp(g.cw[j] - lmax)
		if counts {
			w *= float64(g.n[j]) + g.m.E0
		}
		tot += w
		g.cw[j] = tot
	}
	u := g.rng.Float64() * tot
	for j := range k - 1 {
		if u < g.cw[j] {
			return j
		}
	}
	return k - 1
}

// Sweep runs the moves 1–5 of MixGibbs once.
func (g *MixGibbs) Sweep() {
	m, rng := g.m, g.rng
	k := m.K
	for j := range k {
		g.hl[j] = 0.5 * math.Log(g.tau[j])
	}
	// 1. z_i | z_−i, μ, τ, the weights integrated out.
	for i, y := range m.Z {
		g.n[g.z[i]]--
		c := g.draw(y, true)
		g.z[i] = c
		g.n[c]++
	}
	// 2. Threshold moves of pairs.
	for range k {
		a := rng.IntN(k)
		b := rng.IntN(k - 1)
		if b >= a {
			b++
		}
		g.threshold(a, b)
	}
	g.params()
}

// params draws μ | z, τ, then τ | z, μ, then w | z (moves 3–5), and sorts
// the components by mean.
func (g *MixGibbs) params() {
	m, rng := g.m, g.rng
	k := m.K
	for j := range k {
		g.s[j], g.ss[j] = 0, 0
	}
	for i, y := range m.Z {
		g.s[g.z[i]] += y
	}
	ir2 := 1 / (m.R * m.R)
	for j := range k {
		prec := ir2 + g.tau[j]*float64(g.n[j])
		g.mu[j] = (m.Xi*ir2+g.tau[j]*g.s[j])/prec + rng.NormFloat64()/math.Sqrt(prec)
	}
	for i, y := range m.Z {
		d := y - g.mu[g.z[i]]
		g.ss[g.z[i]] += d * d
	}
	for j := range k {
		g.tau[j] = math.Exp(logGamma(rng, m.Alpha+0.5*float64(g.n[j]))) / (m.Beta + 0.5*g.ss[j])
	}
	for j := range k {
		g.logw[j] = logGamma(rng, m.E0+float64(g.n[j]))
	}
	normaliseLog(g.logw[:k])
	g.sort()
}

// logMarg is log ∫ Π N(y; μ, 1/τ) N(μ; ξ, R²) dμ for n values of sum s
// and sum of squares q: (n/2) log(τ/2π) − τq/2 − ½ log(R²P) − ξ²/(2R²) +
// (ξ/R² + τs)²/(2P), P = 1/R² + nτ; 0 for n = 0.
func (g *MixGibbs) logMarg(n int, s, q, tau float64) float64 {
	m := g.m
	ir2 := 1 / (m.R * m.R)
	p := ir2 + float64(n)*tau
	b := m.Xi*ir2 + tau*s
	return 0.5*float64(n)*math.Log(tau/(2*math.Pi)) - 0.5*tau*q - 0.5*math.Log(p/ir2) - 0.5*m.Xi*m.Xi*ir2 + 0.5*b*b/p
}

// tauProposal is the Gamma(A, rate B) law from which the threshold move
// proposes the precision of a component holding n values of sum s and sum
// of squares q: A = α + n/2, B = β + SS/2 with SS = q − s²/n their sum of
// squares about their mean (the prior for n = 0). It is τ's conditional
// given μ = ȳ, close to τ's posterior given the values alone.
func (g *MixGibbs) tauProposal(n int, s, q float64) (a, b float64) {
	a, b = g.m.Alpha+0.5*float64(n), g.m.Beta
	if n > 0 {
		b += 0.5 * max(0, q-s*s/float64(n))
	}
	return a, b
}

// logGammaDensity is the log density of Gamma(a, rate b) at x, lg =
// log Γ(a).
func logGammaDensity(x, a, b, lg float64) float64 {
	return a*math.Log(b) - lg + (a-1)*math.Log(x) - b*x
}

// ell is log p(values, τ) − log g(τ), p the component's marginal over μ
// times τ's prior and g its proposal (tauProposal): by Chib's identity
// its value at any τ estimates the component's log marginal likelihood,
// exactly where g is τ's posterior. 0 for an empty component.
func (g *MixGibbs) ell(n int, s, q, tau float64) float64 {
	if n == 0 {
		return 0
	}
	a, b := g.tauProposal(n, s, q)
	return g.logMarg(n, s, q, tau) + logGammaDensity(tau, g.m.Alpha, g.m.Beta, g.lga[0]) - logGammaDensity(tau, a, b, g.lga[n])
}

// threshold is move 2 for the pair (a, b): a Metropolis–Hastings
// independence proposal of (z_C, τ_a, τ_b), μ_a and μ_b integrated out,
// then μ_a, μ_b drawn given the result. It runs only when C's allocation
// is a threshold one; the proposal draws a threshold allocation z' of C
// with probability ∝ DM(z') Π_c exp(ell(C'_c, τ̂_c)), DM the Dirichlet-
// multinomial's factors of a and b and τ̂_c the mean of C'_c's
// tauProposal, then τ'_c from tauProposal. Its acceptance ratio is ρ(x')
// / ρ(x), log ρ(z, τ) = Σ_c ell(C_c, τ_c) − ell(C_c, τ̂_c) (DM cancels),
// with the sum over the two components; the set of threshold allocations
// depends on C alone, and every member of it is proposed, so the move is
// reversible with respect to the posterior.
func (g *MixGibbs) threshold(a, b int) {
	m := g.m
	// C in sorted order; the allocation's changes of label along it.
	nc, changes := 0, 0
	for _, i := range g.sorted {
		c := g.z[i]
		if c != a && c != b {
			continue
		}
		if nc > 0 && c != g.z[g.memb[nc-1]] {
			changes++
		}
		g.memb[nc] = i
		nc++
	}
	if nc == 0 || changes > 1 {
		return
	}
	memb := g.memb[:nc]
	var tot, tq float64
	var sa, qa float64
	na := 0
	for _, i := range memb {
		y := m.Z[i]
		tot += y
		tq += y * y
		if g.z[i] == a {
			sa, qa, na = sa+y, qa+y*y, na+1
		}
	}
	// ell at the proposal's mean precision.
	ellHat := func(n int, s, q float64) float64 {
		if n == 0 {
			return 0
		}
		al, be := g.tauProposal(n, s, q)
		return g.ell(n, s, q, al/be)
	}
	// The current state's log ρ.
	nb, sb, qb := nc-na, tot-sa, tq-qa
	rho := g.ell(na, sa, qa, g.tau[a]) - ellHat(na, sa, qa) + g.ell(nb, sb, qb, g.tau[b]) - ellHat(nb, sb, qb)
	// Options (log weights in lopt): o = c, the lower c values to a and
	// the rest to b (c = 0 … nc); o = nc + c, the lower c to b and the
	// rest to a (c = 1 … nc−1): 2·nc allocations in all, each once.
	lmax := math.Inf(-1)
	var ps, pq float64
	for c := 0; c <= nc; c++ {
		if c > 0 {
			y := m.Z[memb[c-1]]
			ps += y
			pq += y * y
		}
		// The Dirichlet-multinomial's terms of a and b, and the two
		// parts' estimated marginals (the same whichever gets which: the
		// proposal law does not depend on the label).
		w := g.lgn[c] + g.lgn[nc-c] + ellHat(c, ps, pq) + ellHat(nc-c, tot-ps, tq-pq)
		g.lopt[c] = w
		lmax = math.Max(lmax, w)
		if c > 0 && c < nc {
			g.lopt[nc+c] = w
		}
	}
	var sum float64
	for o := range 2 * nc {
		sum += math.Exp(g.lopt[o] - lmax)
	}
	u := g.rng.Float64() * sum
	opt := 2*nc - 1
	for o := range 2 * nc {
		u -= math.Exp(g.lopt[o] - lmax)
		if u < 0 {
			opt = o
			break
		}
	}
	lowTo, cut := a, opt
	if opt > nc {
		lowTo, cut = b, opt-nc
	}
	// The proposal's parts and precisions.
	var s1, q1 float64
	for _, i := range memb[:cut] {
		s1, q1 = s1+m.Z[i], q1+m.Z[i]*m.Z[i]
	}
	n2, s2, q2 := nc-cut, tot-s1, tq-q1
	if lowTo == b {
		// a takes the upper part.
		cut, s1, q1, n2, s2, q2 = n2, s2, q2, cut, s1, q1
	}
	// Now (cut, s1, q1) is a's proposed part and (n2, s2, q2) b's.
	al, be := g.tauProposal(cut, s1, q1)
	ta := math.Exp(logGamma(g.rng, al)) / be
	al, be = g.tauProposal(n2, s2, q2)
	tb := math.Exp(logGamma(g.rng, al)) / be
	rhoNew := g.ell(cut, s1, q1, ta) - ellHat(cut, s1, q1) + g.ell(n2, s2, q2, tb) - ellHat(n2, s2, q2)
	if math.Log(1-g.rng.Float64()) < rhoNew-rho {
		g.tau[a], g.tau[b] = ta, tb
		g.hl[a], g.hl[b] = 0.5*math.Log(ta), 0.5*math.Log(tb)
		lowCut := opt
		if opt > nc {
			lowCut = opt - nc
		}
		highTo := b
		if lowTo == b {
			highTo = a
		}
		g.n[a], g.n[b] = 0, 0
		for r, i := range memb {
			c := highTo
			if r < lowCut {
				c = lowTo
			}
			g.z[i] = c
			g.n[c]++
		}
	}
	// μ_a, μ_b | z, τ.
	ir2 := 1 / (m.R * m.R)
	sa, sb = 0, 0
	for _, i := range memb {
		if g.z[i] == a {
			sa += m.Z[i]
		} else {
			sb += m.Z[i]
		}
	}
	for _, x := range [2]struct {
		j int
		s float64
	}{{a, sa}, {b, sb}} {
		prec := ir2 + g.tau[x.j]*float64(g.n[x.j])
		g.mu[x.j] = (m.Xi*ir2+g.tau[x.j]*x.s)/prec + g.rng.NormFloat64()/math.Sqrt(prec)
	}
}

// sort sets ord to the components in increasing order of mean and rank to
// its inverse (insertion sort: K ≤ 8).
func (g *MixGibbs) sort() {
	k := g.m.K
	sortByMean(&g.ord, &g.mu, k)
	for j := range k {
		g.rank[g.ord[j]] = j
	}
}

// State writes into theta (length Dim) the current draw, its components
// sorted by mean, as Pack writes it; the weights' logits are taken from
// the log weights, so that a weight that underflows stays finite.
func (g *MixGibbs) State(theta []float64) {
	g.m.packSorted(theta, &g.p, &g.ord, &g.mu, &g.tau, &g.logw)
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
	// Checks are the convergence checks of the label-invariant summaries:
	// the number of non-empty components of the allocation, the sorted
	// means, and the MixFunc's quantities (named "quantity q", from 1,
	// unless the caller renames them), each with its R̂ and bulk ESS.
	Checks []MixCheck
	// Converged is false when a check's R̂ exceeds MaxRhat or its bulk ESS
	// is below MinESS: then the reference is no exact answer, and
	// Problem says why, with the numbers.
	Converged bool
	Problem   string
}

// A MixCheck is one label-invariant summary's convergence across the
// reference's chains (not computed for a summary constant over every
// draw).
type MixCheck struct {
	Name      string
	Rhat, ESS float64
}

// MaxRhat is the largest R̂, and MinESS the smallest bulk ESS, of a
// converged reference.
const (
	MaxRhat = 1.01
	MinESS  = 400
)

// Reference runs chains ≥ 4 independent Gibbs chains of sweeps sweeps
// each, chain c drawing from rand.New(rand.NewPCG(seed, c)) and started
// at MixStart(c mod 4) (over-dispersed: from every value in one
// component to every component used), drops the first 10% of each
// chain's sweeps, and averages the nf quantities f writes over the rest.
// It returns an error if a quantity's mean, MCSE or R̂ is NaN. A
// reference that did not converge (MixReference.Converged) is returned
// without an error: its caller must say so.
func (m *FiniteMixture) Reference(chains, sweeps int, seed uint64, f MixFunc, nf int) (*MixReference, error) {
	if chains < 4 || nf < 1 {
		return nil, fmt.Errorf("mixture reference: %d chains, %d quantities: need 4 chains (started over-dispersed) and 1 quantity", chains, nf)
	}
	burn := sweeps / 10
	kept := sweeps - burn
	if kept < 4 {
		return nil, fmt.Errorf("mixture reference: %d sweeps: need at least 5", sweeps)
	}
	k := m.K
	nq := nf + 1 + k                 // f's quantities, K+, the sorted means
	draws := make([][][]float64, nq) // draws[q][c][t]
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
			g := m.GibbsFrom(rand.New(rand.NewPCG(seed, uint64(c))), MixStart(c%4))
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
				var used int
				for j := range k {
					if g.n[j] > 0 {
						used++
					}
					draws[nf+1+j][c][t-burn] = m.Mean + m.SD*g.mu[g.ord[j]]
				}
				draws[nf][c][t-burn] = float64(used)
			}
		})
	}
	wg.Wait()
	ref := &MixReference{
		Mean: make([]float64, nf), MCSE: make([]float64, nf), ESS: make([]float64, nf), Rhat: make([]float64, nf),
		Chains: chains, Sweeps: sweeps, Kept: kept, Seconds: time.Since(start).Seconds(), Converged: true,
	}
	var errs []error
	for q, ch := range draws[:nf] {
		if v, ok := constant(ch); ok {
			ref.Mean[q], ref.MCSE[q], ref.ESS[q], ref.Rhat[q] = v, 0, float64(chains*kept), 1
			continue
		}
		ref.Mean[q] = diag.PooledMean(ch)
		ref.MCSE[q], ref.ESS[q], ref.Rhat[q] = diag.MCSEMean(ch), diag.ESSMean(ch), rhat(ch)
		if math.IsNaN(ref.Mean[q]) {
			errs = append(errs, fmt.Errorf("quantity %d: mean %v, MCSE %v, R̂ %v", q, ref.Mean[q], ref.MCSE[q], ref.Rhat[q]))
		}
	}
	if len(errs) > 0 {
		return ref, fmt.Errorf("mixture reference: %w", errors.Join(errs...))
	}
	for q, ch := range draws {
		if _, ok := constant(ch); ok {
			continue
		}
		var name string
		switch {
		case q < nf:
			name = fmt.Sprintf("quantity %d", q+1)
		case q == nf:
			name = "K+ of the allocation"
		default:
			name = fmt.Sprintf("sorted mean %d", q-nf)
		}
		ess := diag.ESSBulk(ch)
		if math.IsNaN(ess) {
			ess = 0
		}
		ref.Checks = append(ref.Checks, MixCheck{Name: name, Rhat: rhat(ch), ESS: ess})
	}
	ref.judge()
	return ref, nil
}

// judge sets Converged and Problem from the checks.
func (ref *MixReference) judge() {
	ref.Converged, ref.Problem = true, ""
	var worst, least *MixCheck
	for i := range ref.Checks {
		c := &ref.Checks[i]
		if worst == nil || !(c.Rhat <= worst.Rhat) {
			worst = c
		}
		if least == nil || !(c.ESS >= least.ESS) {
			least = c
		}
	}
	if worst == nil {
		return
	}
	var why []string
	if !(worst.Rhat <= MaxRhat) {
		why = append(why, fmt.Sprintf("R̂ %.3g > %v (%s)", worst.Rhat, MaxRhat, worst.Name))
	}
	if !(least.ESS >= MinESS) {
		why = append(why, fmt.Sprintf("bulk ESS %.0f < %d (%s)", least.ESS, MinESS, least.Name))
	}
	if len(why) > 0 {
		ref.Converged = false
		ref.Problem = fmt.Sprintf("the reference's %d chains (started over-dispersed) did not converge: %s", ref.Chains, strings.Join(why, ", "))
	}
}

// Name renames the MixFunc's quantities in the checks and Problem:
// names[q] is quantity q's (from 0).
func (ref *MixReference) Name(names []string) {
	for i := range ref.Checks {
		var q int
		if _, err := fmt.Sscanf(ref.Checks[i].Name, "quantity %d", &q); err == nil && q >= 1 && q <= len(names) {
			ref.Checks[i].Name = names[q-1]
		}
	}
	ref.judge()
}

// Worst is the largest R̂ and the smallest bulk ESS of the checks (1 and
// the draws when every summary is constant).
func (ref *MixReference) Worst() (rhat, ess float64) {
	rhat, ess = 1, float64(ref.Chains*ref.Kept)
	for _, c := range ref.Checks {
		rhat, ess = max(rhat, c.Rhat), min(ess, c.ESS)
	}
	return rhat, ess
}

// rhat is diag.Rhat, or +Inf where that is NaN and the draws are finite:
// chains each stuck at a value of its own (no variance within a split
// chain), which disagree by more than any R̂ can say.
func rhat(ch [][]float64) float64 {
	r := diag.Rhat(ch)
	if !math.IsNaN(r) {
		return r
	}
	for _, xs := range ch {
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return r
			}
		}
	}
	return math.Inf(1)
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
	clustersFromProducts(out, prod[:nsub], k)
}

// clustersFromProducts writes P(K+ = j), j = 1 … k, into out from the
// products P_T of every subset T (prod[0] unused), by the
// inclusion–exclusion of Clusters.
func clustersFromProducts(out, prod []float64, k int) {
	var a [9]float64
	for t := 1; t < len(prod); t++ {
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
