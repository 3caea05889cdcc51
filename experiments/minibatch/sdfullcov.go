package minibatch

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/target"
)

// runSmoothedCov runs corrected-sgld with its own loop (the exchange driver
// takes per-coordinate variances only): one chain at τ1 on the cold
// minibatch, injecting noise of covariance (2τη·I − η²Ĉ)⁺, where
// Ĉ = N(N − n)/n · S̄ and S̄ is the per-example gradient covariance averaged
// over the last window of Every draws (the first window uses the first
// draw). With full, Ĉ is the whole matrix and the positive part is taken on
// its eigenvalues; without, only its diagonal is used, which is the
// smoothed per-coordinate correction again (a check of this loop against
// the exchange driver's). Clamped counts are directions (full) or
// coordinates (diagonal) whose budget the gradient noise exceeds.
//
// It is a diagnosis, not a sampler: the factorisation once a window
// allocates, and the per-step covariance update costs O(np²).
func runSmoothedCov(pr Problem, ref Reference, full bool, seed uint64) (SDRun, error) {
	st := pr.Setting
	var res SDRun
	mb, err := target.NewMinibatch(pr.Terms, st.NCold)
	if err != nil {
		return res, err
	}
	mb.KeepRows()
	p, N := pr.Terms.Dim(), pr.Terms.Len()
	rng := rand.New(rand.NewPCG(seed, 0x5dc0))
	theta := append([]float64(nil), st.Init...)
	grad, z, mean, dev := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	sum := mat.NewSymDense(p, nil) // Σ over the window of the draws' sample covariances
	l := mat.NewDense(p, p, nil)   // injected noise = L z
	var (
		draws      int
		clampedNow int // clamped directions of the current L
		used       float64
		cs, cc     int64
		steps      int
	)
	f := target.FPC(N, st.NCold)
	eta, tau := st.Eta, st.Tau1
	budget := 2 * tau * eta
	refresh := func() error {
		c := mat.NewSymDense(p, nil)
		c.ScaleSym(eta*eta*f/float64(draws), sum)
		var err error
		clampedNow, err = injectFactor(l, c, budget, full)
		return err
	}
	acc := sdMoments{newMoments(ref)}
	for _, b := range st.Budgets {
		for used < b {
			mb.Grad(grad, nil, theta, rng)
			used += mb.GradCost()
			rows, n := mb.Rows()
			for j := range mean {
				mean[j] = 0
			}
			for i := 0; i < n; i++ {
				for j := 0; j < p; j++ {
					mean[j] += rows[i*p+j] / float64(n)
				}
			}
			w := 1 / float64(n-1)
			raw := sum.RawSymmetric().Data // upper triangle, row-major, stride p
			for i := 0; i < n; i++ {
				r := rows[i*p : (i+1)*p]
				for j := range dev {
					dev[j] = r[j] - mean[j]
				}
				for a, da := range dev {
					da *= w
					out := raw[a*p+a : a*p+p]
					for c, dc := range dev[a:] {
						out[c] += da * dc
					}
				}
			}
			draws++
			if steps == 0 || draws == st.Every {
				if err := refresh(); err != nil {
					return res, err
				}
				sum.Zero()
				draws = 0
			}
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			for i := 0; i < p; i++ {
				theta[i] -= eta * grad[i]
				row := l.RawRowView(i)
				for j, v := range z {
					theta[i] += row[j] * v
				}
				if math.IsNaN(theta[i]) || math.IsInf(theta[i], 0) {
					return res, fmt.Errorf("smoothed covariance, seed %d: coordinate %d not finite at step %d", seed, i, steps)
				}
			}
			steps++
			if clampedNow > 0 {
				cs++
				cc += int64(clampedNow)
			}
			if used > st.BurnCost {
				acc.Add(theta)
			}
		}
		sc := []float64{math.NaN(), math.NaN(), math.NaN()}
		if acc.n > 0 {
			acc.Score(sc)
		}
		res.Score = append(res.Score, sc)
	}
	if acc.n > 0 {
		res.Ratio = acc.ratio()
	}
	res.Steps = steps
	res.ClampStepsCold = float64(cs) / float64(steps)
	res.ClampCoordCold = float64(cc) / (float64(steps) * float64(p))
	return res, nil
}

// injectFactor writes into l a square root L (LLᵀ = M⁺) of the injected
// noise covariance M = budget·I − g, g the gradient noise's covariance η²Ĉ:
// with full, M⁺ clips M's negative eigenvalues to 0 and L = V diag(√λ⁺) Vᵀ;
// without, g's off-diagonal is ignored and L is diagonal. It returns the
// number of clipped eigenvalues (coordinates).
func injectFactor(l *mat.Dense, g *mat.SymDense, budget float64, full bool) (clamped int, err error) {
	p := g.SymmetricDim()
	l.Zero()
	if !full {
		for j := 0; j < p; j++ {
			if v := budget - g.At(j, j); v > 0 {
				l.Set(j, j, math.Sqrt(v))
			} else {
				clamped++
			}
		}
		return clamped, nil
	}
	m := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			v := -g.At(i, j)
			if i == j {
				v += budget
			}
			m.SetSym(i, j, v)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(m, true) {
		return 0, fmt.Errorf("smoothed covariance: eigen-decomposition did not converge")
	}
	vals := eig.Values(nil)
	var vecs, scale mat.Dense
	eig.VectorsTo(&vecs)
	scale.CloneFrom(&vecs)
	for k, v := range vals {
		s := 0.0
		if v > 0 {
			s = math.Sqrt(v)
		} else {
			clamped++
		}
		for i := 0; i < p; i++ {
			scale.Set(i, k, vecs.At(i, k)*s)
		}
	}
	l.Mul(&scale, vecs.T())
	return clamped, nil
}
