package exchange

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/variance"
)

func twoLevels(est energy.Estimator) Config {
	return Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
		{Tau: 10, Est: est, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected},
	}, Swap: Swap{Rule: FReSGLD, A: 1}, Seed: 1}
}

func TestInvalidSettings(t *testing.T) {
	mix := models.PaperMixture()
	est := energy.NewNoisy(mix, 1, 2)
	cases := []struct {
		name string
		edit func(*Config, *[][]float64)
		want string
	}{
		{"τ1 = τ2", func(c *Config, _ *[][]float64) { c.Levels[1].Tau = 1 }, "temperature τ = 1 must exceed"},
		{"τ1 > τ2", func(c *Config, _ *[][]float64) { c.Levels[0].Tau = 20 }, "must exceed"},
		{"τ ≤ 0", func(c *Config, _ *[][]float64) { c.Levels[0].Tau = 0 }, "level 0: temperature τ = 0"},
		{"η = 0", func(c *Config, _ *[][]float64) { c.Levels[0].Eta = langevin.Constant{} }, "step size η = 0"},
		{"η < 0", func(c *Config, _ *[][]float64) { c.Levels[1].Eta = langevin.Constant{Step: -1} }, "level 1: step size η = -1"},
		{"η NaN", func(c *Config, _ *[][]float64) { c.Levels[1].Eta = langevin.Constant{Step: math.NaN()} }, "step size η = NaN"},
		{"decreasing γ", func(c *Config, _ *[][]float64) { c.Levels[0].Eta = langevin.Decreasing{A: 1, B: 1, Gamma: 2} }, "γ = 2"},
		{"a < 0", func(c *Config, _ *[][]float64) { c.Swap.A = -1 }, "swap intensity a = -1"},
		{"a·η > 1", func(c *Config, _ *[][]float64) { c.Swap.A = 1000 }, "exceeds 1"},
		{"a1 > 1", func(c *Config, _ *[][]float64) { c.Swap.Rule, c.Swap.A1 = MReSGLD, 2 }, "a1 = 2"},
		{"dimension", func(c *Config, _ *[][]float64) { c.Levels[1].Est = energy.NewNoisy(energy.NewIsoQuadratic(3, 1), 0, 0) }, "dimension 3"},
		{"initial dimension", func(_ *Config, in *[][]float64) { (*in)[0] = []float64{1, 2} }, "initial state has dimension 2"},
		{"initial NaN", func(_ *Config, in *[][]float64) { (*in)[1] = []float64{math.NaN()} }, "coordinate 0 is NaN"},
		{"init count", func(_ *Config, in *[][]float64) { *in = (*in)[:1] }, "1 initial states for 2 levels"},
		{"unknown variance", func(c *Config, _ *[][]float64) { c.Levels[1].Est = energy.Hidden{Estimator: est} }, "does not report its variance"},
		{"known needs reports", func(c *Config, _ *[][]float64) {
			c.Levels[1].Est, c.Levels[1].Var = energy.Hidden{Estimator: est}, variance.Known{}
		}, "needs an estimator that reports"},
		{"dimension 0", func(c *Config, in *[][]float64) {
			e := energy.NewNoisy(energy.NewIsoQuadratic(0, 1), 0, 0)
			c.Levels[0].Est, c.Levels[1].Est, *in = e, e, [][]float64{{}, {}}
		}, "level 0: estimator dimension 0"},
		{"no estimator", func(c *Config, _ *[][]float64) { c.Levels[0].Est = nil }, "level 0: no estimator"},
		{"box outside", func(c *Config, _ *[][]float64) { c.Domain = &energy.Box{Lo: []float64{1}, Hi: []float64{2}} }, "outside the domain"},
	}
	for _, c := range cases {
		cfg, init := twoLevels(est), [][]float64{{0}, {0}}
		c.edit(&cfg, &init)
		_, err := New(cfg, init)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// blowUp returns NaN energies (and gradients) beyond |θ| > 3.
type blowUp struct{ models.Mixture }

func (b blowUp) U(theta []float64) float64 {
	if math.Abs(theta[0]) > 3 {
		return math.NaN()
	}
	return b.Mixture.U(theta)
}

func (b blowUp) Grad(grad, theta []float64) {
	b.Mixture.Grad(grad, theta)
	if math.Abs(theta[0]) > 3 {
		grad[0] = math.Inf(1)
	}
}

func TestNonFiniteEnergyStopsWithSamplesKept(t *testing.T) {
	for _, c := range []struct {
		name string
		est  energy.Estimator
		sw   Swap
		want string
	}{
		{"NaN energy at a swap", energy.Exact{E: blowUp{models.PaperMixture()}}, Swap{Rule: Exact, PerStep: true}, "energy estimate is NaN"},
		{"infinite gradient", energy.Exact{E: blowUp{models.PaperMixture()}}, Swap{}, "diverged"},
	} {
		cfg := Config{Levels: []Level{
			{Tau: 1, Est: c.est, Eta: langevin.Constant{Step: 0.01}},
			{Tau: 5, Est: c.est, Eta: langevin.Constant{Step: 0.01}},
		}, Swap: c.sw, Seed: 5}
		smp := mustNew(t, cfg, [][]float64{{0}, {0}})
		tr, err := Collect(smp, Plan{Keep: 100000, Thin: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if tr.Len() == 0 || tr.Len() == 100000 {
			t.Errorf("%s: kept %d samples before the failure", c.name, tr.Len())
		}
		for _, x := range tr.Data {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("%s: a kept sample is %v", c.name, x)
			}
		}
		if err2 := smp.Step(); err2 != err {
			t.Errorf("%s: the sampler did not stay failed: %v", c.name, err2)
		}
	}
}

// brokenVar reports variance bad from its after-th draw on: a broken
// estimator or variance model.
type brokenVar struct {
	energy.Estimator
	bad          float64
	after, calls int
}

func (b *brokenVar) Grad(grad, gradVar, theta []float64, rng *rand.Rand) {
	b.Estimator.Grad(grad, gradVar, theta, rng)
	if b.calls++; b.calls > b.after && gradVar != nil {
		gradVar[len(gradVar)-1] = b.bad
	}
}

func (b *brokenVar) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u, v := b.Estimator.Energy(theta, rng)
	if b.calls > b.after {
		v = b.bad
	}
	return u, v
}

// A NaN, infinite or negative gradient or energy variance stops the run
// with an error naming the level and the step, and no sample made with it
// is returned.
func TestBrokenVarianceStops(t *testing.T) {
	for _, bad := range []float64{math.NaN(), -0.5, math.Inf(1)} {
		for _, c := range []struct {
			noise langevin.Policy
			sw    Swap
			want  string
		}{
			{langevin.Corrected, Swap{Rule: FReSGLD}, "level 1 at step 10: the gradient coordinate 1 variance is"},
			// Under SGLD noise only the swap uses variances: the swap
			// after step 10 draws the first broken energy.
			{langevin.SGLD, Swap{Rule: FReSGLD, PerStep: true}, "level 1 at step 10: the energy variance is"},
		} {
			est := &brokenVar{Estimator: energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 0.1, 0.1), bad: bad, after: 10}
			cfg := Config{Levels: []Level{
				{Tau: 1, Est: energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 0.1, 0.1), Eta: langevin.Constant{Step: 0.01}, Noise: c.noise},
				{Tau: 2, Est: est, Eta: langevin.Constant{Step: 0.01}, Noise: c.noise},
			}, Swap: c.sw, Seed: 1}
			s := mustNew(t, cfg, [][]float64{{0, 0}, {0, 0}})
			tr, err := Collect(s, Plan{Keep: 100, Thin: 1})
			want := c.want
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ŝ² = %v, %v: error %v, want one containing %q", bad, c.noise, err, want)
			}
			if n := tr.Len(); n != 10 {
				t.Errorf("ŝ² = %v, %v: %d samples kept, want those before the broken report", bad, c.noise, n)
			}
			for _, x := range tr.Data {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("ŝ² = %v: a kept sample is %v", bad, x)
				}
			}
		}
	}
}

func traceBytes(t *testing.T, concurrent bool, seed uint64) ([]byte, Stats) {
	t.Helper()
	est := energy.NewNoisy(energy.NewIsoQuadratic(4, 1), 1, 2)
	run, _ := running()
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected},
		{Tau: 3, Est: energy.Hidden{Estimator: est}, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.Corrected, Var: run},
		{Tau: 9, Est: est, Eta: langevin.Constant{Step: 0.05}, Noise: langevin.SGLD},
	}, Swap: Swap{Rule: FReSGLD, A: 10}, Seed: seed, Concurrent: concurrent}
	smp := mustNew(t, cfg, [][]float64{{1, 1, 1, 1}, {0, 0, 0, 0}, {-1, -1, -1, -1}})
	defer smp.Close()
	if concurrent {
		smp.pool.always = true // these levels are too cheap for the pool to choose it
	}
	tr, err := Collect(smp, Plan{Burn: 100, Keep: 2000, Thin: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, tr.Data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), smp.Stats()
}

func running() (variance.Model, error) { return variance.NewRunning(5, 10) }

func TestDeterminism(t *testing.T) {
	seq, st1 := traceBytes(t, false, 42)
	again, _ := traceBytes(t, false, 42)
	con, st2 := traceBytes(t, true, 42)
	other, _ := traceBytes(t, false, 43)
	if !bytes.Equal(seq, again) {
		t.Error("same seed, different samples")
	}
	if !bytes.Equal(seq, con) {
		t.Error("concurrent and sequential stepping differ")
	}
	if bytes.Equal(seq, other) {
		t.Error("different seeds, same samples")
	}
	if st1.Pairs[0].Accepts == 0 || st1.Pairs[1].Accepts == 0 {
		t.Errorf("no swaps in the test run: %+v", st1.Pairs)
	}
	for l := range st1.Levels {
		if st1.Levels[l].Cost != st2.Levels[l].Cost {
			t.Errorf("level %d: costs differ between sequential and concurrent runs", l)
		}
	}
	if st1.Levels[1].Cost.VarGrad.Calls == 0 {
		t.Error("the running variance model made no counted draws")
	}
}

func TestReflectingBox(t *testing.T) {
	b := energy.Box{Lo: []float64{0, -1}, Hi: []float64{1, 1}}
	x := []float64{1.25, -3.5}
	b.Reflect(x)
	if math.Abs(x[0]-0.75) > 1e-15 || math.Abs(x[1]-0.5) > 1e-15 {
		t.Errorf("Reflect = %v, want [0.75 0.5]", x)
	}
	// A chain with a huge step still never leaves the box.
	est := energy.Exact{E: energy.Quadratic{Lambda: []float64{0.01, 0.01}}}
	cfg := Config{Levels: []Level{{Tau: 1, Est: est, Eta: langevin.Constant{Step: 5}}}, Domain: &b, Seed: 2}
	smp := mustNew(t, cfg, [][]float64{{0.5, 0}})
	tr, err := Collect(smp, Plan{Keep: 1000, Thin: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Len() {
		if !b.Contains(tr.At(i)) {
			t.Fatalf("sample %d = %v left the box", i, tr.At(i))
		}
	}
}

func TestRunningVarianceConverges(t *testing.T) {
	// Repeated draws of a Gaussian with known s² = 4, σ² = 1: after m
	// updates of r draws the running average of sample variances has
	// relative standard error √(2/(m(r − 1))).
	est := energy.NewNoisy(energy.NewIsoQuadratic(3, 1), 1, 2)
	r, err := variance.NewRunning(10, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	theta := []float64{0.3, -0.2, 1}
	const m = 2000
	for k := range m {
		if err := r.Observe(k, theta, est, rng); err != nil {
			t.Fatal(err)
		}
	}
	tol := 5 * math.Sqrt(2.0/(m*9))
	g := make([]float64, 3)
	r.GradVar(g, theta, nil)
	for j, v := range g {
		if !(math.Abs(v/4-1) <= tol) {
			t.Errorf("ŝ²_%d = %v, want 4 ± %.1f%%", j, v, 100*tol)
		}
	}
	if v := r.EnergyVar(theta, 0, false); !(math.Abs(v-1) <= tol) {
		t.Errorf("σ̂² = %v, want 1 ± %.1f%%", v, 100*tol)
	}
	if _, err := variance.NewRunning(1, 1); err == nil {
		t.Error("repeats = 1 accepted")
	}
}

// statefulEst counts its own draws: a stand-in for an estimator with per-draw
// state, which must not be shared between levels.
type statefulEst struct {
	energy.Estimator
	draws *int
}

func (s statefulEst) Clone() energy.Estimator {
	return statefulEst{Estimator: s.Estimator, draws: new(int)}
}

func TestPresetsCloneSharedEstimators(t *testing.T) {
	base := energy.NewNoisy(energy.NewIsoQuadratic(1, 1), 1, 1)
	cold, hot := statefulEst{base, new(int)}, statefulEst{base, new(int)}
	for _, c := range []struct {
		m    Method
		want []energy.Estimator // which estimators must be the caller's own
	}{
		{ReSGLDMethod, []energy.Estimator{cold, nil, nil}},
		{FReSGLDMethod, []energy.Estimator{cold, hot, nil}},
	} {
		cfg, err := c.m.Config(Setup{Tau1: 1, Tau2: 9, Levels: 3, Eta: langevin.Constant{Step: 0.1}, Cold: cold, Hot: hot})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[*int]bool{}
		for l, L := range cfg.Levels {
			e := L.Est.(statefulEst)
			if seen[e.draws] {
				t.Errorf("%s: level %d shares an estimator with a lower level", c.m, l)
			}
			seen[e.draws] = true
			if w := c.want[l]; w != nil && e.draws != w.(statefulEst).draws {
				t.Errorf("%s: level %d does not use the caller's estimator", c.m, l)
			}
		}
	}
}
