package exchange

import (
	"math"
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/subsets"
	"github.com/fresgld/fresgld/langevin"
)

// outlierTerms is U_i(θ) = ½(θ − x_i)², U_0 = θ²/20, on data with one
// outlier: per-example energies as skewed as a badly fitted example makes
// them, which is what makes a same-draw variance estimate lie.
type outlierTerms struct{ x, w []float64 }

func (o outlierTerms) Dim() int { return 1 }
func (o outlierTerms) Len() int { return len(o.x) }
func (o outlierTerms) Term(grad, theta []float64, i int) float64 {
	d, w := theta[0]-o.x[i], 1.0
	if o.w != nil {
		w = o.w[i]
	}
	if grad != nil {
		grad[0] = w * d
	}
	return w * d * d / 2
}
func (o outlierTerms) Prior(grad, theta []float64) float64 {
	if grad != nil {
		grad[0] = theta[0] / 10
	}
	return theta[0] * theta[0] / 20
}

var outliers = outlierTerms{x: []float64{0, 0.1, -0.2, 0.3, 0.05, -0.1, 0.2, 3.0}}

// curvedOutliers gives the examples unequal curvatures w_i: with equal ones
// the first-order residuals ½w_iΔ² are the same for every example and the
// Taylor modes would be exact, testing nothing of their variance.
var curvedOutliers = outlierTerms{x: outliers.x, w: []float64{1, 0.5, 2, 1, 1.5, 0.8, 1.2, 3}}

// termsFor is the data set a mode's tests use.
func termsFor(mode EnergyMode) outlierTerms {
	if mode.taylor() {
		return curvedOutliers
	}
	return outliers
}

// component is one independent minibatch term of D̂: coef·(c + (N/n)Σ_{i∈B} e_i)
// over every n-subset B, with e the per-example values.
type component struct {
	coef, c float64
	e       []float64
	n       int
}

func (c component) values() []float64 {
	var out []float64
	N := len(c.e)
	subsets.Each(N, c.n, func(idx []int) {
		var s float64
		for _, i := range idx {
			s += c.e[i]
		}
		out = append(out, c.coef*(c.c+float64(N)/float64(c.n)*s))
	})
	return out
}

// variance is the exact variance of the component, N(N − n)/n·S²·coef².
func (c component) variance() float64 {
	N := len(c.e)
	var m, s float64
	for _, x := range c.e {
		m += x / float64(N)
	}
	for _, x := range c.e {
		s += (x - m) * (x - m)
	}
	return c.coef * c.coef * float64(N) * float64(N-c.n) / float64(c.n) * s / float64(N-1)
}

// lawOf is the exact law of D̂: every combination of the components'
// subsets, equally likely.
func lawOf(comps []component) []float64 {
	ds := []float64{0}
	for _, c := range comps {
		vs := c.values()
		next := make([]float64, 0, len(ds)*len(vs))
		for _, a := range ds {
			for _, b := range vs {
				next = append(next, a+b)
			}
		}
		ds = next
	}
	return ds
}

// comps builds the components of D̂ for a rule and a mode, for x at level 0
// (energy size n0, anchor ax) and y at level 1 (n1, anchor ay); anchors are
// ignored unless the mode uses control variates.
func comps(o outlierTerms, rule Rule, mode EnergyMode, a1 float64, x, y, ax, ay float64, n0, n1 int) []component {
	N := o.Len()
	cv, taylor := mode.cv(), mode.taylor()
	per := func(th, anc float64, sign float64) (c float64, e []float64) {
		c = o.Prior(nil, []float64{th})
		e = make([]float64, N)
		g := []float64{0}
		for i := range e {
			e[i] = o.Term(nil, []float64{th}, i)
			if cv {
				a := o.Term(g, []float64{anc}, i)
				if taylor {
					a += g[0] * (th - anc)
				}
				e[i] -= a
				c += a
			}
		}
		return sign * c, e
	}
	cx, ex := per(x, ax, 1)
	cy, ey := per(y, ay, 1)
	state := func(coef, c float64, e []float64, n int) component { return component{coef: coef, c: c, e: e, n: n} }
	diff := make([]float64, N)
	for i := range diff {
		diff[i] = ex[i] - ey[i]
	}
	pair := func(coef float64, n int) component { return component{coef: coef, c: cx - cy, e: diff, n: n} }
	switch mode {
	case PairEnergies, PairCVEnergies, PairTaylorEnergies:
		switch rule {
		case ReSGLD:
			return []component{pair(1, n0)}
		case MReSGLD:
			return []component{pair(a1, n0), pair(1-a1, n1)}
		default:
			return []component{pair(1, (n0+n1+1)/2)}
		}
	}
	switch rule {
	case ReSGLD:
		return []component{state(1, cx, ex, n0), state(-1, cy, ey, n0)}
	case MReSGLD:
		return []component{state(a1, cx, ex, n0), state(-a1, cy, ey, n0), state(1-a1, cx, ex, n1), state(a1-1, cy, ey, n1)}
	default:
		n := (n0 + n1 + 1) / 2
		return []component{state(1, cx, ex, n), state(-1, cy, ey, n)}
	}
}

func TestExactSwapsAtARate(t *testing.T) {
	const W, steps = 7, 700
	o := outliers
	est, _ := energy.NewMinibatch(o, 3)
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}},
		{Tau: 4, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}},
	}, Swap: Swap{Rule: FReSGLD, A: 1}, Seed: 2, Energies: Energies{Mode: ExactEnergies, Terms: o, ExactEvery: W}}
	s := mustNew(t, cfg, [][]float64{{0}, {1}})
	stepN(t, s, steps)
	st := s.Stats()
	if st.Pairs[0].Attempts != steps/W {
		t.Errorf("%d attempts in %d steps, want one every %d: %d", st.Pairs[0].Attempts, steps, W, steps/W)
	}
	if u := st.Levels[0].Cost.Energy.Units + st.Levels[1].Cost.Energy.Units; u != float64(2*o.Len()*(steps/W)) {
		t.Errorf("exact swap energies cost %v units, want 2N per attempt = %d", u, 2*o.Len()*(steps/W))
	}
	if st.Pairs[0].Noise != 0 {
		t.Errorf("exact energies report swap noise %v", st.Pairs[0].Noise)
	}
	// The exact ratio: acceptance frequency against min(1, S) at fixed states.
	xs, ys := []float64{0.6}, []float64{0.0}
	S := math.Exp(0.75 * (energy.Sum(o, xs) - energy.Sum(o, ys)))
	lr, _ := s.LogRatio(0, xs, ys)
	if !(math.Abs(lr-math.Log(S)) <= 1e-12) {
		t.Errorf("exact log ratio %v, want log S = %v", lr, math.Log(S))
	}
}

// TestExactSwapEnergiesOncePerState checks that a step's exact swap
// energies evaluate each state once however many pairs it belongs to, and
// that every attempt still sees the energies of the states it swaps: its
// log-ratio against τδ[U(x) − U(y)] evaluated afresh. An energy kept from an
// earlier step, or kept by level rather than by replica (so that an
// accepted swap leaves the next pair the wrong state's energy), fails the
// second check; evaluating both states of every pair fails the first.
func TestExactSwapEnergiesOncePerState(t *testing.T) {
	const K, steps = 4, 300
	o := outliers
	est, _ := energy.NewMinibatch(o, 3)
	var lv []Level
	init := make([][]float64, K)
	for l := range K {
		var e energy.Estimator = est
		if l > 0 {
			e = est.Clone()
		}
		lv = append(lv, Level{Tau: math.Pow(2, float64(l)), Est: e, Eta: langevin.Constant{Step: 0.05}})
		init[l] = []float64{float64(l) / 2}
	}
	s := mustNew(t, Config{Levels: lv, Swap: Swap{Rule: FReSGLD, A: 1}, Seed: 3, Energies: Energies{Mode: ExactEnergies, Terms: o, ExactEvery: 1}}, init)
	worst, attempts := 0.0, 0
	s.onSwap = func(l int, x, y []float64, lr, _ float64, _ bool) {
		attempts++
		want := (1/s.lv[l].Tau - 1/s.lv[l+1].Tau) * (energy.Sum(o, x) - energy.Sum(o, y))
		worst = max(worst, math.Abs(lr-want))
	}
	stepN(t, s, steps)
	st := s.Stats()
	if attempts != (K-1)*steps {
		t.Fatalf("%d attempts, want every pair at every step: %d", attempts, (K-1)*steps)
	}
	if !(worst <= 1e-12) {
		t.Errorf("an attempt's log-ratio is off the fresh energies' by %v", worst)
	}
	accepts := 0
	for _, p := range st.Pairs {
		accepts += p.Accepts
	}
	if accepts == 0 {
		t.Fatal("no swap accepted: the replicas never traded levels, so a cache kept by level would pass")
	}
	u := 0.0
	for _, l := range st.Levels {
		u += l.Cost.Energy.Units
	}
	if want := float64(K * o.Len() * steps); u != want {
		t.Errorf("swap energies cost %v units, want N for each of the %d states a step: %v", u, K, want)
	}
}

func cvSampler(t *testing.T, seed uint64) *Sampler {
	t.Helper()
	o := outliers
	est, _ := energy.NewMinibatch(o, 3)
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.05}},
		{Tau: 4, Est: est.Clone(), Eta: langevin.Constant{Step: 0.05}},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: seed,
		Energies: Energies{Mode: CVEnergies, Terms: o, AnchorEvery: 10}}
	s := mustNew(t, cfg, [][]float64{{0}, {1}})
	return s
}

func TestControlVariateAnchorsCountedAndReproducible(t *testing.T) {
	const steps = 95
	run := func(seed uint64) (Stats, [][]float64) {
		s := cvSampler(t, seed)
		var states [][]float64
		for range steps {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			states = append(states, append([]float64(nil), s.State(0)...))
		}
		return s.Stats(), states
	}
	st, a := run(4)
	_, b := run(4)
	if !slices.EqualFunc(a, b, func(x, y []float64) bool { return math.Float64bits(x[0]) == math.Float64bits(y[0]) }) {
		t.Error("the same seed gave different states")
	}
	// One pass per level at the start, then one per level every 10 steps.
	passes := int64(1 + steps/10)
	for l, ls := range st.Levels {
		if ls.Cost.Anchor.Calls != passes || ls.Cost.Anchor.Units != float64(passes)*float64(outliers.Len()) {
			t.Errorf("level %d: %d anchor passes (%v units), want %d (%d units)", l, ls.Cost.Anchor.Calls, ls.Cost.Anchor.Units, passes, passes*int64(outliers.Len()))
		}
		if ls.Cost.Total() != ls.Cost.TotalGrad().Units+ls.Cost.TotalEnergy().Units+ls.Cost.Anchor.Units {
			t.Errorf("level %d: Total leaves a cost out", l)
		}
	}
	if st.Pairs[0].Accepts == 0 {
		t.Error("no swap accepted: the travelling-anchor check below would be vacuous")
	}
}

func TestAnchorsTravelWithReplicas(t *testing.T) {
	s := cvSampler(t, 9)
	for s.Replica(0) == 0 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if s.Steps() > 10000 {
			t.Fatal("no swap in 10000 steps")
		}
	}
	// Replica 1 is now at level 0, with the anchor refreshed at its states.
	if s.anchor(0) != s.data.anchors[1] {
		t.Error("level 0 uses the wrong anchor after a swap")
	}
}

func TestEnergiesValidation(t *testing.T) {
	est, _ := energy.NewMinibatch(outliers, 3)
	lv := func() []Level {
		return []Level{{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}}, {Tau: 2, Est: est.Clone(), Eta: langevin.Constant{Step: 0.01}}}
	}
	for _, e := range []Energies{
		{Mode: PairEnergies},
		{Mode: PairEnergies, Terms: outliers, Sizes: []int{3}},
		{Mode: PairEnergies, Terms: outliers, Sizes: []int{3, 9}},
		{Mode: CVEnergies, Terms: outliers, AnchorEvery: -1},
		{Mode: EnergyMode(17), Terms: outliers},
	} {
		if _, err := New(Config{Levels: lv(), Swap: Swap{Rule: FReSGLD, PerStep: true}, Energies: e}, [][]float64{{0}, {0}}); err == nil {
			t.Errorf("%+v: no error", e)
		}
	}
	if _, err := New(Config{Levels: lv(), Swap: Swap{Rule: Exact, PerStep: true}, Energies: Energies{Mode: PairEnergies, Terms: outliers}}, [][]float64{{0}, {0}}); err == nil {
		t.Error("exact rule on minibatch swap energies: no error")
	}
	// DEO with exact energies every 10 steps would never try pair 0: its
	// attempts at steps 9, 19, … all fall in odd rounds.
	if _, err := New(Config{Levels: lv(), Swap: Swap{Rule: FReSGLD, Scheme: DEO, PerStep: true}, Energies: Energies{Mode: ExactEnergies, Terms: outliers, ExactEvery: 10}}, [][]float64{{0}, {0}}); err == nil {
		t.Error("DEO with exact energies every 10 steps: no error")
	}
	if _, err := New(Config{Levels: lv(), Swap: Swap{Rule: FReSGLD, Scheme: DEO, Window: 10, PerStep: true}, Energies: Energies{Mode: ExactEnergies, Terms: outliers, ExactEvery: 1}}, [][]float64{{0}, {0}}); err != nil {
		t.Errorf("DEO window 10 with exact energies at every attempt: %v", err)
	}
	for _, name := range energyModeNames {
		if m, err := ParseEnergyMode(name); err != nil || m.String() != name {
			t.Errorf("%q: %v, %v", name, m, err)
		}
	}
}

// TestStatsTotalCountsAnchors checks that the ladder's total, on which
// methods are compared, holds the anchor passes of control-variate swap
// energies: it equals the sum of every level's Cost.Total and the budget's
// Sampler.Units, and exceeds the draws alone by the anchor units.
func TestStatsTotalCountsAnchors(t *testing.T) {
	s := cvSampler(t, 3)
	stepN(t, s, 50)
	st := s.Stats()
	var levels, anchors float64
	for _, l := range st.Levels {
		levels += l.Cost.Total()
		anchors += l.Cost.Anchor.Units
	}
	if tot := st.Total().Units; !(anchors > 0) || tot != levels || tot != s.Units() {
		t.Errorf("total %v units, levels' totals %v, Units %v, anchors %v", tot, levels, s.Units(), anchors)
	}
}

// TestConcurrentSharedEstimatorRefused checks that one minibatch on two
// levels is refused when the levels step concurrently (its buffers would be
// written at once), and accepted sequentially or as two clones.
func TestConcurrentSharedEstimatorRefused(t *testing.T) {
	est, _ := energy.NewMinibatch(outliers, 3)
	for _, c := range []struct {
		hot        energy.Estimator
		concurrent bool
		ok         bool
	}{{est, true, false}, {est, false, true}, {est.Clone(), true, true}} {
		cfg := Config{Levels: []Level{
			{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}},
			{Tau: 2, Est: c.hot, Eta: langevin.Constant{Step: 0.01}},
		}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Concurrent: c.concurrent, Energies: Energies{Gaussian: true}}
		s, err := New(cfg, [][]float64{{0}, {0}})
		if (err == nil) != c.ok {
			t.Errorf("shared %v, concurrent %v: error %v", c.hot == energy.Estimator(est), c.concurrent, err)
		}
		if s != nil {
			s.Close()
		}
	}
}
