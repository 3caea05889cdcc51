package nuts

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
)

// equivariance runs the kernel of tuned on target, from x, beside the
// kernel of the identity metric on the standard normal, from w = L⁻¹x, with
// the same random streams, for n transitions. With the metric equal to the
// target's covariance LLᵀ the two are one sampler in two coordinate
// systems (x = Lw, p = L⁻ᵀπ): same tree depths and leapfrog counts, and
// x = Lw to rounding. It returns the first transition where they differ,
// or −1.
func equivariance(t *testing.T, g *gauss, tuned Tuned, mut mutation, n int) int {
	t.Helper()
	k, err := NewKernel(g, tuned, Config{})
	if err != nil {
		t.Fatal(err)
	}
	k.s.mut = mut
	p := g.n
	ident := make([]float64, p)
	for j := range ident {
		ident[j] = 1
	}
	std := newGauss(make([]float64, p), identity(p))
	ks, err := NewKernel(std, Tuned{StepSize: tuned.StepSize, Dense: tuned.Dense, InvMetric: orDense(ident, tuned.Dense)}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, -0.5, 0.8}[:p]
	w := make([]float64, p)
	g.whiten(w, x)
	y := make([]float64, p)
	ra, rb := rand.New(rand.NewPCG(31, 1)), rand.New(rand.NewPCG(31, 1))
	for i := range n {
		k.Step(x, ra)
		ks.Step(w, rb)
		a, b := k.Last(), ks.Last()
		if a.Depth != b.Depth || a.NLeapfrog != b.NLeapfrog {
			return i
		}
		g.whiten(y, x)
		for j := range y {
			if !(math.Abs(y[j]-w[j]) < 1e-8*(1+math.Abs(w[j]))) {
				return i
			}
		}
	}
	return -1
}

func identity(p int) []float64 {
	m := make([]float64, p*p)
	for i := range p {
		m[i*p+i] = 1
	}
	return m
}

// orDense returns the diagonal d as a dense matrix when dense.
func orDense(d []float64, dense bool) []float64 {
	if !dense {
		return d
	}
	p := len(d)
	m := make([]float64, p*p)
	for i, v := range d {
		m[i*p+i] = v
	}
	return m
}

// A metric equal to the target's covariance makes the sampler the same as
// the identity metric on the standard normal, transition by transition:
// this pins down p ~ N(0, M) (a Cholesky factor transposed the wrong way,
// or M in place of M⁻¹, breaks it), the kinetic energy, the leapfrog's
// M⁻¹p, and the U-turn criterion's sharp momenta (the criterion on p,
// which is not invariant under a change of coordinates, breaks it).
func TestMetricEquivariance(t *testing.T) {
	const n = 300
	sd := []float64{10, 0.1, 1}
	diagCov, diagInv := equicorr(sd, 0), variances(sd)
	cov := equicorr([]float64{1, 2, 0.5}, 0.9)
	cases := []struct {
		name  string
		g     *gauss
		tuned Tuned
	}{
		{"diagonal", newGauss([]float64{0, 0, 0}, diagCov), Tuned{StepSize: 0.9, InvMetric: diagInv}},
		{"dense", newGauss([]float64{0, 0, 0}, cov), Tuned{StepSize: 0.9, Dense: true, InvMetric: cov}},
	}
	for _, c := range cases {
		if i := equivariance(t, c.g, c.tuned, mutNone, n); i >= 0 {
			t.Errorf("%s: the sampler departs from its whitened twin at transition %d", c.name, i)
		}
		if i := equivariance(t, c.g, c.tuned, mutPNotSharp, n); i < 0 {
			t.Errorf("%s: the criterion on p instead of p♯ went unnoticed", c.name)
		}
	}
}

// extraChecksWorst is, over step sizes 0.1 to 1.6, the largest mean
// integration time ε·n_leapfrog of NUTS on a 10-D standard normal with the
// identity metric, 100 transitions each from a stationary start.
func extraChecksWorst(t *testing.T, mut mutation) (worst, at float64) {
	const d = 10
	q := energy.NewIsoQuadratic(d, 1)
	one := make([]float64, d)
	for j := range one {
		one[j] = 1
	}
	rng := rand.New(rand.NewPCG(32, 1))
	x := make([]float64, d)
	for i := range 31 {
		eps := 0.1 + 0.05*float64(i)
		k, err := NewKernel(q, Tuned{StepSize: eps, InvMetric: one}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		k.s.mut = mut
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		var nl int
		for range 100 {
			k.Step(x, rng)
			nl += k.Last().NLeapfrog
		}
		if v := eps * float64(nl) / 100; v > worst {
			worst, at = v, eps
		}
	}
	return worst, at
}

// The checks across merged subtrees (Stan 2.21): on an iid normal a
// trajectory should stop after about half a period (π) and, with the
// doubling's overshoot, not run past a period and a half, 3π, whatever
// the step size. Without the extra checks, step sizes near 1.5 straddle
// the U-turn and run to the maximum depth (ε·1023 ≫ 3π).
func TestExtraUTurnChecks(t *testing.T) {
	worst, at := extraChecksWorst(t, mutNone)
	if !(worst < 3*math.Pi) {
		t.Errorf("mean integration time %.2f at step %.2f, want < 3π", worst, at)
	}
	t.Logf("longest mean integration time %.2f (step %.2f)", worst, at)
	if worst, at := extraChecksWorst(t, mutNoExtraUT); worst < 3*math.Pi {
		t.Errorf("without the extra checks: longest %.2f (step %.2f), want the test to fail", worst, at)
	}
}

// outerMetropolisZ runs 20000 transitions of depth at most 1 (one leapfrog
// step) on a standard normal at a step size giving acceptance near one
// half, and returns the z-score of the moves against the acceptance
// statistics: moves − Σa_i over √Σa_i(1 − a_i), each move a Bernoulli(a_i)
// draw when the outer doubling is biased progressive sampling, which for a
// single step is the Metropolis rule min(1, e^{H0−H}). Uniform
// (multinomial) sampling there would move with probability w/(1 + w), less.
func outerMetropolisZ(t *testing.T, mut mutation) float64 {
	k, err := NewKernel(energy.NewIsoQuadratic(1, 1), Tuned{StepSize: 1.9, InvMetric: []float64{1}}, Config{MaxDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	k.s.mut = mut
	rng := rand.New(rand.NewPCG(33, 1))
	x := []float64{0.3}
	var moves, sa, sv float64
	for range 20000 {
		mv, _ := k.Step(x, rng)
		a := k.Last().AcceptStat
		if mv {
			moves++
		}
		sa += a
		sv += a * (1 - a)
		if k.Last().NLeapfrog != 1 {
			t.Fatalf("%d leapfrogs at depth ≤ 1", k.Last().NLeapfrog)
		}
	}
	return (moves - sa) / math.Sqrt(sv)
}

// The outer doubling samples by biased progressive sampling, and
// accept_stat is the Metropolis acceptance: at depth 1 they coincide, so
// the moves are Bernoulli draws of the reported acceptance.
func TestOuterDoublingIsMetropolis(t *testing.T) {
	if z := outerMetropolisZ(t, mutNone); !(math.Abs(z) < zMax) {
		t.Errorf("moves against accept_stat: z = %.2f", z)
	}
	if z := outerMetropolisZ(t, mutUniformTop); math.Abs(z) < zMax {
		t.Errorf("uniform sampling at the outer doubling passed: z = %.2f", z)
	}
}

// Dual averaging drives the acceptance statistic to δ. A 1-D Gaussian of
// sd 3 is warmed up with one metric window and then 2000 transitions of
// step-size adaptation alone. Over those, Σ(δ − a_i) = s̄_t(t + t0) and
// x_t = μ − s̄_t√t/γ, so their mean acceptance is δ −
// γ(μ − x_t)(t + t0)/t^{3/2}, within 0.0017 of δ while |μ − x_t| < 3: the
// test allows 0.01. The frozen step e^{x̄} averages log ε over the
// iterates, so its acceptance exceeds δ by the curvature of a(log ε)
// (Jensen): +0.02 to +0.05 measured over seeds, against an MCSE of 0.003
// for 4000 draws; the test allows [δ − 0.02, δ + 0.07]. And a larger δ
// must give a smaller step in the metric's units, ε√(M⁻¹)/sd.
func TestStepSizeConvergesToDelta(t *testing.T) {
	const sd = 3.0
	q := energy.Quadratic{Lambda: []float64{1 / (sd * sd)}}
	prev := math.Inf(1)
	for _, delta := range []float64{0.65, 0.8, 0.95} {
		rng := rand.New(rand.NewPCG(34, 1))
		tu, x, st, err := Warmup(q, []float64{1}, 2100, rng, Config{Delta: delta, TermBuffer: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.WindowEnds) != 1 || st.WindowEnds[0] != 99 {
			t.Fatalf("window ends %v, want [99]", st.WindowEnds)
		}
		var wa float64
		for _, tr := range st.Trace[100:] {
			wa += tr.AcceptStat
		}
		wa /= 2000
		if !within(wa, delta-0.01, delta+0.01) {
			t.Errorf("δ %.2f: mean acceptance over the dual averaging %.4f", delta, wa)
		}
		k, err := NewKernel(q, tu, Config{})
		if err != nil {
			t.Fatal(err)
		}
		var a float64
		for range 4000 {
			k.Step(x, rng)
			a += k.Last().AcceptStat
		}
		a /= 4000
		if !within(a, delta-0.02, delta+0.07) {
			t.Errorf("δ %.2f: acceptance at the frozen step %.4f", delta, a)
		}
		w := tu.StepSize * math.Sqrt(tu.InvMetric[0]) / sd
		if !(w < prev) {
			t.Errorf("δ %.2f: whitened step %.3f not below the previous δ's %.3f", delta, w, prev)
		}
		prev = w
		t.Logf("δ %.2f: whitened step %.3f, acceptance %.4f in adaptation, %.4f after", delta, w, wa, a)
	}
}

// Stan's initial step-size search doubles or halves from the given step
// until one leapfrog step's acceptance crosses 0.8: on a Gaussian of sd s
// with the identity metric the result is a power of two times the start,
// within a factor 8 of s (a leapfrog step of ε ≈ s has acceptance near
// 0.8 from a typical state). Searching the wrong way would run to 10⁷ or
// to 0, an error.
func TestInitStepSize(t *testing.T) {
	for _, s := range []float64{0.001, 1, 300} {
		q := energy.Quadratic{Lambda: []float64{1 / (s * s), 1 / (s * s)}}
		m, _ := newMetric(2, false, []float64{1, 1})
		sm := newSampler(q, m, 1, 10, 1000)
		if _, ok := sm.load([]float64{s, -s / 2}); !ok {
			t.Fatal("load")
		}
		if err := sm.initStepSize(rand.New(rand.NewPCG(35, 1))); err != nil {
			t.Fatalf("sd %v: %v", s, err)
		}
		l := math.Log2(sm.eps)
		if l != math.Round(l) || !within(sm.eps/s, 1.0/8, 8) {
			t.Errorf("sd %v: step %v", s, sm.eps)
		}
	}
}

// The dual averaging against its closed form for a constant acceptance a:
// s̄_t = (δ − a)·t/(t + t0) (the weights 1/(t + t0) telescope), so
// x_t = μ − (δ − a)·t^{3/2}/((t + t0)γ); x̄_1 = x_1, and a ≡ δ keeps every
// iterate at μ.
func TestDualAveraging(t *testing.T) {
	const mu, delta, gamma, kappa, t0 = 1.3, 0.8, 0.05, 0.75, 10
	for _, a := range []float64{0.8, 0.3, 1.5} {
		d := dualAveraging{mu: mu, delta: delta, gamma: gamma, kappa: kappa, t0: t0}
		ac := min(a, 1) // Stan clips the statistic at 1
		var xbar float64
		for i := 1; i <= 50; i++ {
			eps := d.learn(a)
			tf := float64(i)
			x := mu - (delta-ac)*math.Pow(tf, 1.5)/((tf+t0)*gamma)
			if math.Abs(math.Log(eps)-x) > 1e-9*(1+math.Abs(x)) {
				t.Fatalf("a %v, t %d: log ε %v, want %v", a, i, math.Log(eps), x)
			}
			w := math.Pow(tf, -kappa)
			xbar = (1-w)*xbar + w*x
		}
		if math.Abs(math.Log(d.final())-xbar) > 1e-9*(1+math.Abs(xbar)) {
			t.Errorf("a %v: x̄ %v, want %v", a, math.Log(d.final()), xbar)
		}
		if a == delta && math.Abs(math.Log(d.final())-mu) > 1e-12 {
			t.Errorf("a ≡ δ: final step %v, want e^μ", d.final())
		}
	}
}

// Stan's window schedule: for 1000 and 2000 transitions the windows of 25,
// 50, 100, 200 and the stretched last one; for 150 one window; under 150
// the 15%/75%/10% split (one window ending at 0.9n − 1); under 20 none.
func TestWindowSchedule(t *testing.T) {
	ends := func(n int) []int {
		w := newWindows(n, 75, 50, 25)
		var e []int
		for ; w.counter < n; w.counter++ {
			if w.endOfWindow() {
				w.advance()
				e = append(e, w.counter)
			}
		}
		return e
	}
	for n, want := range map[int][]int{
		1000: {99, 149, 249, 449, 949},
		2000: {99, 149, 249, 449, 849, 1949},
		150:  {99},
		149:  {134}, // 22 + 113 − 1: int(0.15·149) = 22, int(0.1·149) = 14
		100:  {89},
		20:   {17},
		19:   nil,
	} {
		got := ends(n)
		if len(got) != len(want) {
			t.Errorf("%d transitions: windows end at %v, want %v", n, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%d transitions: windows end at %v, want %v", n, got, want)
				break
			}
		}
	}
	// Warmup follows the schedule and feeds the draws in the windows only.
	w := newWindows(1000, 75, 50, 25)
	var fed int
	for ; w.counter < 1000; w.counter++ {
		if w.inWindow() {
			fed++
		}
		if w.endOfWindow() {
			w.advance()
		}
	}
	if fed != 875 {
		t.Errorf("%d draws fed to the metric, want 875 (transitions 75…949)", fed)
	}
	rng := rand.New(rand.NewPCG(36, 1))
	q := energy.NewIsoQuadratic(1, 1)
	_, _, st, err := Warmup(q, []float64{0.5}, 1000, rng, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.WindowEnds) != 5 || st.WindowEnds[4] != 949 || st.InitBuffer != 75 || st.Window != 25 || st.TermBuffer != 50 {
		t.Errorf("warmup: windows end at %v, schedule %d/%d/%d", st.WindowEnds, st.InitBuffer, st.Window, st.TermBuffer)
	}
	tu, _, st, err := Warmup(q, []float64{0.5}, 19, rng, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.WindowEnds) != 0 || tu.InvMetric[0] != 1 {
		t.Errorf("19 transitions: windows %v, metric %v; want none, the identity", st.WindowEnds, tu.InvMetric)
	}
}

// The metric at a window's end is the Welford (co)variance of the window's
// draws, shrunk as Stan does: (n/(n+5))Σ̂ + 10⁻³(5/(n+5))I; checked
// against the two-pass sample covariance.
func TestWelfordRegularized(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	const p, n = 3, 40
	xs := make([][]float64, n)
	for i := range xs {
		a := rng.NormFloat64()
		xs[i] = []float64{1e4 + a, 3 * rng.NormFloat64(), a + 0.1*rng.NormFloat64()}
	}
	var mean [p]float64
	for _, x := range xs {
		for j := range p {
			mean[j] += x[j] / n
		}
	}
	cov := make([]float64, p*p)
	for _, x := range xs {
		for i := range p {
			for j := range p {
				cov[i*p+j] += (x[i] - mean[i]) * (x[j] - mean[j]) / (n - 1)
			}
		}
	}
	for _, dense := range []bool{false, true} {
		w := newWelford(p, dense)
		w.add([]float64{7, 7, 7}) // restart must forget it
		w.restart()
		for _, x := range xs {
			w.add(x)
		}
		cur := make([]float64, len(w.m2))
		got := w.regularized(cur)
		for i := range p {
			for j := range p {
				if !dense && i != j {
					continue
				}
				want := float64(n) / (n + 5) * cov[i*p+j]
				if i == j {
					want += 1e-3 * 5 / (n + 5)
				}
				k := i
				if dense {
					k = i*p + j
				}
				if math.Abs(got[k]-want) > 1e-9*math.Abs(want) {
					t.Errorf("dense %v (%d,%d): %v, want %v", dense, i, j, got[k], want)
				}
			}
		}
	}
}

// halfNormal is U(x) = x²/2 on x ≥ 0 and +∞ below: the model rejects
// negative states.
type halfNormal struct{}

func (halfNormal) Dim() int { return 1 }
func (halfNormal) U(x []float64) float64 {
	if x[0] < 0 {
		return math.Inf(1)
	}
	return 0.5 * x[0] * x[0]
}
func (halfNormal) Grad(g, x []float64) { g[0] = x[0] }

// A target with a region of energy +∞: trajectories that enter it are
// divergent and stop, and their states are never drawn; the draws still
// have the half-normal's moments, E x = √(2/π), E x² = 1, and P(x < 1) =
// 2Φ(1) − 1 (z-scores with ESS-based MCSEs).
func TestHalfNormalDivergences(t *testing.T) {
	const n = 8000
	rng := rand.New(rand.NewPCG(38, 1))
	tu, x, st, err := Warmup(halfNormal{}, []float64{1}, 1000, rng, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKernel(halfNormal{}, tu, Config{})
	if err != nil {
		t.Fatal(err)
	}
	xs, x2, below := make([]float64, n), make([]float64, n), make([]float64, n)
	var div int
	for i := range n {
		k.Step(x, rng)
		if k.Last().Divergent {
			div++
		}
		if !(x[0] >= 0) {
			t.Fatalf("draw %d is %v", i, x[0])
		}
		xs[i], x2[i] = x[0], x[0]*x[0]
		if x[0] < 1 {
			below[i] = 1
		}
	}
	if div == 0 || div != k.Divergences() || k.Transitions() != n {
		t.Errorf("%d divergent transitions seen, kernel counts %d of %d", div, k.Divergences(), k.Transitions())
	}
	for _, c := range []struct {
		name string
		s    []float64
		want float64
	}{
		{"E x", xs, math.Sqrt(2 / math.Pi)},
		{"E x²", x2, 1},
		{"P(x < 1)", below, math.Erf(1 / math.Sqrt2)},
	} {
		if z, ess := zOfMean(c.s, c.want); !(math.Abs(z) < zMax) {
			t.Errorf("%s: z = %.2f (ESS %.0f)", c.name, z, ess)
		}
	}
	t.Logf("%d of %d transitions divergent (%d in warmup), step %.3f", div, n, st.Divergences, tu.StepSize)
}

// The divergence threshold. At depth at most 1 a transition is one
// leapfrog step, its accept_stat min(1, e^{H0−H1}), so its energy error is
// −log accept_stat and it must be divergent exactly when that passes
// MaxDeltaH (checked transition by transition, both kinds required). A
// stable step on a Gaussian is never divergent at the default 1000.
func TestDivergenceThreshold(t *testing.T) {
	q := energy.NewIsoQuadratic(2, 1)
	const maxDH = 0.5
	k, err := NewKernel(q, Tuned{StepSize: 1.9, InvMetric: []float64{1, 1}}, Config{MaxDepth: 1, MaxDeltaH: maxDH})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(39, 1))
	x := []float64{0.5, -0.5}
	var div int
	for i := range 2000 {
		k.Step(x, rng)
		l := k.Last()
		dh := -math.Log(l.AcceptStat)
		if math.Abs(dh-maxDH) < 1e-9 {
			continue
		}
		if l.Divergent != (dh > maxDH) {
			t.Fatalf("transition %d: energy error %v, divergent %v at threshold %v", i, dh, l.Divergent, maxDH)
		}
		if l.Divergent {
			div++
		}
	}
	if div == 0 || div == 2000 || div != k.Divergences() {
		t.Errorf("%d of 2000 divergent, kernel counts %d: want some of each", div, k.Divergences())
	}
	k, _ = NewKernel(q, Tuned{StepSize: 0.5, InvMetric: []float64{1, 1}}, Config{})
	for range 1000 {
		k.Step(x, rng)
	}
	if k.Divergences() != 0 {
		t.Errorf("%d divergences at a stable step", k.Divergences())
	}
}

// funnel is Neal's funnel in 3-D: v ~ N(0, 3²), x_i | v ~ N(0, e^v).
type funnel struct{}

func (funnel) Dim() int { return 3 }
func (funnel) U(th []float64) float64 {
	v := th[0]
	u := v * v / 18
	for _, x := range th[1:] {
		u += 0.5*x*x*math.Exp(-v) + 0.5*v
	}
	return u
}
func (funnel) Grad(g, th []float64) {
	v := th[0]
	g[0] = v / 9
	for i, x := range th[1:] {
		g[0] += -0.5*x*x*math.Exp(-v) + 0.5
		g[i+1] = x * math.Exp(-v)
	}
}

// nanRegion is a standard normal whose energy is NaN beyond x = 1.5 and
// whose gradient is NaN there.
type nanRegion struct{}

func (nanRegion) Dim() int { return 1 }
func (nanRegion) U(x []float64) float64 {
	if x[0] > 1.5 {
		return math.NaN()
	}
	return 0.5 * x[0] * x[0]
}
func (nanRegion) Grad(g, x []float64) {
	g[0] = x[0]
	if x[0] > 1.5 {
		g[0] = math.NaN()
	}
}

// Pathological targets end in reports, never in panics or NaN states: the
// funnel (divergences in its neck), a NaN region (divergent, never drawn),
// a start where the energy is +∞ (the kernel stays, divergent), a flat
// improper target (the step-size search passes 10⁷: an error), and a
// start outside the support (an error).
func TestPathologicalTargets(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	tu, x, st, err := Warmup(funnel{}, []float64{0, 1, 1}, 300, rng, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKernel(funnel{}, tu, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for range 300 {
		k.Step(x, rng)
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("funnel state %v", x)
			}
		}
	}
	t.Logf("funnel: %d divergent in warmup, %d of 300 after", st.Divergences, k.Divergences())

	tu, x, _, err = Warmup(nanRegion{}, []float64{0}, 200, rng, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	k, _ = NewKernel(nanRegion{}, tu, Config{})
	for range 2000 {
		k.Step(x, rng)
		if !(x[0] <= 1.5) {
			t.Fatalf("drew %v in the NaN region", x[0])
		}
	}
	if k.Divergences() == 0 {
		t.Error("no divergence on a target with a NaN region")
	}

	k, _ = NewKernel(halfNormal{}, Tuned{StepSize: 0.5, InvMetric: []float64{1}}, Config{})
	x = []float64{-1}
	if moved, cost := k.Step(x, rng); moved || x[0] != -1 || !k.Last().Divergent || cost != 1 {
		t.Errorf("from U = +∞: moved %v to %v, divergent %v, cost %v", moved, x[0], k.Last().Divergent, cost)
	}

	flat := energy.Quadratic{Lambda: []float64{0}}
	if _, _, _, err := Warmup(flat, []float64{0}, 100, rng, DefaultConfig()); err == nil {
		t.Error("a flat target warmed up without error")
	}
	if _, _, _, err := Warmup(halfNormal{}, []float64{-1}, 100, rng, DefaultConfig()); err == nil {
		t.Error("a start with U = +∞ warmed up without error")
	}
}

// With a step so small that no U-turn comes, every transition doubles to
// the maximum depth: 2^MaxDepth − 1 leapfrog steps.
func TestMaxDepth(t *testing.T) {
	q := energy.NewIsoQuadratic(2, 1)
	for _, d := range []int{1, 3, 10} {
		k, err := NewKernel(q, Tuned{StepSize: 1e-4, InvMetric: []float64{1, 1}}, Config{MaxDepth: d})
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{1, 0}
		rng := rand.New(rand.NewPCG(41, 1))
		for range 5 {
			k.Step(x, rng)
			if l := k.Last(); l.Depth != d || l.NLeapfrog != 1<<d-1 {
				t.Errorf("max depth %d: depth %d, %d leapfrogs", d, l.Depth, l.NLeapfrog)
			}
		}
	}
}

// The kernel's cost and totals add up: a Step costs its leapfrogs, plus
// one evaluation when theta is not the state the kernel left; the totals
// sum the transitions'; the reported energy is H at the drawn state, so
// Energy − U(θ') is a kinetic energy, ≥ 0, of mean d/2 on a d-dimensional
// Gaussian (the drawn state's momentum is N(0, M) under the target).
func TestKernelAccounting(t *testing.T) {
	const d, n = 4, 4000
	g := newGauss(make([]float64, d), equicorr([]float64{1, 2, 3, 4}, 0.5))
	k, err := NewKernel(g, Tuned{StepSize: 0.4, Dense: true, InvMetric: g.cov}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(42, 1))
	x := make([]float64, d)
	g.draw(x, rng)
	var sum, leaps int
	kin := make([]float64, n)
	for i := range n {
		if i%100 == 50 {
			g.draw(x, rng) // theta changed from outside
		}
		_, c := k.Step(x, rng)
		l := k.Last()
		want := l.NLeapfrog
		if i == 0 || i%100 == 50 {
			want++
		}
		if int(c) != want {
			t.Fatalf("transition %d: cost %v, want %d", i, c, want)
		}
		sum += int(c)
		leaps += l.NLeapfrog
		kin[i] = l.Energy - g.U(x)
		if !(kin[i] >= -1e-12) {
			t.Fatalf("transition %d: Energy − U = %v", i, kin[i])
		}
		if l.StepSize != 0.4 || !within(l.AcceptStat, 0, 1) {
			t.Fatalf("transition %d: %+v", i, l)
		}
	}
	if k.GradEvals() != sum || k.Transitions() != n {
		t.Errorf("totals: %d gradients (costs sum to %d), %d transitions", k.GradEvals(), sum, k.Transitions())
	}
	if z, ess := zOfMean(kin, d/2.0); !(math.Abs(z) < zMax) {
		t.Errorf("mean kinetic energy at the draws: z = %.2f (ESS %.0f)", z, ess)
	}
}

// Invalid settings are errors, not panics.
func TestErrors(t *testing.T) {
	q := energy.NewIsoQuadratic(2, 1)
	rng := rand.New(rand.NewPCG(43, 1))
	for _, c := range []Config{{Delta: 1}, {Delta: -0.5}, {MaxDepth: -1}, {MaxDepth: 40}, {StepSize: math.Inf(1)},
		{Gamma: math.NaN()}, {InitBuffer: -1}, {MaxDeltaH: -1}} {
		if _, _, _, err := Warmup(q, []float64{0, 0}, 100, rng, c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
		if _, err := NewKernel(q, Tuned{StepSize: 1, InvMetric: []float64{1, 1}}, c); err == nil {
			t.Errorf("config %+v accepted by NewKernel", c)
		}
	}
	if _, _, _, err := Warmup(q, []float64{0}, 100, rng, Config{}); err == nil {
		t.Error("initial state of the wrong dimension accepted")
	}
	if _, _, _, err := Warmup(q, []float64{0, 0}, 0, rng, Config{}); err == nil {
		t.Error("warmup of 0 transitions accepted")
	}
	for _, tu := range []Tuned{
		{StepSize: 0, InvMetric: []float64{1, 1}},
		{StepSize: math.NaN(), InvMetric: []float64{1, 1}},
		{StepSize: 1, InvMetric: []float64{1}},
		{StepSize: 1, InvMetric: []float64{1, -1}},
		{StepSize: 1, InvMetric: []float64{1, math.NaN()}},
		{StepSize: 1, Dense: true, InvMetric: []float64{1, 0, 0}},
		{StepSize: 1, Dense: true, InvMetric: []float64{1, 2, 2, 1}},   // not positive definite
		{StepSize: 1, Dense: true, InvMetric: []float64{1, 0.5, 0, 1}}, // not symmetric
	} {
		if _, err := NewKernel(q, tu, Config{}); err == nil {
			t.Errorf("tuned %+v accepted", tu)
		}
	}
}

// recorder is the 1-D standard normal, recording every state its energy is
// evaluated at.
type recorder struct{ qs []float64 }

func (r *recorder) Dim() int              { return 1 }
func (r *recorder) U(x []float64) float64 { return r.UGrad([]float64{0}, x) }
func (r *recorder) Grad(g, x []float64)   { r.UGrad(g, x) }
func (r *recorder) UGrad(g, x []float64) float64 {
	r.qs = append(r.qs, x[0])
	g[0] = x[0]
	return 0.5 * x[0] * x[0]
}

// accept_stat is Stan's: the mean over the trajectory's leapfrog states of
// min(1, e^{H0−H}). On the unit harmonic oscillator the leapfrog conserves
// the shadow energy ½p² + ½(1 − ε²/4)q² exactly, so a state's energy error
// is H − H0 = (ε²/8)(q² − q0²): known from the positions alone, which the
// target records. Each transition's statistic is checked against the mean
// over the positions it evaluated (one per leapfrog step).
func TestAcceptStatIsTrajectoryMean(t *testing.T) {
	for _, eps := range []float64{0.3, 1.2, 1.9} {
		r := &recorder{}
		k, err := NewKernel(r, Tuned{StepSize: eps, InvMetric: []float64{1}}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(44, 1))
		x := []float64{0.7}
		k.Step(x, rng) // evaluates the start once
		for i := range 500 {
			q0 := x[0]
			r.qs = r.qs[:0]
			k.Step(x, rng)
			l := k.Last()
			if len(r.qs) != l.NLeapfrog {
				t.Fatalf("ε %v, transition %d: %d evaluations, %d leapfrogs", eps, i, len(r.qs), l.NLeapfrog)
			}
			var sum float64
			for _, q := range r.qs {
				sum += math.Min(1, math.Exp(-eps*eps/8*(q*q-q0*q0)))
			}
			if want := sum / float64(len(r.qs)); math.Abs(l.AcceptStat-want) > 1e-9 {
				t.Fatalf("ε %v, transition %d: accept_stat %v, want %v", eps, i, l.AcceptStat, want)
			}
		}
	}
}

// After each metric window (and at the start) the step size is searched
// for again and the dual averaging restarts shrinking towards ten times
// it: the first transition after uses the searched step ε0, the second
// e^{x_1} = 10ε0·e^{−(δ − a)/((1 + t0)γ)}, a the first's acceptance; at the
// start μ is log(10·StepSize), with the configured step, as in Stan.
func TestDualAveragingRestarts(t *testing.T) {
	cfg := DefaultConfig()
	g := newGauss([]float64{0, 0}, equicorr([]float64{1, 0.01}, 0.5))
	_, _, st, err := Warmup(g, []float64{0.1, 0}, 300, rand.New(rand.NewPCG(45, 1)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := st.Trace
	check := func(at int, mu float64) {
		a := min(tr[at].AcceptStat, 1)
		want := math.Exp(mu - (cfg.Delta-a)/((1+cfg.T0)*cfg.Gamma))
		if got := tr[at+1].StepSize; math.Abs(got-want) > 1e-12*want {
			t.Errorf("transition %d: step %v, want %v", at+1, got, want)
		}
	}
	if l := math.Log2(tr[0].StepSize); l != math.Round(l) {
		t.Errorf("first step %v is not a power of two times 1", tr[0].StepSize)
	}
	check(0, math.Log(10*cfg.StepSize))
	if len(st.WindowEnds) == 0 {
		t.Fatal("no window")
	}
	for _, e := range st.WindowEnds {
		check(e+1, math.Log(10*tr[e+1].StepSize))
	}
	// The searches happened: each makes at least two one-step tries, on
	// top of the start's evaluation and the transitions' leapfrogs.
	search := st.GradEvals - 1
	for _, x := range tr {
		search -= x.NLeapfrog
	}
	if search < 2*(1+len(st.WindowEnds)) {
		t.Errorf("%d evaluations in step-size searches, want ≥ 2 for each of %d", search, 1+len(st.WindowEnds))
	}
}
