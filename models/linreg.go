package models

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

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
	Sigma float64       // noise sd σ
	Beta  SlabPrior     // every coefficient's prior
	inv2  float64       // 1/σ²
	prior slabConst     // Beta's constants
	xtx   *mat.SymDense // XᵀX/σ², made by the first Hessian or SumDiff
	xty   []float64     // Xᵀy/σ², made with xtx
	once  sync.Once
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

// slabConst are the prior's constants, computed once (NewLinReg): a step
// then pays one exp and one log1p per coefficient, not four logs as well.
type slabConst struct {
	normal bool
	a1, a0 float64 // 1/s1², 1/s0²
	c1, c0 float64 // log w − log s1, log(1 − w) − log s0
}

func (s SlabPrior) consts() slabConst {
	k := slabConst{normal: s.Normal(), a1: 1 / (s.Slab * s.Slab)}
	if !k.normal {
		k.a0 = 1 / (s.Spike * s.Spike)
		k.c1 = math.Log(s.W) - math.Log(s.Slab)
		k.c0 = math.Log1p(-s.W) - math.Log(s.Spike)
	}
	return k
}

// energy returns −log p(b) (without the constant −log √(2π)) and its
// derivative: with r = Inclusion(b), d/db = b·[r/s1² + (1 − r)/s0²].
// The log-sum-exp of the two weighted components l1 and l0 is
// max(l1, l0) + log1p(e^−|l1 − l0|), and r = σ(l1 − l0) from the same
// exponential.
func (k *slabConst) energy(b float64) (u, du float64) {
	if k.normal {
		return 0.5 * k.a1 * b * b, k.a1 * b
	}
	l1 := k.c1 - 0.5*k.a1*b*b
	l0 := k.c0 - 0.5*k.a0*b*b
	d := l1 - l0
	e := math.Exp(-math.Abs(d))
	r := 1 / (1 + e)
	if d < 0 {
		r = e / (1 + e)
	}
	return -(math.Max(l1, l0) + math.Log1p(e)), b * (k.a0 - r*(k.a0-k.a1))
}

// curvature is d²/db² of energy: with Δ = 1/s0² − 1/s1²,
// 1/s0² − rΔ − b²Δ²r(1 − r), negative between the spike and the slab,
// where the prior's log density is convex.
func (k *slabConst) curvature(b float64) float64 {
	if k.normal {
		return k.a1
	}
	dl := k.a0 - k.a1
	r := sigmoid(k.c1 - k.c0 + 0.5*b*b*dl)
	return k.a0 - r*dl - b*b*dl*dl*r*(1-r)
}

var (
	_ energy.Terms       = (*LinReg)(nil)
	_ energy.LinearTerms = (*LinReg)(nil)
	_ energy.Energy      = (*LinReg)(nil)
	_ energy.EnergyGrad  = (*LinReg)(nil)
	_ energy.Toucher     = (*LinReg)(nil)
	_ energy.DiffTerms   = (*LinReg)(nil)
)

// NewLinReg checks and wraps the data (not copied).
func NewLinReg(x, y []float64, p int, sigma float64, prior SlabPrior) (*LinReg, error) {
	if err := checkShape("linear regression", x, y, p); err != nil {
		return nil, err
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
	if err := checkFeatures("linear regression", x, p); err != nil {
		return nil, err
	}
	return &LinReg{X: x, Y: y, P: p, Sigma: sigma, Beta: prior, inv2: 1 / (sigma * sigma), prior: prior.consts()}, nil
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
		e, d := l.prior.energy(b)
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
// example (touchRows), as Logistic.Touch does (energy.Toucher).
func (l *LinReg) Touch(idx []int32) float64 { return touchRows(l.X, l.Y, l.P, idx) }

// Hessian writes ∇²U(β) into h: XᵀX/σ² (computed once) plus the prior's
// curvature on the diagonal.
func (l *LinReg) Hessian(h *mat.SymDense, theta []float64) {
	l.gram()
	h.CopySym(l.xtx)
	for j, b := range theta {
		h.SetSym(j, j, h.At(j, j)+l.prior.curvature(b))
	}
}

// gram computes XᵀX/σ² and Xᵀy/σ² once.
func (l *LinReg) gram() {
	l.once.Do(func() {
		l.xtx = mat.NewSymDense(l.P, nil)
		l.xtx.SymOuterK(l.inv2, mat.NewDense(len(l.Y), l.P, l.X).T())
		l.xty = make([]float64, l.P)
		for i, y := range l.Y {
			for j, v := range l.Row(i) {
				l.xty[j] += v * y
			}
		}
		for j := range l.xty {
			l.xty[j] *= l.inv2
		}
	})
}
