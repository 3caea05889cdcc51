package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
)

var _ exchange.FallibleKernel = (*ThinnedSlabMove)(nil)

// lowBound is a Logistic whose third-derivative bound is understated by
// factor: an expansion of it has thinning bounds b_i that some remainders
// exceed.
type lowBound struct {
	*Logistic
	factor float64
}

func (l lowBound) ThirdBound() float64 { return l.factor * l.Logistic.ThirdBound() }

// violation reads the example, φ and b from Thin's error for a violated
// bound, and fails unless the message has them.
func violation(t *testing.T, err error) (i int, phi, b float64) {
	t.Helper()
	m := regexp.MustCompile(`example (\d+)'s factor φ = (\S+) exceeds its bound b = (\S+) `).FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		t.Fatalf("error %v does not name the example, φ and b", err)
	}
	i, _ = strconv.Atoi(m[1])
	phi, _ = strconv.ParseFloat(m[2], 64)
	b, _ = strconv.ParseFloat(m[3], 64)
	return i, phi, b
}

// Thin refuses an intensity or a c that is not a finite number ≥ 0 with an
// error naming it. A NaN intensity drew no event (NaN < t is false) and
// passed every move; −1 did the same; +∞ never ended. Without the check
// the NaN and −1 cases pass silently and this test fails.
func TestThinRefusesABadIntensity(t *testing.T) {
	_, e, x, y := expansionCase(t, 500)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range []float64{math.NaN(), math.Inf(1), -1} {
		pass, n, err := e.ThinAt(rng, 1, k, x, y)
		if err == nil || !strings.Contains(err.Error(), "intensity "+fmt.Sprint(k)) || pass || n != 0 {
			t.Errorf("intensity %v: pass %v after %d examples, error %v; want an error naming it", k, pass, n, err)
		}
	}
	if pass, _, err := e.Thin(rng, math.NaN(), x, y); err == nil || !strings.Contains(err.Error(), "c = NaN") || pass {
		t.Errorf("c = NaN: pass %v, error %v; want an error naming it", pass, err)
	}
	// At intensity 0 no event is drawn: only the check on c itself sees it.
	for _, c := range []float64{math.NaN(), math.Inf(-1)} {
		if pass, _, err := e.ThinAt(rng, c, 0, x, y); err == nil || !strings.Contains(err.Error(), "c = "+fmt.Sprint(c)) || pass {
			t.Errorf("c = %v at intensity 0: pass %v, error %v; want an error naming it", c, pass, err)
		}
	}
}

// A φ_i above its bound b_i stops Thin with an error that names the
// example, φ_i and b_i, where it used to reject the move (thinned with
// probability 1 in place of φ_i/b_i: a law wrong, and silent). With the
// bound understated a hundredfold, the first of 200 tests that meets such
// an example must fail so; the values it names are the example's own
// (φ = max(0, −c·ρ_i), b = Intensity·w_i, to 10⁻¹²). Without the check no
// error comes and the test fails. Rounding is no violation: at states
// 10⁻⁶ of the posterior's width from the point, where the remainders are
// rounding (|ρ_i| ~ 10⁻¹⁶ against true values ~ 10⁻²⁰) and c is set for
// Λ = 3, 2,000 tests give no error (with the allowance for rounding taken
// out, the first event fails).
func TestThinRefusesAViolatedBound(t *testing.T) {
	l, _, x, y := expansionCase(t, 500)
	mode, _, err := l.Mode(make([]float64, 3), nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	e, err := energy.NewExpansion(lowBound{l, 0.01}, mode)
	if err != nil {
		t.Fatal(err)
	}
	c := 20 / e.Rate(1, x, y) // Λ = 20 at the understated bound
	rng := rand.New(rand.NewPCG(3, 4))
	var failed error
	for range 200 {
		if _, _, err := e.Thin(rng, c, x, y); err != nil {
			failed = err
			break
		}
	}
	if failed == nil {
		t.Fatal("200 tests with the bound understated a hundredfold: no error")
	}
	i, phi, b := violation(t, failed)
	wantPhi, wantB := max(0, -c*e.Remainder(i, x, y)), e.Intensity(c, x, y)*e.RowWeight(i)
	if !(phi > b) || math.Abs(phi-wantPhi) > 1e-12*wantPhi || math.Abs(b-wantB) > 1e-12*wantB {
		t.Errorf("error %v: example %d's φ = %v and b = %v, want %v > %v", failed, i, phi, b, wantPhi, wantB)
	}
	t.Logf("%v", failed)

	_, e, _, _ = expansionCase(t, 500)
	m := e.Point()
	near := func(s float64) []float64 {
		v := make([]float64, len(m))
		for j := range m {
			v[j] = m[j] + s*float64(j+1)*1e-6/math.Sqrt(500)
		}
		return v
	}
	x, y = near(1), near(-2)
	c = 3 / e.Rate(1, x, y)
	var events int
	for range 2000 {
		_, n, err := e.Thin(rng, c, x, y)
		if err != nil {
			t.Fatalf("states 10⁻⁶ of a width from the point, c = %.3g: %v", c, err)
		}
		events += n
	}
	if events < 1000 {
		t.Errorf("%d events in 2,000 tests at Λ = 3: the rounding was not tried", events)
	}
}

// The thinned spike-and-slab kernel and its power-ladder swap stop on a
// violated bound (the bound understated a hundredfold, the data expanded
// about a far point, so that the tests meet large remainders) with Thin's
// error, never a silent rejection: on each of 20 streams, a sweep from 0
// sets Err within 200 sweeps and leaves the state as the failed test found
// it (the coefficients from the failed one on unmoved), and every later
// sweep does nothing; the swap returns the error with a NaN log-ratio;
// and an exchange.Sampler stops with it, from a one-level ladder (the
// kernel's step, exchange.FallibleKernel) and from a swap's LogRatio (the
// exact rule's PowerKernel path). Without Thin's check, or with the
// kernel's or the sampler's reading of the error left out, one of these
// fails.
func TestThinnedSlabMoveStopsOnAViolatedBound(t *testing.T) {
	l := slabRows(t, 200, 5, SlabPrior{W: 0.3, Spike: 0.02, Slab: 1}, false)
	far := slabExpansion(t, l, true).Point()
	e, err := energy.NewExpansion(lowBound{l, 0.01}, far)
	if err != nil {
		t.Fatal(err)
	}
	var k *ThinnedSlabMove
	var rng *rand.Rand
	theta, before := make([]float64, 3), make([]float64, 3)
	for seed := range uint64(20) {
		k, rng = l.NewThinnedSlabMove(e, 0.5), rand.New(rand.NewPCG(5, seed))
		clear(theta)
		for s := 0; k.Err() == nil; s++ {
			if s == 200 {
				t.Fatalf("stream %d: 200 sweeps with the bound understated a hundredfold: no error", seed)
			}
			copy(before, theta)
			k.Step(theta, rng)
		}
		violation(t, k.Err())
		var j int
		if _, err := fmt.Sscanf(k.Err().Error(), "thinned spike-and-slab sweep at λ = 0.5, coefficient %d:", &j); err != nil {
			t.Fatalf("sweep error %v does not name λ and the coefficient: %v", k.Err(), err)
		}
		for q := j; q < len(theta); q++ {
			if theta[q] != before[q] {
				t.Errorf("stream %d: the sweep failed at coefficient %d but moved coefficient %d: %v to %v", seed, j, q, before[q], theta[q])
			}
		}
	}
	was := append([]float64(nil), theta...)
	if moved, cost := k.Step(theta, rng); moved || cost != 0 || theta[0] != was[0] || theta[1] != was[1] || theta[2] != was[2] {
		t.Errorf("a sweep after the failure moved %v at cost %v: %v to %v", moved, cost, was, theta)
	}

	x, y := thinnedSwapStates(l, e, 0.01) // Φ = 49 at the swap's c = 0.7
	var swapErr error
	for range 200 {
		lr, _, err := l.NewThinnedSlabMove(e, 1).SwapLogRatio(rng, 0.3, x, y)
		if err != nil {
			if !math.IsNaN(lr) {
				t.Errorf("swap error %v with log-ratio %v, want NaN", err, lr)
			}
			swapErr = err
			break
		}
	}
	if swapErr == nil {
		t.Fatal("200 swaps with the bound understated a hundredfold: no error")
	}
	violation(t, swapErr)

	one, err := exchange.New(exchange.Config{Seed: 7, Levels: []exchange.Level{{Tau: 2, Est: energy.Exact{E: l.Power(0.5)},
		Eta: langevin.Constant{Step: 1}, Kernel: l.NewThinnedSlabMove(e, 0.5)}}}, [][]float64{{0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	var runErr error
	for range 200 {
		if runErr = one.Step(); runErr != nil {
			break
		}
	}
	if runErr == nil || !strings.Contains(runErr.Error(), "level 0") {
		t.Fatalf("one-level sampler: error %v after 200 steps, want the kernel's naming level 0", runErr)
	}
	violation(t, runErr)

	var lv []exchange.Level
	for _, lam := range []float64{1, 0.3} {
		lv = append(lv, exchange.Level{Tau: 1 / lam, Est: energy.Exact{E: l.Power(lam)}, Eta: langevin.Constant{Step: 1}, Kernel: l.NewThinnedSlabMove(e, lam)})
	}
	two, err := exchange.New(exchange.Config{Levels: lv, Seed: 8, Swap: exchange.Swap{Rule: exchange.Exact, PerStep: true}}, [][]float64{x, y})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	for range 200 {
		if _, runErr = two.LogRatio(0, x, y); runErr != nil {
			break
		}
	}
	if runErr == nil || !strings.Contains(runErr.Error(), "levels 0 and 1") {
		t.Fatalf("two-level sampler: swap error %v, want Thin's naming the levels", runErr)
	}
	violation(t, runErr)
}
