package nuts

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// metric is a Euclidean metric: momenta p ~ N(0, M), kinetic energy
// ½pᵀM⁻¹p, and the sharp momentum p♯ = M⁻¹p (the velocity dq/dt).
type metric struct {
	n     int
	dense bool
	// inv is M⁻¹: its diagonal (n) or the whole matrix row by row (n×n).
	inv []float64
	// invSqrt is 1/√(M⁻¹_jj) for the diagonal metric: p_j = ξ_j·invSqrt_j.
	invSqrt []float64
	// up is Lᵀ, row by row, for the lower Cholesky factor L of a dense
	// M⁻¹ = LLᵀ; p = L⁻ᵀξ then has covariance (LLᵀ)⁻¹ = M.
	up []float64
}

// newMetric returns the metric of the inverse metric inv (a diagonal, or
// an n×n matrix when dense), which it copies; a dense one must be symmetric
// positive definite.
func newMetric(n int, dense bool, inv []float64) (*metric, error) {
	m := &metric{n: n, dense: dense}
	if err := m.set(inv); err != nil {
		return nil, err
	}
	return m, nil
}

// set replaces the inverse metric by inv (copied). It allocates.
func (m *metric) set(inv []float64) error {
	n := m.n
	for i, v := range inv {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("nuts: inverse metric entry %d is %v", i, v)
		}
	}
	if !m.dense {
		if len(inv) != n {
			return fmt.Errorf("nuts: diagonal inverse metric has %d entries, want %d", len(inv), n)
		}
		is := make([]float64, n)
		for j, v := range inv {
			if !(v > 0) {
				return fmt.Errorf("nuts: inverse metric entry %d is %v, must be positive", j, v)
			}
			is[j] = 1 / math.Sqrt(v)
		}
		m.inv, m.invSqrt = append([]float64(nil), inv...), is
		return nil
	}
	if len(inv) != n*n {
		return fmt.Errorf("nuts: dense inverse metric has %d entries, want %d×%d", len(inv), n, n)
	}
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			a, b := inv[i*n+j], inv[j*n+i]
			if math.Abs(a-b) > 1e-12*math.Sqrt(math.Abs(inv[i*n+i]*inv[j*n+j])) {
				return fmt.Errorf("nuts: dense inverse metric is not symmetric at (%d,%d): %v and %v", i, j, a, b)
			}
			sym.SetSym(i, j, 0.5*(a+b))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return fmt.Errorf("nuts: dense inverse metric is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	m.up = make([]float64, n*n)
	m.inv = make([]float64, n*n)
	for i := range n {
		for j := range n {
			m.inv[i*n+j] = sym.At(i, j)
			if j <= i {
				m.up[j*n+i] = l.At(i, j)
			}
		}
	}
	return nil
}

// values returns a copy of M⁻¹ in Tuned's layout.
func (m *metric) values() []float64 { return append([]float64(nil), m.inv...) }

// sharp writes p♯ = M⁻¹p into dst (not aliasing p).
func (m *metric) sharp(dst, p []float64) {
	if !m.dense {
		for j, v := range m.inv {
			dst[j] = v * p[j]
		}
		return
	}
	n := m.n
	for i := range n {
		dst[i] = floats.Dot(m.inv[i*n:i*n+n], p)
	}
}

// sample draws p ~ N(0, M) into p.
func (m *metric) sample(p []float64, rng *rand.Rand) {
	if !m.dense {
		for j, s := range m.invSqrt {
			p[j] = rng.NormFloat64() * s
		}
		return
	}
	for j := range p {
		p[j] = rng.NormFloat64()
	}
	// Solve Lᵀp = ξ by back substitution, in place, along the rows of Lᵀ.
	n := m.n
	for i := n - 1; i >= 0; i-- {
		row := m.up[i*n : i*n+n]
		p[i] = (p[i] - floats.Dot(row[i+1:], p[i+1:])) / row[i]
	}
}
