// Package models holds the targets of the paper's experiments and of the
// project's studies, each with its exact answer where one exists.
package models

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
)

// Mixture is a one-dimensional Gaussian mixture, exp(−U(θ)) = Σ_k w_k N(θ; μ_k, s_k²).
//
// NewMixture (and PaperMixture) precompute each component's constant
// log w_k − log s_k − ½ log 2π once; U and Grad then cost two exponentials
// (and U one log) per call for two components, instead of a dozen logs. A
// Mixture written as a literal, or whose weights or sds were changed after
// NewMixture, is still exact: a component whose weight or sd no longer
// matches its precomputed constant has it recomputed on every call.
type Mixture struct {
	Weights, Means, SDs []float64

	c []mixConst // per component, from NewMixture
}

// mixConst is a component's constant and the weight and sd it was computed
// from, so that a stale constant is never used.
type mixConst struct{ w, s, logc float64 }

var _ energy.Energy = Mixture{}

// NewMixture checks the mixture (see Validate) and precomputes its
// components' constants. The slices are not copied.
func NewMixture(weights, means, sds []float64) (Mixture, error) {
	m := Mixture{Weights: weights, Means: means, SDs: sds}
	if err := m.Validate(); err != nil {
		return Mixture{}, err
	}
	m.c = make([]mixConst, len(weights))
	for k, w := range weights {
		m.c[k] = mixConst{w: w, s: sds[k], logc: logConst(w, sds[k])}
	}
	return m, nil
}

// logConst is log w − log s − ½ log 2π, summed in this order (the order
// every published run used).
func logConst(w, s float64) float64 {
	return math.Log(w) - math.Log(s) - 0.5*math.Log(2*math.Pi)
}

// PaperMixture is the paper's §5.1 target: 0.4 N(−4, 0.7²) + 0.6 N(3, 0.5²).
func PaperMixture() Mixture {
	m, err := NewMixture([]float64{0.4, 0.6}, []float64{-4, 3}, []float64{0.7, 0.5})
	if err != nil {
		panic(err) // the constants above are valid
	}
	return m
}

// Validate checks that the mixture is a probability density.
func (m Mixture) Validate() error {
	if len(m.Weights) == 0 || len(m.Means) != len(m.Weights) || len(m.SDs) != len(m.Weights) {
		return fmt.Errorf("mixture: %d weights, %d means, %d sds: need equal, non-zero counts", len(m.Weights), len(m.Means), len(m.SDs))
	}
	var tot float64
	for k, w := range m.Weights {
		if !(w > 0) || !(m.SDs[k] > 0) || math.IsInf(m.Means[k], 0) || math.IsNaN(m.Means[k]) {
			return fmt.Errorf("mixture component %d: weight %v, mean %v, sd %v: need weight > 0, sd > 0, finite mean", k, w, m.Means[k], m.SDs[k])
		}
		tot += w
	}
	if math.Abs(tot-1) > 1e-9 {
		return fmt.Errorf("mixture weights sum to %v, not 1", tot)
	}
	return nil
}

func (Mixture) Dim() int { return 1 }

// maxTerms bounds the components whose log-terms are kept on the stack
// between the two passes of the log-sum-exp; more are computed twice.
const maxTerms = 16

// tiny is a log-ratio below which exp(tiny) < 2⁻⁵³ (= 1.1e-16; 53 ln 2 = 36.7).
const tiny = -37.0

// logTerms returns the largest log-term and Σ exp(term − max), for a stable
// log-sum-exp; with grad it also returns Σ exp(term − max)·(θ − μ_k)/s_k².
// mx is −Inf when every term underflows to −Inf (|θ − μ_k|/s_k so large
// that its square overflows); sum and dsum are then meaningless.
func (m Mixture) logTerms(x float64, grad bool) (mx, sum, dsum float64) {
	var buf [maxTerms]float64
	K := len(m.Weights)
	mx = math.Inf(-1)
	for k := range K {
		t := m.logTerm(k, x)
		if k < maxTerms {
			buf[k] = t
		}
		if t > mx {
			mx = t
		}
	}
	if math.IsInf(mx, -1) {
		return mx, 0, 0
	}
	if !grad && K <= maxTerms {
		// Where every other term lies below the largest by more than
		// 37 + log K, each exp(term − max) is below 2⁻⁵³/K: added in any
		// order, with 1 among them, they round to exactly 1, so the sum is
		// 1 without an exponential (the gradient's sum, whose terms are
		// not dwarfed by a 1, always takes them). Two terms that tie for the
		// largest sum to 2, so the shortcut needs a single largest.
		small, top := true, 0
		for k := range K {
			d := buf[k] - mx
			if d == 0 {
				top++
			} else if !(d < tiny-math.Log(float64(K))) {
				small = false
				break
			}
		}
		if small && top == 1 {
			return mx, 1, 0
		}
	}
	for k := range K {
		t := buf[k%maxTerms]
		if k >= maxTerms {
			t = m.logTerm(k, x)
		}
		e := 1.0 // exp(0) exactly: the largest term needs no exponential
		if d := t - mx; d != 0 {
			e = math.Exp(d)
		}
		sum += e
		if grad {
			dsum += e * (x - m.Means[k]) / (m.SDs[k] * m.SDs[k])
		}
	}
	return mx, sum, dsum
}

func (m Mixture) logTerm(k int, x float64) float64 {
	z := (x - m.Means[k]) / m.SDs[k]
	var c float64
	if k < len(m.c) && m.c[k].w == m.Weights[k] && m.c[k].s == m.SDs[k] {
		c = m.c[k].logc
	} else {
		c = logConst(m.Weights[k], m.SDs[k])
	}
	return c - 0.5*z*z
}

// widest is the component with the largest sd (the first of equals): the
// one that dominates the density far from every mode.
func (m Mixture) widest() int {
	w := 0
	for k, s := range m.SDs {
		if s > m.SDs[w] {
			w = k
		}
	}
	return w
}

// U is −log of the mixture density: +Inf where every component's density
// underflows (|θ| beyond about 10¹⁵⁴ times the sds), NaN at θ = NaN.
func (m Mixture) U(theta []float64) float64 {
	x := theta[0]
	mx, sum, _ := m.logTerms(x, false)
	if math.IsInf(mx, -1) {
		if math.IsNaN(x) {
			return x
		}
		return math.Inf(1)
	}
	if sum == 1 {
		return -(mx + 0) // log 1 = 0 exactly, and the same signed zero
	}
	return -(mx + math.Log(sum))
}

// Grad writes U'(θ) = Σ_k r_k (θ − μ_k)/s_k², r_k the responsibilities. Where
// every component's density underflows, the responsibilities are those of
// the limit: 1 for the widest component.
func (m Mixture) Grad(grad, theta []float64) {
	x := theta[0]
	mx, sum, dsum := m.logTerms(x, true)
	if math.IsInf(mx, -1) { // (a NaN θ gives NaN here too)
		k := m.widest()
		grad[0] = (x - m.Means[k]) / (m.SDs[k] * m.SDs[k])
		return
	}
	grad[0] = dsum / sum
}

// Density is the mixture density exp(−U(x)).
func (m Mixture) Density(x float64) float64 { return math.Exp(-m.U([]float64{x})) }
