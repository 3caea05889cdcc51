package exchange

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/meanvar"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// gaussAccept is the exact acceptance rate E[min(1, Ŝ)] of a swap between
// levels at τ1 < τ2 on U = θ²/2 in one dimension, the states drawn from
// N(0, τ1) and N(0, τ2), when the energy estimates carry independent
// Gaussian noise of total variance V and the ratio is corrected by
// −τδ²V/2 (every noisy rule of this package has that form).
//
// With θ_i = √τ_i z_i, log S = y = τδ(τ1 z1² − τ2 z2²)/2, and the noisy
// log-ratio is N(y − s²/2, s²) with s = τδ√V, whose mean of min(1, e^Y) is
// Φ((y − s²/2)/s) + e^y Φ(−(y + s²/2)/s). With V = 0 the inner mean over z1
// has a closed form instead: with a = τδτ1/2, b = τδτ2/2, c = z2√(b/a),
// 2Φ(−c) + e^(−b z2²)(2Φ(c√(1 − 2a)) − 1)/√(1 − 2a). The rest is
// Gauss–Legendre quadrature on [0, 9] (the integrands are even in z; the
// mass beyond 9 is below 1e-18) of smooth integrands.
func gaussAccept(tau1, tau2, V float64) float64 {
	const zmax, n = 9, 200
	td := 1/tau1 - 1/tau2
	phi := func(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
	Phi := distuv.UnitNormal.CDF
	if V == 0 {
		a, b := td*tau1/2, td*tau2/2
		k := math.Sqrt(1 - 2*a)
		return quad.Fixed(func(z2 float64) float64 {
			c := z2 * math.Sqrt(b/a)
			return 2 * phi(z2) * (2*Phi(-c) + math.Exp(-b*z2*z2)*(2*Phi(c*k)-1)/k)
		}, 0, zmax, n, quad.Legendre{}, 0)
	}
	s := td * math.Sqrt(V)
	return quad.Fixed(func(z2 float64) float64 {
		return 2 * phi(z2) * quad.Fixed(func(z1 float64) float64 {
			y := td * (tau1*z1*z1 - tau2*z2*z2) / 2
			return 2 * phi(z1) * (Phi((y-s*s/2)/s) + math.Exp(y)*Phi(-(y+s*s/2)/s))
		}, 0, zmax, n, quad.Legendre{}, 0)
	}, 0, zmax, n, quad.Legendre{}, 0)
}

// gaussRejection is the exact rejection of every adjacent pair of a ladder
// whose pair l has energy-noise variance V[l].
func gaussRejection(taus, V []float64) []float64 {
	r := make([]float64, len(taus)-1)
	for l := range r {
		r[l] = 1 - gaussAccept(taus[l], taus[l+1], V[l])
	}
	return r
}

func sum(xs []float64) (s float64) {
	for _, x := range xs {
		s += x
	}
	return s
}

func spread(xs []float64) float64 {
	m := sum(xs) / float64(len(xs))
	var d float64
	for _, x := range xs {
		d = math.Max(d, math.Abs(x-m))
	}
	return d
}

func arithmetic(lo, hi float64, K int) []float64 {
	t := make([]float64, K)
	for i := range t {
		t[i] = lo + (hi-lo)*float64(i)/float64(K-1)
	}
	return t
}

func TestGaussAcceptLimits(t *testing.T) {
	// The quadrature against what is known without it: equal temperatures
	// accept always without noise; the local barrier of a Gaussian is
	// λ(β) = 1/(πβ) (half the mean absolute difference of two energies,
	// E|U − U'| = 2/(πβ) for U = χ²₁/(2β)), so a close pair rejects
	// (1/π)·ln(τ2/τ1) to first order; and noise only lowers acceptance
	// (Jensen: E min(1, Ŝ) ≤ min(1, E Ŝ)).
	if a := gaussAccept(1, 1+1e-9, 0); !(math.Abs(a-1) <= 1e-6) {
		t.Errorf("acceptance between equal temperatures %v, want 1", a)
	}
	const tau1, ratio = 2.0, 1.01
	r := 1 - gaussAccept(tau1, tau1*ratio, 0)
	if want := math.Log(ratio) / math.Pi; !(math.Abs(r/want-1) <= 0.01) {
		t.Errorf("close pair rejects %v, barrier increment (1/π)ln(τ2/τ1) = %v", r, want)
	}
	if a0, a1 := gaussAccept(1, 3, 0), gaussAccept(1, 3, 0.5); !(a1 < a0) {
		t.Errorf("noise raised acceptance: %v without, %v with", a0, a1)
	}
}

// TestScheduleFixedPoint: fed exact rejection rates, the schedule update
// converges to the equal-rejection ladder, which for a Gaussian is the
// geometric one (its rejection depends on τ2/τ1 alone). The geometric ladder
// is an exact fixed point: equal rejections at equal ln τ spacing put Λ̂ on a
// line, which the monotone interpolant reproduces. The map contracts towards
// it, so after enough iterations the distance is at the level of the
// quadrature's rounding (1e-10); we ask for 1e-6 in ln τ.
func TestScheduleFixedPoint(t *testing.T) {
	const K, lo, hi = 6, 1.0, 1000.0
	V := make([]float64, K-1)
	taus := arithmetic(lo, hi, K)
	geo, _ := Geometric(lo, hi, K)
	dist := func(t []float64) (d float64) {
		for i := range t {
			d = math.Max(d, math.Abs(math.Log(t[i]/geo[i])))
		}
		return d
	}
	prev := dist(taus)
	for it := range 30 {
		b, err := NewBarrier(taus, gaussRejection(taus, V))
		if err != nil {
			t.Fatal(err)
		}
		taus = b.Schedule(K)
		d := dist(taus)
		if !(d <= prev*1.0000001 || d <= 1e-9) {
			t.Errorf("iteration %d: distance to the geometric ladder grew from %g to %g", it, prev, d)
		}
		prev = d
	}
	if !(prev <= 1e-6) {
		t.Errorf("after 30 iterations the schedule is %g from geometric in ln τ, want ≤ 1e-6", prev)
	}
	r := gaussRejection(taus, V)
	if s := spread(r); !(s <= 1e-6) {
		t.Errorf("rejections %v differ by up to %g from their mean", r, s)
	}
}

// noisyGaussianBuild is a ladder on the Euler-exact Gaussian whose coldest
// level's energy noise has sd sc and the others' sh, with the f-reSGLD rule
// and DEO swaps.
func noisyGaussianBuild(sc, sh, eta float64, seed uint64) Build {
	e := newEulerGaussian(1, eta)
	return func(taus []float64) (Config, error) {
		lv := make([]Level, len(taus))
		for l, tau := range taus {
			sd := sh
			if l == 0 {
				sd = sc
			}
			lv[l] = Level{Tau: tau, Est: energy.NewNoisy(e, sd, 0), Eta: langevin.Constant{Step: eta}, Noise: langevin.SGLD}
		}
		return Config{Levels: lv, Swap: Swap{Rule: FReSGLD, PerStep: true, Scheme: DEO}, Seed: seed}, nil
	}
}

// TestAdaptNoisyGaussian tunes a K = 6 ladder from τ = 1 to 1000 on a
// Gaussian whose energies are noisy (sd 0.5 on the coldest level, 1 on the
// others), starting from an arithmetic ladder whose first pair almost never
// swaps. Everything is checked against exact rejection rates (gaussAccept):
//   - the last round's per-pair rejection estimates, which include the
//     noise, are unbiased: their mean error over seeds lies within 5
//     standard errors, the standard error taken from the spread over seeds;
//   - Λ̂ agrees with the exact barrier of the ladder it was measured on, Σ r,
//     within 5 standard errors, and with the barrier of the exactly
//     equalised ladder (the fixed point of the update fed exact rates)
//     within 5 standard errors plus their exact difference;
//   - the tuned ladder equalises rejection: the spread of its exact
//     rejections is at most the update's own residual on exact rates plus 5
//     times the estimation error it inherits. To first order a new pair's
//     rejection error is the difference of the interpolated cumulative
//     errors at its two ends; the new pairs are about as wide as the old, so
//     that difference spans about two old pairs' errors, sd ≤ 2σ_e, σ_e the
//     per-pair estimation sd measured over seeds.
func TestAdaptNoisyGaussian(t *testing.T) {
	skipSlow(t)
	const K, lo, hi, eta, sc, sh = 6, 1.0, 1000.0, 0.1, 0.5, 1.0
	const seeds = 8
	V := make([]float64, K-1)
	for l := range V {
		V[l] = 2 * sh * sh
	}
	V[0] = sc*sc + sh*sh
	// The exactly equalised ladder: the update iterated on exact rates.
	star := arithmetic(lo, hi, K)
	for range 30 {
		b, _ := NewBarrier(star, gaussRejection(star, V))
		star = b.Schedule(K)
	}
	lamStar := sum(gaussRejection(star, V))
	start := arithmetic(lo, hi, K)
	t.Logf("start: rejections %.3f; equalised ladder %.3g, Λ = %.4f", gaussRejection(start, V), star, lamStar)

	var errs [K - 1][]float64 // r̂ − r per pair and seed
	var lamErr, lamHat, spreads, resid []float64
	for s := range seeds {
		init := zeros(K, 1)
		ad, err := Adapt(noisyGaussianBuild(sc, sh, eta, uint64(100+s)), start, init, AdaptOptions{Rounds: 5, First: 1000})
		if err != nil {
			t.Fatal(err)
		}
		last := ad.Rounds[len(ad.Rounds)-1]
		exact := gaussRejection(last.Taus, V)
		for l := range exact {
			errs[l] = append(errs[l], last.Rejection[l]-exact[l])
		}
		lamErr = append(lamErr, last.Lambda-sum(exact))
		lamHat = append(lamHat, ad.Lambda)
		spreads = append(spreads, spread(gaussRejection(ad.Taus, V)))
		// The update's own residual: fed the exact rates of the same ladder.
		b, _ := NewBarrier(last.Taus, exact)
		resid = append(resid, spread(gaussRejection(b.Schedule(K), V)))
		if s == 0 {
			for _, r := range ad.Rounds {
				t.Logf("round %d (%d steps): τ %.3g rejection %.3f Λ̂ %.3f trips %d (rate %.4f, bound %.4f)", r.Round, r.Steps, r.Taus, r.Rejection, r.Lambda, r.RoundTrips, r.TripRate, r.Bound)
			}
		}
	}
	var sigmaE float64 // pooled per-pair estimation sd
	for l := range errs {
		m, sd := meanvar.MeanSD(errs[l])
		se := sd / math.Sqrt(seeds)
		if !(math.Abs(m) <= 5*se) {
			t.Errorf("pair %d: rejection estimate biased by %.4f (standard error %.4f)", l, m, se)
		}
		sigmaE += sd * sd / float64(K-1)
	}
	sigmaE = math.Sqrt(sigmaE)
	m, sd := meanvar.MeanSD(lamErr)
	if !(math.Abs(m) <= 5*sd/math.Sqrt(seeds)) {
		t.Errorf("Λ̂ − Σ r = %.4f on the measured ladders (standard error %.4f)", m, sd/math.Sqrt(seeds))
	}
	mh, sdh := meanvar.MeanSD(lamHat)
	mStar := 0.0
	for i := range lamHat {
		mStar += (lamHat[i] - lamErr[i]) / seeds // exact Σ r of the measured ladders
	}
	if tol := 5*sdh/math.Sqrt(seeds) + math.Abs(mStar-lamStar); !(math.Abs(mh-lamStar) <= tol) {
		t.Errorf("Λ̂ = %.4f ± %.4f, barrier of the equalised ladder %.4f, tolerance %.4f", mh, sdh/math.Sqrt(seeds), lamStar, tol)
	}
	for i, sp := range spreads {
		if tol := resid[i] + 5*2*sigmaE; !(sp <= tol) {
			t.Errorf("seed %d: tuned ladder's rejections spread %.4f from their mean, tolerance %.4f (σ_e = %.4f)", i, sp, tol, sigmaE)
		}
	}
	t.Logf("Λ̂ = %.4f ± %.4f (equalised ladder %.4f); σ_e = %.4f; spreads %.4f (start %.4f)", mh, sdh/math.Sqrt(seeds), lamStar, sigmaE, spreads, spread(gaussRejection(start, V)))
}

func TestAdaptValidation(t *testing.T) {
	b := noisyGaussianBuild(0, 0, 0.1, 1)
	for _, c := range []struct {
		opt  AdaptOptions
		taus []float64
		want string
	}{
		{AdaptOptions{Rounds: 0, First: 10}, []float64{1, 2}, "rounds"},
		{AdaptOptions{Rounds: 1, First: 0}, []float64{1, 2}, "first round"},
		{AdaptOptions{Rounds: 1, First: 10}, []float64{1}, "levels"},
		{AdaptOptions{Rounds: 1, First: 10, Grow: true, MaxLevels: 1}, []float64{1, 2}, "at most"},
	} {
		if _, err := Adapt(b, c.taus, zeros(len(c.taus), 1), c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.opt, err, c.want)
		}
	}
	// The smallest settings each check allows: one round of one step, two
	// levels, and growth capped at the levels it starts with.
	for _, opt := range []AdaptOptions{{Rounds: 1, First: 1}, {Rounds: 1, First: 1, Grow: true, MaxLevels: 2}} {
		if _, err := Adapt(b, []float64{1, 2}, zeros(2, 1), opt); err != nil {
			t.Errorf("%+v: %v", opt, err)
		}
	}
}

// TestAdaptGrows: from three levels on a Gaussian from τ = 1 to 1000
// (continuum barrier (1/π)·ln 1000 ≈ 2.2) the ladder grows to ⌈2Λ̂⌉ levels,
// capped by MaxLevels, and hands back one state per level. Λ̂ = Σ r is the
// barrier of the ladder as it stands: on a coarse ladder each rejection
// falls short of its interval's share of Λ (a rejection is at most 1), so
// growth stops below 2Λ (at 4 levels here, Λ̂ ≈ 1.8; with exact rates
// gaussRejection gives the same).
func TestAdaptGrows(t *testing.T) {
	ad, err := Adapt(noisyGaussianBuild(0, 0, 0.1, 9), []float64{1, 31.6, 1000}, zeros(3, 1), AdaptOptions{Rounds: 4, First: 1000, Grow: true, MaxLevels: 16})
	if err != nil {
		t.Fatal(err)
	}
	rec := int(math.Ceil(2 * ad.Lambda))
	if ad.Recommended != rec || len(ad.Taus) != max(3, rec) || len(ad.States) != len(ad.Taus) || len(ad.Taus) < 4 {
		t.Errorf("grew to %d levels (%d states), recommended %d from Λ̂ = %.3f", len(ad.Taus), len(ad.States), ad.Recommended, ad.Lambda)
	}
	if ad.Taus[0] != 1 || ad.Taus[len(ad.Taus)-1] != 1000 {
		t.Errorf("ends moved: %v", ad.Taus)
	}
	// The exact barrier of the last round's ladder, against which Λ̂ is
	// unbiased (TestAdaptNoisyGaussian checks that to 5 standard errors);
	// here only that growth followed it: ⌈2Σr⌉ with exact r.
	last := ad.Rounds[len(ad.Rounds)-1]
	exact := sum(gaussRejection(last.Taus, make([]float64, len(last.Taus)-1)))
	t.Logf("final K = %d; Λ̂ = %.3f, exact Σ r on the last round's ladder %.3f, continuum Λ %.3f", len(ad.Taus), ad.Lambda, exact, math.Log(1000)/math.Pi)
	capped, err := Adapt(noisyGaussianBuild(0, 0, 0.1, 9), []float64{1, 31.6, 1000}, zeros(3, 1), AdaptOptions{Rounds: 2, First: 1000, Grow: true, MaxLevels: 3})
	if err != nil || len(capped.Taus) != 3 {
		t.Errorf("capped at 3 levels: got %d (%v)", len(capped.Taus), err)
	}
}

// TestBuildFollowsTaus: a ladder built for new temperatures gives every
// level its own τ and the coldest level the accurate estimator, and makes
// each hot level's variance model at that level's τ, for that level's
// estimator (so an AutoBatch sizes each level's minibatch for its own τ).
func TestBuildFollowsTaus(t *testing.T) {
	cold, hot := energy.NewNoisy(energy.Quadratic{Lambda: []float64{1}}, 0.1, 0.1), energy.NewNoisy(energy.Quadratic{Lambda: []float64{1}}, 1, 1)
	var seen []float64
	var ests []energy.Estimator
	s := Setup{Tau1: 1, Tau2: 9, Eta: langevin.Constant{Step: 0.01}, Cold: cold, Hot: hot, PerStep: true,
		HotVarAt: func(est energy.Estimator, tau float64) (variance.Model, error) {
			seen, ests = append(seen, tau), append(ests, est)
			return variance.Known{}, nil
		}}
	taus := []float64{1, 1.7, 4, 9}
	cfg, err := FReSGLDMethod.Build(s)(taus)
	if err != nil {
		t.Fatal(err)
	}
	for l, lv := range cfg.Levels {
		if lv.Tau != taus[l] {
			t.Errorf("level %d: τ = %v, want %v", l, lv.Tau, taus[l])
		}
	}
	if !slices.Equal(seen, taus[1:]) {
		t.Errorf("hot variance models made at τ = %v, want %v", seen, taus[1:])
	}
	if cfg.Levels[0].Est != energy.Estimator(cold) {
		t.Error("the coldest level lost the accurate estimator")
	}
	for i, e := range ests {
		if e != cfg.Levels[i+1].Est {
			t.Errorf("level %d's variance model was made for another level's estimator", i+1)
		}
	}
}

// TestAdaptRoundCostIsSamplerUnits: a round's reported cost is everything
// its sampler spent, the full passes of control-variate swap anchors
// included, so a tuned ladder's cost is not understated. Each level is
// charged N units per anchor refresh: one when the sampler is made, then
// one every AnchorEvery steps.
func TestAdaptRoundCostIsSamplerUnits(t *testing.T) {
	const N, n, steps, every = 40, 5, 200, 50
	st, xbar, _ := newShiftTerms(N, 2, 1, 3)
	build := minibatchBuild(st, n, Energies{Mode: CVEnergies, Terms: st, AnchorEvery: every})
	taus := []float64{1, 3, 9}
	init := [][]float64{xbar, xbar, xbar}
	ad, err := Adapt(build, taus, init, AdaptOptions{Rounds: 1, First: steps})
	if err != nil {
		t.Fatal(err)
	}
	r := ad.Rounds[0]
	if want := float64(len(taus) * N * (1 + steps/every)); r.AnchorUnits != want {
		t.Errorf("anchor units %v, want %v (%d levels × N = %d × %d refreshes)", r.AnchorUnits, want, len(taus), N, 1+steps/every)
	}
	// The same round run directly: its Sampler.Units is the round's cost.
	cfg, _ := build(taus)
	cfg.Seed += 1 << 40 // adaptRound's stream for round 0
	smp := mustNew(t, cfg, init)
	defer smp.Close()
	stepN(t, smp, steps)
	if got, want := r.Units(), smp.Units(); got != want {
		t.Errorf("round cost %v (grad %v, energy %v, anchor %v), the sampler spent %v", got, r.GradUnits, r.EnergyUnits, r.AnchorUnits, want)
	}
}

// minibatchBuild is a ladder of SGLD levels on minibatches of n of st's
// examples, swapping by f-reSGLD's rule with swap energies en.
func minibatchBuild(st energy.Terms, n int, en Energies) Build {
	return func(taus []float64) (Config, error) {
		lv := make([]Level, len(taus))
		for l, tau := range taus {
			mb, err := energy.NewMinibatch(st, n)
			if err != nil {
				return Config{}, err
			}
			lv[l] = Level{Tau: tau, Est: mb, Eta: langevin.Constant{Step: 1e-3}, Noise: langevin.SGLD}
		}
		return Config{Levels: lv, Swap: Swap{Rule: FReSGLD, PerStep: true}, Energies: en, Seed: 4}, nil
	}
}

// A first round shorter than the swap energies' spacing offers a pair no
// swap; the error names that spacing, the cause, not the DEO window.
func TestAdaptNamesTheSwapSpacing(t *testing.T) {
	const N, n = 40, 5
	st, xbar, _ := newShiftTerms(N, 2, 1, 3)
	build := minibatchBuild(st, n, Energies{Mode: ExactEnergies, Terms: st, ExactEvery: 500})
	_, err := Adapt(build, []float64{1, 3, 9}, [][]float64{xbar, xbar, xbar}, AdaptOptions{Rounds: 1, First: 200})
	if err == nil || !strings.Contains(err.Error(), "attempted every 500 steps") {
		t.Errorf("error %v, want one naming the spacing of 500 steps", err)
	}
}

// Exact and thinned energies fix a pair's attempts every ExactEvery steps;
// the other modes attempt at the swap's rate, whatever ExactEvery holds
// (its default, 10, is set in every mode).
func TestSpacingOnlyWhereFixed(t *testing.T) {
	for _, c := range []struct {
		mode EnergyMode
		want int
	}{{ExactEnergies, 7}, {ThinnedEnergies, 7}, {PairTaylorEnergies, 0}, {MinibatchEnergies, 0}, {DrawEnergies, 0}} {
		if got := (Energies{Mode: c.mode, ExactEvery: 7}).Spacing(); got != c.want {
			t.Errorf("%v: spacing %d, want %d", c.mode, got, c.want)
		}
	}
}
