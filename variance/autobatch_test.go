package variance_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/meanvar"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// locTerms is U_i(θ) = ½|θ − x_i|² with no prior: the per-example gradients
// θ − x_i have a spread that does not depend on θ and is known exactly, the
// population variance of the x_ij. It is also its own exact Energy.
type locTerms struct {
	x    [][]float64
	mean []float64
	ss   float64 // Σ_i |x_i − x̄|²
}

func newLocTerms(N int, sds []float64, seed uint64) *locTerms {
	rng := rand.New(rand.NewPCG(seed, 1))
	t := &locTerms{x: make([][]float64, N), mean: make([]float64, len(sds))}
	for i := range t.x {
		t.x[i] = make([]float64, len(sds))
		for j, sd := range sds {
			t.x[i][j] = sd * rng.NormFloat64()
			t.mean[j] += t.x[i][j] / float64(N)
		}
	}
	for _, x := range t.x {
		for j, v := range x {
			t.ss += (v - t.mean[j]) * (v - t.mean[j])
		}
	}
	return t
}

// s2 is the population variance (divisor N − 1) of coordinate j.
func (t *locTerms) s2(j int) float64 {
	var s float64
	for _, x := range t.x {
		s += (x[j] - t.mean[j]) * (x[j] - t.mean[j])
	}
	return s / float64(len(t.x)-1)
}

func (t *locTerms) Dim() int { return len(t.mean) }
func (t *locTerms) Len() int { return len(t.x) }

func (t *locTerms) Term(grad, theta []float64, i int) float64 {
	var u float64
	for j, th := range theta {
		d := th - t.x[i][j]
		u += 0.5 * d * d
		if grad != nil {
			grad[j] = d
		}
	}
	return u
}

func (t *locTerms) Prior(grad, _ []float64) float64 {
	for j := range grad {
		grad[j] = 0
	}
	return 0
}

func (t *locTerms) U(theta []float64) float64 {
	var u float64
	for j, th := range theta {
		d := th - t.mean[j]
		u += 0.5 * float64(len(t.x)) * d * d
	}
	return u + 0.5*t.ss
}

func (t *locTerms) Grad(grad, theta []float64) {
	for j, th := range theta {
		grad[j] = float64(len(t.x)) * (th - t.mean[j])
	}
}

// TestAutoBatchMeetsShare runs a two-chain f-reSGLD ladder whose hot chain
// sizes its minibatch automatically and checks, at every check after the
// pilot, that n is the rule's ⌈n*⌉ for the spread it estimated, and that the
// share of the noise budget the gradient noise truly takes at that n (from the
// exact per-example variance) averages to the target. The checks see
// independent minibatches (the spread does not depend on θ), so the standard
// error of that average is the sample sd over checks / √checks. Rounding n*
// up to n ≤ n* + 1 scales the share (N/n − 1)/(N/n* − 1) by at least
// (1 − 1/n)(1 − 1/(N − n + 1)) ≥ 1 − 2/n for n ≤ N/2. The tolerance is that
// rounding plus 4.5 standard errors.
func TestAutoBatchMeetsShare(t *testing.T) {
	const N, tau2, share, every, steps = 10000, 10.0, 0.9, 50, 2500
	terms := newLocTerms(N, []float64{1, 10}, 3)
	S2 := terms.s2(1) // coordinate 1 has the larger spread, by a factor ~100
	// η puts n* near 200: η·N²·S²/n / (2τ) = share.
	eta := 200 * share * 2 * tau2 / (N * N * S2)
	hot, err := energy.NewMinibatch(terms, 50)
	if err != nil {
		t.Fatal(err)
	}
	sched := langevin.Constant{Step: eta}
	auto, err := variance.NewAutoBatch(hot, tau2, sched, variance.AutoOptions{Share: share, Every: every})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := exchange.FReSGLDMethod.Config(exchange.Setup{
		Tau1: 1, Tau2: tau2, Eta: sched,
		Cold: energy.Exact{E: terms}, Hot: hot,
		HotVar: func() variance.Model { return auto },
		A:      1, Seed: 11,
		// The gradient noise is measured, not the swaps' law.
		Energies: exchange.Energies{Gaussian: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := exchange.New(cfg, [][]float64{{0, 0}, {0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	var shares []float64
	lo := N
	for k := 0; k < steps; k++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if k%every != 0 || k == 0 {
			continue
		}
		st := auto.Stats()
		if want := int(math.Ceil(variance.SizeFor(N, st.S2, eta, tau2, share))); st.N != want {
			t.Fatalf("check at step %d: n = %d for S² = %v, the rule gives %d", k, st.N, st.S2, want)
		}
		if hot.Size() != st.N {
			t.Fatalf("check at step %d: the estimator has n = %d, the rule chose %d", k, hot.Size(), st.N)
		}
		shares = append(shares, variance.ShareAt(N, st.N, S2, eta, tau2))
		lo = min(lo, st.N)
	}
	st := auto.Stats()
	if st.Checks != steps/every || st.Below != 0 || st.Above != 0 {
		t.Errorf("stats %+v: want %d checks, none out of range", st, steps/every)
	}
	m, se := meanvar.MeanSE(shares)
	round := 2 * share / float64(lo)
	if m < share-round-4.5*se || m > share+4.5*se {
		t.Errorf("true share %v ± %v over %d checks (n from %d to %d), want %v (−%v for rounding)", m, se, len(shares), st.Lo, st.Hi, share, round)
	}
	if c := s.Stats().Levels[1].Cost; c.VarGrad.Calls != 1 || c.VarGrad.Units != 50 {
		t.Errorf("variance cost %+v: want the one pilot draw of 50 examples", c.VarGrad)
	}
}

// TestSizeFor checks that ⌈n*⌉ is the smallest n whose share is within target.
func TestSizeFor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for k := 0; k < 1000; k++ {
		N := 10 + rng.IntN(100000)
		s2 := math.Exp(4 * rng.NormFloat64())
		eta, tau, share := math.Exp(-8+2*rng.NormFloat64()), math.Exp(rng.NormFloat64()), 0.05+0.95*rng.Float64()
		ns := variance.SizeFor(N, s2, eta, tau, share)
		if math.Abs(ns-float64(N)) < 1 || ns < 2 {
			continue
		}
		n := int(math.Ceil(ns))
		if got := variance.ShareAt(N, n, s2, eta, tau); got > share*(1+1e-12) {
			t.Errorf("N = %d, n* = %v: share at ⌈n*⌉ = %v exceeds %v", N, ns, got, share)
		}
		if got := variance.ShareAt(N, n-1, s2, eta, tau); got <= share*(1-1e-12) {
			t.Errorf("N = %d, n* = %v: share at ⌈n*⌉ − 1 = %v is also within %v", N, ns, got, share)
		}
	}
}

// TestAutoBatchOutOfRange checks the fallbacks: a step so small that even
// n = Min leaves the noise under target, and a cap Max below the n the target
// needs.
func TestAutoBatchOutOfRange(t *testing.T) {
	const N = 1000
	terms := newLocTerms(N, []float64{1}, 5)
	S2 := terms.s2(0)
	theta := []float64{0}
	rng := rand.New(rand.NewPCG(1, 2))
	grad, gv := make([]float64, 1), make([]float64, 1)
	for _, c := range []struct {
		name   string
		n      float64 // n* the step size aims at
		max    int
		wantN  int
		below  bool
		warned bool
	}{
		{"below", 0.1, 0, 2, true, false},
		{"above", 500, 40, 40, false, true},
		{"inside", 100, 0, 0, false, false},
	} {
		mb, _ := energy.NewMinibatch(terms, 100)
		eta := c.n * 0.9 * 2 / (N * N * S2)
		a, err := variance.NewAutoBatch(mb, 1, langevin.Constant{Step: eta}, variance.AutoOptions{Max: c.max, Every: 1})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 20; k++ {
			if err := a.Observe(k, theta, mb, rng); err != nil {
				t.Fatal(err)
			}
			mb.Grad(grad, gv, theta, rng)
		}
		st := a.Stats()
		if c.wantN > 0 && st.N != c.wantN {
			t.Errorf("%s: n = %d, want %d", c.name, st.N, c.wantN)
		}
		if (st.Below == st.Checks) != c.below || (st.Above == st.Checks) != c.warned || (a.Warning() != "") != c.warned {
			t.Errorf("%s: stats %+v, warning %q", c.name, st, a.Warning())
		}
	}
}

func TestAutoBatchErrors(t *testing.T) {
	mb, _ := energy.NewMinibatch(newLocTerms(10, []float64{1}, 1), 5)
	eta := langevin.Constant{Step: 0.1}
	for _, c := range []struct {
		tau float64
		eta langevin.Schedule
		opt variance.AutoOptions
	}{
		{1, eta, variance.AutoOptions{Share: 1.5}},
		{1, eta, variance.AutoOptions{Share: -0.1}},
		{1, eta, variance.AutoOptions{Every: -1}},
		{1, eta, variance.AutoOptions{Min: 1}},
		{1, eta, variance.AutoOptions{Max: 11}},
		{1, eta, variance.AutoOptions{Min: 6, Max: 5}},
		{0, eta, variance.AutoOptions{}},
		{1, nil, variance.AutoOptions{}},
		{1, langevin.Constant{}, variance.AutoOptions{}},
	} {
		if _, err := variance.NewAutoBatch(mb, c.tau, c.eta, c.opt); err == nil {
			t.Errorf("τ = %v, η = %v, %+v: no error", c.tau, c.eta, c.opt)
		}
	}
}

// TestAutoBatchTemperature runs one corrected chain at τ on a size-5
// minibatch of a 1-D location model, whose posterior at τ is N(x̄, τ/N), with
// the gradient noise at 90% of the budget. The chain is the AR(1) process
// θ' − x̄ = (1 − ηN)(θ − x̄) + noise, with one-step noise variance q =
// η²V + E[ĉ²], V the exact gradient variance and ĉ² = max(0, 2τη − η²ŝ²) the
// injected variance; so its stationary variance is q / (ηN(2 − ηN)).
//
// With Smooth, ŝ² is the window's smoothed value and never exceeds 2τ/η here,
// so q = 2τη and the variance is τ/(N(1 − ηN/2)), the exact discretised
// posterior. With the draw's own ŝ², the clipping adds η²E[(ŝ² − 2τ/η)+],
// which the test estimates by Monte Carlo over minibatches and checks the
// chain agrees: the chain really runs hotter than τ.
//
// The chain's variance is the mean of (θ − x̄)² over batches of 5000 steps
// (about 45 autocorrelation times 1/(ηN)); its standard error is the batch
// means' sd/√batches; the tolerance is 4.5 standard errors of the difference.
func TestAutoBatchTemperature(t *testing.T) {
	const N, n, tau, steps, burn, batch = 1000, 5, 1.0, 200_000, 5000, 5000
	terms := newLocTerms(N, []float64{1}, 8)
	S2, xbar := terms.s2(0), terms.mean[0]
	V := energy.FPC(N, n) * S2
	eta := 0.9 * 2 * tau / V // η·V/(2τ) = 0.9
	B := 2 * tau / eta       // the budget in units of ŝ²

	// E[(ŝ² − B)+] over minibatches, with its standard error.
	mb, _ := energy.NewMinibatch(terms, n)
	rng := rand.New(rand.NewPCG(4, 4))
	g, gv, th := make([]float64, 1), make([]float64, 1), []float64{0}
	excess := make([]float64, 200_000)
	for k := range excess {
		mb.Grad(g, gv, th, rng)
		excess[k] = max(0, gv[0]-B)
	}
	ex, exSE := meanvar.MeanSE(excess)

	run := func(smooth bool) (float64, float64) {
		mb, _ := energy.NewMinibatch(terms, n)
		sched := langevin.Constant{Step: eta}
		auto, err := variance.NewAutoBatch(mb, tau, sched, variance.AutoOptions{Min: n, Max: n, Every: 1000, Smooth: smooth})
		if err != nil {
			t.Fatal(err)
		}
		s, err := exchange.New(exchange.Config{
			Levels: []exchange.Level{{Tau: tau, Est: mb, Eta: sched, Noise: langevin.Corrected, Var: auto}},
			Seed:   21,
		}, [][]float64{{xbar}})
		if err != nil {
			t.Fatal(err)
		}
		var means []float64
		var acc float64
		var clamped int64
		for k := 0; k < steps; k++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			if k < burn {
				clamped = s.Stats().Levels[0].Clamped
				continue
			}
			d := s.State(0)[0] - xbar
			acc += d * d
			if (k-burn+1)%batch == 0 {
				means = append(means, acc/batch)
				acc = 0
			}
		}
		// After the first window the smoothed variance is the mean of 1000
		// draws' s², 2% relative sd, and stays below the budget's 1/0.9.
		if c := s.Stats().Levels[0].Clamped - clamped; smooth && c != 0 {
			t.Errorf("smoothed variance: %d clamped steps after burn-in, want none", c)
		}
		return meanvar.MeanSE(means)
	}
	a := eta * N
	for _, smooth := range []bool{true, false} {
		q, qSE := 2*tau*eta, 0.0
		if !smooth {
			q, qSE = q+eta*eta*ex, eta*eta*exSE
		}
		want, wantSE := q/(a*(2-a)), qSE/(a*(2-a))
		got, se := run(smooth)
		t.Logf("smooth %v: chain variance %.4g ± %.2g, predicted %.4g ± %.2g, exact posterior τ/N = %.4g", smooth, got, se, want, wantSE, tau/N)
		if d := math.Abs(got - want); d > 4.5*math.Hypot(se, wantSE) {
			t.Errorf("smooth %v: chain variance %v ± %v, want %v ± %v", smooth, got, se, want, wantSE)
		}
	}
}

// TestAutoBatchDecreasingStep checks that each check sizes n for the step
// size of its own step: under η_k = a(b + k)^−γ the target n shrinks as k
// grows, and n is ⌈n*⌉ of the spread just seen and η_k.
func TestAutoBatchDecreasingStep(t *testing.T) {
	const N, tau, every = 5000, 2.0, 10
	terms := newLocTerms(N, []float64{3}, 9)
	mb, _ := energy.NewMinibatch(terms, 50)
	S2 := terms.s2(0)
	sched := langevin.Decreasing{A: 400 * 0.9 * 2 * tau / (N * N * S2), B: 1, Gamma: 0.55}
	a, err := variance.NewAutoBatch(mb, tau, sched, variance.AutoOptions{Every: every})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 1))
	theta, g, gv := []float64{0}, make([]float64, 1), make([]float64, 1)
	first, last := 0, 0
	for k := 0; k <= 2000; k++ {
		if err := a.Observe(k, theta, mb, rng); err != nil {
			t.Fatal(err)
		}
		if k%every == 0 {
			st := a.Stats()
			if want := int(math.Ceil(variance.SizeFor(N, st.S2, sched.Eta(k), tau, 0.9))); st.N != max(want, 2) {
				t.Fatalf("step %d: n = %d, the rule at η_k = %v gives %d", k, st.N, sched.Eta(k), want)
			}
			if k == every {
				first = st.N
			}
			last = st.N
		}
		mb.Grad(g, gv, theta, rng)
	}
	// η falls by (2001/11)^0.55 ≈ 17 between the two checks; n* ∝ η for n* ≪ N.
	if !(last < first/5) {
		t.Errorf("n went from %d to %d as η fell seventeenfold", first, last)
	}
}

// nanTerms has per-example gradients that are NaN for θ > 1.
type nanTerms struct{ *locTerms }

func (n nanTerms) Term(grad, theta []float64, i int) float64 {
	u := n.locTerms.Term(grad, theta, i)
	if theta[0] > 1 && grad != nil {
		grad[0] = math.NaN()
	}
	return u
}

func TestAutoBatchNaN(t *testing.T) {
	mb, _ := energy.NewMinibatch(nanTerms{newLocTerms(100, []float64{1}, 1)}, 10)
	a, _ := variance.NewAutoBatch(mb, 1, langevin.Constant{Step: 0.01}, variance.AutoOptions{Every: 1})
	rng := rand.New(rand.NewPCG(1, 1))
	if err := a.Observe(0, []float64{2}, mb, rng); err == nil {
		t.Error("NaN gradients: no error")
	}
}
