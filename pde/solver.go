package pde

import "math"

// Solver steps the heat problem of a Config for any bump centre x0. It
// holds its work space: it is not safe for concurrent use, and after New
// its methods allocate nothing.
type Solver struct {
	cfg     Config
	n       int
	dz, dt  float64
	beta    float64
	c0, k   float64   // source factors: f = u·(c0 − k r²)
	r, p    []float64 // per sine mode: u ← r·u + p·(c^m + c^{m+1})
	tr      sine2
	what    []float64 // sensor weights on interior nodes, in sine coefficients
	bnodes  []bnode   // sensor weights on boundary nodes
	ax, ay  axis
	fx, dfx []float64 // c0·e − k·q along x, and ∂/∂a
	fy, dfy []float64
	u, c, d []float64 // work grids
}

// bnode is a sensor interpolation weight on a boundary node, where the
// solution is the boundary data rather than an unknown.
type bnode struct {
	i, j int
	w    float64
}

// New validates cfg and precomputes the sine-mode factors and the sensor's
// interpolation weights.
func New(cfg Config) (*Solver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.N
	s := &Solver{cfg: cfg, n: n, dz: cfg.Spacing(), dt: cfg.Dt(), beta: cfg.Bump.Beta(), tr: newSine2(n)}
	a := cfg.Bump.Alpha()
	s.c0, s.k = 4/a-1, 4/(a*a)
	lam := laplacianEigen(n, s.dz)
	s.r, s.p = make([]float64, n*n), make([]float64, n*n)
	for i, li := range lam {
		for j, lj := range lam {
			h := s.dt / 2 * (li + lj)
			s.r[i*n+j] = (1 + h) / (1 - h)
			s.p[i*n+j] = s.dt / 2 / (1 - h)
		}
	}
	s.ax, s.ay = newAxis(n), newAxis(n)
	s.fx, s.dfx, s.fy, s.dfy = make([]float64, n+2), make([]float64, n+2), make([]float64, n+2), make([]float64, n+2)
	s.u, s.c, s.d = make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	s.what = make([]float64, n*n)
	s.sensorWeights()
	s.tr.apply(s.what)
	return s, nil
}

// Config returns the solver's configuration.
func (s *Solver) Config() Config { return s.cfg }

// sensorWeights spreads the sensor over the four nodes around it by
// bilinear interpolation, which keeps the reading second-order accurate.
func (s *Solver) sensorWeights() {
	n := s.n
	var idx [2]int
	var frac [2]float64
	for d, x := range s.cfg.Sensor {
		xi := x / s.dz
		i := int(math.Floor(xi))
		if i > n {
			i = n
		}
		idx[d], frac[d] = i, xi-float64(i)
	}
	for di := 0; di < 2; di++ {
		for dj := 0; dj < 2; dj++ {
			w := (1 - frac[0]) * (1 - frac[1])
			switch {
			case di == 1 && dj == 0:
				w = frac[0] * (1 - frac[1])
			case di == 0 && dj == 1:
				w = (1 - frac[0]) * frac[1]
			case di == 1 && dj == 1:
				w = frac[0] * frac[1]
			}
			i, j := idx[0]+di, idx[1]+dj
			if w == 0 {
				continue
			}
			if i < 1 || i > n || j < 1 || j > n {
				s.bnodes = append(s.bnodes, bnode{i, j, w})
				continue
			}
			s.what[(i-1)*n+j-1] += w
		}
	}
}

// setCentre evaluates the bump's one-dimensional factors for the centre x0.
func (s *Solver) setCentre(x0 [2]float64) {
	a := s.cfg.Bump.Alpha()
	s.ax.set(s.dz, x0[0], a)
	s.ay.set(s.dz, x0[1], a)
	for i := range s.fx {
		s.fx[i] = s.c0*s.ax.e[i] - s.k*s.ax.q[i]
		s.dfx[i] = s.c0*s.ax.de[i] - s.k*s.ax.dq[i]
		s.fy[i] = s.c0*s.ay.e[i] - s.k*s.ay.q[i]
		s.dfy[i] = s.c0*s.ay.de[i] - s.k*s.ay.dq[i]
	}
}

// The data of the problem as patterns (see pattern): the source with the
// boundary lift, the initial state, and their derivatives in x0 = (a, b).
func (s *Solver) source() pattern {
	return pattern{x1: s.fx, y1: s.ay.e, x2: s.ax.e, y2: s.ay.q, k: s.k, bx: s.ax.e, by: s.ay.e}
}

func (s *Solver) sourceDA() pattern {
	return pattern{x1: s.dfx, y1: s.ay.e, x2: s.ax.de, y2: s.ay.q, k: s.k, bx: s.ax.de, by: s.ay.e}
}

func (s *Solver) sourceDB() pattern {
	return pattern{x1: s.ax.e, y1: s.dfy, x2: s.ax.q, y2: s.ay.de, k: s.k, bx: s.ax.e, by: s.ay.de}
}

func (s *Solver) initial() pattern { return pattern{x1: s.ax.e, y1: s.ay.e, x2: s.ax.e, y2: s.ay.e} }

func (s *Solver) initialDA() pattern { return pattern{x1: s.ax.de, y1: s.ay.e, x2: s.ax.e, y2: s.ay.e} }

func (s *Solver) initialDB() pattern { return pattern{x1: s.ax.e, y1: s.ay.de, x2: s.ax.e, y2: s.ay.e} }

// scale is β e^{−t} at time level m, the time factor of all the data.
func (s *Solver) scale(m int) float64 { return s.beta * math.Exp(-float64(m)*s.dt) }

// forward leaves the sine coefficients of the solution at T in s.u.
func (s *Solver) forward() {
	n := s.n
	fill(s.u, n, s.dz, s.beta, s.initial())
	s.tr.apply(s.u)
	c, d := s.c, s.d
	fill(c, n, s.dz, s.scale(0), s.source())
	s.tr.apply(c)
	for m := 1; m <= s.cfg.Steps; m++ {
		fill(d, n, s.dz, s.scale(m), s.source())
		s.tr.apply(d)
		for q, uq := range s.u {
			s.u[q] = s.r[q]*uq + s.p[q]*(c[q]+d[q])
		}
		c, d = d, c
	}
}

// Reading solves the problem for the centre x0 and returns the sensor
// reading at T.
func (s *Solver) Reading(x0 [2]float64) float64 {
	s.setCentre(x0)
	s.forward()
	var j float64
	for q, w := range s.what {
		j += w * s.u[q]
	}
	return j + s.boundaryReading(nil)
}

// Field solves the problem for the centre x0 and writes the solution at T
// on the interior nodes into dst (N×N, row-major, node (i, j) at
// (i·dz, j·dz) stored at (i−1)·N + j−1).
func (s *Solver) Field(dst []float64, x0 [2]float64) {
	s.setCentre(x0)
	s.forward()
	copy(dst, s.u)
	s.tr.apply(dst)
}

// boundaryReading is the part of the reading carried by boundary nodes,
// whose values are the boundary data; it adds its gradient to grad.
func (s *Solver) boundaryReading(grad []float64) float64 {
	var j float64
	sc := s.scale(s.cfg.Steps)
	for _, b := range s.bnodes {
		j += b.w * sc * s.ax.e[b.i] * s.ay.e[b.j]
		if grad != nil {
			grad[0] += b.w * sc * s.ax.de[b.i] * s.ay.e[b.j]
			grad[1] += b.w * sc * s.ax.e[b.i] * s.ay.de[b.j]
		}
	}
	return j
}
