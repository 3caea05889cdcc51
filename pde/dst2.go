package pde

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// sine2 is the orthonormal two-dimensional discrete sine transform (type I)
// of an n×n grid stored row-major: G ↦ S G S with the symmetric matrix
// S_pj = √(2/(n+1)) sin(π(p+1)(j+1)/(n+1)). S is its own inverse, so the
// same call maps nodal values to sine coefficients and back.
//
// It multiplies by S as a dense matrix rather than by a fast sine
// transform: at the grid sizes the sampler can afford per step (n ≲ 64)
// two blocked matrix products beat 2n one-dimensional FFT-based transforms
// (gonum's dsp/fourier DST costs about 1 µs for n = 20 and is called 2n
// times per grid), and the test checks the matrix against that DST.
type sine2 struct {
	n    int
	s    blas64.General
	work blas64.General
}

func newSine2(n int) sine2 {
	s := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	c := math.Sqrt(2 / float64(n+1))
	for p := 0; p < n; p++ {
		for j := 0; j < n; j++ {
			s.Data[p*n+j] = c * math.Sin(math.Pi*float64((p+1)*(j+1))/float64(n+1))
		}
	}
	work := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	return sine2{n: n, s: s, work: work}
}

// apply transforms g in place.
func (t *sine2) apply(g []float64) {
	G := blas64.General{Rows: t.n, Cols: t.n, Stride: t.n, Data: g}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, t.s, G, 0, t.work)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, t.work, t.s, 0, G)
}

// laplacianEigen returns the eigenvalues of the one-dimensional Dirichlet
// second difference on n nodes with spacing dz: −(4/dz²) sin²(pπ/(2(n+1))).
func laplacianEigen(n int, dz float64) []float64 {
	l := make([]float64, n)
	for p := range l {
		s := math.Sin(float64(p+1) * math.Pi / (2 * float64(n+1)))
		l[p] = -4 / (dz * dz) * s * s
	}
	return l
}
