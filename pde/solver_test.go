package pde

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

var paperSensor = [2]float64{0.3, 0.5}

func mustNew(t testing.TB, c Config) *Solver {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The dense sine transform must be gonum's DST up to its normalisation,
// and its own inverse.
func TestSine2MatchesDST(t *testing.T) {
	const n = 9
	rng := rand.New(rand.NewPCG(1, 1))
	g := make([]float64, n*n)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	want := append([]float64(nil), g...)
	d := fourier.NewDST(n)
	row := make([]float64, n)
	for i := 0; i < n; i++ {
		d.Transform(want[i*n:(i+1)*n], want[i*n:(i+1)*n])
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			row[i] = want[i*n+j]
		}
		d.Transform(row, row)
		for i := 0; i < n; i++ {
			want[i*n+j] = row[i] / (2 * (n + 1)) // gonum's DST twice: ×2(n+1)
		}
	}
	tr := newSine2(n)
	got := append([]float64(nil), g...)
	tr.apply(got)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("coefficient %d: dense %v, DST %v", i, got[i], want[i])
		}
	}
	tr.apply(got)
	for i := range got {
		if math.Abs(got[i]-g[i]) > 1e-12 {
			t.Fatalf("transform is not its own inverse at %d: %v, want %v", i, got[i], g[i])
		}
	}
}

// errors returns the sensor error and the largest nodal error at T against
// the exact solution, for the centre x0.
func solveErrors(t *testing.T, n, steps int, x0 [2]float64) (sensor, field float64) {
	c := Config{N: n, Steps: steps, T: 0.03, Sensor: paperSensor, Bump: PaperBump()}
	s := mustNew(t, c)
	sensor = math.Abs(s.Reading(x0) - c.Bump.Reading(nil, c.Sensor, c.T, x0))
	u := make([]float64, n*n)
	s.Field(u, x0)
	dz := c.Spacing()
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			e := math.Abs(u[(i-1)*n+j-1] - c.Bump.U(float64(i)*dz, float64(j)*dz, c.T, x0))
			field = math.Max(field, e)
		}
	}
	return sensor, field
}

// Crank–Nicolson with the five-point Laplacian is second order in space
// and time. Refining h and Δt together by 2 must divide the error by 4:
// the observed order log2(e_h/e_{h/2}) on the two finest pairs must lie
// within [1.8, 2.3] (coarser grids resolve the bump of width 0.1 with too
// few nodes to be in the asymptotic range). The grids put the sensor on a node (0.3 = 3/10), so
// the reading carries no interpolation error, and the centre is off the
// grid so no cancellation helps.
func TestConvergenceOrder(t *testing.T) {
	x0 := [2]float64{0.4137, 0.5521}
	cases := []struct{ n, steps int }{{9, 1}, {19, 2}, {39, 4}, {79, 8}, {159, 16}}
	var prevS, prevF float64
	for k, c := range cases {
		es, ef := solveErrors(t, c.n, c.steps, x0)
		if k == 0 {
			t.Logf("h = 1/%d, Δt = %.4g: sensor error %.3e, max nodal error %.3e", c.n+1, 0.03/float64(c.steps), es, ef)
		} else {
			os, of := math.Log2(prevS/es), math.Log2(prevF/ef)
			t.Logf("h = 1/%d, Δt = %.4g: sensor error %.3e (order %.2f), max nodal error %.3e (order %.2f)", c.n+1, 0.03/float64(c.steps), es, os, ef, of)
			if k >= 3 && (of < 1.8 || of > 2.3 || os < 1.8 || os > 2.3) {
				t.Errorf("h = 1/%d: observed orders %.2f (sensor), %.2f (field), want 2", c.n+1, os, of)
			}
		}
		prevS, prevF = es, ef
	}
}

// With a bump centred far from the sensor the boundary data and the lift
// carry the solution; the solver must still converge there. A bump on the
// boundary itself exercises the lift hardest.
func TestConvergenceBumpOnBoundary(t *testing.T) {
	x0 := [2]float64{0.02, 0.37}
	e1, f1 := solveErrors(t, 39, 4, x0)
	e2, f2 := solveErrors(t, 79, 8, x0)
	t.Logf("bump on the boundary: max nodal error %.3e → %.3e (order %.2f), sensor %.3e → %.3e", f1, f2, math.Log2(f1/f2), e1, e2)
	if o := math.Log2(f1 / f2); o < 1.8 || o > 2.3 {
		t.Errorf("observed order %.2f, want 2", o)
	}
}

// The adjoint sweep must give the forward reading to rounding, and its
// gradient must match central differences of the forward reading. With
// δ = 1e-5 the difference quotient's truncation error is δ²/6·|∂³J| ≲
// 1e-10·1e5 (third derivatives of a bump of width 0.1 and height 16 are
// ≲ 16·(3/0.1)³/√… ≈ 1e5) and its rounding error ε·|J|/δ ≈ 1e-16·16/1e-5
// ≈ 2e-10, so 1e-5 absolute is a safe bound with room for a real bug (a
// missing term is O(1)).
func TestAdjointGradient(t *testing.T) {
	for _, c := range []Config{
		{N: 19, Steps: 3, T: 0.03, Sensor: paperSensor, Bump: PaperBump()},
		{N: 12, Steps: 2, T: 0.05, Sensor: [2]float64{0.04, 0.97}, Bump: PaperBump()}, // sensor next to the boundary
	} {
		s := mustNew(t, c)
		for _, x0 := range [][2]float64{{0.45, 0.5}, {0.21, 0.33}, {0.0, 0.9}, {1, 1}} {
			g := make([]float64, 2)
			j := s.ReadingGrad(g, x0)
			f := s.Reading(x0)
			if math.Abs(j-f) > 1e-11*math.Max(1, math.Abs(f)) {
				t.Errorf("N=%d x0=%v: adjoint reading %v, forward %v", c.N, x0, j, f)
			}
			const d = 1e-5
			for k := range 2 {
				xp, xm := x0, x0
				xp[k] += d
				xm[k] -= d
				fd := (s.Reading(xp) - s.Reading(xm)) / (2 * d)
				if math.Abs(g[k]-fd) > 1e-5 {
					t.Errorf("N=%d x0=%v: ∂J/∂x0_%d adjoint %v, finite difference %v", c.N, x0, k, g[k], fd)
				}
			}
		}
	}
}

// The discrete gradient converges to the exact one as the grid is refined.
func TestAdjointGradientConverges(t *testing.T) {
	b := PaperBump()
	x0 := [2]float64{0.43, 0.56}
	want := make([]float64, 2)
	b.Reading(want, paperSensor, 0.03, x0)
	var prev float64
	for k, n := range []int{19, 39, 79} {
		s := mustNew(t, Config{N: n, Steps: (n + 1) / 10, T: 0.03, Sensor: paperSensor, Bump: b})
		g := make([]float64, 2)
		s.ReadingGrad(g, x0)
		e := math.Hypot(g[0]-want[0], g[1]-want[1])
		if k > 0 {
			t.Logf("N=%d: gradient error %.3e (order %.2f)", n, e, math.Log2(prev/e))
			if o := math.Log2(prev / e); k == 2 && (o < 1.8 || o > 2.3) {
				t.Errorf("gradient converges at order %.2f, want 2", o)
			}
		}
		prev = e
	}
}

func TestValidate(t *testing.T) {
	good := Config{N: 9, Steps: 2, T: 0.03, Sensor: paperSensor, Bump: PaperBump()}
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"grid too small", func(c *Config) { c.N = 2 }, "grid too small: N = 2"},
		{"grid too large", func(c *Config) { c.N = 1 << 20 }, "grid too large"},
		{"no steps", func(c *Config) { c.Steps = 0 }, "time steps = 0"},
		{"T zero", func(c *Config) { c.T = 0 }, "final time T = 0"},
		{"T negative", func(c *Config) { c.T = -1 }, "final time T = -1"},
		{"T NaN", func(c *Config) { c.T = math.NaN() }, "final time T = NaN"},
		{"sensor outside", func(c *Config) { c.Sensor = [2]float64{1.2, 0.5} }, "sensor (1.2, 0.5) lies outside the domain"},
		{"sensor on boundary", func(c *Config) { c.Sensor = [2]float64{0.5, 0} }, "coordinate 1 = 0"},
		{"bump width", func(c *Config) { c.Bump.H = 0 }, "bump width h = 0"},
	}
	if _, err := New(good); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
	for _, c := range cases {
		cfg := good
		c.edit(&cfg)
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestReadingAllocatesNothing(t *testing.T) {
	s := mustNew(t, Config{N: 9, Steps: 2, T: 0.03, Sensor: paperSensor, Bump: PaperBump()})
	g := make([]float64, 2)
	if a := testing.AllocsPerRun(20, func() { s.ReadingGrad(g, [2]float64{0.4, 0.5}); s.Reading([2]float64{0.4, 0.5}) }); a != 0 {
		t.Errorf("%v allocations per solve", a)
	}
}
