package langevin

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
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
// p×p matrix G_cᵀG_c is smaller, and it is decomposed directly instead
// (O(np² + p³)): the cost is that of the smaller side.
//
// A LowRank keeps its workspace between calls and allocates only when n or p
// grows.
type LowRank struct {
	gc, k, d2, work, t, c []float64
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
	// Centre the rows.
	copy(gc, rows[:n*p])
	for j := 0; j < p; j++ {
		var m float64
		for i := 0; i < n; i++ {
			m += gc[i*p+j]
		}
		m /= float64(n)
		for i := 0; i < n; i++ {
			gc[i*p+j] -= m
		}
	}
	if n > p {
		return lr.applyDense(xi, gc, n, p, f, eta, tau)
	}
	// K = G_c G_cᵀ, upper triangle.
	k := lr.k[:n*n]
	for a := 0; a < n; a++ {
		ra := gc[a*p : (a+1)*p]
		for b := a; b < n; b++ {
			var s float64
			for j, v := range gc[b*p : (b+1)*p] {
				s += ra[j] * v
			}
			k[a*n+b] = s
		}
	}
	d2 := lr.d2[:n]
	if !(gonum.Implementation{}).Dsyev(lapack.EVCompute, blas.Upper, n, k, n, d2, lr.work, lr.lwork) {
		// No convergence: there is no honest noise to inject; a NaN
		// state makes the sampler stop with an error naming the step.
		for j := range xi {
			xi[j] = math.NaN()
		}
		return n
	}
	// k now holds U (eigenvectors in columns, k[i*n+c] = U_ic), d2 = D².
	t := lr.t[:n]
	for i := range t {
		var s float64
		for j, v := range gc[i*p : (i+1)*p] {
			s += v * xi[j]
		}
		t[i] = s // G_c ξ
	}
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
	for j := range xi {
		xi[j] *= base
	}
	for i, w := range c {
		for j, v := range gc[i*p : (i+1)*p] {
			xi[j] += w * v
		}
	}
	return clamped
}

// applyDense is apply when n > p: C = 2τη·I − η²f/(n − 1)·G_cᵀG_c is
// decomposed as a p×p matrix and ζ = W·diag(√max(0, μ_k))·Wᵀξ.
func (lr *LowRank) applyDense(xi, gc []float64, n, p int, f, eta, tau float64) (clamped int) {
	k := lr.k[:p*p]
	scale := eta * eta * f / float64(n-1)
	budget := 2 * tau * eta
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			var s float64
			for i := 0; i < n; i++ {
				s += gc[i*p+a] * gc[i*p+b]
			}
			k[a*p+b] = -scale * s
		}
		k[a*p+a] += budget
	}
	mu := lr.d2[:p]
	if !(gonum.Implementation{}).Dsyev(lapack.EVCompute, blas.Upper, p, k, p, mu, lr.work, lr.lwork) {
		for j := range xi {
			xi[j] = math.NaN()
		}
		return p
	}
	t := lr.t[:p]
	for col := 0; col < p; col++ {
		var a float64
		for j := 0; j < p; j++ {
			a += k[j*p+col] * xi[j]
		}
		if mu[col] > 0 {
			t[col] = math.Sqrt(mu[col]) * a
		} else {
			t[col] = 0
			if mu[col] < -1e-9*budget { // not a rounding-level zero
				clamped++
			}
		}
	}
	for j := 0; j < p; j++ {
		var s float64
		for col := 0; col < p; col++ {
			s += k[j*p+col] * t[col]
		}
		xi[j] = s
	}
	return clamped
}

func (lr *LowRank) grow(n, p int) {
	if len(lr.gc) < n*p {
		lr.gc = make([]float64, n*p)
	}
	m := min(n, p)
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
