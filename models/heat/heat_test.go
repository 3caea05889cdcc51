package heat

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPaperProblem(t *testing.T) {
	p := Paper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	// The circle of solutions must lie inside the square, with room for
	// several ring widths at the hot temperature.
	r, m := p.Radius(), 10*p.RingWidth(0.5)
	for d := range 2 {
		if p.Sensor[d]-r < m || p.Sensor[d]+r > 1-m {
			t.Errorf("circle of radius %v around %v leaves the square along axis %d", r, p.Sensor, d)
		}
	}
	// On the circle the exact forward map reproduces the measurement.
	for _, a := range []float64{0, 1, 2, 4} {
		x0 := [2]float64{p.Sensor[0] + r*math.Cos(a), p.Sensor[1] + r*math.Sin(a)}
		if g := p.Exact(nil, x0); math.Abs(g-p.Y) > 1e-12 {
			t.Errorf("G on the circle at angle %v = %v, want y = %v", a, g, p.Y)
		}
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		edit func(*Problem)
		want string
	}{
		{func(p *Problem) { p.T = 0 }, "final time T = 0"},
		{func(p *Problem) { p.Sensor = [2]float64{0.3, 1.5} }, "lies outside the domain"},
		{func(p *Problem) { p.Sigma = 0 }, "observation noise σ = 0"},
		{func(p *Problem) { p.Y = 100 }, "no centre explains it"},
		{func(p *Problem) { p.Y = math.NaN() }, "measurement y = NaN"},
	}
	for _, c := range cases {
		p := Paper()
		c.edit(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	if _, err := NewSolved(Paper(), 2, 1); err == nil || !strings.Contains(err.Error(), "grid too small") {
		t.Errorf("NewSolved with N = 2: error %v, want grid too small", err)
	}
}

// The energy's gradient must match central differences of the energy, for
// the exact and the solved forward maps. U is smooth with second
// derivatives ≲ 1e5 and third ≲ 1e7 near the circle; δ = 1e-6 gives a
// truncation error ≲ δ²/6·1e7 ≈ 2e-6 and a rounding error ≲ 1e-16·U/δ, far
// below the 1e-3 relative tolerance.
func TestEnergyGradient(t *testing.T) {
	p := Paper()
	s, err := NewSolved(p, 19, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Forward{ExactForward{p}, s} {
		e := &Energy{P: p, F: f}
		for _, x := range [][]float64{{0.3, 0.66}, {0.2, 0.4}, {0.7, 0.9}, {0.05, 0.5}} {
			g := make([]float64, 2)
			e.Grad(g, x)
			const d = 1e-6
			for k := range 2 {
				xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
				xp[k] += d
				xm[k] -= d
				fd := (e.U(xp) - e.U(xm)) / (2 * d)
				if math.Abs(g[k]-fd) > 1e-3*math.Max(1, math.Abs(fd)) {
					t.Errorf("%T at %v: ∂U/∂x_%d = %v, finite difference %v", f, x, k, g[k], fd)
				}
			}
		}
	}
}

// The memo must return exactly what a fresh solve returns and count only
// the solves it makes.
func TestSolvedMemo(t *testing.T) {
	p := Paper()
	s, _ := NewSolved(p, 9, 2)
	fresh, _ := NewSolved(p, 9, 2)
	a, b, c := [2]float64{0.3, 0.6}, [2]float64{0.4, 0.5}, [2]float64{0.1, 0.2}
	ga := make([]float64, 2)
	s.Reading(ga, a)
	s.Reading(nil, b)
	s.Reading(nil, a) // remembered
	s.Reading(nil, b) // remembered
	if s.Solves != 2 {
		t.Errorf("%d solves for two distinct centres", s.Solves)
	}
	s.Reading(nil, c) // evicts a
	g := make([]float64, 2)
	got := s.Reading(g, a)
	if s.Solves != 4 {
		t.Errorf("%d solves, want 4 after an eviction", s.Solves)
	}
	want := make([]float64, 2)
	if w := fresh.S.ReadingGrad(want, a); got != w || g[0] != want[0] || g[1] != want[1] || ga[0] != want[0] {
		t.Errorf("memo gives %v %v, a fresh solve %v %v", got, g, w, want)
	}
}

// The grids must meet the documented error bounds on the circle, and the
// fine grid must beat the coarse one.
func TestFidelityBounds(t *testing.T) {
	p := Paper()
	var errs [2]float64
	for k, f := range []Fidelity{Fine, Coarse} {
		s, err := NewSolved(p, f.N, f.Steps)
		if err != nil {
			t.Fatal(err)
		}
		errs[k] = p.CircleError(s, 360)
	}
	t.Logf("largest error on the circle: fine %.4f (bound %.4f), coarse %.4f (bound %.4f)", errs[0], FineBound, errs[1], CoarseBound)
	if errs[0] > FineBound {
		t.Errorf("fine solver error %v on the circle exceeds its bound %v", errs[0], FineBound)
	}
	if errs[1] > CoarseBound {
		t.Errorf("coarse solver error %v on the circle exceeds its bound %v", errs[1], CoarseBound)
	}
	if errs[0] >= errs[1] {
		t.Errorf("fine error %v is not below coarse error %v", errs[0], errs[1])
	}
}

// The exact posterior grid integrates to one, agrees with an independent
// radial quadrature of the normaliser, and peaks on the circle with nearly
// all its mass within three ring widths of it.
func TestExactPosterior(t *testing.T) {
	p := Paper()
	const tau, n = 0.08, 1200
	g := p.Posterior(tau, n)
	var sum, best float64
	arg := 0
	for k, m := range g.Mass {
		sum += m
		if m > best {
			best, arg = m, k
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("masses sum to %v", sum)
	}
	// The midpoint rule on cells of 0.4 ring widths is accurate to far
	// better than 1e-4 for a Gaussian-shaped ring; the radial rule with
	// 1e5 intervals likewise. The circle lies inside the square, so the
	// two integrals agree to the mass outside the square, exp(−100)-small.
	z2, zr := p.Normaliser(tau, n), p.RadialNormaliser(tau, 0.5, 100000)
	if math.Abs(z2/zr-1) > 1e-4 {
		t.Errorf("normaliser on the square %v, radial quadrature %v", z2, zr)
	}
	h := 1.0 / n
	x, y := (float64(arg/n)+0.5)*h, (float64(arg%n)+0.5)*h
	if d := math.Abs(math.Hypot(x-p.Sensor[0], y-p.Sensor[1]) - p.Radius()); d > h {
		t.Errorf("posterior peaks at (%v, %v), %v off the circle (cell %v)", x, y, d, h)
	}
	s := Scorer{P: p, Exact: g, Sectors: 36, Bins: 50, Band: 3 * p.RingWidth(tau)}
	// Three standard deviations hold 0.9973 of a Gaussian; the ring is a
	// Gaussian in r to within its curvature, a few per cent of its width.
	if m := s.ExactNear(); m < 0.99 {
		t.Errorf("mass within three ring widths of the circle is %v", m)
	}
}

// Samples drawn from the exact posterior must score as exact: full
// coverage, the exact near-circle fraction within 4 binomial standard
// errors, and a TV below 3·½√(K/n), the Cauchy–Schwarz bound on the
// expected TV of n samples over K occupied bins.
func TestScorerOnExactSamples(t *testing.T) {
	p := Paper()
	s := NewScorer(p, 0.08, 1200)
	const n = 20000
	xs, ys := Draw(s.Exact, n, rand.New(rand.NewPCG(3, 4)))
	m := s.Score(xs, ys)
	if m.Coverage != 1 {
		t.Errorf("coverage %v of exact samples", m.Coverage)
	}
	q := s.ExactNear()
	// The 1e-3 allows for cells straddling the band edge, which ExactNear
	// counts by their centres; the density there is e^{−4.5} of the peak.
	if se := math.Sqrt(q * (1 - q) / n); math.Abs(m.Near-q) > 4*se+1e-3 {
		t.Errorf("near-circle fraction %v, exact %v (se %v)", m.Near, q, se)
	}
	occupied := map[[2]int]bool{}
	for k := range xs {
		occupied[[2]int{int(xs[k] * 50), int(ys[k] * 50)}] = true
	}
	if bound := 3 * 0.5 * math.Sqrt(float64(len(occupied))/n); m.TV > bound {
		t.Errorf("TV %v of exact samples exceeds %v", m.TV, bound)
	}
	// Samples on half the circle cover half the sectors.
	var hx, hy []float64
	for k := range xs {
		if ys[k] > p.Sensor[1] {
			hx, hy = append(hx, xs[k]), append(hy, ys[k])
		}
	}
	if c := s.Score(hx, hy).Coverage; math.Abs(c-0.5) > 1.0/36 {
		t.Errorf("coverage %v of the upper half circle, want 0.5", c)
	}
}

// A sampler calls the energy every step: it must not allocate.
func TestEnergyAllocatesNothing(t *testing.T) {
	p := Paper()
	s, _ := NewSolved(p, 9, 2)
	e := &Energy{P: p, F: s}
	x, g := []float64{0.3, 0.6}, make([]float64, 2)
	if a := testing.AllocsPerRun(50, func() { x[0] += 1e-3; e.Grad(g, x); e.U(x) }); a != 0 {
		t.Errorf("%v allocations per energy and gradient", a)
	}
}
