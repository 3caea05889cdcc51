package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/variance"
)

// The defaults of `fresgld logistic` that must scale with the data size N.
const (
	// coldShare is the share of the cold chain's noise budget 2τ1η that
	// its gradient noise takes by default at the coordinate where the
	// examples disagree most: half, so that the corrected chain injects at
	// least half the noise itself and an error in the estimated gradient
	// variance moves its temperature by at most half as much.
	coldShare = 0.5
	// ColdMin and ColdMax bound the default cold minibatch (and N bounds
	// both). Below 100 the per-draw variance estimate scatters widely;
	// above 2048 a step costs more than the default run can afford on 10⁶
	// examples (four chains × 12,000 steps). Where the rule asks for more than ColdMax, an automatic η
	// is lowered until ColdMax meets the share.
	ColdMin, ColdMax = 100, 2048
	// pilotSize is the size of the draw that estimates the per-example
	// gradient spread for the rule.
	pilotSize = 2000
)

// logisticCurvature finds λ_max of the Hessian of U and the posterior
// mode with λ_min there. Where N·p² ≤ HessianWork, λ_max and λ_min are
// those of the Hessian at the mode; above, λ_max is the bound
// λ_max(XᵀX)/4 + 1/σ₀² that holds at every θ (models.CurvatureBound: the
// step size must hold through the burn-in, far from the mode), and the mode
// and λ_min come from Newton's method with exact gradients and the Hessian
// of a fixed random subset of ⌈HessianWork/p²⌉ examples (models.Mode), whose
// λ_min errs by a few per cent (of order √(p/m)): enough for the run-length
// rule, which needs only its size.
func logisticCurvature(lr *models.Logistic, seed uint64) (plan.Curvature, error) {
	N, p := float64(lr.Len()), float64(lr.Dim())
	if p*p*p > plan.DenseWork {
		return wideCurvature(lr), nil
	}
	if N*p*p <= plan.HessianWork {
		mode, lmin, lmax, err := mala.Curvature(lr, make([]float64, lr.Dim()))
		if err != nil {
			return plan.Curvature{}, err
		}
		return plan.Curvature{Lmin: lmin, Lmax: lmax, Mode: mode, Note: fmt.Sprintf("λ_max = %.4g at the posterior mode", lmax)}, nil
	}
	lmax := lr.CurvatureBound(1e-3, 100)
	c := plan.Curvature{Lmax: lmax, Note: fmt.Sprintf("λ_max ≤ λ_max(XᵀX)/4 + 1/σ₀² = %.4g over all θ (N·p² = %.3g: a Hessian at the mode would cost more than the run)", lmax, N*p*p)}
	m := min(lr.Len(), int(math.Ceil(plan.HessianWork/(p*p))))
	rows := rand.New(rand.NewPCG(seed, 1<<42)).Perm(lr.Len())[:m]
	mode, h, err := lr.Mode(make([]float64, lr.Dim()), rows, 100)
	var es mat.EigenSym
	if err == nil && !es.Factorize(h, false) {
		err = errors.New("the eigenvalues of its Hessian did not converge")
	}
	if err != nil { // only the run length's rule is lost: it falls back
		c.Note += fmt.Sprintf("; no posterior mode (%v)", err)
		return c, nil
	}
	c.Lmin, c.Mode = es.Values(nil)[0], mode
	return c, nil
}

// wideCurvature is logisticCurvature without a p×p matrix, for p³ above
// DenseWork: λ_max from the bound λ_max(XᵀX)/4 + 1/σ₀² (a power iteration,
// O(Np) a step), no mode, and λ_min = 1/σ₀² where p > N: the likelihood's
// Hessian XᵀWX has rank at most N < p, so the prior's curvature is the
// smallest eigenvalue at every θ. With p ≤ N, λ_min stays unknown (0) and
// the run length falls back to fixed values.
func wideCurvature(lr *models.Logistic) plan.Curvature {
	N, p := lr.Len(), lr.Dim()
	lmax := lr.CurvatureBound(1e-3, 100)
	c := plan.Curvature{Lmax: lmax, Note: fmt.Sprintf("λ_max ≤ λ_max(XᵀX)/4 + 1/σ₀² = %.4g over all θ (p = %d: a p×p Hessian, %.3g operations to factorise, would cost more than the run)", lmax, p, float64(p)*float64(p)*float64(p))}
	if p > N {
		c.Lmin = 1 / (lr.Sigma0 * lr.Sigma0)
		c.Note += fmt.Sprintf("; λ_min = 1/σ₀² = %.4g (p = %d > N = %d: the likelihood's Hessian has rank ≤ N)", c.Lmin, p, N)
	}
	return c
}

// coldSize is the default cold minibatch: the n at which the gradient noise
// of a size-n minibatch, η²·N(N − n)/n·S²_max, is coldShare of the noise
// budget 2τη (variance.SizeFor), S²_max the largest per-example variance of
// a gradient coordinate, estimated from a pilot draw of pilotSize examples
// at each of thetas (the largest counts: the chains' start and the mode,
// so that the rule holds through the burn-in); bounded to [ColdMin,
// ColdMax] and to N. It returns n, the unbounded n* and S²_max.
func coldSize(lr energy.Terms, thetas [][]float64, eta, tau float64, seed uint64) (n int, nstar, s2 float64, err error) {
	N := lr.Len()
	m := min(N, pilotSize)
	if m < 2 {
		return N, float64(N), 0, nil
	}
	mb, err := energy.NewMinibatch(lr, m)
	if err != nil {
		return 0, 0, 0, err
	}
	p := lr.Dim()
	g, gv := make([]float64, p), make([]float64, p)
	// A stream of its own: the chains' streams stay as they were.
	rng := rand.New(rand.NewPCG(seed, 1<<40))
	for _, theta := range thetas {
		mb.ResetSpread()
		mb.Grad(g, gv, theta, rng)
		mb.Spread(gv) // the draw's s_j², whatever m
		for _, v := range gv {
			s2 = max(s2, v)
		}
	}
	nstar = variance.SizeFor(N, s2, eta, tau, coldShare)
	n = int(math.Ceil(nstar))
	n = min(max(n, ColdMin), ColdMax, N)
	return n, nstar, s2, nil
}

// etaFor is the step size at which a size-n minibatch's gradient noise
// η²·N(N − n)/n·s2 is share·2τη: η = 2·share·τ/(N(N − n)/n·s2).
func etaFor(N, n int, s2, tau, share float64) float64 {
	return 2 * share * tau / (energy.FPC(N, n) * s2)
}

// RunGCPercent is the collector's headroom while a logistic run holds its
// data: the feature matrix, live from the read to the end, is most of the
// heap, so at the usual GOGC = 100 the run's own garbage (draws formatted
// for the chain files, the pilot, the figures) could grow the heap to twice
// the matrix before a collection. The matrix holds no pointers and is not
// scanned, so collecting at 20% above the live heap costs little.
const RunGCPercent = 20

// ReadData reads the CSV file with the garbage collector at a tenth of its
// usual headroom. The reader turns every line into a string that is garbage
// once parsed, as much garbage as the file is long, while the matrix it
// fills, reserved at its final size, is live from the start: at the usual
// headroom (GOGC = 100) the heap could grow to twice the matrix before a
// collection. The matrix holds no pointers, so the extra collections cost
// little.
func ReadData(path string, opt dataset.Options) (*dataset.Data, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	return dataset.ReadFile(path, opt)
}

// lpWork bounds the work of one lp__ evaluation (per-example terms × p).
const lpWork = 250_000

// logDensity is lp__, the log posterior up to a constant, for every draw.
// Exactly −U(θ) while N·p ≤ lpWork; above, −(U_0(θ) + N/m Σ_{i∈S} U_i(θ))
// over one subset S of m = ⌈lpWork/p⌉ examples drawn once (from the seed),
// the same for every draw and chain: a smooth function of θ that tracks
// −U, at O(m·p) a draw. The exact −U costs O(N·p) a draw: at N = 10⁶ and
// p = 101 it would cost a hundred times the sampling itself. The function is
// safe for concurrent use (it only reads).
func logDensity(lr energy.Terms, seed uint64) func([]float64) float64 {
	N, p := lr.Len(), lr.Dim()
	if N*p <= lpWork {
		u := energyOf(lr)
		return func(theta []float64) float64 { return -u(theta) }
	}
	m := (lpWork + p - 1) / p
	idx := rand.New(rand.NewPCG(seed, 1<<41)).Perm(N)[:m]
	scale := float64(N) / float64(m)
	if _, ok := lr.(energy.BatchTerms); ok {
		// One batch a draw: for a model in another process, one round trip.
		sub := make([]int32, m)
		for k, i := range idx {
			sub[k] = int32(i)
		}
		return func(theta []float64) float64 {
			u, _ := energy.EnergyOn(lr, nil, theta, sub)
			return -u
		}
	}
	return func(theta []float64) float64 {
		var u float64
		for _, i := range idx {
			u += lr.Term(nil, theta, i)
		}
		return -(lr.Prior(nil, theta) + scale*u)
	}
}

// hotOptions are the settings of a hot level's automatic minibatch: the
// share of its noise budget that its gradient noise supplies, reported as
// the spread averaged over the last check's window (Smooth), not the
// draw's own. At the share's n the per-draw estimate scatters by about
// √(κ/n) relatively (κ the kurtosis term of the per-example gradients:
// about 15% at the n ≈ 160 of 10⁶ examples × 100 features), so with
// --hot-share 0.9 and a hundred coordinates near the largest spread some
// coordinate's draw exceeds the whole budget on almost every step (97% of
// steps clamped there, 18% on data/wdbc.csv): the chain then runs hotter
// than its τ. The window's average does not scatter; on the breast-cancer
// study it removed the hot chain's clamps and left the cold chain's
// accuracy where it was (docs/experiments/minibatch.md, "fresgld, smoothed hot ŝ²").
func hotOptions(share float64) variance.AutoOptions {
	return variance.AutoOptions{Share: share, Smooth: true}
}
