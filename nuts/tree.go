package nuts

import (
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
	prop                           proposal
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
	div      bool
	rng      *rand.Rand

	startValid bool
	last       Transition
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
			prop: pr(),
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

// noUTurn is the generalised no-U-turn criterion for a trajectory with
// summed momentum rho and sharp momenta sMinus, sPlus at its ends: it goes
// on while both ends still move along rho.
func (s *sampler) noUTurn(sMinus, sPlus, pMinus, pPlus, rho []float64) bool {
	if s.mut == mutPNotSharp {
		return dot(pPlus, rho) > 0 && dot(pMinus, rho) > 0
	}
	return dot(sPlus, rho) > 0 && dot(sMinus, rho) > 0
}

func add(dst, a, b []float64) {
	for j, v := range a {
		dst[j] = v + b[j]
	}
}

// transition moves theta in place by one NUTS transition of step size
// s.eps. It returns whether theta changed and the gradient evaluations.
func (s *sampler) transition(theta []float64, rng *rand.Rand) (bool, int) {
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

	z0 := &s.fwd
	copy(z0.q, s.start.q)
	copy(z0.g, s.start.g)
	z0.u = s.start.u
	s.m.sample(z0.p, rng)
	s.m.sharp(s.sFF, z0.p)
	s.h0 = z0.u + 0.5*dot(z0.p, s.sFF)
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
		logSumWSub := math.Inf(-1)
		var valid bool
		if rng.Float64() > 0.5 {
			copy(s.rhoB, s.rho)
			copy(s.pBF, s.pFF)
			copy(s.sBF, s.sFF)
			valid = s.build(&s.fwd, depth, &s.prop, s.sFB, s.sFF, s.rhoF, s.pFB, s.pFF, s.eps, &logSumWSub)
		} else {
			copy(s.rhoF, s.rho)
			copy(s.pFB, s.pBB)
			copy(s.sFB, s.sBB)
			valid = s.build(&s.bck, depth, &s.prop, s.sBF, s.sBB, s.rhoB, s.pBF, s.pBB, -s.eps, &logSumWSub)
		}
		if !valid {
			break
		}
		depth++

		add(s.rho, s.rhoB, s.rhoF)
		persist := s.noUTurn(s.sBB, s.sFF, s.pBB, s.pFF, s.rho)
		if s.mut != mutNoExtraUT {
			add(s.tmp, s.rhoB, s.pFB)
			persist = persist && s.noUTurn(s.sBB, s.sFB, s.pBB, s.pFB, s.tmp)
			add(s.tmp, s.rhoF, s.pBF)
			persist = persist && s.noUTurn(s.sBF, s.sFF, s.pBF, s.pFF, s.tmp)
		}

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
// steps of size eps, as Stan's base_nuts::build_tree: it draws the
// subtree's proposal into prop (uniformly in the weights e^{H0−H}), adds
// the subtree's log weight to *logSumW and its momenta to rho, and writes
// the momenta and sharp momenta at its first (pBeg, sBeg) and last (pEnd,
// sEnd) states. It reports whether the subtree is valid: no divergence and
// no U-turn within it.
func (s *sampler) build(z *point, depth int, prop *proposal, sBeg, sEnd, rho, pBeg, pEnd []float64, eps float64, logSumW *float64) bool {
	if depth == 0 {
		s.leapfrog(z, eps)
		s.nLeap++
		s.m.sharp(sBeg, z.p)
		h := energyOf(z.u + 0.5*dot(z.p, sBeg))
		if h-s.h0 > s.maxDeltaH {
			s.div = true
		}
		lw := s.h0 - h
		if s.mut == mutFlatWeights {
			lw = 0
			if math.IsInf(h, 1) {
				lw = math.Inf(-1)
			}
		}
		*logSumW = logSumExp(*logSumW, lw)
		if s.h0-h > 0 {
			s.sumMetro++
		} else {
			s.sumMetro += math.Exp(s.h0 - h)
		}
		copy(prop.q, z.q)
		copy(prop.g, z.g)
		prop.u, prop.h = z.u, h
		copy(sEnd, sBeg)
		for j, v := range z.p {
			rho[j] += v
			pBeg[j] = v
			pEnd[j] = v
		}
		return !s.div
	}

	l := &s.lv[depth]
	logSumWInit := math.Inf(-1)
	clear(l.rhoInit)
	if !s.build(z, depth-1, prop, sBeg, l.sInitEnd, l.rhoInit, pBeg, l.pInitEnd, eps, &logSumWInit) {
		return false
	}
	logSumWFinal := math.Inf(-1)
	clear(l.rhoFinal)
	if !s.build(z, depth-1, &l.prop, l.sFinalBeg, sEnd, l.rhoFinal, l.pFinalBeg, pEnd, eps, &logSumWFinal) {
		return false
	}

	// Multinomial sampling within the subtree.
	logSumWSub := logSumExp(logSumWInit, logSumWFinal)
	*logSumW = logSumExp(*logSumW, logSumWSub)
	if logSumWFinal > logSumWSub || s.rng.Float64() < math.Exp(logSumWFinal-logSumWSub) {
		prop.copyFrom(&l.prop)
	}

	if s.mut == mutNoSubtreeUT {
		for j := range rho {
			rho[j] += l.rhoInit[j] + l.rhoFinal[j]
		}
		return true
	}
	add(s.tmp, l.rhoInit, l.rhoFinal)
	for j, v := range s.tmp {
		rho[j] += v
	}
	persist := s.noUTurn(sBeg, sEnd, pBeg, pEnd, s.tmp)
	if s.mut != mutNoExtraUT {
		add(s.tmp, l.rhoInit, l.pFinalBeg)
		persist = persist && s.noUTurn(sBeg, l.sFinalBeg, pBeg, l.pFinalBeg, s.tmp)
		add(s.tmp, l.rhoFinal, l.pInitEnd)
		persist = persist && s.noUTurn(l.sInitEnd, sEnd, l.pInitEnd, pEnd, s.tmp)
	}
	return persist
}
