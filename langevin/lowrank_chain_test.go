package langevin_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/meanvar"
	"github.com/fresgld/fresgld/langevin"
)

// corrTerms is U_i(θ) = ½|θ − x_i|² in 2-D with x_i strongly correlated
// across coordinates: the per-example gradients θ − x_i have a covariance
// that does not depend on θ, with large off-diagonal entries.
type corrTerms struct{ x [][2]float64 }

func (c corrTerms) Dim() int { return 2 }
func (c corrTerms) Len() int { return len(c.x) }
func (c corrTerms) Term(grad, theta []float64, i int) float64 {
	d0, d1 := theta[0]-c.x[i][0], theta[1]-c.x[i][1]
	if grad != nil {
		grad[0], grad[1] = d0, d1
	}
	return 0.5 * (d0*d0 + d1*d1)
}
func (c corrTerms) Prior(grad, _ []float64) float64 {
	if grad != nil {
		grad[0], grad[1] = 0, 0
	}
	return 0
}

// TestLowRankChain compares the diagonal and the low-rank corrections on a
// chain whose gradient noise is strongly correlated across coordinates. The
// chain is θ' − x̄ = (1 − a)(θ − x̄) + noise with a = ηN and one-step noise
// covariance Q, so its stationary covariance is Q/(a(2 − a)). The diagonal
// correction injects 2τη − η²V_jj per coordinate, so Q = 2τη·I + η²·offdiag(V),
// V the gradient noise covariance: the chain acquires a correlation the
// posterior N(x̄, τ/N·I) does not have. The low-rank correction gives
// Q = 2τη·I. The top direction's share of the budget is 0.25, so that even
// the per-draw estimates (19 degrees of freedom) never exceed the budget and
// neither correction clips. The test checks each chain's covariance against its prediction,
// within 4.5 standard errors of batch means (20 batches of 10,000 steps,
// about 50 times the relaxation time 1/a ≈ 190 steps), and logs both against
// the exact posterior.
func TestLowRankChain(t *testing.T) {
	const N, n, tau, steps, burn, batch = 1000, 20, 1.0, 202_000, 2000, 10_000
	rng := rand.New(rand.NewPCG(5, 6))
	ct := corrTerms{x: make([][2]float64, N)}
	var mean [2]float64
	for i := range ct.x {
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		ct.x[i] = [2]float64{z0, 0.95*z0 + math.Sqrt(1-0.95*0.95)*z1}
		mean[0] += ct.x[i][0] / N
		mean[1] += ct.x[i][1] / N
	}
	var S [2][2]float64 // population covariance, divisor N − 1
	for _, x := range ct.x {
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				S[a][b] += (x[a] - mean[a]) * (x[b] - mean[b]) / (N - 1)
			}
		}
	}
	f := energy.FPC(N, n)
	top := 0.5 * (S[0][0] + S[1][1] + math.Hypot(S[0][0]-S[1][1], 2*S[0][1]))
	eta := 0.25 * 2 * tau / (f * top) // the top direction's share is 0.25
	a := eta * N
	for _, lowRank := range []bool{false, true} {
		mb, _ := energy.NewMinibatch(ct, n)
		mb.KeepRows()
		var lr langevin.LowRank
		srng := rand.New(rand.NewPCG(7, 8))
		theta := []float64{mean[0], mean[1]}
		grad, gv, noise := make([]float64, 2), make([]float64, 2), make([]float64, 2)
		var acc [3]float64
		var means [3][]float64
		for k := 0; k < steps; k++ {
			mb.Grad(grad, gv, theta, srng)
			if lowRank {
				rows, m := mb.Rows()
				if c := lr.Noise(noise, rows, m, f, eta, tau, srng); c != 0 {
					t.Fatalf("step %d: %d clipped directions at share 0.25", k, c)
				}
				for j := range theta {
					theta[j] += -eta*grad[j] + noise[j]
				}
			} else if c, _ := langevin.Step(theta, grad, gv, noise, eta, tau, langevin.Corrected, srng); c != 0 {
				t.Fatalf("step %d: %d clamped coordinates", k, c)
			}
			if k < burn {
				continue
			}
			d0, d1 := theta[0]-mean[0], theta[1]-mean[1]
			acc[0] += d0 * d0
			acc[1] += d1 * d1
			acc[2] += d0 * d1
			if (k-burn+1)%batch == 0 {
				for e := range acc {
					means[e] = append(means[e], acc[e]/batch)
					acc[e] = 0
				}
			}
		}
		base := 2 * tau * eta / (a * (2 - a))
		want := [3]float64{base, base, 0}
		if !lowRank {
			want[2] = eta * eta * f * S[0][1] / (a * (2 - a))
		}
		post := tau / N
		var frob float64
		for e, name := range []string{"var θ0", "var θ1", "cov θ0θ1"} {
			got, se := meanvar.MeanSE(means[e])
			if !(math.Abs(got-want[e]) <= 4.5*se) {
				t.Errorf("low-rank %v: %s = %v ± %v, predicted %v", lowRank, name, got, se, want[e])
			}
			d := got - post
			if e == 2 {
				d = got
				frob += d * d // the off-diagonal entry appears twice
			}
			frob += d * d
		}
		t.Logf("low-rank %v: chain covariance error vs the posterior τ/N·I: %.1f%% (Frobenius, relative); correlation %.3f", lowRank, 100*math.Sqrt(frob)/(post*math.Sqrt2), mean3(means[2])/math.Sqrt(mean3(means[0])*mean3(means[1])))
	}
}

func mean3(x []float64) float64 {
	m, _ := meanvar.MeanSE(x)
	return m
}
