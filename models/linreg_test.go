package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// linregData draws N examples of p correlated features (each the sum of
// its own normal and a shared one, so that neighbours correlate about 0.5)
// and a response from coefficients beta plus noise of sd 1.
func linregData(N, p int, beta []float64, seed uint64) (x, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x, y = make([]float64, N*p), make([]float64, N)
	for i := range N {
		s := rng.NormFloat64()
		for j := range p {
			x[i*p+j] = s + rng.NormFloat64()
			y[i] += beta[j] * x[i*p+j]
		}
		y[i] += rng.NormFloat64()
	}
	return x, y
}

// linregCases are the regression of 30 examples and 3 features (truth
// 1, 0, −0.5) that the derivative tests read, under the normal prior and
// under a spike-and-slab.
func linregCases(t *testing.T) []*LinReg {
	const N, p = 30, 3
	x, y := linregData(N, p, []float64{1, 0, -0.5}, 1)
	var ls []*LinReg
	for _, pr := range []SlabPrior{{W: 1, Slab: 2}, {W: 0.3, Spike: 0.05, Slab: 1.5}} {
		l, err := NewLinReg(x, y, p, 0.8, pr)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	return ls
}

// Term, Slopes and Grad agree with each other and with central differences
// of U; the prior's gradient with central differences of Prior; Inclusion
// with the ratio of the weighted densities computed directly.
func TestLinRegGradients(t *testing.T) {
	for _, l := range linregCases(t) {
		N, p, pr := l.Len(), l.P, l.Beta
		for _, theta := range [][]float64{{0.3, -0.02, 0.1}, {0.001, 0.2, -1}, {0, 0, 0}} {
			g := make([]float64, p)
			l.Grad(g, theta)
			g2 := make([]float64, p)
			if u := l.UGrad(g2, theta); u != l.U(theta) || !slices.Equal(g2, g) {
				t.Errorf("UGrad at %v: %v, %v; U and Grad give %v, %v", theta, u, g2, l.U(theta), g)
			}
			const h = 1e-6
			for j := range p {
				fd := centralDiff(l.U, theta, j, h)
				// Central differences err by h²·U‴/6 plus rounding
				// ε·U/h: below 1e-6 relative here (U ~ 10², U‴ ≤ 1/s0⁴).
				if math.Abs(fd-g[j]) > 1e-5*(1+math.Abs(g[j])) {
					t.Errorf("%+v at %v: ∂U/∂β_%d = %v, central difference %v", pr, theta, j, g[j], fd)
				}
			}
			idx := make([]int32, N)
			for i := range idx {
				idx[i] = int32(i)
			}
			d := make([]float64, N)
			l.Slopes(d, theta, idx)
			gi := make([]float64, p)
			for i := range N {
				l.Term(gi, theta, i)
				for j, v := range l.Row(i) {
					if d[i]*v != gi[j] {
						t.Fatalf("example %d: slope·x = %v, Term's gradient %v: not bit for bit", i, d[i]*v, gi[j])
					}
				}
			}
		}
		if pr.Normal() {
			continue
		}
		for _, b := range []float64{0, 0.01, 0.1, 0.5, 3} {
			n1 := pr.W * math.Exp(-0.5*b*b/(pr.Slab*pr.Slab)) / pr.Slab
			n0 := (1 - pr.W) * math.Exp(-0.5*b*b/(pr.Spike*pr.Spike)) / pr.Spike
			if got, want := pr.Inclusion(b), n1/(n1+n0); math.Abs(got-want) > 1e-14 {
				t.Errorf("Inclusion(%v) = %v, want %v", b, got, want)
			}
		}
		// Far in the tail the spike's density underflows: the slab takes all.
		if r := pr.Inclusion(50); r != 1 {
			t.Errorf("Inclusion(50) = %v, want 1", r)
		}
	}
}

func TestLinRegRejects(t *testing.T) {
	x, y := []float64{1, 2}, []float64{1, 2}
	for _, c := range []struct {
		sigma float64
		pr    SlabPrior
	}{
		{0, SlabPrior{W: 1, Slab: 1}},
		{1, SlabPrior{W: 0, Slab: 1, Spike: 0.1}},
		{1, SlabPrior{W: 1.5, Slab: 1}},
		{1, SlabPrior{W: 0.5, Slab: 1, Spike: 1}},
		{1, SlabPrior{W: 0.5, Slab: 1, Spike: 0}},
		{1, SlabPrior{W: 0.5, Slab: math.Inf(1), Spike: 0.1}},
	} {
		if _, err := NewLinReg(x, y, 1, c.sigma, c.pr); err == nil {
			t.Errorf("σ = %v, prior %+v accepted", c.sigma, c.pr)
		}
	}
}

// logPost is the log posterior density of β up to a constant, computed
// directly from the data: the brute-force side of the comparisons.
func logPost(l *LinReg, beta []float64) float64 { return -l.U(beta) }

// TestLinRegExactGrid1D checks the exact mixture against quadrature of the
// posterior density on a grid, p = 1, for the normal prior and two
// spike-and-slab priors (a spike the data reject and one they favour).
//
// Tolerances: the trapezoid rule on a uniform grid is exponentially
// accurate for an analytic integrand that has decayed to 0 at both ends
// (the error of a Gaussian of sd s at spacing h is about 2·exp(−2π²s²/h²)),
// and here h ≤ s/20 for the narrowest component and the range reaches 14
// sds beyond every component (tails of e^−98): the quadrature's error is
// rounding, about 1e-13. So 1e-9 on moments and inclusion leaves a
// margin of 10⁴ and still fails for any error in a weight's formula (a
// dropped ½ log|A| moves the inclusion by 0.1 or more here). The CDF at
// interior grid nodes uses a cumulative Simpson rule, whose error is
// h⁴/180·(range)·max|f⁗| ≈ (1/20)⁴/180·30 ≈ 1e-6 relative to the density's
// scale: tolerance 1e-5.
func TestLinRegExactGrid1D(t *testing.T) {
	x, y := linregData(12, 1, []float64{0.4}, 2)
	for _, pr := range []SlabPrior{{W: 1, Slab: 1}, {W: 0.5, Spike: 0.05, Slab: 1}, {W: 0.2, Spike: 0.02, Slab: 2}} {
		for _, yscale := range []float64{1, 0.05} { // the slab favoured; the spike favoured
			ys := make([]float64, len(y))
			for i := range y {
				ys[i] = y[i] * yscale
			}
			l, _ := NewLinReg(x, ys, 1, 1, pr)
			ex, err := l.Exact()
			if err != nil {
				t.Fatal(err)
			}
			lo, hi, h := ex.lo[0]-4, ex.hi[0]+4, math.Inf(1)
			for _, c := range ex.comps {
				h = min(h, c.sd[0]/20)
			}
			n := int(math.Ceil((hi-lo)/h)) | 1 // odd: Simpson's panels pair up
			h = (hi - lo) / float64(n-1)
			f := make([]float64, n)
			top := math.Inf(-1)
			for i := range f {
				f[i] = logPost(l, []float64{lo + float64(i)*h})
				top = max(top, f[i])
			}
			var z, m1, m2, inc float64
			for i := range f {
				b := lo + float64(i)*h
				f[i] = math.Exp(f[i] - top)
				z += f[i]
				m1 += b * f[i]
				m2 += b * b * f[i]
				inc += pr.Inclusion(b) * f[i]
			}
			mean := m1 / z
			sd := math.Sqrt(m2/z - mean*mean)
			inc /= z
			const tol = 1e-9
			if math.Abs(mean-ex.Mean[0]) > tol || math.Abs(sd-ex.SD[0]) > tol || math.Abs(inc-ex.Inclusion[0]) > tol {
				t.Errorf("%+v, y×%v: exact mean %.12g sd %.12g inclusion %.12g; grid %.12g %.12g %.12g",
					pr, yscale, ex.Mean[0], ex.SD[0], ex.Inclusion[0], mean, sd, inc)
			}
			// The CDF at interior nodes by Simpson's rule, per pair of panels.
			var cum float64
			for i := 2; i < n; i += 2 {
				cum += h / 3 * (f[i-2] + 4*f[i-1] + f[i])
				if i%200 != 0 {
					continue
				}
				b := lo + float64(i)*h
				if got, want := ex.CDF(0, b), cum/(z*h); math.Abs(got-want) > 1e-5 {
					t.Errorf("%+v, y×%v: CDF(%.4g) = %.8g, grid %.8g", pr, yscale, b, got, want)
				}
			}
			for _, q := range []float64{0.05, 0.5, 0.95} {
				if c := ex.CDF(0, ex.Quantile(0, q)); math.Abs(c-q) > 1e-12 {
					t.Errorf("CDF(Quantile(%v)) = %v", q, c)
				}
			}
		}
	}
}

// TestLinRegExactGrid2D checks moments, inclusion probabilities and the
// joint inclusion of both coefficients against a 2-D trapezoid grid, p = 2
// with strongly correlated features (so that the patterns trade off, as s1
// and s2 do in the diabetes data). The tolerance argument is
// TestLinRegExactGrid1D's, per dimension (h ≤ s/4 gives e^−2π²·16 ≈ 10⁻¹³⁷: still
// nothing but rounding, ~1e-12 over 10⁶ nodes).
func TestLinRegExactGrid2D(t *testing.T) {
	const N = 15
	rng := rand.New(rand.NewPCG(3, 3))
	x, y := make([]float64, 2*N), make([]float64, N)
	for i := range N {
		s := rng.NormFloat64()
		x[2*i], x[2*i+1] = s+0.3*rng.NormFloat64(), s+0.3*rng.NormFloat64()
		y[i] = 0.3*(x[2*i]+x[2*i+1]) + rng.NormFloat64()
	}
	pr := SlabPrior{W: 0.5, Spike: 0.05, Slab: 1}
	l, _ := NewLinReg(x, y, 2, 1, pr)
	ex, err := l.Exact()
	if err != nil {
		t.Fatal(err)
	}
	if ex.Enumerated != 4 || len(ex.Patterns) != 4 {
		t.Fatalf("%d patterns enumerated, %d listed; want 4", ex.Enumerated, len(ex.Patterns))
	}
	var lo, hi [2]float64
	h := math.Inf(1)
	for j := range 2 {
		lo[j], hi[j] = ex.lo[j]-1, ex.hi[j]+1
		for _, c := range ex.comps {
			h = min(h, c.sd[j]/4)
		}
	}
	n0, n1 := int((hi[0]-lo[0])/h)+1, int((hi[1]-lo[1])/h)+1
	top := logPost(l, ex.Mean)
	var z, both float64
	var m1, m2, inc [2]float64
	b := make([]float64, 2)
	for a := range n0 {
		b[0] = lo[0] + float64(a)*h
		for c := range n1 {
			b[1] = lo[1] + float64(c)*h
			f := math.Exp(logPost(l, b) - top)
			z += f
			for j := range 2 {
				m1[j] += b[j] * f
				m2[j] += b[j] * b[j] * f
				inc[j] += pr.Inclusion(b[j]) * f
			}
			both += pr.Inclusion(b[0]) * pr.Inclusion(b[1]) * f
		}
	}
	const tol = 1e-8
	for j := range 2 {
		mean := m1[j] / z
		sd := math.Sqrt(m2[j]/z - mean*mean)
		if math.Abs(mean-ex.Mean[j]) > tol || math.Abs(sd-ex.SD[j]) > tol || math.Abs(inc[j]/z-ex.Inclusion[j]) > tol {
			t.Errorf("β_%d: exact mean %.10g sd %.10g inclusion %.10g; grid %.10g %.10g %.10g", j, ex.Mean[j], ex.SD[j], ex.Inclusion[j], mean, sd, inc[j]/z)
		}
	}
	for _, pt := range ex.Patterns {
		if pt.Include[0] && pt.Include[1] && math.Abs(pt.Weight-both/z) > tol {
			t.Errorf("pattern 11: weight %.10g, grid %.10g", pt.Weight, both/z)
		}
	}
	// The patterns really trade off: neither coefficient is settled.
	if !(ex.Inclusion[0] > 0.1 && ex.Inclusion[0] < 0.9) {
		t.Logf("inclusion %v: the test data do not make the patterns compete", ex.Inclusion)
	}
}

// dataSpace is a second, independent formula for the same mixture: from
// the marginal of y given γ in data space, y ~ N(0, Σ_γ), Σ_γ = σ²I + X D_γ Xᵀ
// (an N×N matrix, where LinRegExact works with p×p precisions), the pattern
// weight w_γ·N(y; 0, Σ_γ) and β | γ, y with mean D Xᵀ Σ⁻¹ y and covariance
// D − D Xᵀ Σ⁻¹ X D.
func dataSpace(t *testing.T, l *LinReg) (mean, sd, inc []float64) {
	N, p := l.Len(), l.P
	X := mat.NewDense(N, p, l.X)
	Y := mat.NewVecDense(N, l.Y)
	var logw []float64
	type comp struct{ m, v []float64 }
	var comps []comp
	for mask := range 1 << p {
		D := mat.NewDiagDense(p, nil)
		var lw float64
		for j := range p {
			if mask>>j&1 == 1 {
				D.SetDiag(j, l.Beta.Slab*l.Beta.Slab)
				lw += math.Log(l.Beta.W)
			} else {
				D.SetDiag(j, l.Beta.Spike*l.Beta.Spike)
				lw += math.Log1p(-l.Beta.W)
			}
		}
		var XD mat.Dense
		XD.Mul(X, D)
		S := mat.NewSymDense(N, nil)
		var XDXt mat.Dense
		XDXt.Mul(&XD, X.T())
		for i := range N {
			for k := i; k < N; k++ {
				v := XDXt.At(i, k)
				if i == k {
					v += l.Sigma * l.Sigma
				}
				S.SetSym(i, k, v)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(S) {
			t.Fatal("Σ not positive definite")
		}
		var a mat.VecDense
		ch.SolveVecTo(&a, Y)
		lw += -0.5*ch.LogDet() - 0.5*mat.Dot(Y, &a)
		logw = append(logw, lw)
		var m mat.VecDense
		m.MulVec(XD.T(), &a) // D Xᵀ Σ⁻¹ y
		var SiXD mat.Dense
		ch.SolveTo(&SiXD, &XD) // Σ⁻¹ X D
		var C mat.Dense
		C.Mul(XD.T(), &SiXD) // D Xᵀ Σ⁻¹ X D
		c := comp{m: make([]float64, p), v: make([]float64, p)}
		for j := range p {
			c.m[j], c.v[j] = m.AtVec(j), D.At(j, j)-C.At(j, j)
		}
		comps = append(comps, c)
	}
	top := math.Inf(-1)
	for _, v := range logw {
		top = max(top, v)
	}
	var z float64
	for _, v := range logw {
		z += math.Exp(v - top)
	}
	mean, sd, inc = make([]float64, p), make([]float64, p), make([]float64, p)
	for k, c := range comps {
		w := math.Exp(logw[k]-top) / z
		for j := range p {
			mean[j] += w * c.m[j]
			sd[j] += w * (c.v[j] + c.m[j]*c.m[j])
			if k>>j&1 == 1 {
				inc[j] += w
			}
		}
	}
	for j := range p {
		sd[j] = math.Sqrt(sd[j] - mean[j]*mean[j])
	}
	return mean, sd, inc
}

// TestLinRegExactDataSpace compares LinRegExact with dataSpace for p = 3
// and p = 5. Both are exact; they differ by rounding in different
// factorisations of matrices whose condition numbers are below 10⁴ here,
// so 1e-9 is a margin of about 10³ over the double-precision error.
func TestLinRegExactDataSpace(t *testing.T) {
	for _, c := range []struct {
		p    int
		beta []float64
	}{{3, []float64{0.5, 0, 0.15}}, {5, []float64{0.4, 0, 0.1, -0.2, 0}}} {
		x, y := linregData(25, c.p, c.beta, uint64(c.p))
		l, _ := NewLinReg(x, y, c.p, 1.1, SlabPrior{W: 0.4, Spike: 0.03, Slab: 1.2})
		ex, err := l.Exact()
		if err != nil {
			t.Fatal(err)
		}
		mean, sd, inc := dataSpace(t, l)
		for j := range c.p {
			if math.Abs(mean[j]-ex.Mean[j]) > 1e-9 || math.Abs(sd[j]-ex.SD[j]) > 1e-9 || math.Abs(inc[j]-ex.Inclusion[j]) > 1e-9 {
				t.Errorf("p = %d, β_%d: exact %.10g %.10g %.10g; data space %.10g %.10g %.10g", c.p, j, ex.Mean[j], ex.SD[j], ex.Inclusion[j], mean[j], sd[j], inc[j])
			}
		}
		var total float64
		for _, pt := range ex.Patterns {
			total += pt.Weight
		}
		if len(ex.Patterns) != 1<<c.p || math.Abs(total-1) > 1e-12 {
			t.Errorf("p = %d: %d patterns listed, weights sum to %v", c.p, len(ex.Patterns), total)
		}
		for k := 1; k < len(ex.Patterns); k++ {
			if ex.Patterns[k].Weight > ex.Patterns[k-1].Weight {
				t.Fatalf("patterns not sorted by weight")
			}
		}
	}
}

// The normal prior is one Gaussian: the exact answer is the ridge
// posterior, which a direct solve of (XᵀX/σ² + I/s1²) m = Xᵀy/σ² gives.
func TestLinRegExactNormal(t *testing.T) {
	x, y := linregData(40, 2, []float64{1, -1}, 5)
	l, _ := NewLinReg(x, y, 2, 0.7, SlabPrior{W: 1, Slab: 0.5})
	ex, err := l.Exact()
	if err != nil {
		t.Fatal(err)
	}
	var a [2][2]float64
	var b [2]float64
	for i := range y {
		for j := range 2 {
			b[j] += x[2*i+j] * y[i] / 0.49
			for k := range 2 {
				a[j][k] += x[2*i+j] * x[2*i+k] / 0.49
			}
		}
	}
	a[0][0] += 4
	a[1][1] += 4
	det := a[0][0]*a[1][1] - a[0][1]*a[1][0]
	m := [2]float64{(a[1][1]*b[0] - a[0][1]*b[1]) / det, (a[0][0]*b[1] - a[1][0]*b[0]) / det}
	sd := [2]float64{math.Sqrt(a[1][1] / det), math.Sqrt(a[0][0] / det)}
	for j := range 2 {
		if math.Abs(ex.Mean[j]-m[j]) > 1e-12 || math.Abs(ex.SD[j]-sd[j]) > 1e-12 || ex.Inclusion[j] != 1 {
			t.Errorf("β_%d: %v %v %v; ridge %v %v", j, ex.Mean[j], ex.SD[j], ex.Inclusion[j], m[j], sd[j])
		}
		// A single Gaussian's quantiles: m ± 1.6449 sd.
		if q := ex.Quantile(j, 0.95); math.Abs(q-(m[j]+1.6448536269514722*sd[j])) > 1e-10 {
			t.Errorf("β_%d: 95%% quantile %v, want %v", j, q, m[j]+1.6448536269514722*sd[j])
		}
	}
	if ex.Enumerated != 1 {
		t.Errorf("normal prior: %d patterns enumerated, want 1", ex.Enumerated)
	}
	if _, err := NewLinRegExact(make([]float64, 21*21), make([]float64, 21), 21, 1, SlabPrior{W: 0.5, Spike: 0.1, Slab: 1}); err == nil {
		t.Error("p = 21 accepted")
	}
}
