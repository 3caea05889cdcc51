package energy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// CubicTerms is implemented by LinearTerms whose terms are functions of the
// score alone, U_i(θ) = f_i(z_i) with z_i = x_i·θ, and whose third
// derivatives are bounded everywhere: |f_i‴| ≤ ThirdBound (logistic
// regression: 1/(6√3)). The data sum's second-order expansion about any
// point then leaves a remainder bounded example by example, which decides a
// swap exactly in law on a few examples (Expansion.Thin).
type CubicTerms interface {
	LinearTerms
	// Derivs returns f_i(z), f_i′(z) and f_i″(z).
	Derivs(i int, z float64) (f, f1, f2 float64)
	// ThirdBound is a bound on |f_i‴(z)| over every example and z.
	ThirdBound() float64
}

// Expansion is the second-order Taylor expansion of a CubicTerms' data sum
// about a point θ̂, made by two passes over the data:
//
//	Σ_i U_i(θ) = const + gᵀΔ + ½ΔᵀHΔ + Σ_i r_i(θ),   Δ = θ − θ̂,
//
// g = Σ f_i′(ẑ_i) x_i, H = Σ f_i″(ẑ_i) x_i x_iᵀ, and each remainder
// |r_i(θ)| ≤ (M/6)|x_i·Δ|³ ≤ (M/6)·w_i·‖Δ‖³_A, where M is ThirdBound,
// w_i = (x_iᵀA⁻¹x_i)^{3/2} by Cauchy–Schwarz in the metric of
// A = H + εI (any positive definite A gives a bound; H's makes it tight
// where the posterior is). Between two states whose distances ‖Δ‖_A are
// of the posterior's width the bounds sum to O(1/√N), so a test on the
// remainders draws O(1) examples however large N (Cornish et al. 2019,
// "Scalable Metropolis–Hastings for exact Bayesian inference with large
// datasets").
type Expansion struct {
	t    CubicTerms
	at   []float64 // θ̂
	g    []float64
	h    *mat.SymDense
	a    *mat.SymDense // A
	chol mat.Cholesky  // of A
	cum  []float64     // cum[i] = Σ_{k ≤ i} w_k
	m6   float64       // M/6
	v, x *mat.VecDense // weight's scratch
}

// NewExpansion expands t's data sum about at (two passes over the data).
func NewExpansion(t CubicTerms, at []float64) (*Expansion, error) {
	p, N := t.Dim(), t.Len()
	if len(at) != p {
		return nil, fmt.Errorf("expansion: point of dimension %d for data of dimension %d", len(at), p)
	}
	m := t.ThirdBound()
	if !(m >= 0) || math.IsInf(m, 0) {
		return nil, fmt.Errorf("expansion: third-derivative bound %v must be finite and ≥ 0", m)
	}
	e := &Expansion{t: t, at: append([]float64(nil), at...), g: make([]float64, p), h: mat.NewSymDense(p, nil),
		cum: make([]float64, N), m6: m / 6, v: mat.NewVecDense(p, nil), x: mat.NewVecDense(p, nil)}
	hr := e.h.RawSymmetric()
	for i := range N {
		x := t.Row(i)[:p]
		_, f1, f2 := t.Derivs(i, dot(x, at))
		if math.IsNaN(f1+f2) || math.IsInf(f1+f2, 0) {
			return nil, fmt.Errorf("expansion: example %d's derivatives at the point are %v, %v", i, f1, f2)
		}
		for j, xj := range x {
			e.g[j] += f1 * xj
			row := hr.Data[j*hr.Stride:]
			for k := j; k < p; k++ {
				row[k] += f2 * xj * x[k]
			}
		}
	}
	// A small ridge keeps A positive definite where H is singular (a
	// feature constant, or fewer examples than features).
	e.a = mat.NewSymDense(p, nil)
	e.a.CopySym(e.h)
	ridge := 1e-9 * (mat.Trace(e.h)/float64(p) + 1)
	for j := range p {
		e.a.SetSym(j, j, e.a.At(j, j)+ridge)
	}
	if !e.chol.Factorize(e.a) {
		return nil, fmt.Errorf("expansion: the data Hessian at the point is not positive definite")
	}
	var s float64
	for i := range N {
		w, err := e.weight(t.Row(i)[:p])
		if err != nil {
			return nil, fmt.Errorf("expansion: example %d: %w", i, err)
		}
		s += w
		e.cum[i] = s
	}
	return e, nil
}

// dot is x·y in order.
func dot(x, y []float64) float64 {
	var s float64
	for j, v := range x {
		s += v * y[j]
	}
	return s
}

// weight is w = (xᵀA⁻¹x)^{3/2}.
func (e *Expansion) weight(x []float64) (float64, error) {
	copy(e.x.RawVector().Data, x)
	if err := e.chol.SolveVecTo(e.v, e.x); err != nil {
		return 0, err
	}
	q := mat.Dot(e.v, e.x)
	return q * math.Sqrt(q), nil
}

// Point is θ̂ (not to be modified).
func (e *Expansion) Point() []float64 { return e.at }

// RowWeight is example i's w_i.
func (e *Expansion) RowWeight(i int) float64 { return e.cum[i] - e.prev(i) }

// Weight is Σ_i w_i.
func (e *Expansion) Weight() float64 { return e.cum[len(e.cum)-1] }

// QuadDiff is the expansion's part of Σ_i [U_i(x) − U_i(y)]:
// gᵀ(x − y) + ½(Δ_xᵀHΔ_x − Δ_yᵀHΔ_y) = (x − y)·[g + ½H(x + y − 2θ̂)],
// about p² multiply-adds, with no pass over the data.
func (e *Expansion) QuadDiff(x, y []float64) float64 {
	r := e.h.RawSymmetric()
	var s float64
	for j, g := range e.g {
		var hs float64
		for k, c := range e.at {
			hs += r.Data[min(j, k)*r.Stride+max(j, k)] * (x[k] + y[k] - 2*c)
		}
		s += (x[j] - y[j]) * (g + 0.5*hs)
	}
	return s
}

// Coord is the expansion's quadratic, gᵀΔ + ½ΔᵀHΔ, as a function of
// coordinate j alone with the others held at theta's: a·θ_j + ½h·θ_j² plus
// a constant, a = g_j − H_jj·θ̂_j + Σ_{k≠j} H_jk(θ_k − θ̂_k) and h = H_jj.
// Neither reads θ_j, so a proposal built from them depends on the other
// coordinates alone, as a Metropolis-within-Gibbs independence proposal
// must. About p multiply-adds.
func (e *Expansion) Coord(j int, theta []float64) (a, h float64) {
	r := e.h.RawSymmetric()
	a = e.g[j]
	for k, c := range e.at {
		v := r.Data[min(j, k)*r.Stride+max(j, k)]
		if k == j {
			a -= v * c
			h = v
			continue
		}
		a += v * (theta[k] - c)
	}
	return a, h
}

// Radius is ‖θ − θ̂‖_A = √(ΔᵀAΔ).
func (e *Expansion) Radius(theta []float64) float64 {
	return math.Sqrt(quad(e.a, e.at, theta, theta))
}

// quad is (x − c)ᵀS(y − c) for a symmetric S, read from its upper triangle.
func quad(s *mat.SymDense, c, x, y []float64) float64 {
	r := s.RawSymmetric()
	var q float64
	for j := range c {
		var sj float64
		for k := range c {
			v := r.Data[min(j, k)*r.Stride+max(j, k)]
			sj += v * (y[k] - c[k])
		}
		q += (x[j] - c[j]) * sj
	}
	return q
}

// Remainder is r_i(x) − r_i(y), example i's part of the data difference
// that the expansion leaves out.
func (e *Expansion) Remainder(i int, x, y []float64) float64 {
	r, _ := e.remainder(i, x, y)
	return r
}

// remainder is Remainder and the sum of its terms' magnitudes, the scale
// of its rounding error.
func (e *Expansion) remainder(i int, x, y []float64) (r, size float64) {
	row := e.t.Row(i)[:len(e.at)]
	zh, zx, zy := dot(row, e.at), dot(row, x), dot(row, y)
	fx, _, _ := e.t.Derivs(i, zx)
	fy, _, _ := e.t.Derivs(i, zy)
	_, f1, f2 := e.t.Derivs(i, zh)
	a, b := zx-zh, zy-zh
	lin, q := f1*(zx-zy), 0.5*f2*(a-b)*(a+b)
	return (fx - fy) - lin - q, math.Abs(fx) + math.Abs(fy) + math.Abs(lin) + math.Abs(q)
}

// Rate is the total intensity Λ of Thin's events for c, x and y:
// |c|·(M/6)·(‖Δ_x‖³_A + ‖Δ_y‖³_A)·Σ_i w_i, the expected number of examples
// it evaluates at most.
func (e *Expansion) Rate(c float64, x, y []float64) float64 {
	return e.Intensity(c, x, y) * e.Weight()
}

// Intensity is Rate per unit of remainder weight, |c|·(M/6)·(‖Δ_x‖³_A +
// ‖Δ_y‖³_A): computed once, it serves both Rate (times Weight) and ThinAt,
// which would otherwise each read the two radii (2p² multiply-adds).
func (e *Expansion) Intensity(c float64, x, y []float64) float64 {
	rx, ry := e.Radius(x), e.Radius(y)
	return math.Abs(c) * e.m6 * (rx*rx*rx + ry*ry*ry)
}

// MeanRate is Rate's mean when x and y are drawn from the Laplace
// approximation at the expansion point tempered to tx and ty, x − θ̂ ~
// N(0, tx·A⁻¹): then Radius(x)² is tx times a χ² on p degrees of freedom,
// whose E[χ³] = 2^{3/2}·Γ((p+3)/2)/Γ(p/2).
func (e *Expansion) MeanRate(c, tx, ty float64) float64 {
	p := float64(len(e.at))
	lg3, _ := math.Lgamma((p + 3) / 2)
	lg0, _ := math.Lgamma(p / 2)
	chi3 := math.Pow(2, 1.5) * math.Exp(lg3-lg0)
	return math.Abs(c) * e.m6 * (math.Pow(tx, 1.5) + math.Pow(ty, 1.5)) * chi3 * e.Weight()
}

// Thin draws, with probability Π_i min(1, e^{c·ρ_i}) = exp(−Σ_i φ_i),
// φ_i = max(0, −c·ρ_i) and ρ_i = Remainder(i, x, y), whether a move passes
// the remainders' factors of a factorised Metropolis test. A factorised
// test accepts with the product over any split of the log-ratio into
// parts, each part's factor min(1, e^{part}); the reverse move negates
// every part, so the product keeps detailed balance as the single factor
// does (Cornish et al. 2019). Each φ_i ≤ b_i = |c|(M/6)w_i(‖Δ_x‖³ + ‖Δ_y‖³),
// so the factors' product is the chance that a Poisson process of
// intensities b_i, thinned with probabilities φ_i/b_i, keeps no event:
// events are drawn at total rate Λ (Rate), their examples in proportion to
// w_i, and the first kept event fails the move. It returns whether the
// move passed and the examples evaluated (at most one per event).
//
// The law holds only while every φ_i ≤ b_i: a φ_i above its bound (a
// third-derivative bound that does not hold, an intensity computed at
// another c) would be thinned with probability 1 in place of φ_i/b_i, and
// the move would pass too often, silently. Thin stops with an error
// naming the example, φ_i and b_i instead, and likewise for a c or an
// intensity that is not a finite number ≥ 0 (a NaN intensity would draw
// no event and pass every move). Rounding in ρ_i is allowed for: a φ_i
// above b_i by less than 10⁻¹² of the size of the terms ρ_i is computed
// from rejects the move, as φ_i = b_i does.
func (e *Expansion) Thin(rng *rand.Rand, c float64, x, y []float64) (pass bool, evaluated int, err error) {
	return e.ThinAt(rng, c, e.Intensity(c, x, y), x, y)
}

// ThinAt is Thin given k = Intensity(c, x, y).
func (e *Expansion) ThinAt(rng *rand.Rand, c, k float64, x, y []float64) (pass bool, evaluated int, err error) {
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return false, 0, fmt.Errorf("thinning: the log-ratio's factor c = %v is not finite", c)
	}
	if !(k >= 0) || math.IsInf(k, 1) {
		return false, 0, fmt.Errorf("thinning: intensity %v (c = %v) is not a finite number ≥ 0", k, c)
	}
	W := e.Weight()
	lambda := k * W
	for t := rng.ExpFloat64(); t < lambda; t += rng.ExpFloat64() {
		i := sort.SearchFloat64s(e.cum, rng.Float64()*W)
		i = min(i, len(e.cum)-1)
		b := k * e.RowWeight(i)
		if !(b > 0) {
			continue // an example of weight 0 has no remainder
		}
		evaluated++
		r, size := e.remainder(i, x, y)
		phi := max(0, -c*r)
		if !(phi <= b+1e-12*math.Abs(c)*size) {
			return false, evaluated, fmt.Errorf("thinning: example %d's factor φ = %v exceeds its bound b = %v (c = %v, remainder %v): the bound on the terms' third derivative (%v) does not hold there, or the intensity %v is not Intensity(c, x, y)",
				i, phi, b, c, r, 6*e.m6, k)
		}
		if rng.Float64()*b < phi {
			return false, evaluated, nil
		}
	}
	return true, evaluated, nil
}

func (e *Expansion) prev(i int) float64 {
	if i == 0 {
		return 0
	}
	return e.cum[i-1]
}
