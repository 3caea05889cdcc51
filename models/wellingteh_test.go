package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWellingTehTermIsMixtureDensity checks U_i against the mixture density
// written out: U_i(θ) + log p(x_i | θ) is the same constant, −log 2 −
// ½log(2πσx²), at every θ.
func TestWellingTehTermIsMixtureDensity(t *testing.T) {
	m := PaperWellingTeh()
	want := -math.Log(2) - 0.5*math.Log(2*math.Pi*m.VarX)
	phi := func(x, mu float64) float64 {
		return math.Exp(-(x-mu)*(x-mu)/(2*m.VarX)) / math.Sqrt(2*math.Pi*m.VarX)
	}
	for _, th := range [][]float64{{0, 1}, {1, -1}, {-0.7, 2.3}, {3, 0}} {
		for i := 0; i < 5; i++ {
			p := 0.5*phi(m.X[i], th[0]) + 0.5*phi(m.X[i], th[0]+th[1])
			if got := m.Term(nil, th, i) + math.Log(p); !(math.Abs(got-want) <= 1e-12) {
				t.Errorf("θ = %v, i = %d: U_i + log p = %v, want %v", th, i, got, want)
			}
		}
	}
}

// TestWellingTehGradients compares the analytic gradients with central
// differences (step 1e-6: truncation ~1e-12, rounding ~1e-10).
func TestWellingTehGradients(t *testing.T) {
	m := PaperWellingTeh()
	const h = 1e-6
	g := make([]float64, 2)
	for _, th := range [][]float64{{0, 1}, {1, -1}, {-0.7, 2.3}, {2.5, -3}} {
		for i := -1; i < 4; i++ { // i = −1 is the prior
			f := func(x []float64) float64 {
				if i < 0 {
					return m.Prior(nil, x)
				}
				return m.Term(nil, x, i)
			}
			if i < 0 {
				m.Prior(g, th)
			} else {
				m.Term(g, th, i)
			}
			for j := 0; j < 2; j++ {
				fd := centralDiff(f, th, j, h)
				if !(math.Abs(fd-g[j]) <= 1e-7*(1+math.Abs(fd))) {
					t.Errorf("θ = %v, term %d, coordinate %d: gradient %v, finite difference %v", th, i, j, g[j], fd)
				}
			}
		}
	}
}

// TestWellingTehPosterior checks the tabulated posterior: it integrates to
// one, the box holds all but 1e−12 of the mass (measured on a box four times
// as wide in each direction), and it has exactly two separated modes, one on
// each side of θ2 = 0, each holding a substantial share of the mass.
func TestWellingTehPosterior(t *testing.T) {
	m := PaperWellingTeh()
	if len(m.X) != 100 || m.Var1 != 10 || m.Var2 != 1 || m.VarX != 2 {
		t.Fatalf("not the paper's setting: N = %d, σ² = %v %v %v", len(m.X), m.Var1, m.Var2, m.VarX)
	}
	const nx, ny = 80, 96
	g := m.Posterior(1, nx, ny)
	var sum float64
	for _, p := range g.Mass {
		sum += p
	}
	if !(math.Abs(sum-1) <= 1e-12) {
		t.Errorf("masses sum to %v", sum)
	}

	// Outside mass: tabulate on a wider box and add up the cells outside.
	b := WellingTehBox
	wide := *m
	big := func() (in, out float64) {
		w := [4]float64{b[0] - 1.5*(b[1]-b[0]), b[1] + 1.5*(b[1]-b[0]), b[2] - 1.5*(b[3]-b[2]), b[3] + 1.5*(b[3]-b[2])}
		const n = 400
		hx, hy := (w[1]-w[0])/n, (w[3]-w[2])/n
		th := []float64{0, 0}
		u0 := wide.U([]float64{0, 1})
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				th[0], th[1] = w[0]+(float64(i)+0.5)*hx, w[2]+(float64(j)+0.5)*hy
				p := math.Exp(u0 - wide.U(th))
				if th[0] < b[0] || th[0] > b[1] || th[1] < b[2] || th[1] > b[3] {
					out += p
				} else {
					in += p
				}
			}
		}
		return in, out
	}
	if in, out := big(); out/(in+out) > 1e-12 {
		t.Errorf("mass outside the box: %v", out/(in+out))
	}

	// Modes: local maxima over the 8 neighbours, with mass above 1e-6.
	hx, hy := (g.X1-g.X0)/nx, (g.Y1-g.Y0)/ny
	type pt struct{ x, y float64 }
	var modes []pt
	for i := 1; i < nx-1; i++ {
		for j := 1; j < ny-1; j++ {
			p := g.Mass[i*ny+j]
			top := p > 1e-6
			for di := -1; di <= 1 && top; di++ {
				for dj := -1; dj <= 1; dj++ {
					if (di != 0 || dj != 0) && g.Mass[(i+di)*ny+j+dj] >= p {
						top = false
					}
				}
			}
			if top {
				modes = append(modes, pt{g.X0 + (float64(i)+0.5)*hx, g.Y0 + (float64(j)+0.5)*hy})
			}
		}
	}
	if len(modes) != 2 {
		t.Fatalf("modes at %v, want two", modes)
	}
	if !(modes[0].y > 0.5 && modes[1].y < -0.5 && modes[1].x-modes[0].x > 0.5) {
		t.Errorf("modes at %v: want one near (0, 1) and one near (1, −1)", modes)
	}
	var upper float64
	for i := 0; i < nx; i++ {
		for j := ny / 2; j < ny; j++ {
			upper += g.Mass[i*ny+j]
		}
	}
	t.Logf("modes of the posterior on the %d×%d grid: %v; mass with θ2 > 0: %.3f", nx, ny, modes, upper)
	if upper < 0.2 || upper > 0.8 {
		t.Errorf("mass with θ2 > 0 is %v: one mode dominates", upper)
	}
}

func TestWellingTehDataDraw(t *testing.T) {
	// The data are a fixed function of the seed: two draws agree.
	a := NewWellingTeh(10, 0, 1, rand.New(rand.NewPCG(7, 0)))
	b := NewWellingTeh(10, 0, 1, rand.New(rand.NewPCG(7, 0)))
	for i := range a.X {
		if a.X[i] != b.X[i] {
			t.Fatal("the data draw is not reproducible")
		}
	}
}
