package plan

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// How a log-concave posterior with a mode θ̂ and a Hessian H there is
// sampled by default: every chain steps in the coordinates φ = Rᵀθ
// (H = RRᵀ), where the posterior is close to N(φ̂, I), on one of two kinds
// of gradient (GradRule):
//
//   - full data, with a Metropolis correction (preconditioned MALA): exact
//     at any step, a full pass of N examples a step;
//   - control variates about θ̂ (energy.CVGrad) on a minibatch of n, without
//     a correction: 2n examples a step, and biased twice, by the Euler step
//     (a variance factor 1/(1 − η/2) in φ) and by the gradient noise
//     (a factor 1 + ηV/2, V its variance in φ), both kept small by η and n.
const (
	// CVEta is the control-variate chains' step in φ: the Euler step
	// inflates the variances of a Gaussian by 1/(1 − η/2), 2.6% (1.3% in
	// sd), and its slowest direction (λ = 1) then has τ_int = (2 − η)/η =
	// 39 steps.
	CVEta = 0.05
	// CVHeat is the largest share of the noise budget 2η that the
	// control-variate gradient noise may take in any coordinate of φ, where
	// it inflates that coordinate's variance by about as much: 1%.
	CVHeat = 0.01
	// CVMinBatch bounds the control-variate minibatch below: fewer examples
	// make the noise's distribution far from normal (a few large
	// differences dominate).
	CVMinBatch = 32
	// MALAAccept is the acceptance rate MALA's step is tuned to (Roberts
	// and Rosenthal 1998), and MALAScale the step h = MALAScale·p^(−1/3) at
	// which a MALA chain in φ reaches it on a product of standard normals'
	// near relatives (l² / 2 with l = 1.65): the rule predicts MALA's cost
	// from them before any MALA step is taken.
	MALAAccept = 0.574
	MALAScale  = 1.65 * 1.65 / 2
)

// GradInput is what the rule sees: the data size N, the dimension p and
// S2, the largest per-example variance of a coordinate of the
// control-variate differences R⁻¹(∇U_i(θ) − ∇U_i(θ̂)) over the pilot's
// points (CVSpread).
type GradInput struct {
	N, P int
	S2   float64
}

// GradChoice is the rule's outcome.
type GradChoice struct {
	CV    bool    // control-variate minibatches; else full-data MALA
	Batch int     // the control-variate minibatch n (0 for MALA)
	Heat  float64 // the share of 2η the control-variate noise takes at Batch
	// Cost per effective draw of the slowest direction, in per-example
	// gradient evaluations plus p for the two triangular solves a step
	// (2p² flops, the work of p examples' gradients).
	CostCV, CostMALA float64
	Rule             string // one line: which and why
}

// MALAStep is the MALA step in φ the rule assumes for dimension p.
func MALAStep(p int) float64 { return MALAScale * math.Pow(float64(p), -1.0/3) }

// CVIAT is the integrated autocorrelation time in steps of the slowest
// direction of a control-variate chain at step η in φ: ρ = 1 − η,
// τ = (1 + ρ)/(1 − ρ).
func CVIAT(eta float64) float64 { return (2 - eta) / eta }

// MALAIAT is that of a MALA chain at step h accepting a share a of its
// proposals: a proposal contracts the slowest direction by 1 − h, so a
// step by 1 − ah on average, ρ = 1 − ah.
func MALAIAT(h, a float64) float64 { return (2 - a*h) / (a * h) }

// GradRule chooses the gradients of the default log-concave chains:
// control variates on the least n ≥ CVMinBatch whose noise takes at most
// CVHeat of the budget (variance.SizeFor), when that costs less per
// effective draw than full-data MALA, (2n + p)·CVIAT(CVEta) <
// (N + p)·MALAIAT(MALAStep(p), MALAAccept); else MALA. Where no n < N meets
// CVHeat, MALA.
func GradRule(in GradInput) (GradChoice, error) {
	if in.N < 1 || in.P < 1 || !(in.S2 >= 0) || math.IsInf(in.S2, 0) {
		return GradChoice{}, fmt.Errorf("gradient rule: N = %d, p = %d, S² = %v: need N, p ≥ 1 and a finite S² ≥ 0", in.N, in.P, in.S2)
	}
	N, p := float64(in.N), float64(in.P)
	c := GradChoice{CostMALA: (N + p) * MALAIAT(MALAStep(in.P), MALAAccept)}
	nstar := variance.SizeFor(in.N, in.S2, CVEta, 1, CVHeat)
	n := max(int(math.Ceil(nstar)), CVMinBatch)
	if n < in.N {
		c.Heat = variance.ShareAt(in.N, n, in.S2, CVEta, 1)
		c.CostCV = (2*float64(n) + p) * CVIAT(CVEta)
	} else {
		c.CostCV = math.Inf(1)
	}
	c.CV = c.CostCV < c.CostMALA
	switch {
	case c.CV:
		c.Batch = n
		c.Rule = fmt.Sprintf("control-variate gradients about the mode on minibatches of n = %d (their noise takes %.2g%% of the budget 2η in the worst coordinate), η = %g in the coordinates where the Hessian at the mode is I: %.3g example-gradients per effective draw against %.3g for full-data MALA; unadjusted, so the posterior sds carry a bias of about +%.2g%% (the Euler step's 1/(1 − η/2) in variance) plus at most %.2g%% from the gradient noise", n, 100*c.Heat, CVEta, c.CostCV, c.CostMALA, 100*(1/math.Sqrt(1-CVEta/2)-1), 100*(math.Sqrt(1+c.Heat)-1))
	case n >= in.N:
		c.Rule = fmt.Sprintf("full-data gradients with a Metropolis correction (MALA), preconditioned by the Hessian at the mode: control variates would need all %d examples to keep their noise below %g%% of the budget", in.N, 100*CVHeat)
	default:
		c.Rule = fmt.Sprintf("full-data gradients with a Metropolis correction (MALA), preconditioned by the Hessian at the mode: %.3g example-gradients per effective draw against %.3g for control variates (n = %d)", c.CostMALA, c.CostCV, n)
	}
	return c, nil
}

// MALAWins reports whether full-data MALA costs less per effective draw
// than control variates at their smallest batch, CVMinBatch, whatever the
// spread: GradRule would then choose MALA, and its pilot (CVSpread, a
// gradient per example at several points: for a model in another process,
// a request each) can be skipped. It returns the choice GradRule makes.
func MALAWins(N, p int) (GradChoice, bool) {
	c := GradChoice{CostMALA: (float64(N) + float64(p)) * MALAIAT(MALAStep(p), MALAAccept)}
	c.CostCV = (2*float64(min(CVMinBatch, N)) + float64(p)) * CVIAT(CVEta)
	c.Rule = fmt.Sprintf("full-data gradients with a Metropolis correction (MALA), preconditioned by the Hessian at the mode: %.3g example-gradients per effective draw against at least %.3g for control variates (their smallest batch, n = %d)", c.CostMALA, c.CostCV, CVMinBatch)
	return c, c.CostMALA <= c.CostCV
}

// CVSpread is the pilot of GradRule: the largest per-example variance of a
// coordinate of the whitened differences R⁻¹(∇U_i(θ) − ∇U_i(θ̂)), over m
// examples (all N if fewer) at each of k points θ = θ̂ + R⁻ᵀz, z ~ N(0, I):
// draws of the Laplace approximation, where the chains will be. pc is the
// preconditioner R; the stream is its own (seed).
func CVSpread(t energy.Terms, mode []float64, pc *langevin.Precond, k, m int, seed uint64) (float64, error) {
	N, p := t.Len(), t.Dim()
	if len(mode) != p || pc.Dim() != p {
		return 0, errors.New("control-variate pilot: the mode, the preconditioner and the model differ in dimension")
	}
	rng := rand.New(rand.NewPCG(seed, 1<<43))
	m = min(m, N)
	idx := rng.Perm(N)[:m]
	thetas := make([][]float64, k)
	for i := range thetas {
		z := make([]float64, p)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		pc.Color(z)
		for j := range z {
			z[j] += mode[j]
		}
		thetas[i] = z
	}
	return spreadAt(t, mode, pc, thetas, idx)
}

// spreadAt is CVSpread at the given points over the listed examples.
func spreadAt(t energy.Terms, mode []float64, pc *langevin.Precond, thetas [][]float64, idx []int) (float64, error) {
	p := t.Dim()
	g, ga := make([]float64, p), make([]float64, p)
	sum, sq := make([]float64, p), make([]float64, p)
	m := float64(len(idx))
	var s2 float64
	for _, theta := range thetas {
		clear(sum)
		clear(sq)
		for _, i := range idx {
			t.Term(g, theta, i)
			t.Term(ga, mode, i)
			for j := range g {
				g[j] -= ga[j]
			}
			pc.Whiten(g)
			for j, v := range g {
				sum[j] += v
				sq[j] += v * v
			}
		}
		for j := range sum {
			mean := sum[j] / m
			v := math.Max(0, sq[j]/m-mean*mean)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("control-variate pilot: the differences' variance in coordinate %d is %v", j, v)
			}
			s2 = math.Max(s2, v)
		}
	}
	return s2, nil
}
