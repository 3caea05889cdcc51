package finitemix

import (
	"math"
	"math/rand/v2"
	"slices"
)

// MixDA is the default kernel of fresgld mixture: data-augmentation Gibbs
// (Diebolt and Robert 1994) on a FiniteMixture's θ, uncollapsed, with
// sequentially allocated split–merge moves of pairs of components. It is
// an exchange.Kernel: Step takes θ (components sorted by mean), sweeps,
// and writes the new θ; the allocations are drawn afresh from θ each
// sweep, so θ alone is the chain's state (a checkpoint holds all of it).
// A sweep, each move leaving the posterior invariant:
//
//  1. every z_i | w, μ, τ at once: p(z_i = k) ∝ w_k N(y_i; μ_k, 1/τ_k),
//     the values independent given the parameters;
//  2. Moves pair moves on the law of (z, τ) with w and μ integrated out
//     (the Dirichlet-multinomial and the normal–normal marginal): a pair
//     of labels (a, b) drawn uniformly; the values C allocated to either,
//     in a random order, are reallocated one at a time to a or b with
//     probability ∝ (n + e0)·the part's predictive density so far (Dahl
//     2003's sequential allocation, here with no anchors: it proposes
//     merges, splits and reshuffles alike), and τ_a, τ_b are proposed
//     from Gamma(α + n/2, β + SS/2) of their new parts; accepted by
//     Metropolis–Hastings with the proposal's probability of the current
//     allocation read by replaying the same order (an independence
//     proposal given the order, which is drawn independently of the
//     state);
//  3. μ_k | z, τ ~ N((ξ/R² + τ_k S_k)/P_k, 1/P_k), P_k = 1/R² + τ_k n_k;
//  4. w | z ~ Dirichlet(e0 + n_1, …, e0 + n_K), in logs (a small e0's
//     draws cannot underflow);
//  5. τ_k | z, μ ~ Gamma(α + n_k/2, rate β + ½ Σ_(z_i=k) (y_i − μ_k)²).
//
// Moves 3 and 4 after 2 restore the joint law that 2 marginalised. The
// kernel shares no code with MixGibbs, the reference (collapsed in w, z_i
// one at a time given the others, threshold moves), so the two are
// independent checks of each other.
//
// Work: move 1 is K exponentials a value; a pair move reads every value
// once to find C and spends some four logarithms on each member, about
// 2N/K members: O(NK) a sweep in all, nothing faster-growing in N. A step
// allocates nothing. Not safe for concurrent use: give each chain its own.
type MixDA struct {
	m *FiniteMixture
	// Moves is the expected number of pair moves a sweep (its integer
	// part every sweep, one more with probability its fraction).
	Moves float64

	z                  []uint8 // allocations (K ≤ 8), labels = θ's sorted components at the sweep's start
	mu, tau, logw      [8]float64
	n                  [8]int
	s, q, c            [8]float64 // sums and sums of squares of the allocated values; the categorical's constants
	memb               []int32    // a pair move's members
	vals               []float64  // their values and current labels, in the walk's storage order
	cur                []uint8
	blocks             []int32 // the walk's order of blocks (large moves)
	prop               []uint8 // the proposed labels
	p                  MixParams
	pbuf               [4 * 8]float64
	ord                [8]int
	attempts, accepted int
	lgAlpha, ir2       float64
}

// DA returns the data-augmentation Gibbs kernel of m with moves pair moves
// a sweep (expected; see MixDA.Moves).
func (m *FiniteMixture) DA(moves float64) *MixDA {
	n, k := len(m.Z), m.K
	d := &MixDA{m: m, Moves: moves, z: make([]uint8, n), memb: make([]int32, n), prop: make([]uint8, n),
		vals: make([]float64, n), cur: make([]uint8, n), blocks: make([]int32, n+1)}
	d.p = MixParams{Mu: d.pbuf[0:k], Sigma: d.pbuf[8 : 8+k], W: d.pbuf[16 : 16+k], LogW: d.pbuf[24 : 24+k]}
	d.lgAlpha, _ = math.Lgamma(m.Alpha)
	d.ir2 = 1 / (m.R * m.R)
	return d
}

// MoveStats are the pair moves attempted (on pairs holding at least one
// value) and accepted.
func (d *MixDA) MoveStats() (attempts, accepted int) { return d.attempts, d.accepted }

// Step is one sweep (moves 1–5) from theta, written back into theta. It
// reports moved true (a Gibbs sweep always moves) and its work in
// per-value term evaluations: N for move 1, plus the members the pair
// moves read.
func (d *MixDA) Step(theta []float64, rng *rand.Rand) (bool, float64) {
	m := d.m
	k := m.K
	m.Unpack(&d.p, theta)
	for j := range k {
		d.mu[j] = d.p.Mu[j]
		d.tau[j] = 1 / (d.p.Sigma[j] * d.p.Sigma[j])
		d.logw[j] = d.p.LogW[j]
	}
	d.allocate(rng)
	work := float64(len(m.Z))
	moves := int(d.Moves)
	if rng.Float64() < d.Moves-float64(moves) {
		moves++
	}
	for range moves {
		a := rng.IntN(k)
		b := rng.IntN(k - 1)
		if b >= a {
			b++
		}
		work += d.pairMove(a, b, rng)
	}
	d.params(rng)
	d.write(theta)
	return true, work
}

// allocSlack is the margin, relative to the total weight, within which
// allocate's fast draw defers to drawExact: fastExp's relative error
// (expRelErr) can move the cumulative weights and u·total by at most
// 2·expRelErr of the total, and math.Exp's sums a few ulps more (a
// variable, so that a test can widen it and run drawExact often).
var allocSlack = 10 * expRelErr

// allocate is move 1, accumulating n, s and q. Each value's component is
// the first whose cumulative weight exceeds u·total, u uniform, the
// weights e^(lw_j − lmax) (a share below e^expFloor left out: it changes
// no sum, ClustersAt). They are computed by fastExp; where u·total falls
// within allocSlack·total of the chosen component's bounds, drawExact
// decides with math.Exp and the same u. Elsewhere the two agree, so the
// draw is exactly the one math.Exp's weights make (TestMixtureDAFastDraw),
// at about one value in 10¹¹ costing the exact one.
func (d *MixDA) allocate(rng *rand.Rand) {
	m := d.m
	k := m.K
	var mu, h, c [8]float64
	for j := range k {
		d.c[j] = d.logw[j] + 0.5*math.Log(d.tau[j])
		d.n[j], d.s[j], d.q[j] = 0, 0, 0
		mu[j], h[j], c[j] = d.mu[j], 0.5*d.tau[j], d.c[j]
	}
	var lw, cw [8]float64
	for i, y := range m.Z {
		lmax := math.Inf(-1)
		for j := range k {
			e := y - mu[j]
			lw[j] = c[j] - h[j]*e*e
			lmax = max(lmax, lw[j])
		}
		var tot float64
		for j := range k {
			if e := lw[j] - lmax; e >= expFloor {
				tot += fastExp(e)
			}
			cw[j] = tot
		}
		u := rng.Float64()
		ut := u * tot
		cc := k - 1
		for j := range k - 1 {
			if ut < cw[j] {
				cc = j
				break
			}
		}
		slack := allocSlack * tot
		if (cc > 0 && ut-cw[cc-1] <= slack) || (cc < k-1 && cw[cc]-ut <= slack) {
			cc = drawExact(&lw, k, lmax, u)
		}
		d.z[i] = uint8(cc)
		d.n[cc]++
		d.s[cc] += y
		d.q[cc] += y * y
	}
}

// drawExact is the component of the log weights lw[:k] (their largest
// lmax) at the uniform u: the first whose cumulative weight, by
// math.Exp, exceeds u·total.
func drawExact(lw *[8]float64, k int, lmax, u float64) int {
	var cw [8]float64
	var tot float64
	for j := range k {
		if e := lw[j] - lmax; e >= expFloor {
			tot += math.Exp(e)
		}
		cw[j] = tot
	}
	ut := u * tot
	for j := range k - 1 {
		if ut < cw[j] {
			return j
		}
	}
	return k - 1
}

// part is a growing set of values: count, sum, sum of squares, and its
// sequential-allocation weight's constants (setPred): the predictive's
// mean, 1/(2v) and log((n + e0)/√v), v its variance.
type part struct {
	n, next     int // next: the count at which the predictive is next updated
	s, q        float64
	mean, h, lc float64 // lc: log((n + e0)/√v)
}

// tauLaw is the Gamma(α + n/2, rate β + SS/2) law of a part's precision
// that the pair move proposes from, SS the part's sum of squares about
// its mean (the prior for an empty part).
func (d *MixDA) tauLaw(p part) (a, b float64) {
	m := d.m
	a, b = m.Alpha+0.5*float64(p.n), m.Beta
	if p.n > 0 {
		b += 0.5 * max(0, p.q-p.s*p.s/float64(p.n))
	}
	return a, b
}

// setPred sets p's predictive for the sequential allocation: normal, μ's
// conditional given p at the precision τ̂ = the mean of p's tauLaw, plus
// 1/τ̂; a value's weight is (n + e0)·N(y; mean, v). Any proposal keeps
// the move exact; this one is close to the part's true predictive, so
// proposals are accepted often. Kept as constants, so that a member
// costs one exponential a part, not logarithms.
func (d *MixDA) setPred(p *part) {
	a, b := d.tauLaw(*p)
	th := a / b
	prec := d.ir2 + float64(p.n)*th
	p.mean = (d.m.Xi*d.ir2 + th*p.s) / prec
	v := 1/th + 1/prec
	p.h = 0.5 / v
	p.lc = math.Log(float64(p.n)+d.m.E0) - 0.5*math.Log(v)
}

// shuffleMax is the most members a pair move walks in a uniformly random
// order (their values, 0.5 MB, stay in cache); above it the walk takes
// blocks of shuffleBlock members in a random order. Variables, so that
// the exactness test can walk blocks on a few values.
var shuffleMax, shuffleBlock = 1 << 16, 4096

// predFresh, predEvery and predGrow set when add updates a part's
// predictive: at every value while it holds fewer than predFresh, and
// at counts predEvery, 2·predEvery, … spaced by predEvery or by
// 1/predGrow of the count, whichever is more (variables, so that the
// exactness test can run the sparse schedule on a few values). The
// schedule reads the part's count alone, and the forward walk and the
// replay follow it alike, so the proposal stays one law, read the same
// way both ways, and the move stays exact; a predictive from n values
// moves by about 1/n of itself a value, so little in n/16 more, and its
// update (divisions, logarithms) was most of a member's cost: now some
// 16·ln(n/256) updates a part above 256 values, not n/16.
var predFresh, predEvery, predGrow = 32, 16, 16

// add puts y into p and updates its predictive on predFresh, predEvery
// and predGrow's schedule.
func (d *MixDA) add(p *part, y float64) {
	p.n, p.s, p.q = p.n+1, p.s+y, p.q+y*y
	if p.n == p.next {
		p.next += max(predEvery, p.n/predGrow)
		d.setPred(p)
	} else if p.n < predFresh {
		d.setPred(p)
	}
}

// shareCut is the log ratio of the two parts' weights beyond which
// shares gives the heavier part probability 1 and the other 0 (a
// variable, so that the exactness test can cut at a ratio its few
// values reach).
var shareCut = 40.0

// shares are the sequential allocation's probabilities that y joins a
// and b, each computed from the weights' ratio, so that neither is read
// as 1 − the other (which rounds a small one to 0). The exponential is
// fastExp's, and beyond a log ratio of ±shareCut (e^−40 ≈ 4e−18, below
// an ulp of 1) the lighter part's probability is 0: the proposal is
// whatever law these numbers define, the forward walk draws from it and
// the replay reads it alike, so the move stays exact. A current
// allocation the proposal cannot make (a value on its side of
// probability 0) is a reverse probability of 0: the move is rejected.
func shares(y float64, a, b *part) (pa, pb float64) {
	ea, eb := y-a.mean, y-b.mean
	// r = w_b/w_a = exp(x), x = lc_b − lc_a + h_a e_a² − h_b e_b².
	x := b.lc - a.lc + a.h*ea*ea - b.h*eb*eb
	if x < -shareCut {
		return 1, 0
	}
	if x > shareCut {
		return 0, 1
	}
	r := fastExp(x)
	inv := 1 / (1 + r)
	return inv, r * inv
}

// logProb accumulates a product of probabilities as a mantissa and a
// binary exponent, so that hundreds of factors neither underflow nor
// cost a logarithm each.
type logProb struct {
	f float64
	e int
}

func (l *logProb) mul(p float64) {
	// f stays in [2^−500, 1] and p is brought there first, so that the
	// product never leaves the normal range; Frexp only when f is small.
	if p < 0x1p-500 {
		fp, ep := math.Frexp(p)
		p, l.e = fp, l.e+ep
	}
	l.f *= p
	if l.f < 0x1p-500 {
		var e int
		l.f, e = math.Frexp(l.f)
		l.e += e
	}
}

func (l logProb) log() float64 { return math.Log(l.f) + float64(l.e)*math.Ln2 }

// logTarget is log p(z_C, τ) of one part, up to what the move leaves
// unchanged: the Dirichlet-multinomial's log Γ(n + e0), the part's
// marginal over μ given τ, and τ's Gamma(α, β) prior.
func (d *MixDA) logTarget(p part, tau float64) float64 {
	m := d.m
	lg, _ := math.Lgamma(float64(p.n) + m.E0)
	prec := d.ir2 + float64(p.n)*tau
	bb := m.Xi*d.ir2 + tau*p.s
	marg := 0.5*float64(p.n)*math.Log(tau/(2*math.Pi)) - 0.5*tau*p.q - 0.5*math.Log(prec/d.ir2) - 0.5*m.Xi*m.Xi*d.ir2 + 0.5*bb*bb/prec
	prior := m.Alpha*math.Log(m.Beta) - d.lgAlpha + (m.Alpha-1)*math.Log(tau) - m.Beta*tau
	return lg + marg + prior
}

// logTauProp is the log density of tau under p's tauLaw.
func (d *MixDA) logTauProp(p part, tau float64) float64 {
	a, b := d.tauLaw(p)
	lg, _ := math.Lgamma(a)
	return a*math.Log(b) - lg + (a-1)*math.Log(tau) - b*tau
}

// pairMove is move 2 on labels a and b; it returns the members read
// (plus the N of the scan).
func (d *MixDA) pairMove(a, b int, rng *rand.Rand) float64 {
	m := d.m
	nc := 0
	// Without a branch (half the values are members, in no order a
	// predictor learns): every index is written, and kept by counting it.
	var in [8]int
	in[a], in[b] = 1, 1
	memb := d.memb
	for i, c := range d.z {
		memb[nc] = int32(i)
		nc += in[c&7]
	}
	if nc == 0 {
		return float64(len(d.z))
	}
	d.attempts++
	memb, vals, cur := d.memb[:nc], d.vals[:nc], d.cur[:nc]
	for r, i := range memb {
		vals[r], cur[r] = m.Z[i], d.z[i]
	}
	// The walk's order: up to shuffleMax members, uniformly random
	// (Fisher–Yates on the members, their values and labels together);
	// above, blocks of shuffleBlock members in a random order, each in
	// the data's order, so that the walk reads memory in runs (at 10⁶
	// values a member's random read cost more than its arithmetic). Any
	// order drawn independently of the allocation within C keeps the move
	// exact; the set C, and so the blocks, is the same both ways.
	nb := 1
	if nc <= shuffleMax {
		for i := nc - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			memb[i], memb[j] = memb[j], memb[i]
			vals[i], vals[j] = vals[j], vals[i]
			cur[i], cur[j] = cur[j], cur[i]
		}
		d.blocks[0] = 0
	} else {
		nb = (nc + shuffleBlock - 1) / shuffleBlock
		for k := range nb {
			d.blocks[k] = int32(k)
		}
		for i := nb - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			d.blocks[i], d.blocks[j] = d.blocks[j], d.blocks[i]
		}
	}
	size := nc
	if nc > shuffleMax {
		size = shuffleBlock
	}
	var pa_, pb_, oa, ob part // the proposal's parts and the current allocation's, as the walk grows them
	for _, p := range []*part{&pa_, &pb_, &oa, &ob} {
		p.next = predEvery
		d.setPred(p)
	}
	qNew, qOld := logProb{f: 1}, logProb{f: 1}
	for _, blk := range d.blocks[:nb] {
		lo := int(blk) * size
		for r := lo; r < min(lo+size, nc); r++ {
			y := vals[r]
			// The proposal: a or b with probability ∝ (n + e0)·predictive.
			// (Beyond shareCut, the side of probability 1 takes no
			// uniform and no factor.)
			pa, pb := shares(y, &pa_, &pb_)
			switch {
			case pb == 0:
				d.prop[r] = uint8(a)
				d.add(&pa_, y)
			case pa == 0:
				d.prop[r] = uint8(b)
				d.add(&pb_, y)
			case rng.Float64() < pa:
				d.prop[r] = uint8(a)
				d.add(&pa_, y)
				qNew.mul(pa)
			default:
				d.prop[r] = uint8(b)
				d.add(&pb_, y)
				qNew.mul(pb)
			}
			// The same step's probability of the current allocation.
			pa, pb = shares(y, &oa, &ob)
			if int(cur[r]) == a {
				d.add(&oa, y)
				qOld.mul(pa)
			} else {
				d.add(&ob, y)
				qOld.mul(pb)
			}
			if qOld.f == 0 {
				// The proposal cannot make the current allocation: the
				// move is rejected, whatever the rest of the walk draws.
				return float64(len(d.z) + r + 1)
			}
		}
	}
	na, nb2 := pa_, pb_
	lqNew, lqOld := qNew.log(), qOld.log()
	// New precisions from their parts' laws.
	al, be := d.tauLaw(na)
	ta := math.Exp(logGamma(rng, al)) / be
	al, be = d.tauLaw(nb2)
	tb := math.Exp(logGamma(rng, al)) / be
	logNew := d.logTarget(na, ta) + d.logTarget(nb2, tb) - lqNew - d.logTauProp(na, ta) - d.logTauProp(nb2, tb)
	logOld := d.logTarget(oa, d.tau[a]) + d.logTarget(ob, d.tau[b]) - lqOld - d.logTauProp(oa, d.tau[a]) - d.logTauProp(ob, d.tau[b])
	if math.Log(1-rng.Float64()) < logNew-logOld {
		d.accepted++
		for r, i := range memb {
			d.z[i] = d.prop[r]
		}
		d.tau[a], d.tau[b] = ta, tb
		d.n[a], d.s[a], d.q[a] = na.n, na.s, na.q
		d.n[b], d.s[b], d.q[b] = nb2.n, nb2.s, nb2.q
	}
	return float64(len(d.z) + nc)
}

// logOf is log p for p = 1/(1 + e^(lo − l)), the share of weight e^l
// against e^lo: log p directly where p underflows.
func logOf(p, l, lo float64) float64 {
	if p > 1e-300 {
		return math.Log(p)
	}
	return l - lo
}

// params are moves 3–5 from n, s and q.
func (d *MixDA) params(rng *rand.Rand) {
	m := d.m
	k := m.K
	for j := range k {
		nj := float64(d.n[j])
		prec := d.ir2 + d.tau[j]*nj
		d.mu[j] = (m.Xi*d.ir2+d.tau[j]*d.s[j])/prec + rng.NormFloat64()/math.Sqrt(prec)
	}
	for j := range k {
		d.logw[j] = logGamma(rng, m.E0+float64(d.n[j]))
	}
	normaliseLog(d.logw[:k])
	for j := range k {
		nj := float64(d.n[j])
		// Σ (y − μ)² from the sums; the data are standardised, so the
		// cancellation loses at most a few digits of a sum of order N.
		ss := max(0, d.q[j]-2*d.mu[j]*d.s[j]+nj*d.mu[j]*d.mu[j])
		d.tau[j] = math.Exp(logGamma(rng, m.Alpha+0.5*nj)) / (m.Beta + 0.5*ss)
	}
}

// write packs the parameters, sorted by mean, into theta, the weights'
// logits from the log weights (a weight that underflows stays finite).
func (d *MixDA) write(theta []float64) {
	sortByMean(&d.ord, &d.mu, d.m.K)
	d.m.packSorted(theta, &d.p, &d.ord, &d.mu, &d.tau, &d.logw)
}

// Allocation writes into z (length N) the allocations the last sweep's
// parameters were drawn given, in the labels of the θ it wrote (sorted by
// mean): with that θ, a draw from the joint posterior of (θ, z).
func (d *MixDA) Allocation(z []int) {
	var rank [8]int
	for j, c := range d.ord[:d.m.K] {
		rank[c] = j
	}
	for i, c := range d.z {
		z[i] = rank[c]
	}
}

// Start writes into theta a start of the chain, over-dispersed in the
// number of clusters as MixReference's are (MixStart): the allocation
// start gives (every value in one component, K groups in sorted order,
// each value in a random component, or each value to a component drawn
// from the prior), then μ, w and τ drawn given it (moves 3–5, τ first
// from its prior). O(N log N) for StartSplit's sort, O(NK) otherwise.
func (d *MixDA) Start(theta []float64, rng *rand.Rand, start MixStart) {
	m := d.m
	k := m.K
	for j := range k {
		d.mu[j] = m.Xi + m.R*rng.NormFloat64()
		d.tau[j] = math.Exp(logGamma(rng, m.Alpha)) / m.Beta
		d.logw[j] = -math.Log(float64(k))
	}
	switch start {
	case StartOne:
		clear(d.z)
	case StartSplit:
		cut := make([]float64, len(m.Z))
		copy(cut, m.Z)
		slices.Sort(cut)
		for i, y := range m.Z {
			// The group of y's rank among the sorted values (ties to the
			// lower group).
			r, _ := slices.BinarySearch(cut, y)
			d.z[i] = uint8(r * k / len(cut))
		}
	case StartScatter:
		for i := range d.z {
			d.z[i] = uint8(rng.IntN(k))
		}
	default:
		d.allocate(rng)
	}
	for j := range k {
		d.n[j], d.s[j], d.q[j] = 0, 0, 0
	}
	for i, c := range d.z {
		y := m.Z[i]
		d.n[c]++
		d.s[c] += y
		d.q[c] += y * y
	}
	d.params(rng)
	d.write(theta)
}
