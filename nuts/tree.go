package nuts

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// point is a phase-space state with the energy and gradient at q.
type point struct {
	q, p, g []float64
	u       float64
}

func (z *point) copyFrom(o *point) {
	copy(z.q, o.q)
	copy(z.p, o.p)
	copy(z.g, o.g)
	z.u = o.u
}

// proposal is a state a subtree offers: its position, energy and gradient
// (so that the next transition need not evaluate them again) and its
// Hamiltonian h.
type proposal struct {
	q, g []float64
	u, h float64
}

func (a *proposal) copyFrom(b *proposal) {
	copy(a.q, b.q)
	copy(a.g, b.g)
	a.u, a.h = b.u, b.h
}

// level holds the buffers of one depth of the recursion: a subtree of depth
// d ≥ 1 is built from two of depth d − 1, and only one subtree of each
// depth is under construction at a time.
type level struct {
	pInitEnd, sInitEnd, rhoInit    []float64
	pFinalBeg, sFinalBeg, rhoFinal []float64
}

// mutation switches off or breaks one mechanism, for the tests that show
// that the tests notice. Zero is the sampler as it should be.
type mutation int

const (
	mutNone        mutation = iota
	mutFlatWeights          // every state weighs the same in the subtrees
	mutNoSubtreeUT          // no U-turn check inside subtrees
	mutNoExtraUT            // none of the checks across merged subtrees
	mutPNotSharp            // the criterion uses p where it should use p♯
	mutUniformTop           // the outer doubling samples uniformly, not biased
)

// sampler is the NUTS transition with its buffers; Kernel and Warmup drive
// it. Nothing in a transition allocates.
type sampler struct {
	e  energy.Energy
	eg energy.EnergyGrad // e, when it computes U and ∇U in one pass
	n  int
	m  *metric

	eps       float64
	maxDepth  int
	maxDeltaH float64
	mut       mutation

	fwd, bck point // ends of the trajectory; the integrator works on one
	sample   proposal
	prop     proposal // the outer subtree's draw
	start    proposal // cached state after the last transition

	pFF, sFF, pFB, sFB []float64 // momenta and sharp momenta: forward subtree's forward and backward ends
	pBF, sBF, pBB, sBB []float64 // backward subtree's ends
	rho, rhoF, rhoB    []float64
	tmp, half          []float64

	lv []level

	// One transition's running sums.
	h0       float64
	nLeap    int
	sumMetro float64
	subSum   float64 // log of the current subtree's weight so far
	div      bool
	rng      *rand.Rand

	startValid bool
	last       Transition
	// stop (Config.Stop) cuts a transition short; stopped says it did.
	stop    <-chan struct{}
	stopped bool
	// Totals.
	transitions, divergences, gradEvals int
}

func newSampler(e energy.Energy, m *metric, eps float64, maxDepth int, maxDeltaH float64) *sampler {
	n := e.Dim()
	vec := func() []float64 { return make([]float64, n) }
	pt := func() point { return point{q: vec(), p: vec(), g: vec()} }
	pr := func() proposal { return proposal{q: vec(), g: vec()} }
	s := &sampler{
		e: e, n: n, m: m, eps: eps, maxDepth: maxDepth, maxDeltaH: maxDeltaH,
		fwd: pt(), bck: pt(), sample: pr(), prop: pr(), start: pr(),
		pFF: vec(), sFF: vec(), pFB: vec(), sFB: vec(),
		pBF: vec(), sBF: vec(), pBB: vec(), sBB: vec(),
		rho: vec(), rhoF: vec(), rhoB: vec(), tmp: vec(), half: vec(),
		lv: make([]level, maxDepth),
	}
	if eg, ok := e.(energy.EnergyGrad); ok {
		s.eg = eg
	}
	for d := 1; d < maxDepth; d++ {
		s.lv[d] = level{
			pInitEnd: vec(), sInitEnd: vec(), rhoInit: vec(),
			pFinalBeg: vec(), sFinalBeg: vec(), rhoFinal: vec(),
		}
	}
	return s
}

// ugrad writes ∇U(q) into g and returns U(q).
func (s *sampler) ugrad(g, q []float64) float64 {
	s.gradEvals++
	if s.eg != nil {
		return s.eg.UGrad(g, q)
	}
	s.e.Grad(g, q)
	return s.e.U(q)
}

// energyOf maps an energy the sampler cannot use (NaN, or −∞ from a
// broken density) to +∞: the state is rejected.
func energyOf(h float64) float64 {
	if math.IsNaN(h) || math.IsInf(h, -1) {
		return math.Inf(1)
	}
	return h
}

// load makes s.start the state theta with its energy and gradient,
// evaluating them unless the cached state is theta already. It returns the
// evaluations made and whether the state can start a trajectory.
func (s *sampler) load(theta []float64) (evals int, ok bool) {
	same := s.startValid
	if same {
		for j, v := range theta {
			if v != s.start.q[j] {
				same = false
				break
			}
		}
	}
	if !same {
		copy(s.start.q, theta)
		s.start.u = s.ugrad(s.start.g, s.start.q)
		evals = 1
		s.startValid = true
	}
	if math.IsNaN(s.start.u) || math.IsInf(s.start.u, 0) {
		return evals, false
	}
	for _, v := range s.start.g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return evals, false
		}
	}
	return evals, true
}

// leapfrog moves z by one leapfrog step of size eps (negative: backwards).
func (s *sampler) leapfrog(z *point, eps float64) {
	h := 0.5 * eps
	for j, g := range z.g {
		z.p[j] -= h * g
	}
	s.m.sharp(s.half, z.p)
	for j, v := range s.half {
		z.q[j] += eps * v
	}
	z.u = s.ugrad(z.g, z.q)
	for j, g := range z.g {
		z.p[j] -= h * g
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for j, v := range a {
		s += v * b[j]
	}
	return s
}

// logSumExp returns log(e^a + e^b).
func logSumExp(a, b float64) float64 {
	switch {
	case math.IsInf(a, -1):
		return b
	case math.IsInf(b, -1):
		return a
	case a > b:
		return a + math.Log1p(math.Exp(b-a))
	default:
		return b + math.Log1p(math.Exp(a-b))
	}
}

// fromStart sets the forward end s.fwd to the cached start with a fresh
// momentum, its sharp written into sharp, and returns it and its
// Hamiltonian: a transition's first state, and each try of
// initStepSize's.
func (s *sampler) fromStart(rng *rand.Rand, sharp []float64) (*point, float64) {
	z := &s.fwd
	copy(z.q, s.start.q)
	copy(z.g, s.start.g)
	z.u = s.start.u
	s.m.sample(z.p, rng)
	s.m.sharp(sharp, z.p)
	return z, z.u + 0.5*dot(z.p, sharp)
}

// transition moves theta in place by one NUTS transition of step size
// s.eps. It returns whether theta changed and the gradient evaluations.
func (s *sampler) transition(theta []float64, rng *rand.Rand) (bool, int) {
	if len(theta) != s.n {
		panic(fmt.Sprintf("nuts: state of dimension %d, the energy's is %d", len(theta), s.n))
	}
	s.rng = rng
	s.transitions++
	evals, ok := s.load(theta)
	if !ok {
		// A state the model rejects cannot start a trajectory: it stays,
		// and the transition counts as divergent.
		s.divergences++
		s.last = Transition{Divergent: true, Energy: math.Inf(1), StepSize: s.eps}
		return false, evals
	}

	var z0 *point
	z0, s.h0 = s.fromStart(rng, s.sFF)
	s.bck.copyFrom(z0)
	s.sample.copyFrom(&s.start)
	s.sample.h = s.h0
	for _, v := range [][]float64{s.pFF, s.pFB, s.pBF, s.pBB, s.rho} {
		copy(v, z0.p)
	}
	for _, v := range [][]float64{s.sFB, s.sBF, s.sBB} {
		copy(v, s.sFF)
	}

	logSumW := 0.0 // log Σ e^{H0−H}, the initial state's weight being 1
	s.nLeap, s.sumMetro, s.div = 0, 0, false
	moved := false
	depth := 0
	for depth < s.maxDepth {
		clear(s.rhoF)
		clear(s.rhoB)
		s.subSum = math.Inf(-1)
		var valid bool
		if rng.Float64() > 0.5 {
			copy(s.rhoB, s.rho)
			copy(s.pBF, s.pFF)
			copy(s.sBF, s.sFF)
			valid = s.build(&s.fwd, depth, s.sFB, s.sFF, s.rhoF, s.pFB, s.pFF, s.eps)
		} else {
			copy(s.rhoF, s.rho)
			copy(s.pFB, s.pBB)
			copy(s.sFB, s.sBB)
			valid = s.build(&s.bck, depth, s.sBF, s.sBB, s.rhoB, s.pBF, s.pBB, -s.eps)
		}
		if !valid {
			break
		}
		depth++
		logSumWSub := s.subSum

		// The whole trajectory: the backward part then the forward part.
		persist := s.merged(s.rho, s.rhoB, s.rhoF, s.sBB, s.sFF, s.pBF, s.sBF, s.pFB, s.sFB, s.pBB, s.pFF, true)

		// Biased progressive sampling: the new subtree's draw replaces the
		// sample with probability min(1, w_new/w_old).
		lr := logSumWSub - logSumW
		if s.mut == mutUniformTop {
			lr = logSumWSub - logSumExp(logSumW, logSumWSub)
		}
		if lr > 0 || rng.Float64() < math.Exp(lr) {
			s.sample.copyFrom(&s.prop)
			moved = true
		}
		logSumW = logSumExp(logSumW, logSumWSub)

		if !persist {
			break
		}
	}

	if s.stopped {
		// Cut short by a stop: the trajectory's draw is not the
		// transition's, so the state stays where it began.
		s.last = Transition{Depth: depth, NLeapfrog: s.nLeap, Energy: s.h0, StepSize: s.eps, Stopped: true}
		return false, evals + s.nLeap
	}
	s.last = Transition{
		Depth:      depth,
		NLeapfrog:  s.nLeap,
		Divergent:  s.div,
		AcceptStat: s.sumMetro / float64(s.nLeap),
		Energy:     s.sample.h,
		StepSize:   s.eps,
	}
	if s.div {
		s.divergences++
	}
	s.start.copyFrom(&s.sample)
	copy(theta, s.sample.q)
	return moved, evals + s.nLeap
}

// build extends the trajectory from z by a subtree of 2^depth leapfrog
// steps of size eps, as Stan's base_nuts::build_tree: it adds the
// subtree's states' weights e^{H0−H} to s.subSum, draws the subtree's
// proposal into s.prop, adds its momenta to rho, and writes the momenta
// and sharp momenta at its first (pBeg, sBeg) and last (pEnd, sEnd) states.
// It reports whether the subtree is valid: no divergence and no U-turn
// within it, nor across the halves of any of its merges.
//
// Stan draws a subtree's proposal at each merge, the second half's with
// probability W_final/(W_init + W_final). Here the draw is made leaf by
// leaf instead: each new state replaces the proposal with probability
// w/W, W the subtree's weight so far. Both pick state i with probability
// w_i/W_subtree (the product Π_{j>i} W_{j−1}/W_j telescopes), and an
// invalid subtree is discarded whole either way; leaf by leaf copies a
// state about log n times instead of n.
func (s *sampler) build(z *point, depth int, sBeg, sEnd, rho, pBeg, pEnd []float64, eps float64) bool {
	if depth == 0 {
		return s.leaf(z, sBeg, sEnd, rho, pBeg, pEnd, eps)
	}
	l := &s.lv[depth]
	clear(l.rhoInit)
	if !s.build(z, depth-1, sBeg, l.sInitEnd, l.rhoInit, pBeg, l.pInitEnd, eps) {
		return false
	}
	clear(l.rhoFinal)
	if !s.build(z, depth-1, l.sFinalBeg, sEnd, l.rhoFinal, l.pFinalBeg, pEnd, eps) {
		return false
	}
	if s.mut == mutNoSubtreeUT {
		for j := range rho {
			rho[j] += l.rhoInit[j] + l.rhoFinal[j]
		}
		return true
	}
	return s.merged(rho, l.rhoInit, l.rhoFinal, sBeg, sEnd, l.pInitEnd, l.sInitEnd, l.pFinalBeg, l.sFinalBeg, pBeg, pEnd, false)
}

// merged is the no-U-turn criterion of a trajectory made of a first part
// (summed momenta r1, last state's momenta p1e, s1e) and a second (r2,
// first state's p2b, s2b), whose ends have sharp momenta sb and se (and
// momenta pb, pe): both ends move along the summed momenta r1 + r2, and,
// the checks Stan added in 2.21, the first part's first state and the
// second part's first state move along r1 + p2b, the first part's last
// state and the second part's last along r2 + p1e. It adds r1 + r2 to rho
// (sets it, when set), and computes the six dot products in one pass.
func (s *sampler) merged(rho, r1, r2, sb, se, p1e, s1e, p2b, s2b, pb, pe []float64, set bool) bool {
	if s.mut == mutPNotSharp {
		sb, se, s1e, s2b = pb, pe, p1e, p2b
	}
	n := len(rho)
	// Reslicing to n lets the compiler drop the bounds checks.
	r1, r2, sb, se, p1e, s1e, p2b, s2b = r1[:n], r2[:n], sb[:n], se[:n], p1e[:n], s1e[:n], p2b[:n], s2b[:n]
	var d1, d2, d3, d4, d5, d6 float64
	for j := range rho {
		r := r1[j] + r2[j]
		if set {
			rho[j] = r
		} else {
			rho[j] += r
		}
		d1 += sb[j] * r
		d2 += se[j] * r
		a := r1[j] + p2b[j]
		d3 += sb[j] * a
		d4 += s2b[j] * a
		b := r2[j] + p1e[j]
		d5 += s1e[j] * b
		d6 += se[j] * b
	}
	if s.mut == mutNoExtraUT {
		return d1 > 0 && d2 > 0
	}
	return d1 > 0 && d2 > 0 && d3 > 0 && d4 > 0 && d5 > 0 && d6 > 0
}

// leaf is build's base case: one leapfrog step from z, its state weighed,
// counted and offered as the subtree's proposal.
func (s *sampler) leaf(z *point, sBeg, sEnd, rho, pBeg, pEnd []float64, eps float64) bool {
	if s.stop != nil {
		select {
		case <-s.stop:
			s.stopped = true
			return false
		default:
		}
	}
	var kin float64
	if s.m.dense {
		s.leapfrog(z, eps)
		s.m.sharp(sBeg, z.p)
		for j, v := range z.p {
			kin += v * sBeg[j]
			rho[j] += v
		}
		copy(sEnd, sBeg)
		copy(pBeg, z.p)
		copy(pEnd, z.p)
	} else {
		// The leapfrog fused with what follows it, for the diagonal metric.
		h := 0.5 * eps
		inv := s.m.inv
		n := len(inv)
		// Reslicing to n lets the compiler drop the bounds checks.
		q, p, g := z.q[:n], z.p[:n], z.g[:n]
		sBeg, sEnd, pBeg, pEnd, rho = sBeg[:n], sEnd[:n], pBeg[:n], pEnd[:n], rho[:n]
		for j, m := range inv {
			v := p[j] - h*g[j]
			p[j] = v
			q[j] += eps * m * v
		}
		z.u = s.ugrad(g, q)
		for j, m := range inv {
			v := p[j] - h*g[j]
			p[j] = v
			w := m * v
			kin += v * w
			sBeg[j], sEnd[j] = w, w
			pBeg[j], pEnd[j] = v, v
			rho[j] += v
		}
	}
	s.nLeap++
	h := energyOf(z.u + 0.5*kin)
	if h-s.h0 > s.maxDeltaH {
		s.div = true
	}
	if s.h0-h > 0 {
		s.sumMetro++
	} else {
		s.sumMetro += math.Exp(s.h0 - h)
	}
	lw := s.h0 - h
	if s.mut == mutFlatWeights {
		lw = 0
		if math.IsInf(h, 1) {
			lw = math.Inf(-1)
		}
	}
	s.subSum = logSumExp(s.subSum, lw)
	if s.div {
		return false
	}
	// Progressive multinomial draw: replace the proposal with probability
	// w/W (always for the subtree's first state).
	if r := lw - s.subSum; r >= 0 || s.rng.Float64() < math.Exp(r) {
		copy(s.prop.q, z.q)
		copy(s.prop.g, z.g)
		s.prop.u, s.prop.h = z.u, h
	}
	return true
}
