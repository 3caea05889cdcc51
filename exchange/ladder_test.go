package exchange

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// locTerms is U_i(θ) = ½|θ − x_i|², U_0 = 0: per-example gradients θ − x_i
// whose spread is that of the data.
type locTerms struct{ x [][]float64 }

func newLocTerms(N int, sds []float64, seed uint64) locTerms {
	rng := rand.New(rand.NewPCG(seed, 3))
	t := locTerms{x: make([][]float64, N)}
	for i := range t.x {
		t.x[i] = make([]float64, len(sds))
		for j, sd := range sds {
			t.x[i][j] = sd * rng.NormFloat64()
		}
	}
	return t
}

func (t locTerms) Dim() int { return len(t.x[0]) }
func (t locTerms) Len() int { return len(t.x) }

func (t locTerms) Term(grad, theta []float64, i int) float64 {
	var u float64
	for j, th := range theta {
		d := th - t.x[i][j]
		u += d * d / 2
		if grad != nil {
			grad[j] = d
		}
	}
	return u
}

func (t locTerms) Prior(grad, theta []float64) float64 {
	for j := range grad {
		grad[j] = 0
	}
	return 0
}

// When Hot and Cold are one stateful estimator, the hot level gets a copy:
// otherwise two levels draw from one minibatch's buffers, a race when they
// step concurrently (go test -race reports it).
func TestPresetClonesSharedEstimator(t *testing.T) {
	mb, err := energy.NewMinibatch(newLocTerms(500, []float64{1, 2}, 1), 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{ReSGLDMethod, MReSGLDMethod, FReSGLDMethod} {
		cfg, err := m.Config(Setup{Tau1: 1, Tau2: 4, Levels: 3, Eta: langevin.Constant{Step: 1e-4}, Cold: mb, Hot: mb, A: 1, A1: 0.5, Concurrent: true, Energies: Energies{Gaussian: true}})
		if err != nil {
			t.Fatal(err)
		}
		for l := 1; l < len(cfg.Levels); l++ {
			if cfg.Levels[l].Est == energy.Estimator(mb) {
				t.Errorf("%s: level %d shares level 0's minibatch", m, l)
			}
			for k := 1; k < l; k++ {
				if cfg.Levels[l].Est == cfg.Levels[k].Est {
					t.Errorf("%s: levels %d and %d share one minibatch", m, k, l)
				}
			}
		}
		s := mustNew(t, cfg, [][]float64{{0, 0}, {0, 0}, {0, 0}})
		s.pool.always = true // hand off even steps too cheap to pay
		for k := 0; k < 200; k++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
	}
}

// With K > 2 levels each hot level gets its own automatic minibatch model,
// bound to its own estimator and temperature: the size each level settles
// on is the rule's n* at that level's τ. Run under -race: the levels step
// concurrently.
func TestHotVarAtBindsEachLevel(t *testing.T) {
	const N, every = 4000, 20
	terms := newLocTerms(N, []float64{3, 1}, 2)
	eta := langevin.Constant{Step: 2e-5}
	cold, _ := energy.NewMinibatch(terms, 400)
	hot, _ := energy.NewMinibatch(terms, 10)
	models := map[int]*variance.AutoBatch{}
	setup := Setup{
		Tau1: 1, Tau2: 16, Levels: 3, Eta: eta, Cold: cold, Hot: hot, A: 1, Seed: 3, Concurrent: true, Energies: Energies{Gaussian: true},
		HotVarAt: func(est energy.Estimator, tau float64) (variance.Model, error) {
			a, err := variance.NewAutoBatch(est.(*energy.Minibatch), tau, eta, variance.AutoOptions{Every: every})
			models[int(math.Round(tau))] = a
			return a, err
		},
	}
	cfg, err := FReSGLDMethod.Config(setup)
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, cfg, [][]float64{{0, 0}, {0, 0}, {0, 0}})
	defer s.Close()
	s.pool.always = true // hand off even steps too cheap to pay
	for k := 0; k < 10*every+1; k++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	for l, tau := range []float64{4, 16} {
		est := cfg.Levels[l+1].Est.(*energy.Minibatch)
		a := models[int(tau)]
		if a == nil {
			t.Fatalf("level %d (τ = %v): no model was made", l+1, tau)
		}
		st := a.Stats()
		// The size follows the rule at this level's τ from this level's
		// own spread (S² ≈ 9 on coordinate 0): n* ≈ 1/(1/N + 2·0.9τ/(ηN²S²)).
		want := variance.SizeFor(N, st.S2, eta.Step, tau, 0.9)
		if est.Size() != st.N || st.N != int(math.Ceil(want)) || st.Checks < 10 {
			t.Errorf("level %d (τ = %v): n = %d, model's n = %d, rule %v after %d checks", l+1, tau, est.Size(), st.N, want, st.Checks)
		}
	}
	if cfg.Levels[1].Est.(*energy.Minibatch).Size() == cfg.Levels[2].Est.(*energy.Minibatch).Size() {
		t.Errorf("levels 1 and 2 settled on one size, %d, at τ = 4 and 16", cfg.Levels[1].Est.(*energy.Minibatch).Size())
	}
}

// One stateful variance model on two levels is refused, and so is a model
// bound to another level's estimator or temperature.
func TestSharedVarianceModelRefused(t *testing.T) {
	terms := newLocTerms(1000, []float64{1}, 4)
	eta := langevin.Constant{Step: 1e-4}
	hot, _ := energy.NewMinibatch(terms, 10)
	auto, err := variance.NewAutoBatch(hot, 10, eta, variance.AutoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cold, _ := energy.NewMinibatch(terms, 100)
	for _, c := range []struct {
		name  string
		setup Setup
		want  string
	}{
		{"K = 3, one model", Setup{Levels: 3, Cold: cold, Hot: hot, HotVar: func() variance.Model { return auto }}, "levels 1 and 2 share one variance model"},
		{"bound to level 0's estimator", Setup{Cold: hot, Hot: hot, HotVar: func() variance.Model { return auto }}, "level 1: variance model *variance.AutoBatch is bound to level 0's estimator"},
		{"bound to another τ", Setup{Tau2: 20, Cold: cold, Hot: hot, HotVar: func() variance.Model { return auto }}, "level 1: variance model *variance.AutoBatch is bound to τ = 10, the level's is 20"},
	} {
		c.setup.Tau1, c.setup.Eta, c.setup.A = 1, eta, 1
		if c.setup.Tau2 == 0 {
			c.setup.Tau2 = 10
		}
		cfg, err := FReSGLDMethod.Config(c.setup)
		if err != nil {
			t.Fatal(err)
		}
		init := make([][]float64, len(cfg.Levels))
		for l := range init {
			init[l] = []float64{0}
		}
		_, err = New(cfg, init)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestSameNeverPanics(t *testing.T) {
	mix := energy.Exact{E: energy.NewIsoQuadratic(1, 1)} // holds a slice
	if same(mix, mix) {
		t.Error("values that cannot be compared were taken as one object")
	}
	mb, _ := energy.NewMinibatch(newLocTerms(10, []float64{1}, 1), 2)
	if !same(mb, mb) || same(mb, mb.Clone()) || same(mb, nil) {
		t.Error("pointer identity misjudged")
	}
}

// energyTap records the variance each energy draw reports.
type energyTap struct {
	energy.Estimator
	reps []float64
}

func (e *energyTap) Energy(theta []float64, rng *rand.Rand) (float64, float64) {
	u, v := e.Estimator.Energy(theta, rng)
	e.reps = append(e.reps, v)
	return u, v
}

// A model that passes the estimator's energy reports on (AutoBatch) gets
// them: the swap's correction τδ²V/2 uses V = the two draws' own reports.
func TestModelGetsEnergyReports(t *testing.T) {
	terms := newLocTerms(300, []float64{2}, 8)
	eta := langevin.Constant{Step: 1e-4}
	var taps [2]*energyTap
	cfg := Config{Swap: Swap{Rule: FReSGLD, A: 1}}
	for l, tau := range []float64{1, 4} {
		mb, _ := energy.NewMinibatch(terms, 30)
		a, err := variance.NewAutoBatch(mb, tau, eta, variance.AutoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		taps[l] = &energyTap{Estimator: mb}
		cfg.Levels = append(cfg.Levels, Level{Tau: tau, Est: taps[l], Eta: eta, Noise: langevin.Corrected, Var: a})
	}
	s := mustNew(t, cfg, [][]float64{{0.5}, {-1}})
	_, noise, err := s.LogRatioNoise(0, []float64{0.5}, []float64{-1})
	if err != nil {
		t.Fatal(err)
	}
	td := 1 - 1.0/4
	if v := taps[0].reps[0] + taps[1].reps[0]; !(v > 0) || math.Abs(noise-td*td*v/2) > 1e-12*noise {
		t.Errorf("correction τδ²V/2 = %v, want %v from the reports %v and %v", noise, td*td*v/2, taps[0].reps, taps[1].reps)
	}
}
