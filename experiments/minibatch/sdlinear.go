package minibatch

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
)

// LinearNoise names a noise policy of a constant-step chain on a size-n
// minibatch, for the linear prediction of LinearSD.
type LinearNoise string

const (
	// ExactNoise: the full gradient and injected noise 2τη: only the
	// discretisation biases the variance.
	ExactNoise LinearNoise = "full gradient (2τη injected)"
	// SGLDNoise: minibatch gradient noise η²C on top of 2τη injected.
	SGLDNoise LinearNoise = "sgld (2τη + η²C)"
	// DiagCorrectedNoise: f-reSGLD's correction with the exact variances,
	// injected max(0, 2τη − η²C_jj) per coordinate: the diagonal of the
	// total noise is 2τη (where unclamped), its off-diagonal is η²C's.
	DiagCorrectedNoise LinearNoise = "corrected, exact diagonal (2τη·I + η²(C − diag C))"
)

// LinearNoises are the policies LinearSD predicts, in order.
var LinearNoises = []LinearNoise{ExactNoise, SGLDNoise, DiagCorrectedNoise}

// LinearPrediction is the stationary sd of each coordinate of the
// linearised chain relative to the Laplace sd √(τ(H⁻¹)_jj).
type LinearPrediction struct {
	Noise LinearNoise
	// Ratio[j] = sd_j / √(τ(H⁻¹)_jj); RMS and Mean summarise Ratio − 1.
	Ratio     []float64
	RMS, Mean float64
	// Clamped counts coordinates where η²C_jj > 2τη (DiagCorrectedNoise).
	Clamped int
}

// LinearSD predicts the per-coordinate bias of the stationary sds of a
// chain θ' = θ − η∇U(θ) + ε on the Gaussian (Laplace) approximation of the
// posterior of t at its mode m: ∇U(θ) ≈ H(θ − m), so the stationary
// covariance solves the discrete Lyapunov equation V = AVAᵀ + Σ with
// A = I − ηH and Σ = Cov ε. The minibatch gradient noise has covariance
// C = N(N − n)/n · S, S the population covariance of the per-example
// gradients at m (the exact covariance of a size-n draw without
// replacement). It isolates what the noise structure alone does to the sds,
// free of Monte Carlo error and of the per-draw variance estimate's scatter.
func LinearSD(t energy.Terms, m []float64, eta, tau float64, n int) ([]LinearPrediction, error) {
	p, N := t.Dim(), t.Len()
	if len(m) != p {
		return nil, fmt.Errorf("linear sd: mode of dimension %d for a %d-dimensional problem", len(m), p)
	}
	if n < 1 || n > N {
		return nil, fmt.Errorf("linear sd: minibatch size %d outside [1, N = %d]", n, N)
	}
	h := mala.Hessian(termsEnergy{Terms: t, g: make([]float64, p)}, m)
	var hinv mat.Dense
	if err := hinv.Inverse(h); err != nil {
		return nil, fmt.Errorf("linear sd: Hessian at the mode: %w", err)
	}
	// S: population covariance (divisor N − 1, as the minibatch's spread).
	g := mat.NewDense(N, p, nil)
	row := make([]float64, p)
	mean := make([]float64, p)
	for i := 0; i < N; i++ {
		t.Term(row, m, i)
		g.SetRow(i, row)
		for j, v := range row {
			mean[j] += v / float64(N)
		}
	}
	for i := 0; i < N; i++ {
		for j := 0; j < p; j++ {
			g.Set(i, j, g.At(i, j)-mean[j])
		}
	}
	var c mat.Dense
	c.Mul(g.T(), g)
	c.Scale(energy.FPC(N, n)/float64(N-1), &c)

	a := mat.NewDense(p, p, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			a.Set(i, j, -eta*h.At(i, j))
		}
		a.Set(i, i, 1+a.At(i, i))
	}
	var out []LinearPrediction
	for _, pol := range LinearNoises {
		sig := mat.NewDense(p, p, nil)
		clamped := 0
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				switch pol {
				case SGLDNoise:
					sig.Set(i, j, eta*eta*c.At(i, j))
				case DiagCorrectedNoise:
					if i != j {
						sig.Set(i, j, eta*eta*c.At(i, j))
					}
				}
			}
			inj := 2 * tau * eta
			if pol == DiagCorrectedNoise {
				inj = math.Max(0, inj-eta*eta*c.At(i, i))
				if inj == 0 {
					clamped++
				}
				inj += eta * eta * c.At(i, i)
			}
			sig.Set(i, i, sig.At(i, i)+inj)
		}
		v, err := lyapunov(a, sig)
		if err != nil {
			return nil, err
		}
		lp := LinearPrediction{Noise: pol, Ratio: make([]float64, p), Clamped: clamped}
		for j := 0; j < p; j++ {
			r := math.Sqrt(v.At(j, j) / (tau * hinv.At(j, j)))
			lp.Ratio[j] = r
			lp.RMS += (r - 1) * (r - 1) / float64(p)
			lp.Mean += (r - 1) / float64(p)
		}
		lp.RMS = math.Sqrt(lp.RMS)
		out = append(out, lp)
	}
	return out, nil
}

// lyapunov solves V = AVAᵀ + Σ by Smith's doubling, V = Σ_k A^k Σ (Aᵀ)^k,
// summing 2^i terms at iteration i; it needs the spectral radius of A
// below 1 (0 < ηλ < 2 for every eigenvalue λ of H).
func lyapunov(a, sig *mat.Dense) (*mat.Dense, error) {
	v := mat.DenseCopyOf(sig)
	m := mat.DenseCopyOf(a)
	var t, mv mat.Dense
	for it := 0; it < 64; it++ {
		t.Mul(m, v)
		mv.Mul(&t, m.T())
		v.Add(v, &mv)
		if nv := mat.Norm(v, math.Inf(1)); math.IsInf(nv, 0) || math.IsNaN(nv) {
			break
		}
		if mat.Norm(&mv, math.Inf(1)) <= 1e-15*mat.Norm(v, math.Inf(1)) {
			return v, nil
		}
		t.Mul(m, m)
		m.Copy(&t)
	}
	return nil, fmt.Errorf("linear sd: the Lyapunov iteration did not converge (is ηλ_max < 2?)")
}
