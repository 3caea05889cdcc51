package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/energy"
)

// Logistic is Bayesian logistic regression with a Gaussian prior
// θ ~ N(0, σ₀² I): per example i with features x_i and label y_i ∈ {0, 1},
//
//	U_i(θ) = log(1 + e^{z_i}) − y_i z_i,  z_i = x_i·θ,   ∇U_i = (σ(z_i) − y_i) x_i,
//
// the negative log-likelihood, and U_0(θ) = |θ|²/(2σ₀²) (constants dropped).
// There is no separate intercept: add a column of ones to the features.
//
// NewSlabLogistic gives every coefficient but the intercept the
// spike-and-slab prior of George and McCulloch instead (LinReg's,
// w·N(0, s1²) + (1 − w)·N(0, s0²)); the intercept keeps N(0, σ₀²), since
// shrinking it towards 0 would only say that the classes are balanced. That
// posterior is not log-concave: it has a mode per inclusion pattern the
// data leave undecided (SlabExact is its reference answer).
type Logistic struct {
	X      []float64 // N×p features, row-major: x_i = X[i*P : (i+1)*P]
	Y      []float64 // N labels, each 0 or 1
	P      int
	Sigma0 float64 // prior standard deviation σ₀ (the intercept's under Slab)
	// Slab is the coefficients' spike-and-slab prior (the zero value under
	// the normal prior); Intercept is the coefficient it leaves under
	// N(0, σ₀²) (−1: none).
	Slab      SlabPrior
	Intercept int
	slab      *slabConst // Slab's constants; nil: the normal prior
}

var (
	_ energy.Terms       = (*Logistic)(nil)
	_ energy.LinearTerms = (*Logistic)(nil)
	_ energy.Energy      = (*Logistic)(nil)
)

// NewLogistic checks and wraps the data (not copied).
func NewLogistic(x, y []float64, p int, sigma0 float64) (*Logistic, error) {
	if err := checkShape("logistic regression", x, y, p); err != nil {
		return nil, err
	}
	if !(sigma0 > 0) || math.IsInf(sigma0, 0) {
		return nil, fmt.Errorf("logistic regression: prior sd σ₀ = %v must be positive and finite", sigma0)
	}
	for i, v := range y {
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("logistic regression: label of example %d is %v, not 0 or 1", i, v)
		}
	}
	if err := checkFeatures("logistic regression", x, p); err != nil {
		return nil, err
	}
	return &Logistic{X: x, Y: y, P: p, Sigma0: sigma0, Intercept: -1}, nil
}

// NewSlabLogistic is NewLogistic with the spike-and-slab prior pr on every
// coefficient but intercept (−1: on every one), which keeps N(0, σ₀²).
func NewSlabLogistic(x, y []float64, p int, sigma0 float64, pr SlabPrior, intercept int) (*Logistic, error) {
	l, err := NewLogistic(x, y, p, sigma0)
	if err != nil {
		return nil, err
	}
	if err := pr.Validate(); err != nil {
		return nil, fmt.Errorf("logistic regression: %w", err)
	}
	if pr.Normal() {
		return nil, fmt.Errorf("logistic regression: slab weight w = 1 is the normal prior, not a spike-and-slab (use NewLogistic)")
	}
	if intercept < -1 || intercept >= p {
		return nil, fmt.Errorf("logistic regression: intercept coefficient %d of %d", intercept, p)
	}
	k := pr.consts()
	l.Slab, l.Intercept, l.slab = pr, intercept, &k
	return l, nil
}

// SpikeSlab reports whether the coefficients have the spike-and-slab prior.
func (l *Logistic) SpikeSlab() bool { return l.slab != nil }

// Included is P(γ_j = 1 | θ_j) for each coefficient (SlabPrior.Inclusion),
// written into out; the intercept's is 1 (it is never in a spike).
func (l *Logistic) Included(out, theta []float64) {
	for j, b := range theta {
		if j == l.Intercept || l.slab == nil {
			out[j] = 1
			continue
		}
		out[j] = l.Slab.Inclusion(b)
	}
}

func (l *Logistic) Dim() int { return l.P }

func (l *Logistic) Len() int { return len(l.Y) }

// logit returns r = log(1 + e^{−|z|}) and σ(z) = 1/(1 + e^{−z}), which share
// one exponential. Then log(1 + e^z) = max(z, 0) + r without overflow, and
// log(1 + e^{−z}) = max(−z, 0) + r without cancellation.
func logit(z float64) (r, sig float64) {
	e := math.Exp(-math.Abs(z)) // in (0, 1]
	r = math.Log1p(e)
	if z >= 0 {
		sig = 1 / (1 + e)
	} else {
		sig = e / (1 + e)
	}
	return r, sig
}

// sigmoid is logit's σ(z) alone, computed the same way, without the log.
func sigmoid(z float64) float64 {
	e := math.Exp(-math.Abs(z))
	if z >= 0 {
		return 1 / (1 + e)
	}
	return e / (1 + e)
}

func dot(x, y []float64) float64 {
	var s float64
	for j, v := range x {
		s += v * y[j]
	}
	return s
}

func (l *Logistic) Term(grad, theta []float64, i int) float64 {
	x := l.X[i*l.P : (i+1)*l.P]
	z := dot(x, theta)
	y := l.Y[i]
	r, sig := logit(z)
	if grad != nil {
		d := sig - y
		grad = grad[:len(x)]
		for j, v := range x {
			grad[j] = d * v
		}
	}
	if y == 1 {
		return math.Max(-z, 0) + r // log(1 + e^z) − z = log(1 + e^{−z})
	}
	return math.Max(z, 0) + r
}

// Row is example i's features x_i: ∇U_i = (σ(x_i·θ) − y_i)·x_i.
func (l *Logistic) Row(i int) []float64 { return l.X[i*l.P : (i+1)*l.P] }

// Slopes writes d_k = σ(x_i·θ) − y_i for each listed example i = idx[k],
// without the energies. Four rows' dot products run side by side, each
// summed in the order of dot, so that d_k is bit for bit Term's.
func (l *Logistic) Slopes(d, theta []float64, idx []int32) {
	p := l.P
	theta = theta[:p]
	d = d[:len(idx)]
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		z0, z1, z2, z3 := dot4(l.Row(int(idx[k])), l.Row(int(idx[k+1])), l.Row(int(idx[k+2])), l.Row(int(idx[k+3])), theta)
		d[k] = sigmoid(z0) - l.Y[idx[k]]
		d[k+1] = sigmoid(z1) - l.Y[idx[k+1]]
		d[k+2] = sigmoid(z2) - l.Y[idx[k+2]]
		d[k+3] = sigmoid(z3) - l.Y[idx[k+3]]
	}
	for ; k < len(idx); k++ {
		i := int(idx[k])
		d[k] = sigmoid(dot(l.Row(i), theta)) - l.Y[i]
	}
}

// dot4 is dot of four rows with y, side by side: four independent chains
// of additions instead of one, each in dot's order.
func dot4(a, b, c, e, y []float64) (sa, sb, sc, se float64) {
	y = y[:len(a)]
	b, c, e = b[:len(a)], c[:len(a)], e[:len(a)]
	for j, v := range a {
		t := y[j]
		sa += v * t
		sb += b[j] * t
		sc += c[j] * t
		se += e[j] * t
	}
	return sa, sb, sc, se
}

func (l *Logistic) Prior(grad, theta []float64) float64 {
	if l.slab != nil {
		return l.slabPrior(grad, theta)
	}
	w := 1 / (l.Sigma0 * l.Sigma0)
	if grad != nil {
		for j, t := range theta {
			grad[j] = w * t
		}
	}
	return 0.5 * w * dot(theta, theta)
}

// slabPrior is Prior under the spike-and-slab: each coefficient's
// slabConst.energy, the intercept's the normal one. It allocates nothing.
func (l *Logistic) slabPrior(grad, theta []float64) float64 {
	var u float64
	for j, b := range theta {
		e, d := l.coefPrior(j, b)
		u += e
		if grad != nil {
			grad[j] = d
		}
	}
	return u
}

// priorCurvature is d²U_0/dθ_j² at θ_j = b.
func (l *Logistic) priorCurvature(j int, b float64) float64 {
	if l.slab == nil || j == l.Intercept {
		return 1 / (l.Sigma0 * l.Sigma0)
	}
	return l.slab.curvature(b)
}

// maxPriorCurvature bounds d²U_0/dθ_j² over every θ and j: 1/σ₀², or the
// spike's 1/s0² where it is sharper (the mixture's curvature lies between
// the components' precisions less a negative term, so it is at most the
// larger precision).
func (l *Logistic) maxPriorCurvature() float64 {
	c := 1 / (l.Sigma0 * l.Sigma0)
	if l.slab != nil {
		c = max(c, l.slab.a0, l.slab.a1)
	}
	return c
}

// U is the full energy U_0 + Σ_i U_i: O(Np).
func (l *Logistic) U(theta []float64) float64 {
	return l.Prior(nil, theta) + l.pass(nil, theta, true)
}

// Grad writes the full gradient: O(Np), no allocation.
func (l *Logistic) Grad(grad, theta []float64) {
	l.Prior(grad, theta)
	l.pass(grad, theta, false)
}

// UGrad writes the full gradient into grad and returns the full energy, in
// one pass over the data: each example's x_i·θ and exponential serve both,
// where U and Grad would take them twice. Each value is bit for bit U's and
// Grad's (the same operations in the same order).
func (l *Logistic) UGrad(grad, theta []float64) float64 {
	u := l.Prior(grad, theta)
	return u + l.pass(grad, theta, true)
}

// EnergyOn is Σ_{i∈rows} U_i(θ), the likelihood part of the energy on the
// listed examples, four rows at a time as pass takes them: lp__ on a fixed
// subset of large data (each value equals the sum of Term over rows, to
// rounding).
func (l *Logistic) EnergyOn(theta []float64, rows []int32) float64 {
	theta = theta[:l.P]
	var u float64
	add := func(z, y float64) {
		r, _ := logit(z)
		if y == 1 {
			u += math.Max(-z, 0) + r
		} else {
			u += math.Max(z, 0) + r
		}
	}
	k := 0
	for ; k+4 <= len(rows); k += 4 {
		i0, i1, i2, i3 := int(rows[k]), int(rows[k+1]), int(rows[k+2]), int(rows[k+3])
		z0, z1, z2, z3 := dot4(l.Row(i0), l.Row(i1), l.Row(i2), l.Row(i3), theta)
		add(z0, l.Y[i0])
		add(z1, l.Y[i1])
		add(z2, l.Y[i2])
		add(z3, l.Y[i3])
	}
	for ; k < len(rows); k++ {
		i := int(rows[k])
		add(dot(l.Row(i), theta), l.Y[i])
	}
	return u
}

// pass is a full pass over the data: it adds Σ_i ∇U_i(θ) into grad unless
// grad is nil, and returns Σ_i U_i(θ) when energy is set (else 0). It takes
// four rows at a time, as Slopes does: one load of θ_j serves four dot
// products and one update of grad_j four examples, which makes a full
// pass (MALA's step) about twice as fast as row by row.
func (l *Logistic) pass(grad, theta []float64, energy bool) float64 {
	p, N := l.P, len(l.Y)
	theta = theta[:p]
	if grad != nil {
		grad = grad[:p]
	}
	var u float64
	term := func(z, y float64) float64 {
		r, sig := logit(z)
		if energy {
			if y == 1 {
				u += math.Max(-z, 0) + r
			} else {
				u += math.Max(z, 0) + r
			}
		}
		return sig - y
	}
	i := 0
	for ; i+4 <= N; i += 4 {
		x0, x1, x2, x3 := l.Row(i), l.Row(i+1), l.Row(i+2), l.Row(i+3)
		z0, z1, z2, z3 := dot4(x0, x1, x2, x3, theta)
		if grad == nil {
			for k, z := range [4]float64{z0, z1, z2, z3} {
				term(z, l.Y[i+k])
			}
			continue
		}
		d0, d1, d2, d3 := term(z0, l.Y[i]), term(z1, l.Y[i+1]), term(z2, l.Y[i+2]), term(z3, l.Y[i+3])
		x1, x2, x3 = x1[:p], x2[:p], x3[:p]
		for j, v := range x0[:p] {
			grad[j] += d0*v + d1*x1[j] + d2*x2[j] + d3*x3[j]
		}
	}
	for ; i < N; i++ {
		x := l.Row(i)
		d := term(dot(x, theta), l.Y[i])
		if grad != nil {
			for j, v := range x {
				grad[j] += d * v
			}
		}
	}
	return u
}

var _ energy.EnergyGrad = (*Logistic)(nil)

// NewFeatures allocates a zeroed feature matrix of n values for a Logistic,
// backed by transparent huge pages where the system allows: minibatches read
// rows at random over the whole matrix, and huge pages spare most of the TLB
// misses that costs. Fill it before use.
func NewFeatures(n int) []float64 {
	x := make([]float64, n)
	adviseHuge(x)
	return x
}

// MaxSyntheticValues bounds N·p for SyntheticLogistic (800 MB of features).
const MaxSyntheticValues = 100_000_000

// SyntheticLogistic draws a data set of N examples with p standard normal
// features from a logistic model with a known parameter, and returns the
// model (prior sd sigma0) and that true parameter θ*.
//
// Everything comes from one PCG(seed, 0) stream, in this order: θ*_j ~
// N(0, 4/p) for j < p, so that the true logit x·θ* has standard deviation
// about 2 (informative features, yet classes that overlap); then for each
// example its p features x_ij ~ N(0, 1) and its label y_i ~ Bernoulli(σ(x_i·θ*)).
func SyntheticLogistic(N, p int, sigma0 float64, seed uint64) (*Logistic, []float64, error) {
	if N < 1 || p < 1 {
		return nil, nil, fmt.Errorf("synthetic logistic regression: N = %d examples and p = %d features must both be positive", N, p)
	}
	if N > MaxSyntheticValues/p {
		return nil, nil, fmt.Errorf("synthetic logistic regression: N·p = %d·%d exceeds %d feature values", N, p, MaxSyntheticValues)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	truth := make([]float64, p)
	sd := 2 / math.Sqrt(float64(p))
	for j := range truth {
		truth[j] = sd * rng.NormFloat64()
	}
	x := NewFeatures(N * p)
	y := make([]float64, N)
	for i := range y {
		row := x[i*p : (i+1)*p]
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		if _, sig := logit(dot(row, truth)); rng.Float64() < sig {
			y[i] = 1
		}
	}
	l, err := NewLogistic(x, y, p, sigma0)
	return l, truth, err
}

// Touch reads the label and the first and last feature of each listed
// example (touchRows), so that the minibatch's data start arriving from
// memory together (energy.Toucher).
func (l *Logistic) Touch(idx []int32) float64 { return touchRows(l.X, l.Y, l.P, idx) }

// Derivs returns f_i(z) = log(1 + e^z) − y_i z and its first two
// derivatives, σ(z) − y_i and σ(z)(1 − σ(z)) (energy.CubicTerms).
func (l *Logistic) Derivs(i int, z float64) (f, f1, f2 float64) {
	r, sig := logit(z)
	if l.Y[i] == 1 {
		f = math.Max(-z, 0) + r
	} else {
		f = math.Max(z, 0) + r
	}
	return f, sig - l.Y[i], sig * (1 - sig)
}

// ThirdBound is sup |σ(1 − σ)(1 − 2σ)| = 1/(6√3), reached at
// σ = (3 ∓ √3)/6 (energy.CubicTerms).
func (l *Logistic) ThirdBound() float64 { return 1 / (6 * math.Sqrt(3)) }

var _ energy.CubicTerms = (*Logistic)(nil)
