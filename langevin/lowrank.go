package langevin

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	blasgonum "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// LowRank draws the injected noise of the corrected policy against the full
// covariance of a minibatch gradient instead of its diagonal. With G the n×p
// matrix of the minibatch's per-example gradients and G_c = G − 1ḡᵀ its
// centred form, the gradient noise has the rank-(n−1) covariance estimate
//
//	Σ̂ = f/(n − 1) · G_cᵀG_c,   f = N(N − n)/n,
//
// and the injected noise must have covariance C = 2τη·I − η²Σ̂, clipped to
// its positive part where the gradient noise alone exceeds the budget. With
// the eigen-decomposition G_cG_cᵀ = U D² Uᵀ (n×n, O(n²p + n³)), the columns of
// V = G_cᵀUD⁻¹ are Σ̂'s eigenvectors with eigenvalues f d_k²/(n − 1), so
//
//	ζ = √(2τη)·ξ + V·diag(√max(0, λ_k) − √(2τη))·Vᵀξ,   λ_k = 2τη − η²f d_k²/(n − 1),
//
// has covariance exactly C⁺, at O(np) beyond the decomposition; p×p is never
// formed. Directions with d_k ≤ 1e-12·d_max count as null. When n > p the
// p×p matrix C is smaller, and it is factorised directly instead
// (O(np² + p³)): by Cholesky when it is positive definite, by
// eigen-decomposition when some direction is over budget. The cost is that
// of the smaller side.
//
// A LowRank keeps its workspace between calls and allocates only when n or p
// grows.
type LowRank struct {
	gc, k, d2, work, t, c []float64
	mean, chol, xi        []float64
	lwork                 int
}

// Noise writes into dst a draw of the injected noise for a chain at
// temperature tau and step eta whose gradient came from the minibatch with
// per-example gradients rows (n×p, row-major) and factor f = N(N − n)/n. It
// returns the number of directions where the gradient noise exceeded the
// budget (clipped to no injected noise).
func (lr *LowRank) Noise(dst, rows []float64, n int, f, eta, tau float64, rng *rand.Rand) (clamped int) {
	for j := range dst {
		dst[j] = rng.NormFloat64()
	}
	return lr.apply(dst, rows, n, f, eta, tau)
}

// apply turns the standard normal vector in xi into the noise, in place.
// The products run through gonum's BLAS, whose dot and axpy kernels are
// vectorised: at n = 10, p = 1000 they take the draw from 3.2 to about 1.5
// gradient draws' time.
func (lr *LowRank) apply(xi, rows []float64, n int, f, eta, tau float64) (clamped int) {
	p := len(xi)
	base := math.Sqrt(2 * tau * eta)
	if n < 2 || f == 0 {
		for j := range xi {
			xi[j] *= base
		}
		return 0
	}
	lr.grow(n, p)
	gc := lr.gc[:n*p]
	// Centre the rows, row by row (contiguous in memory).
	mean := lr.mean[:p]
	copy(mean, rows[:p])
	for i := 1; i < n; i++ {
		for j, v := range rows[i*p : (i+1)*p] {
			mean[j] += v
		}
	}
	inv := 1 / float64(n)
	for j := range mean {
		mean[j] *= inv
	}
	for i := 0; i < n; i++ {
		out := gc[i*p : (i+1)*p]
		for j, v := range rows[i*p : (i+1)*p] {
			out[j] = v - mean[j]
		}
	}
	if n > p {
		return lr.applyDense(xi, gc, n, p, f, eta, tau)
	}
	impl, bl := gonum.Implementation{}, blasgonum.Implementation{}
	// K = G_c G_cᵀ, upper triangle.
	k := lr.k[:n*n]
	bl.Dsyrk(blas.Upper, blas.NoTrans, n, p, 1, gc, p, 0, k, n)
	d2 := lr.d2[:n]
	if !lr.eigen(impl, n, k, d2, xi) {
		return n
	}
	// k now holds U (eigenvectors in columns, k[i*n+c] = U_ic), d2 = D².
	t := lr.t[:n]
	bl.Dgemv(blas.NoTrans, n, p, 1, gc, p, xi, 1, 0, t, 1) // G_c ξ
	c := lr.c[:n]
	for i := range c {
		c[i] = 0
	}
	tol := 1e-24 * d2[n-1] // (1e-12·d_max)²
	scale := eta * eta * f / float64(n-1)
	for col := 0; col < n; col++ {
		dd := d2[col]
		if !(dd > tol) {
			continue
		}
		var a float64 // d_k·(Vᵀξ)_k = (Uᵀ G_c ξ)_k
		for i := 0; i < n; i++ {
			a += k[i*n+col] * t[i]
		}
		lam := 2*tau*eta - scale*dd
		sd := 0.0
		if lam > 0 {
			sd = math.Sqrt(lam)
		} else {
			clamped++
		}
		// V_k (sd − base)(Vᵀξ)_k = G_cᵀ U_k (sd − base) a / d_k².
		w := (sd - base) * a / dd
		for i := 0; i < n; i++ {
			c[i] += k[i*n+col] * w
		}
	}
	// ξ ← base·ξ + G_cᵀ c.
	bl.Dgemv(blas.Trans, n, p, 1, gc, p, c, 1, base, xi, 1)
	return clamped
}

// applyDense is apply when n > p: C = 2τη·I − η²f/(n − 1)·G_cᵀG_c is
// formed as a p×p matrix. Where C is positive definite (no direction over
// budget), its Cholesky factor C = RᵀR gives ζ = Rᵀξ at a sixth of the
// cost of an eigen-decomposition; otherwise C = W·diag(μ)·Wᵀ and
// ζ = W·diag(√max(0, μ_k))·Wᵀξ.
func (lr *LowRank) applyDense(xi, gc []float64, n, p int, f, eta, tau float64) (clamped int) {
	impl, bl := gonum.Implementation{}, blasgonum.Implementation{}
	k := lr.k[:p*p]
	scale := eta * eta * f / float64(n-1)
	budget := 2 * tau * eta
	bl.Dsyrk(blas.Upper, blas.Trans, p, n, -scale, gc, p, 0, k, p)
	for a := 0; a < p; a++ {
		k[a*p+a] += budget
	}
	chol := lr.chol[:p*p]
	copy(chol, k)
	if impl.Dpotrf(blas.Upper, p, chol, p) {
		bl.Dtrmv(blas.Upper, blas.Trans, blas.NonUnit, p, chol, p, xi, 1)
		return 0
	}
	mu := lr.d2[:p]
	if !lr.eigen(impl, p, k, mu, xi) {
		return p
	}
	t := lr.t[:p]
	bl.Dgemv(blas.Trans, p, p, 1, k, p, xi, 1, 0, t, 1) // Wᵀξ
	for col, m := range mu {
		if m > 0 {
			t[col] *= math.Sqrt(m)
		} else {
			t[col] = 0
			if m < -1e-9*budget { // not a rounding-level zero
				clamped++
			}
		}
	}
	bl.Dgemv(blas.NoTrans, p, p, 1, k, p, t, 1, 0, xi, 1)
	return clamped
}

func (lr *LowRank) grow(n, p int) {
	if len(lr.gc) < n*p {
		lr.gc = make([]float64, n*p)
	}
	if len(lr.mean) < p {
		lr.mean = make([]float64, p)
		lr.xi = make([]float64, p)
	}
	m := min(n, p)
	if n > p && len(lr.chol) < p*p {
		lr.chol = make([]float64, p*p)
	}
	if len(lr.k) < m*m {
		lr.k = make([]float64, m*m)
		lr.d2 = make([]float64, m)
		lr.t = make([]float64, m)
		lr.c = make([]float64, m)
		q := make([]float64, 1)
		(gonum.Implementation{}).Dsyev(lapack.EVCompute, blas.Upper, m, lr.k, m, lr.d2, q, -1)
		lr.lwork = int(q[0])
		lr.work = make([]float64, lr.lwork)
	}
}

// eigen decomposes the symmetric n×n matrix k (its upper triangle) in
// place: its eigenvectors into k's columns, its eigenvalues into d. Where
// the decomposition does not converge there is no honest noise to inject:
// it makes xi NaN, a state that makes the sampler stop with an error
// naming the step, and is false.
func (lr *LowRank) eigen(impl gonum.Implementation, n int, k, d, xi []float64) bool {
	if impl.Dsyev(lapack.EVCompute, blas.Upper, n, k, n, d, lr.work, lr.lwork) {
		return true
	}
	for j := range xi {
		xi[j] = math.NaN()
	}
	return false
}
