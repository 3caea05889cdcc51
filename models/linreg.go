package models

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
)

// LinReg is Bayesian linear regression with Gaussian noise of known sd σ:
// per example i with features x_i and response y_i,
//
//	U_i(β) = (y_i − x_i·β)²/(2σ²),   ∇U_i = d_i·x_i,  d_i = (x_i·β − y_i)/σ²,
//
// the negative log-likelihood without its constant, and U_0(β) the negative
// log of the prior, independent across coefficients: either normal,
// β_j ~ N(0, s1²), or the continuous spike-and-slab of George and McCulloch
// (1993, stochastic search variable selection),
//
//	β_j ~ w·N(0, s1²) + (1 − w)·N(0, s0²),
//
// a slab of sd s1 with weight w and a spike of sd s0 < s1 about zero. The
// spike-and-slab posterior is a mixture over the 2^p inclusion patterns
// (see Exact); normal is the case w = 1. There is no separate intercept: the
// command centres the features and the response, which removes it.
type LinReg struct {
	X     []float64 // N×p features, row-major
	Y     []float64 // N responses
	P     int
	Sigma float64   // noise sd σ
	Beta  SlabPrior // every coefficient's prior
	inv2  float64   // 1/σ²
}

// SlabPrior is the prior of every coefficient: with probability W a slab
// N(0, Slab²), else a spike N(0, Spike²). W = 1 is the normal prior
// N(0, Slab²), and Spike is then unused.
type SlabPrior struct {
	W, Spike, Slab float64
}

// Normal reports whether the prior is the plain normal N(0, Slab²).
func (s SlabPrior) Normal() bool { return s.W == 1 }

// Validate checks the prior's settings.
func (s SlabPrior) Validate() error {
	if !(s.W > 0 && s.W <= 1) {
		return fmt.Errorf("slab weight w = %v: must lie in (0, 1]", s.W)
	}
	if !(s.Slab > 0) || math.IsInf(s.Slab, 0) {
		return fmt.Errorf("slab sd s1 = %v: must be positive and finite", s.Slab)
	}
	if s.Normal() {
		return nil
	}
	if !(s.Spike > 0) || !(s.Spike < s.Slab) {
		return fmt.Errorf("spike sd s0 = %v: must be positive and below the slab sd s1 = %v", s.Spike, s.Slab)
	}
	return nil
}

// Inclusion is P(γ = 1 | β = b): the slab's share of the prior density at b,
// w·N(b; 0, s1²) / [w·N(b; 0, s1²) + (1 − w)·N(b; 0, s0²)], computed as a
// logistic function of the log ratio so that it neither overflows nor
// underflows to 0/0 far in the tails. Averaged over posterior draws of β_j
// it estimates the posterior inclusion probability P(γ_j = 1 | y)
// (Rao–Blackwellised: E[P(γ_j = 1 | β_j) | y] = P(γ_j = 1 | y)).
func (s SlabPrior) Inclusion(b float64) float64 {
	if s.Normal() {
		return 1
	}
	return sigmoid(s.logOdds(b))
}

// logOdds is log[w·N(b; 0, s1²)] − log[(1 − w)·N(b; 0, s0²)].
func (s SlabPrior) logOdds(b float64) float64 {
	return math.Log(s.W/(1-s.W)) + math.Log(s.Spike/s.Slab) + 0.5*b*b*(1/(s.Spike*s.Spike)-1/(s.Slab*s.Slab))
}

// energy returns −log p(b) (without the constant −log √(2π)) and its
// derivative: with r = Inclusion(b), d/db = b·[r/s1² + (1 − r)/s0²].
func (s SlabPrior) energy(b float64) (u, du float64) {
	a1 := 1 / (s.Slab * s.Slab)
	if s.Normal() {
		return 0.5 * a1 * b * b, a1 * b
	}
	a0 := 1 / (s.Spike * s.Spike)
	// log of each weighted component, then log-sum-exp.
	l1 := math.Log(s.W) - math.Log(s.Slab) - 0.5*a1*b*b
	l0 := math.Log1p(-s.W) - math.Log(s.Spike) - 0.5*a0*b*b
	m := math.Max(l1, l0)
	u = -(m + math.Log(math.Exp(l1-m)+math.Exp(l0-m)))
	r := sigmoid(l1 - l0)
	return u, b * (r*a1 + (1-r)*a0)
}

var (
	_ energy.Terms       = (*LinReg)(nil)
	_ energy.LinearTerms = (*LinReg)(nil)
	_ energy.Energy      = (*LinReg)(nil)
	_ energy.EnergyGrad  = (*LinReg)(nil)
	_ energy.Toucher     = (*LinReg)(nil)
)

// NewLinReg checks and wraps the data (not copied).
func NewLinReg(x, y []float64, p int, sigma float64, prior SlabPrior) (*LinReg, error) {
	if p < 1 {
		return nil, fmt.Errorf("linear regression: %d features", p)
	}
	if len(y) == 0 {
		return nil, fmt.Errorf("linear regression: no examples")
	}
	if len(x) != len(y)*p {
		return nil, fmt.Errorf("linear regression: %d feature values for %d examples of %d features", len(x), len(y), p)
	}
	if !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, fmt.Errorf("linear regression: noise sd σ = %v must be positive and finite", sigma)
	}
	if err := prior.Validate(); err != nil {
		return nil, fmt.Errorf("linear regression: %w", err)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linear regression: response of example %d is %v", i, v)
		}
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linear regression: feature %d of example %d is %v", k%p, k/p, v)
		}
	}
	return &LinReg{X: x, Y: y, P: p, Sigma: sigma, Beta: prior, inv2: 1 / (sigma * sigma)}, nil
}

func (l *LinReg) Dim() int { return l.P }

func (l *LinReg) Len() int { return len(l.Y) }

// Row is example i's features x_i.
func (l *LinReg) Row(i int) []float64 { return l.X[i*l.P : (i+1)*l.P] }

func (l *LinReg) Term(grad, theta []float64, i int) float64 {
	x := l.Row(i)
	r := dot(x, theta) - l.Y[i]
	if grad != nil {
		d := r * l.inv2
		grad = grad[:len(x)]
		for j, v := range x {
			grad[j] = d * v
		}
	}
	return 0.5 * r * r * l.inv2
}

// Slopes writes d_k = (x_i·β − y_i)/σ² for each listed example i = idx[k],
// bit for bit as Term computes them (dot4 sums in dot's order).
func (l *LinReg) Slopes(d, theta []float64, idx []int32) {
	theta = theta[:l.P]
	d = d[:len(idx)]
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		z0, z1, z2, z3 := dot4(l.Row(int(idx[k])), l.Row(int(idx[k+1])), l.Row(int(idx[k+2])), l.Row(int(idx[k+3])), theta)
		d[k] = (z0 - l.Y[idx[k]]) * l.inv2
		d[k+1] = (z1 - l.Y[idx[k+1]]) * l.inv2
		d[k+2] = (z2 - l.Y[idx[k+2]]) * l.inv2
		d[k+3] = (z3 - l.Y[idx[k+3]]) * l.inv2
	}
	for ; k < len(idx); k++ {
		i := int(idx[k])
		d[k] = (dot(l.Row(i), theta) - l.Y[i]) * l.inv2
	}
}

// Prior is U_0, the negative log prior summed over coefficients.
func (l *LinReg) Prior(grad, theta []float64) float64 { return l.priorEnergy(grad, theta) }

func (l *LinReg) priorEnergy(grad, theta []float64) float64 {
	var u float64
	for j, b := range theta {
		e, d := l.Beta.energy(b)
		u += e
		if grad != nil {
			grad[j] = d
		}
	}
	return u
}

// U is the full energy U_0 + Σ_i U_i: O(Np).
func (l *LinReg) U(theta []float64) float64 {
	u := l.Prior(nil, theta)
	for i := range l.Y {
		u += l.Term(nil, theta, i)
	}
	return u
}

// Grad writes the full gradient: O(Np), no allocation.
func (l *LinReg) Grad(grad, theta []float64) {
	l.Prior(grad, theta)
	for i := range l.Y {
		x := l.Row(i)
		d := (dot(x, theta) - l.Y[i]) * l.inv2
		for j, v := range x {
			grad[j] += d * v
		}
	}
}

// UGrad writes ∇U into grad and returns U in one pass over the data, each
// bit for bit as Grad and U compute them (the same sums in the same order).
func (l *LinReg) UGrad(grad, theta []float64) float64 {
	u := l.Prior(grad, theta)
	for i := range l.Y {
		x := l.Row(i)
		r := dot(x, theta) - l.Y[i]
		u += 0.5 * r * r * l.inv2
		d := r * l.inv2
		for j, v := range x {
			grad[j] += d * v
		}
	}
	return u
}

// Touch reads the response and the first and last feature of each listed
// example, as Logistic.Touch does (energy.Toucher).
func (l *LinReg) Touch(idx []int32) float64 {
	var s float64
	p := l.P
	for _, i := range idx {
		k := int(i) * p
		s += l.X[k] + l.X[k+p-1] + l.Y[i]
	}
	return s
}
