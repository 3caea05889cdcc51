package exchange

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/variance"
)

// logisticChain builds chain c of a two-level f-reSGLD run on a small
// logistic regression with stateful minibatch estimators and a running
// variance model: everything a chain could wrongly share with another.
func logisticChain(t *testing.T, lr *models.Logistic, c int) *Sampler {
	t.Helper()
	cold, err := energy.NewMinibatch(lr, 20)
	if err != nil {
		t.Fatal(err)
	}
	hot, err := energy.NewMinibatch(lr, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := FReSGLDMethod.Config(Setup{
		Tau1: 1, Tau2: 4, Eta: langevin.Constant{Step: 0.002}, Cold: cold, Hot: hot,
		HotVar:  func() variance.Model { r, _ := variance.NewRunning(3, 5); return r },
		PerStep: true, Seed: ChainSeed(9, c), Energies: Energies{Gaussian: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := lr.Dim()
	s := mustNew(t, cfg, [][]float64{make([]float64, p), make([]float64, p)})
	return s
}

func smallLogistic(t *testing.T) *models.Logistic {
	t.Helper()
	const n, p = 200, 3
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, n*p), make([]float64, n)
	for i := range n {
		z := 0.0
		for j := range p {
			x[i*p+j] = rng.NormFloat64()
			z += x[i*p+j]
		}
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	lr, err := models.NewLogistic(x, y, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	return lr
}

func bits(t *testing.T, xs []float64) []byte {
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, xs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestChainsMatchSingleRuns(t *testing.T) {
	lr := smallLogistic(t)
	plan := Plan{Burn: 50, Keep: 300, Thin: 2}
	const C = 3
	alone := make([][]byte, C)
	for c := range C {
		tr, err := Collect(logisticChain(t, lr, c), plan)
		if err != nil {
			t.Fatal(err)
		}
		alone[c] = bits(t, tr.Data)
	}
	if bytes.Equal(alone[0], alone[1]) || bytes.Equal(alone[1], alone[2]) {
		t.Fatal("two chains drew the same samples")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 4} {
		for _, workers := range []int{1, C} {
			runtime.GOMAXPROCS(procs)
			smps := make([]*Sampler, C)
			sinks := make([]Sink, C)
			cols := make([]*Collector, C)
			for c := range C {
				smps[c] = logisticChain(t, lr, c)
				cols[c] = &Collector{Plan: plan, Trace: Trace{P: lr.Dim()}}
				sinks[c] = cols[c]
			}
			res := RunChains(smps, plan, sinks, workers)
			for c := range C {
				if res[c].Err != nil {
					t.Fatal(res[c].Err)
				}
				if res[c].Stats.Steps != plan.Steps() || cols[c].Trace.Len() != plan.Keep {
					t.Errorf("GOMAXPROCS %d, %d workers, chain %d: %d steps and %d samples, want %d and %d", procs, workers, c, res[c].Stats.Steps, cols[c].Trace.Len(), plan.Steps(), plan.Keep)
				}
				if !bytes.Equal(bits(t, cols[c].Trace.Data), alone[c]) {
					t.Errorf("GOMAXPROCS %d, %d workers: chain %d differs from its run alone", procs, workers, c)
				}
			}
			if res[0].Stats.Pairs[0].Accepts == 0 {
				t.Error("no swaps in the test chains")
			}
		}
	}
}

func TestChainSeedsDistinct(t *testing.T) {
	seen := map[uint64]bool{}
	for seed := range uint64(20) {
		for c := range 20 {
			s := ChainSeed(seed, c)
			if seen[s] {
				t.Fatalf("ChainSeed(%d, %d) repeats an earlier seed", seed, c)
			}
			seen[s] = true
		}
	}
}

func TestRunChainsProgressCountsEveryStep(t *testing.T) {
	lr := smallLogistic(t)
	plan := Plan{Keep: 100, Thin: 1}
	var last, total, calls int
	plan.Progress = func(d, tot int) { last, total = d, tot; calls++ }
	smps := []*Sampler{logisticChain(t, lr, 0), logisticChain(t, lr, 1)}
	RunChains(smps, plan, nil, 2)
	if last != 200 || total != 200 || calls == 0 {
		t.Errorf("progress ended at %d of %d after %d calls, want 200 of 200", last, total, calls)
	}
}

// unitLadder is two levels on noisy estimators that cost one unit a draw,
// swapping every step: each step draws two gradients and two energies.
func unitLadder(t *testing.T) *Sampler {
	t.Helper()
	q := energy.NewIsoQuadratic(2, 1)
	cfg := Config{Levels: []Level{
		{Tau: 1, Est: energy.NewNoisy(q, 1, 1), Eta: langevin.Constant{Step: 0.01}},
		{Tau: 2, Est: energy.NewNoisy(q, 1, 1), Eta: langevin.Constant{Step: 0.01}},
	}, Swap: Swap{Rule: FReSGLD, PerStep: true}, Seed: 3}
	s := mustNew(t, cfg, [][]float64{{0, 0}, {0, 0}})
	return s
}

func TestBudgetStopsAtFirstStepOverIt(t *testing.T) {
	s := unitLadder(t)
	// 4 units a step: 402 units are first reached after step 101.
	// Keep is only an upper bound under a budget: one this large must not
	// be reserved.
	tr, err := Collect(s, Plan{Keep: math.MaxInt32, Thin: 1, Budget: 402})
	if err != nil {
		t.Fatal(err)
	}
	if s.Steps() != 101 || tr.Len() != 101 || s.Units() != 404 {
		t.Errorf("stopped after %d steps, %d samples, %v units; want 101, 101, 404", s.Steps(), tr.Len(), s.Units())
	}
	var u float64
	for _, l := range s.Stats().Levels {
		u += l.Cost.TotalGrad().Units + l.Cost.TotalEnergy().Units
	}
	if u != s.Units() {
		t.Errorf("Units = %v, the level costs sum to %v", s.Units(), u)
	}
	s = unitLadder(t)
	if err := Run(s, Plan{Keep: 10, Thin: 1, Budget: math.NaN()}, nil); err == nil {
		t.Error("a NaN budget was accepted")
	}
	if err := Run(s, Plan{Keep: 10, Thin: 1}, nil); err != nil || s.Steps() != 10 {
		t.Errorf("no budget: %d steps, error %v; want 10 steps", s.Steps(), err)
	}
}

func TestSinkSeesEveryStepAndLevel(t *testing.T) {
	s := unitLadder(t)
	plan := Plan{Burn: 3, Keep: 50, Thin: 2}
	var steps int
	var kept []float64
	swaps := 0
	sink := SinkFunc(func(step int, s *Sampler) error {
		steps++
		if step != s.Steps() {
			t.Fatalf("sink told step %d, the sampler has taken %d", step, s.Steps())
		}
		if s.Replica(0) == s.Replica(1) {
			t.Fatal("two levels hold the same replica")
		}
		if s.Replica(0) != 0 {
			swaps++
		}
		if _, ok := plan.Retained(step); ok {
			kept = append(kept, s.State(1)...)
		}
		return nil
	})
	if err := Run(s, plan, sink); err != nil {
		t.Fatal(err)
	}
	if steps != plan.Steps() || swaps == 0 {
		t.Errorf("sink saw %d steps (want %d), level 0 held replica 1 at %d of them", steps, plan.Steps(), swaps)
	}
	// The same plan through Collect on level 1 keeps what the sink kept.
	plan.Level = 1
	tr, err := Collect(unitLadder(t), plan)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bits(t, tr.Data), bits(t, kept)) {
		t.Error("Collect of level 1 differs from the sink's copies of level 1")
	}
	stop := errors.New("enough")
	s = unitLadder(t)
	err = Run(s, plan, SinkFunc(func(step int, _ *Sampler) error {
		if step == 7 {
			return stop
		}
		return nil
	}))
	if !errors.Is(err, stop) || s.Steps() != 7 {
		t.Errorf("a sink error stopped the run after %d steps with %v; want 7 steps and the sink's error", s.Steps(), err)
	}
}

func TestPlanRetained(t *testing.T) {
	p := Plan{Burn: 3, Keep: 3, Thin: 2}
	var got []int
	for step := 1; step <= p.Steps()+2; step++ {
		if i, ok := p.Retained(step); ok {
			if i != len(got) {
				t.Errorf("step %d retained as sample %d, want %d", step, i, len(got))
			}
			got = append(got, step)
		}
	}
	// Steps 5, 7, 9 are the plan's; Retained does not know where a run ends.
	if len(got) < 3 || got[0] != 5 || got[1] != 7 || got[2] != 9 {
		t.Errorf("retained steps %v, want 5, 7, 9, ...", got)
	}
}

func TestCorrectedPreset(t *testing.T) {
	// One corrected chain on U = λθ²/2 with gradient noise s²: the noise
	// policy makes the stationary variance 2τ/(λ(2 − ηλ)), as if the
	// gradient were exact (see TestStationaryVarianceGaussian).
	const lambda, eta, s, n = 1.0, 0.1, 2.0, 400_000
	est := energy.NewNoisy(energy.Quadratic{Lambda: []float64{lambda}}, 0, s)
	cfg, err := CorrectedMethod.Config(Setup{Tau1: 1, Tau2: 10, Eta: langevin.Constant{Step: eta}, Cold: est, Hot: est, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Levels) != 1 || cfg.Levels[0].Noise != langevin.Corrected || cfg.Levels[0].Tau != 1 {
		t.Fatalf("corrected preset: %+v", cfg.Levels)
	}
	want := 2 / (lambda * (2 - eta*lambda))
	rho := 1 - eta*lambda
	rel := math.Sqrt(2 * (1 + rho*rho) / (n * (1 - rho*rho))) // see ar1Variance
	if got := meanSquare(t, mustNew(t, cfg, [][]float64{{0}}), 1000, n); !(math.Abs(got/want-1) <= 5*rel) {
		t.Errorf("stationary variance %.4f, exact %.4f (tolerance %.2f%%)", got, want, 500*rel)
	}
}

func TestReLDPreset(t *testing.T) {
	mix := models.PaperMixture()
	setup := Setup{Tau1: 1, Tau2: 10, Levels: 3, Eta: langevin.Constant{Step: 0.01}, Cold: energy.Exact{E: mix}, PerStep: true, Seed: 1}
	cfg, err := ReLDMethod.Config(setup)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Levels) != 3 || cfg.Swap.Rule != Exact || !cfg.Swap.PerStep {
		t.Fatalf("reld preset: %d levels, rule %v", len(cfg.Levels), cfg.Swap.Rule)
	}
	for l, want := range []float64{1, math.Sqrt(10), 10} {
		lv := cfg.Levels[l]
		if math.Abs(lv.Tau-want) > 1e-12*want || lv.Noise != langevin.SGLD {
			t.Errorf("level %d: τ = %v, noise %v; want τ = %v, plain Langevin", l, lv.Tau, lv.Noise, want)
		}
	}
	smp := mustNew(t, cfg, [][]float64{{0}, {0}, {0}})
	if err := Run(smp, Plan{Keep: 2000, Thin: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if smp.Accepts(0) == 0 || smp.Accepts(1) == 0 {
		t.Errorf("no swaps accepted: %d, %d", smp.Accepts(0), smp.Accepts(1))
	}
	setup.Cold = energy.NewNoisy(mix, 1, 1)
	if _, err := ReLDMethod.Config(setup); err == nil {
		t.Error("reld accepted a noisy energy")
	}
	// The ladder and the scheme come from the Setup: Taus (as Adapt builds
	// them) and a DEO scheme with its window, not a geometric sweep.
	setup.Cold = energy.Exact{E: mix}
	setup.Taus, setup.Scheme, setup.Window = []float64{1, 2, 5, 10}, DEO, 3
	cfg, err = ReLDMethod.Config(setup)
	if err != nil {
		t.Fatal(err)
	}
	var taus []float64
	for _, lv := range cfg.Levels {
		taus = append(taus, lv.Tau)
	}
	if !slices.Equal(taus, setup.Taus) || cfg.Swap.Scheme != DEO || cfg.Swap.Window != 3 {
		t.Errorf("reld with Taus %v, DEO, W = 3: levels at %v, scheme %v, window %d", setup.Taus, taus, cfg.Swap.Scheme, cfg.Swap.Window)
	}
	setup.Taus = []float64{1}
	if _, err := ReLDMethod.Config(setup); err == nil {
		t.Error("reld accepted a ladder of one temperature")
	}
	if m, err := ParseMethod("reld"); err != nil || m != ReLDMethod {
		t.Errorf("ParseMethod(reld) = %v, %v", m, err)
	}
}
