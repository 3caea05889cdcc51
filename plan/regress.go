package plan

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/results"
)

// regressCurvature bounds the Hessian of U: λ_max ≤ λ_max(XᵀX)/σ² + c0
// over all β (c0 the prior's largest curvature, 1/s0² or 1/s1²) and the
// slowest direction λ_min(XᵀX)/σ² + 1/s1² (the prior at its flattest).
// It also returns the normal-prior posterior mode, the start's distance
// from which sets the burn-in.
func regressCurvature(x, y []float64, N, p int, sigma float64, pr models.SlabPrior) (lmin, lmax float64, dist float64, err error) {
	X := mat.NewDense(N, p, x)
	var h mat.SymDense
	h.SymOuterK(1/(sigma*sigma), X.T())
	var es mat.EigenSym
	if !es.Factorize(&h, false) {
		return 0, 0, 0, errors.New("the eigenvalues of XᵀX did not converge")
	}
	ev := es.Values(nil)
	c1 := 1 / (pr.Slab * pr.Slab)
	c0 := c1
	if !pr.Normal() {
		c0 = 1 / (pr.Spike * pr.Spike)
	}
	lmin, lmax = ev[0]+c1, ev[len(ev)-1]+c0
	// D² = mᵀ A m for the slab's Gaussian posterior N(m, A⁻¹), A = H + I/s1²:
	// the Mahalanobis distance of the start, 0, from its mode.
	for j := range p {
		h.SetSym(j, j, h.At(j, j)+c1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&h) {
		return lmin, lmax, 0, nil
	}
	var b, m mat.VecDense
	b.MulVec(X.T(), mat.NewVecDense(N, y))
	b.ScaleVec(1/(sigma*sigma), &b)
	if err := ch.SolveVecTo(&m, &b); err != nil {
		return lmin, lmax, 0, nil
	}
	return lmin, lmax, math.Sqrt(math.Max(0, mat.Dot(&m, &b))), nil
}

// RegressModel is a Bayesian linear regression with noise sd sigma and a
// normal or spike-and-slab prior as an analysis model: the curvature
// bounds from XᵀX, and per coefficient its inclusion probability as a
// generated quantity (spike-and-slab). Its spike-and-slab posterior has a
// mode per undecided inclusion pattern, so the one-mode chain checks are
// off: the run is compared with the exact posterior instead.
func RegressModel(lr *models.LinReg, names []string, pr models.SlabPrior) Model {
	m := Model{Terms: lr, Names: names, NoChainChecks: true, Kernel: func(lambda float64) (exchange.Kernel, energy.Energy) {
		return lr.NewTemperedGibbs(lambda), lr.Power(lambda)
	}, KernelName: "gibbs", KernelAbout: func() string {
		return "George and McCulloch's Gibbs sampler: each inclusion indicator given β, then β from its Gaussian given them, no step size and no pass over the data"
	}}
	m.Curvature = func(uint64) (Curvature, error) {
		lmin, lmax, dist, err := regressCurvature(lr.X, lr.Y, lr.Len(), lr.Dim(), lr.Sigma, pr)
		return Curvature{Lmin: lmin, Lmax: lmax, Dist: dist, Note: fmt.Sprintf("λ_max ≤ λ_max(XᵀX)/σ² + (largest prior curvature) = %.4g over all β", lmax)}, err
	}
	if !pr.Normal() {
		for _, n := range names {
			m.Generated = append(m.Generated, results.InclusionCol(n))
		}
		m.Generate = func(out, theta []float64) {
			for j, b := range theta {
				out[j] = pr.Inclusion(b)
			}
		}
	}
	return m
}
