package exchange

import (
	"math/rand/v2"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// Each level steps with its own temperature, its own step size η_k at step
// k, its own estimator's gradient and reported variance, its replica's own
// random stream PCG(seed, r), and reflection into the domain: replaying
// that by hand with langevin.Step gives the sampler's states bit for bit.
// Swaps are off (a = 0), so replica l stays at level l.
func TestLevelStepReplays(t *testing.T) {
	const seed, steps = 17, 200
	q := energy.NewIsoQuadratic(2, 1)
	etas := []langevin.Schedule{langevin.Decreasing{A: 0.05, B: 3, Gamma: 0.6}, langevin.Constant{Step: 0.02}}
	taus := []float64{0.5, 3}
	sds := []float64{1, 20} // gradient noise sd per level; η²s² > 2τη on level 1: clamped
	box := &energy.Box{Lo: []float64{-1, -2}, Hi: []float64{1, 2}}
	for _, pol := range []langevin.Policy{langevin.SGLD, langevin.Corrected} {
		for _, dom := range []*energy.Box{nil, box} {
			cfg := Config{Seed: seed, Domain: dom}
			for l := range 2 {
				cfg.Levels = append(cfg.Levels, Level{Tau: taus[l], Est: energy.NewNoisy(q, 0, sds[l]), Eta: etas[l], Noise: pol})
			}
			init := [][]float64{{0.5, -0.5}, {-0.25, 1.5}}
			s := mustNew(t, cfg, init)
			for l := range 2 {
				est := energy.NewNoisy(q, 0, sds[l])
				rng := rand.New(rand.NewPCG(seed, uint64(l)))
				theta := append([]float64(nil), init[l]...)
				grad, gv, scratch := make([]float64, 2), make([]float64, 2), make([]float64, 2)
				var clamped int64
				if l == 1 {
					// Level 1 goes second: rewind the sampler.
					s, _ = New(cfg, init)
				}
				for k := range steps {
					if l == 0 {
						if err := s.Step(); err != nil {
							t.Fatal(err)
						}
					}
					var rep []float64
					if pol == langevin.Corrected {
						rep = gv
					}
					est.Grad(grad, rep, theta, rng)
					c, _ := langevin.Step(theta, grad, rep, scratch, etas[l].Eta(k), taus[l], pol, rng)
					clamped += int64(c)
					if dom != nil {
						dom.Reflect(theta)
					}
					if l == 1 {
						if err := s.Step(); err != nil {
							t.Fatal(err)
						}
					}
					if got := s.State(l); got[0] != theta[0] || got[1] != theta[1] {
						t.Fatalf("%v, domain %v, level %d, step %d: state %v, replay %v", pol, dom != nil, l, k, got, theta)
					}
				}
				if got := s.Stats().Levels[l].Clamped; got != clamped {
					t.Errorf("%v level %d: %d clamped, replay %d", pol, l, got, clamped)
				}
				if got := s.Stats().Levels[l].Cost.Grad.Calls; got != steps {
					t.Errorf("%v level %d: %d gradient draws charged, want %d", pol, l, got, steps)
				}
			}
		}
	}
}

func TestReplayClamps(t *testing.T) {
	s := mustNew(t, Config{Levels: []Level{{Tau: 3, Est: energy.NewNoisy(energy.NewIsoQuadratic(2, 1), 0, 20), Eta: langevin.Constant{Step: 0.02}, Noise: langevin.Corrected}}}, [][]float64{{0, 0}})
	for range 10 {
		s.Step()
	}
	// η²s² = 0.16 > 2τη = 0.12 on both coordinates at every step.
	if st := s.Stats().Levels[0]; st.Clamped != 20 || st.ClampedSteps != 10 {
		t.Errorf("clamped %d coordinate-steps in %d steps, want 20 in 10", st.Clamped, st.ClampedSteps)
	}
}

// A level's variance model observes each step with that step's number, at
// the level's current state, before the gradient draw, and its draws are
// charged as variance-estimation cost: a Running model of period 5 and 2
// repeats updates at steps 0 and 5 only.
func TestVarianceModelObservesEachStep(t *testing.T) {
	est := energy.Hidden{Estimator: energy.NewNoisy(energy.NewIsoQuadratic(1, 1), 0.5, 1)}
	run, _ := variance.NewRunning(2, 5)
	s := mustNew(t, Config{Levels: []Level{{Tau: 1, Est: est, Eta: langevin.Constant{Step: 0.01}, Noise: langevin.Corrected, Var: run}}}, [][]float64{{0}})
	for k := range 7 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		want := 1 + k/5 // updates after steps 0..k
		c := s.Stats().Levels[0].Cost
		if run.Updates() != want || c.VarGrad.Calls != int64(2*want) || c.VarEnergy.Calls != int64(2*want) || c.Grad.Calls != int64(k+1) {
			t.Fatalf("after step %d: %d updates, variance draws %d/%d, gradient draws %d; want %d updates of 2", k, run.Updates(), c.VarGrad.Calls, c.VarEnergy.Calls, c.Grad.Calls, want)
		}
	}
}
