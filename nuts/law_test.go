package nuts

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Tolerances. A z-score is the error of an average over its MCSE, the
// MCSE the series' sd over √ESS (posterior's ess_mean from package diag;
// for independent draws the ESS is their number). A test checking m such
// scores at |z| < zMax = 4 has, under normality, a family-wise false-alarm
// rate of m·6.3·10⁻⁵: under 0.2% for the 27 scores of the largest family
// here. The seeds are fixed, so a passing test stays passing; the bound
// says how unlucky a correct sampler would have to be to fail.
const zMax = 4

// sdsSpanning returns p standard deviations from lo to hi, evenly in log.
func sdsSpanning(p int, lo, hi float64) []float64 {
	sd := make([]float64, p)
	for j := range sd {
		sd[j] = lo * math.Pow(hi/lo, float64(j)/float64(p-1))
	}
	return sd
}

// sampleWhitened runs k for n transitions from x and returns the whitened
// draws.
func sampleWhitened(k *Kernel, g *gauss, x []float64, n int, rng *rand.Rand) [][]float64 {
	ys := make([][]float64, n)
	for i := range ys {
		k.Step(x, rng)
		ys[i] = make([]float64, g.n)
		g.whiten(ys[i], x)
	}
	return ys
}

// An anisotropic Gaussian, standard deviations 0.1 to 10, under the
// diagonal metric after Stan's default warmup: the draws' means and second
// moments are the exact ones, and the adapted inverse metric is near the
// variances.
func TestAnisotropicDiagonal(t *testing.T) {
	const p, warm, n = 6, 1000, 4000
	sd := sdsSpanning(p, 0.1, 10)
	cov := make([]float64, p*p)
	for j, s := range sd {
		cov[j*p+j] = s * s
	}
	g := newGauss(make([]float64, p), cov)
	rng := rand.New(rand.NewPCG(11, 1))
	init := make([]float64, p)
	for j := range init {
		init[j] = 1
	}
	tu, x, st, err := Warmup(g, init, warm, rng, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	// The last window holds 500 draws. A variance from n_eff draws has a
	// relative sd √(2/n_eff); granting the warmup draws an ESS of only a
	// quarter of their number (125), 4 sd of log(v̂/σ²) is 4·√(2/125) =
	// 0.51.
	for j, v := range tu.InvMetric {
		if r := math.Log(v / (sd[j] * sd[j])); !(math.Abs(r) < 0.51) {
			t.Errorf("inverse metric %d: %.4g, variance %.4g (log ratio %.2f)", j, v, sd[j]*sd[j], r)
		}
	}
	if !within(tu.StepSize, 0.05, 5) {
		t.Errorf("step size %v", tu.StepSize)
	}
	k, err := NewKernel(g, tu, Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := checkMoments(t, sampleWhitened(k, g, x, n, rng), zMax)
	t.Logf("step %.3f, warmup divergences %d, %d gradients; worst |z| %.2f, %.1f leapfrogs a draw",
		tu.StepSize, st.Divergences, st.GradEvals, w, float64(k.GradEvals())/n)
}

// A 5-D Gaussian, every correlation 0.99 and standard deviations 0.5 to 3,
// under the dense metric: the adapted inverse metric approximates the
// covariance, and the draws have the exact moments.
func TestCorrelatedDense(t *testing.T) {
	const p, warm, n = 5, 1000, 4000
	g := newGauss([]float64{1, -2, 0, 3, 0.5}, equicorr([]float64{1, 2, 0.5, 3, 1}, 0.99))
	rng := rand.New(rand.NewPCG(12, 1))
	cfg := DefaultConfig()
	cfg.Dense = true
	tu, x, st, err := Warmup(g, make([]float64, p), warm, rng, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !tu.Dense || len(tu.InvMetric) != p*p {
		t.Fatalf("tuned metric dense %v with %d entries", tu.Dense, len(tu.InvMetric))
	}
	// Whitened by the exact covariance, the inverse metric W = L⁻¹M⁻¹L⁻ᵀ is
	// a sample covariance of (nearly) standard normal draws: its
	// eigenvalues fill the Marchenko–Pastur interval (1 ± √(p/n))². For
	// the last window's 500 draws at a quarter of that as ESS (125) the
	// edges are 0.64 and 1.44; 10% more either way allows for the edge's
	// own fluctuation (of order n^{−2/3}).
	w := mat.NewSymDense(p, nil)
	col := make([]float64, p)
	tmp := make([]float64, p*p)
	for j := range p { // tmp = L⁻¹M⁻¹, column by column
		for i := range p {
			col[i] = tu.InvMetric[i*p+j]
		}
		g.whitenNoMean(col)
		for i := range p {
			tmp[i*p+j] = col[i]
		}
	}
	for i := range p { // W = (L⁻¹(L⁻¹M⁻¹)ᵀ)ᵀ
		copy(col, tmp[i*p:(i+1)*p])
		g.whitenNoMean(col)
		for j := i; j < p; j++ {
			w.SetSym(i, j, col[j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(w, false) {
		t.Fatal("eigen decomposition failed")
	}
	ev := es.Values(nil)
	lo, hi := 0.9*math.Pow(1-math.Sqrt(p/125.0), 2), 1.1*math.Pow(1+math.Sqrt(p/125.0), 2)
	for _, v := range ev {
		if !within(v, lo, hi) {
			t.Errorf("whitened inverse metric has eigenvalue %.3f outside [%.2f, %.2f]: %v", v, lo, hi, ev)
			break
		}
	}
	k, err := NewKernel(g, tu, Config{})
	if err != nil {
		t.Fatal(err)
	}
	worst := checkMoments(t, sampleWhitened(k, g, x, n, rng), zMax)
	t.Logf("step %.3f, eigenvalues %.3f, warmup divergences %d; worst |z| %.2f, %.1f leapfrogs a draw",
		tu.StepSize, ev, st.Divergences, worst, float64(k.GradEvals())/n)
}

// invariance starts n chains at exact draws of g, moves each by one
// transition of k, and scores the whitened results, which are exactly
// N(0, I) if k leaves the law invariant: each coordinate's mean (sd 1/√n)
// and each second moment E[y_i y_j] = δ_ij (sd √(2/n) on the diagonal,
// 1/√n off it) as z-scores, and each marginal's Kolmogorov–Smirnov
// distance relative to its 10⁻⁴ critical value. It returns the worst of
// each.
func invariance(k *Kernel, g *gauss, n int, rng *rand.Rand) (worstZ, worstKS float64) {
	p := g.n
	x, y := make([]float64, p), make([]float64, p)
	cols := make([][]float64, p)
	for i := range cols {
		cols[i] = make([]float64, n)
	}
	for r := range n {
		g.draw(x, rng)
		k.Step(x, rng)
		g.whiten(y, x)
		for i := range p {
			cols[i][r] = y[i]
		}
	}
	nf := float64(n)
	for i := range p {
		var m float64
		for _, v := range cols[i] {
			m += v
		}
		worstZ = max(worstZ, math.Abs(m/nf)*math.Sqrt(nf))
		for j := i; j < p; j++ {
			var s float64
			for r := range n {
				s += cols[i][r] * cols[j][r]
			}
			want, sd := 0.0, 1/math.Sqrt(nf)
			if i == j {
				want, sd = 1, math.Sqrt(2/nf)
			}
			worstZ = max(worstZ, math.Abs(s/nf-want)/sd)
		}
		worstKS = max(worstKS, ksNormal(cols[i])/ksCrit(n, 1e-4))
	}
	// NaN draws make NaN scores: report them as failures.
	if math.IsNaN(worstZ) || math.IsNaN(worstKS) {
		return math.Inf(1), math.Inf(1)
	}
	return worstZ, worstKS
}

// invarianceCase is a correlated 3-D Gaussian under a fixed metric that
// does not match it, diagonal or dense, at a step size large enough for
// the energy errors (so the weights) to matter.
func invarianceCase(t *testing.T, dense bool, mut mutation) (*Kernel, *gauss) {
	t.Helper()
	g := newGauss([]float64{0.5, -1, 2}, equicorr([]float64{1, 2, 0.5}, 0.9))
	tu := Tuned{StepSize: 0.35, InvMetric: []float64{1, 2, 0.5}}
	if dense {
		tu = Tuned{StepSize: 0.35, Dense: true, InvMetric: []float64{1, 0.3, 0, 0.3, 2, 0.1, 0, 0.1, 0.5}}
	}
	k, err := NewKernel(g, tu, Config{})
	if err != nil {
		t.Fatal(err)
	}
	k.s.mut = mut
	return k, g
}

// One transition of the fixed kernel from exact draws gives exact draws,
// for the diagonal and the dense metric. 9 z-scores and 3 KS distances a
// case: |z| < zMax, KS under its 10⁻⁴ critical value.
func TestOneStepInvariance(t *testing.T) {
	const n = 20000
	for _, dense := range []bool{false, true} {
		k, g := invarianceCase(t, dense, mutNone)
		z, ks := invariance(k, g, n, rand.New(rand.NewPCG(21, 1)))
		if !(z < zMax) || !(ks < 1) {
			t.Errorf("dense %v: worst |z| %.2f (want < %v), worst KS/critical %.2f (want < 1)", dense, z, zMax, ks)
		}
		t.Logf("dense %v: worst |z| %.2f, KS/critical %.2f, %.1f leapfrogs a step", dense, z, ks, float64(k.GradEvals())/n-1)
	}
}

// The invariance test has power: a sampler whose subtrees weigh every
// state alike (ignoring e^{H0−H}) or that skips the U-turn checks inside
// subtrees does not leave the law invariant, and the test says so.
func TestOneStepInvarianceCatchesBrokenTrees(t *testing.T) {
	const n = 20000
	for _, mut := range []mutation{mutFlatWeights, mutNoSubtreeUT} {
		k, g := invarianceCase(t, false, mut)
		z, ks := invariance(k, g, n, rand.New(rand.NewPCG(21, 1)))
		if z < zMax && ks < 1 {
			t.Errorf("mutation %d passed: worst |z| %.2f, KS/critical %.2f", mut, z, ks)
		}
	}
}

// mixture is the 1-D density 0.4·N(−2, 0.6²) + 0.6·N(1.5, 0.5²).
type mixture struct{}

var mixW, mixM, mixS = [2]float64{0.4, 0.6}, [2]float64{-2, 1.5}, [2]float64{0.6, 0.5}

func (mixture) Dim() int { return 1 }

func (m mixture) UGrad(g, x []float64) float64 {
	var l [2]float64
	for c := range 2 {
		d := (x[0] - mixM[c]) / mixS[c]
		l[c] = math.Log(mixW[c]/mixS[c]) - 0.5*d*d
	}
	lse := logSumExp(l[0], l[1])
	if g != nil {
		g[0] = 0
		for c := range 2 {
			g[0] += math.Exp(l[c]-lse) * (x[0] - mixM[c]) / (mixS[c] * mixS[c])
		}
	}
	return -lse
}

func (m mixture) U(x []float64) float64 { return m.UGrad(nil, x) }
func (m mixture) Grad(g, x []float64)   { m.UGrad(g, x) }
func (mixture) cdf(x float64) (f float64) {
	for c := range 2 {
		f += mixW[c] * 0.5 * math.Erfc(-(x-mixM[c])/(mixS[c]*math.Sqrt2))
	}
	return f
}

func (mixture) draw(rng *rand.Rand) float64 {
	c := 0
	if rng.Float64() < mixW[1] {
		c = 1
	}
	return mixM[c] + mixS[c]*rng.NormFloat64()
}

// mixtureInvariance moves n exact draws of the mixture by one transition of
// k and returns the z-scores of the mean and second moment (with their
// exact variances) and the KS distance over its 10⁻⁴ critical value.
func mixtureInvariance(k *Kernel, n int, rng *rand.Rand) (z1, z2, ks float64) {
	var m mixture
	// Exact moments: E[x^k] = Σ_c w_c E_c[x^k].
	var e1, e2, e4 float64
	for c := range 2 {
		mu, s2 := mixM[c], mixS[c]*mixS[c]
		e1 += mixW[c] * mu
		e2 += mixW[c] * (mu*mu + s2)
		e4 += mixW[c] * (mu*mu*mu*mu + 6*mu*mu*s2 + 3*s2*s2)
	}
	xs := make([]float64, n)
	x := []float64{0}
	var s1, s2 float64
	for r := range xs {
		x[0] = m.draw(rng)
		k.Step(x, rng)
		xs[r] = x[0]
		s1 += x[0]
		s2 += x[0] * x[0]
	}
	nf := float64(n)
	z1 = (s1/nf - e1) / math.Sqrt((e2-e1*e1)/nf)
	z2 = (s2/nf - e2) / math.Sqrt((e4-e2*e2)/nf)
	// KS against the mixture's CDF: the probability transform is uniform.
	us := make([]float64, n)
	for i, v := range xs {
		// Map to a standard normal through the mixture's CDF so that
		// ksNormal applies.
		us[i] = math.Sqrt2 * math.Erfinv(2*m.cdf(v)-1)
	}
	ks = ksNormal(us) / ksCrit(n, 1e-4)
	if math.IsNaN(z1) || math.IsNaN(z2) || math.IsNaN(ks) {
		return math.Inf(1), math.Inf(1), math.Inf(1)
	}
	return z1, z2, ks
}

// One transition from exact draws of a bimodal mixture gives exact draws:
// a target that is not Gaussian, where each trajectory's states weigh
// very differently (the step, 0.8, is large for components of sd 0.5 and
// 0.6). With flat weights in the subtrees, or no U-turn checks inside
// them, the same test fails.
func TestOneStepInvarianceMixture(t *testing.T) {
	const n = 20000
	for _, mut := range []mutation{mutNone, mutFlatWeights, mutNoSubtreeUT} {
		k, err := NewKernel(mixture{}, Tuned{StepSize: 0.8, InvMetric: []float64{1}}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		k.s.mut = mut
		z1, z2, ks := mixtureInvariance(k, n, rand.New(rand.NewPCG(22, 1)))
		ok := math.Abs(z1) < zMax && math.Abs(z2) < zMax && ks < 1
		if ok != (mut == mutNone) {
			t.Errorf("mutation %d: z(mean) %.2f, z(E x²) %.2f, KS/critical %.2f", mut, z1, z2, ks)
		}
		t.Logf("mutation %d: z(mean) %.2f, z(E x²) %.2f, KS/critical %.2f", mut, z1, z2, ks)
	}
}
