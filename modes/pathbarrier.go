package modes

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/energy"
)

// The string method's settings (PathBarrier).
const (
	// pathImages are the points of the string between its two ends.
	pathImages = 24
	// pathIters bounds its iterations; pathTol ends them once no image
	// moved more than this (whitened units) and the barrier changed by
	// less than pathTol nats.
	pathIters = 400
	pathTol   = 1e-4
	// pathStep is the gradient step in the whitened coordinates, where
	// the curvature at the ends is about 1; each image halves it, at most
	// pathHalvings times, until its energy falls.
	pathStep     = 0.25
	pathHalvings = 20
	// pathRead are the points of each chord between images at which the
	// barrier is read.
	pathRead = 8
)

// PathBarrier is the barrier between the modes a and b along the lowest
// path the string method finds (E, Ren and Vanden-Eijnden 2007): max U on
// the path − max(U(a), U(b)), in nats. The segment barrier the plan reads
// takes the straight path, whose highest point can lie far above the pass
// the chains use (a curved valley between the modes); the string starts on
// the segment and lets each of its points fall by gradient steps, every
// step followed by a respacing of the points at equal arclength, until it
// lies along the valley. Its steps are in the coordinates whitened by
// metric (a positive-definite p×p matrix: the mean of the two modes'
// Hessians, so that a step means the same at each end whatever the
// posterior's scales). The result is the least of the segment's and the
// string's barriers, each the highest energy along a path, so it is an
// upper bound on the true barrier and never above the segment's.
func PathBarrier(e energy.Energy, a, b []float64, metric *mat.SymDense) (float64, error) {
	p := len(a)
	if len(b) != p || metric.SymmetricDim() != p {
		return 0, fmt.Errorf("path barrier: ends of %d and %d coordinates, metric of %d", len(a), len(b), metric.SymmetricDim())
	}
	var chol mat.Cholesky
	if !chol.Factorize(metric) {
		return 0, errors.New("path barrier: the metric is not positive definite")
	}
	// metric = L·Lᵀ, and z = Lᵀx whitens: x = L⁻ᵀz.
	var l mat.TriDense
	chol.LTo(&l)
	toX := func(x, z []float64) {
		_ = mat.NewVecDense(p, x).SolveVec(l.T(), mat.NewVecDense(p, z))
	}
	toZ := func(z, x []float64) {
		mat.NewVecDense(p, z).MulVec(l.T(), mat.NewVecDense(p, x))
	}
	ends := math.Max(e.U(a), e.U(b))
	if math.IsNaN(ends) || math.IsInf(ends, 0) {
		return 0, fmt.Errorf("path barrier: U at the ends is %v", ends)
	}
	n := pathImages + 2
	z := make([][]float64, n)
	za, zb := make([]float64, p), make([]float64, p)
	toZ(za, a)
	toZ(zb, b)
	for i := range z {
		f := float64(i) / float64(n-1)
		z[i] = make([]float64, p)
		for j := range p {
			z[i][j] = (1-f)*za[j] + f*zb[j]
		}
	}
	x, g, gz, trial := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	u := func(zi []float64) float64 { toX(x, zi); return e.U(x) }
	segment := readPath(z, u, trial)
	barrier, prev := segment, segment
	for range pathIters {
		moved := 0.0
		for i := 1; i < n-1; i++ {
			toX(x, z[i])
			e.Grad(g, x)
			// ∇_z U = L⁻¹ ∇_x U.
			copy(gz, g)
			_ = mat.NewVecDense(p, gz).SolveVec(&l, mat.NewVecDense(p, g))
			u0 := u(z[i])
			for h, step := 0, pathStep; h < pathHalvings; h, step = h+1, step/2 {
				for j := range p {
					trial[j] = z[i][j] - step*gz[j]
				}
				if ut := u(trial); ut < u0 {
					moved = math.Max(moved, step*norm(gz))
					copy(z[i], trial)
					break
				}
			}
		}
		respace(z)
		barrier = readPath(z, u, trial)
		if moved < pathTol && math.Abs(barrier-prev) < pathTol {
			break
		}
		prev = barrier
	}
	if math.IsNaN(barrier) {
		return 0, errors.New("path barrier: U is NaN along the path")
	}
	return math.Max(0, math.Min(segment, barrier)-ends), nil
}

// readPath is the highest U along the polyline through z, read at
// pathRead points of each chord; scratch holds one point.
func readPath(z [][]float64, u func([]float64) float64, scratch []float64) float64 {
	top := math.Inf(-1)
	for i := 0; i+1 < len(z); i++ {
		for k := range pathRead {
			f := float64(k) / pathRead
			for j := range scratch {
				scratch[j] = (1-f)*z[i][j] + f*z[i+1][j]
			}
			v := u(scratch)
			if math.IsNaN(v) {
				return math.NaN()
			}
			top = math.Max(top, v)
		}
	}
	return top
}

// respace moves the inner points of the polyline z to equal arclength
// along it, by linear interpolation; the ends stay.
func respace(z [][]float64) {
	n, p := len(z), len(z[0])
	cum := make([]float64, n)
	for i := 1; i < n; i++ {
		var d float64
		for j := range p {
			d += (z[i][j] - z[i-1][j]) * (z[i][j] - z[i-1][j])
		}
		cum[i] = cum[i-1] + math.Sqrt(d)
	}
	old := make([][]float64, n)
	for i := range z {
		old[i] = append([]float64(nil), z[i]...)
	}
	k := 0
	for i := 1; i < n-1; i++ {
		s := cum[n-1] * float64(i) / float64(n-1)
		for k+1 < n-1 && cum[k+1] < s {
			k++
		}
		f := 0.0
		if d := cum[k+1] - cum[k]; d > 0 {
			f = (s - cum[k]) / d
		}
		for j := range p {
			z[i][j] = (1-f)*old[k][j] + f*old[k+1][j]
		}
	}
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// PathBarrier is the barrier between the heaviest mode and the others of
// weight at least the plan's (ModeWeight) along the lowest paths the
// string method finds between them (PathBarrier, in the metric of each
// pair's mean Hessian): at most the segment barrier Barrier reads, and
// nearer the pass the chains cross. t is the model the search ran on.
func (s *ModeSearch) PathBarrier(t energy.Terms) (float64, error) {
	bs, err := s.PathBarriers(t)
	if err != nil {
		return 0, err
	}
	var b float64
	for _, v := range bs {
		b = math.Max(b, v)
	}
	return b, nil
}

// PathBarriers are the barriers PathBarrier's maximum is taken over, one
// for each mode in s.Modes' order: 0 for the heaviest and for the modes
// below the plan's weight, whose paths are not read.
func (s *ModeSearch) PathBarriers(t energy.Terms) ([]float64, error) {
	e := Energy(t)
	a := s.Modes[0]
	bs := make([]float64, len(s.Modes))
	for i, m := range s.Modes[1:] {
		if m.Weight < ModeWeight {
			continue
		}
		mean := mat.NewSymDense(len(a.Theta), nil)
		mean.AddSym(a.H, m.H)
		mean.ScaleSym(0.5, mean)
		v, err := PathBarrier(e, a.Theta, m.Theta, mean)
		if err != nil {
			return nil, err
		}
		bs[i+1] = v
	}
	return bs, nil
}
