package exchange

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// Energy sizes of the kernel tests: the cold one larger, and their mean
// ⌈(5 + 2)/2⌉ = 4 different from both, so that a screen drawn at the wrong
// size changes its law.
const kn0, kn1, ka1, ktau1, ktau2 = 5, 2, 0.3, 1.0, 4.0

// kernelPairs are pairs of states (x cold, y hot) from likely to unlikely
// swaps, and the anchors each state's replica carries.
var kernelPairs = []kernelPair{
	{0.6, 0.0, 1.0, -0.3}, {0.0, 0.9, 1.5, 1.1}, {-0.5, 1.2, -0.1, 0.9},
}

// kernelPair is a pair of states, x cold and y hot, and their replicas'
// anchors.
type kernelPair struct{ x, y, ax, ay float64 }

// eachKernelCase calls f for every data mode, noisy rule and pair of
// kernelPairs (the i-th), with the mode's terms o and the pair's exact
// D = U(x) − U(y).
func eachKernelCase(modes []EnergyMode, f func(mode EnergyMode, o outlierTerms, rule Rule, i int, p kernelPair, D float64)) {
	for _, mode := range modes {
		o := termsFor(mode)
		for _, rule := range noisyRules {
			for i, p := range kernelPairs {
				f(mode, o, rule, i, p, energy.Sum(o, []float64{p.x})-energy.Sum(o, []float64{p.y}))
			}
		}
	}
}

// eachCap calls f for every mode and rule of the noise cap's tests, with
// the cap at the median noise of the screens of kernelPairs[0]'s forward
// swap.
func eachCap(t *testing.T, f func(mode EnergyMode, rule Rule, cap float64)) {
	p := kernelPairs[0]
	for _, mode := range capModes {
		for _, rule := range capRules {
			s := kernelSampler(t, rule, mode, p.ax, p.ay, 0, 5)
			f(mode, rule, medianNoise(t, s, p.x, p.y))
		}
	}
}

// dataModes × noisyRules are the swap-energy modes and rules whose swap
// kernels the law, reversibility and screen-cost tests enumerate;
// capModes × capRules those the noise cap's tests run.
var (
	dataModes  = []EnergyMode{MinibatchEnergies, CVEnergies, PairEnergies, PairCVEnergies, TaylorEnergies, PairTaylorEnergies}
	noisyRules = []Rule{ReSGLD, MReSGLD, FReSGLD}
	capModes   = []EnergyMode{MinibatchEnergies, PairEnergies, TaylorEnergies}
	capRules   = []Rule{ReSGLD, FReSGLD}
)

// daAcceptance is the exact acceptance probability of the screened swap
// E[min(1, e^{τδD̂}) min(1, e^{τδ(D − D̂)})] over the enumerated law of D̂.
func daAcceptance(td, D float64, law []float64) float64 {
	var a float64
	for _, d := range law {
		a += math.Exp(min(td*d, 0) + min(td*(D-d), 0))
	}
	return a / float64(len(law))
}

// TestSwapKernelReversible checks detailed balance of the swap kernel itself
// by exact enumeration, for every rule under every data mode: the reverse
// swap (y at the cold level with its anchor, x at the hot one) draws −D̂
// with the law the forward swap draws D̂ with (same mean up to sign, same
// variance), and the two acceptance probabilities are in the ratio S to
// rounding. The same computation for f-reSGLD as the paper draws it (x at
// the cold size, y at the hot one) must miss S, or the check has no power.
func TestSwapKernelReversible(t *testing.T) {
	skipSlow(t)
	td := 1/ktau1 - 1/ktau2
	eachKernelCase(dataModes, func(mode EnergyMode, o outlierTerms, rule Rule, _ int, p kernelPair, D float64) {
		fw := lawOf(comps(o, rule, mode, ka1, p.x, p.y, p.ax, p.ay, kn0, kn1))
		rv := lawOf(comps(o, rule, mode, ka1, p.y, p.x, p.ay, p.ax, kn0, kn1))
		mf, vf, _ := moments(fw)
		mr, vr, _ := moments(rv)
		if !(math.Abs(mf+mr) <= 1e-9*(1+math.Abs(mf)) && math.Abs(vf-vr) <= 1e-9*(1+vf)) {
			t.Errorf("%v/%v at %v: forward D̂ mean %v variance %v, reverse %v and %v", mode, rule, p, mf, vf, mr, vr)
		}
		af, ar := daAcceptance(td, D, fw), daAcceptance(td, -D, rv)
		if got := math.Log(af) - math.Log(ar); !(math.Abs(got-td*D) <= 1e-9*(1+math.Abs(td*D))) {
			t.Errorf("%v/%v at %v: log of forward/reverse acceptance %v, want log S = %v", mode, rule, p, got, td*D)
		}
	})
	for _, mode := range dataModes {
		o := termsFor(mode)
		// The paper's f-reSGLD draws: x at n0 about its anchor, y at n1.
		if mode.pair() {
			continue // a common batch has one size
		}
		p := kernelPairs[0]
		state := func(x, y, ax, ay float64, n int, k int) component {
			return comps(o, ReSGLD, mode, 0, x, y, ax, ay, n, n)[k]
		}
		fw := lawOf([]component{state(p.x, p.y, p.ax, p.ay, kn0, 0), state(p.x, p.y, p.ax, p.ay, kn1, 1)})
		rv := lawOf([]component{state(p.y, p.x, p.ay, p.ax, kn0, 0), state(p.y, p.x, p.ay, p.ax, kn1, 1)})
		D := energy.Sum(o, []float64{p.x}) - energy.Sum(o, []float64{p.y})
		got := math.Log(daAcceptance(td, D, fw)) - math.Log(daAcceptance(td, -D, rv))
		t.Logf("%v, f-reSGLD at the levels' own sizes: log forward/reverse %.4f, log S %.4f", mode, got, td*D)
		if !(math.Abs(got-td*D) > 1e-3) {
			t.Errorf("%v: f-reSGLD at the levels' own sizes keeps detailed balance (%v against %v): the check above has no power", mode, got, td*D)
		}
	}
}

// kernelSampler is a two-level ladder with x's replica (and anchor) at
// level 0 and y's at level 1.
func kernelSampler(t *testing.T, rule Rule, mode EnergyMode, x, y float64, maxNoise float64, seed uint64) *Sampler {
	t.Helper()
	o := termsFor(mode)
	s, err := New(Config{Levels: []Level{
		{Tau: ktau1, Est: energy.Exact{E: gauss1{}}, Eta: langevin.Constant{Step: 0.01}},
		{Tau: ktau2, Est: energy.Exact{E: gauss1{}}, Eta: langevin.Constant{Step: 0.01}},
	}, Swap: Swap{Rule: rule, PerStep: true, A1: ka1}, Seed: seed,
		Energies: Energies{Mode: mode, Terms: o, Sizes: []int{kn0, kn1}, MaxNoise: maxNoise}}, [][]float64{{x}, {y}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSwapAcceptanceMatchesKernel checks that the sampler decides swaps
// with the probability enumerated above, forward and reverse: T attempts at
// fixed states are T Bernoulli draws, so the frequency has standard error
// √(α(1 − α)/T); 4 of them bound 108 comparisons with a family-wise false
// alarm below 1% (Bonferroni). A screen drawn at another size than the
// rule's (f-reSGLD's common batch at the cold size, say) moves α by more.
func TestSwapAcceptanceMatchesKernel(t *testing.T) {
	skipSlow(t)
	const T = 20000
	td := 1/ktau1 - 1/ktau2
	eachKernelCase(dataModes, func(mode EnergyMode, o outlierTerms, rule Rule, i int, p kernelPair, D float64) {
		for _, dir := range []struct {
			x, y, ax, ay, D float64
		}{{p.x, p.y, p.ax, p.ay, D}, {p.y, p.x, p.ay, p.ax, -D}} {
			want := daAcceptance(td, dir.D, lawOf(comps(o, rule, mode, ka1, dir.x, dir.y, dir.ax, dir.ay, kn0, kn1)))
			s := kernelSampler(t, rule, mode, dir.ax, dir.ay, 0, uint64(31+i))
			acc := 0
			for range T {
				ok, err := s.decide(0, []float64{dir.x}, []float64{dir.y})
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					acc++
				}
			}
			freq := float64(acc) / T
			if z := (freq - want) / math.Sqrt(want*(1-want)/T); !(math.Abs(z) < 4) {
				t.Errorf("%v/%v, x = %v (anchor %v) cold, y = %v (anchor %v) hot: acceptance %.4f, exact %.4f (%.1f standard errors)", mode, rule, dir.x, dir.ax, dir.y, dir.ay, freq, want, z)
			}
			// ProbSum's terms (the confirmation's probability when
			// the screen passed, else 0) have mean α and a variance
			// at most α(1 − α), a Bernoulli's: the same bound holds.
			p := s.Stats().Pairs[0]
			if z := (p.ProbSum/T - want) / math.Sqrt(want*(1-want)/T); !(math.Abs(z) < 4) {
				t.Errorf("%v/%v, x = %v, y = %v: estimated acceptance %.4f, exact %.4f (%.1f standard errors)", mode, rule, dir.x, dir.y, p.ProbSum/T, want, z)
			}
		}
	})
}

// TestNoiseCapSymmetric checks that the noise cap declines the forward and
// the reverse swap of a pair equally often: under the data modes the
// screen's estimated noise has the same law both ways, and under the draw
// mode f-reSGLD caps on the padded variance, the larger of the two.
// Binomial frequencies: 4 standard errors of their difference.
func TestNoiseCapSymmetric(t *testing.T) {
	const T = 20000
	p := kernelPairs[0]
	// A cap at the median forward noise declines about half.
	eachCap(t, func(mode EnergyMode, rule Rule, cap float64) {
		var rate [2]float64
		for k, dir := range [][4]float64{{p.x, p.y, p.ax, p.ay}, {p.y, p.x, p.ay, p.ax}} {
			s := kernelSampler(t, rule, mode, dir[2], dir[3], cap, 6+uint64(k))
			for range T {
				if _, err := s.decide(0, []float64{dir[0]}, []float64{dir[1]}); err != nil {
					t.Fatal(err)
				}
			}
			rate[k] = float64(s.Stats().Pairs[0].Capped) / T
		}
		se := math.Sqrt((rate[0]*(1-rate[0]) + rate[1]*(1-rate[1])) / T)
		if !(rate[0] > 0.1 && rate[0] < 0.9) || !(math.Abs(rate[0]-rate[1]) <= 4*se) {
			t.Errorf("%v/%v, cap %.4g nats: forward declined %.4f, reverse %.4f (se of the difference %.4f)", mode, rule, cap, rate[0], rate[1], se)
		}
	})
	// Draw mode: noise c_l·|θ| differing by level, so V and V_reverse
	// differ; the cap must see max(V, V_reverse) both ways.
	lv := func() []Level {
		var ls []Level
		for l, c := range []float64{1, 3} {
			e := newEulerExact(1, 0, 0.01)
			ls = append(ls, Level{Tau: []float64{1, 4}[l], Est: &energy.Noisy{E: e, EnergySD: func(th []float64, _ float64) float64 { return c * math.Abs(th[0]) }}, Eta: langevin.Constant{Step: 0.01}})
		}
		return ls
	}
	var noise [2]float64
	for k, xy := range [][2]float64{{0.3, 1.5}, {1.5, 0.3}} {
		s := mustNew(t, Config{Levels: lv(), Swap: Swap{Rule: FReSGLD, PerStep: true}}, [][]float64{{0}, {0}})
		var err error
		if _, noise[k], err = s.LogRatioNoise(0, []float64{xy[0]}, []float64{xy[1]}); err != nil {
			t.Fatal(err)
		}
	}
	if want := 0.75 * 0.75 * max(0.3*0.3+9*1.5*1.5, 1.5*1.5+9*0.3*0.3) / 2; noise[0] != noise[1] || !(math.Abs(noise[0]-want) <= 1e-12) {
		t.Errorf("draw mode f-reSGLD: noise %v forward and %v reverse, want both max(V, V_reverse) = %v", noise[0], noise[1], want)
	}
}

// quadVar is a variance model that needs no report: σ²(θ) = c·θ², the model
// a level of a black-box estimator uses (as variance.KRR does).
type quadVar struct{ c float64 }

func (quadVar) Observe(int, []float64, energy.Estimator, *rand.Rand) error { return nil }
func (quadVar) GradVar(dst, _, _ []float64)                                { clear(dst) }
func (q quadVar) EnergyVar(theta []float64, _ float64, _ bool) float64 {
	return q.c * theta[0] * theta[0]
}
func (quadVar) NeedsReport() bool { return false }

// f-reSGLD's reverse variance from variance models that need no report:
// with σ_l²(θ) = c_l·θ² (c = 1 and 9), forward and reverse report the same
// noise, τδ²·max(V, V_reverse)/2, at no extra energy draw.
func TestReverseVarianceFromModels(t *testing.T) {
	var lv []Level
	for l, c := range []float64{1, 9} {
		lv = append(lv, Level{Tau: []float64{1, 4}[l], Est: energy.Hidden{Estimator: energy.Exact{E: gauss1{}}}, Eta: langevin.Constant{Step: 0.01}, Var: quadVar{c}})
	}
	var noise [2]float64
	for k, xy := range [][2]float64{{0.3, 1.5}, {1.5, 0.3}} {
		s := mustNew(t, Config{Levels: lv, Swap: Swap{Rule: FReSGLD, PerStep: true}}, [][]float64{{0}, {0}})
		var err error
		if _, noise[k], err = s.LogRatioNoise(0, []float64{xy[0]}, []float64{xy[1]}); err != nil {
			t.Fatal(err)
		}
		if c := s.Stats().Levels; c[0].Cost.Energy.Calls+c[1].Cost.Energy.Calls != 2 {
			t.Errorf("%v: %d + %d energy draws, want 2", xy, c[0].Cost.Energy.Calls, c[1].Cost.Energy.Calls)
		}
	}
	if want := 0.75 * 0.75 * max(0.3*0.3+9*1.5*1.5, 1.5*1.5+9*0.3*0.3) / 2; noise[0] != noise[1] || !(math.Abs(noise[0]-want) <= 1e-12) {
		t.Errorf("noise %v forward and %v reverse, want both max(V, V_reverse) = %v", noise[0], noise[1], want)
	}
}

// medianNoise is the median of 501 swap noises s draws for x at level 0
// and y at level 1.
func medianNoise(t *testing.T, s *Sampler, x, y float64) float64 {
	t.Helper()
	noises := make([]float64, 0, 501)
	for range 501 {
		_, n, err := s.LogRatioNoise(0, []float64{x}, []float64{y})
		if err != nil {
			t.Fatal(err)
		}
		noises = append(noises, n)
	}
	slices.Sort(noises)
	return noises[250]
}
