package exchange

import (
	"math"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
)

// cyclicalEta is the test's own copy of Zhang et al.'s α_k, k from 0:
// (η0/2)[cos(π (k mod L)/L) + 1].
func cyclicalEta(eta0 float64, L, k int) float64 {
	return eta0 / 2 * (math.Cos(math.Pi*float64(k%L)/float64(L)) + 1)
}

// TestCSGLDGaussianLaw runs cyclical SGLD on N(0, 1) (U = θ²/2, exact
// gradients), where its law is known exactly: θ_{k+1} = (1 − η_k)θ_k +
// √(2τ_kη_k)ξ with τ_k = 0 in the exploration stage, so θ_k ~ N(m_k, v_k),
// m_{k+1} = (1 − η_k)m_k, v_{k+1} = (1 − η_k)²v_k + 2τ_kη_k.
//
// First, exploration injects no noise: from θ_0 = 3 the first cycle's
// exploration stage must end at 3·Π(1 − η_k), to rounding. Then the law at fixed phases of the sampling
// stage: each exploration stage contracts the state by Π(1 − η_k) < 10⁻²⁰,
// so every cycle starts its sampling from 0 to double precision and the
// draws at one phase over C cycles are independent N(0, v) with v from the
// recursion started at v = 0. Their sample variance has relative sd
// √(2/C) and their mean sd √(v/C): tolerances of 4.5 of each (two-sided
// 7·10⁻⁶ per check) for C = 2000 cycles. Noise in the exploration stage,
// a wrong schedule (the test computes η_k itself) or noise at the wrong
// temperature moves v by more than 10%, three times the tolerance.
func TestCSGLDGaussianLaw(t *testing.T) {
	const eta0, L, beta, C = 0.5, 200, 0.5, 2000
	sched := langevin.Cyclical{Eta0: eta0, Cycle: L, Explore: beta}
	for k := range 3 * L {
		if got, want := sched.Eta(k), cyclicalEta(eta0, L, k); math.Abs(got-want) > 1e-15 {
			t.Fatalf("η_%d = %v, want %v", k, got, want)
		}
	}
	cfg, err := CSGLDMethod.Config(Setup{Tau1: 1, Eta: sched, Cold: energy.Exact{E: energy.NewIsoQuadratic(1, 1)}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, cfg, [][]float64{{3}})
	explore := int(beta * L) // steps k = 0 … explore−1 are noise-free
	want := 3.0
	for k := range explore {
		want -= cyclicalEta(eta0, L, k) * want
	}
	phases := []int{explore + 10, explore + L/4, L - 1} // steps within a cycle, k mod L
	draws := make([][]float64, len(phases))
	err = Run(s, Plan{Keep: C * L, Thin: 1}, SinkFunc(func(step int, s *Sampler) error {
		k := step - 1 // the step just taken
		// 100 steps of rounding move it by at most about 100·2⁻⁵³
		// relatively; one step of noise √(2η) ≈ 0.7 by 10²².
		if got := s.State(0)[0]; step == explore && math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("after the first exploration stage θ = %v, want 3·Π(1 − η_k) = %v", got, want)
		}
		for i, ph := range phases {
			if k%L == ph {
				draws[i] = append(draws[i], s.State(0)[0])
			}
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	for i, ph := range phases {
		// The exact variance after step ph of a cycle, from v = 0 at its start.
		var v float64
		for k := range ph + 1 {
			e := cyclicalEta(eta0, L, k)
			tau := 1.0
			if k < explore {
				tau = 0
			}
			v = (1-e)*(1-e)*v + 2*tau*e
		}
		var m, q float64
		for _, x := range draws[i] {
			m += x
			q += x * x
		}
		n := float64(len(draws[i]))
		m /= n
		sv := q/n - m*m
		if math.Abs(m) > 4.5*math.Sqrt(v/n) || math.Abs(sv/v-1) > 4.5*math.Sqrt(2/n) {
			t.Errorf("phase %d/%d: %d draws of mean %.4f and variance %.4f; exact N(0, %.4f)", ph, L, len(draws[i]), m, sv, v)
		}
	}
}

// The preset refuses a step size that is not cyclical, and the schedule
// refuses settings that would never sample.
func TestCSGLDRejects(t *testing.T) {
	_, err := CSGLDMethod.Config(Setup{Tau1: 1, Eta: langevin.Constant{Step: 0.1}, Cold: energy.Exact{E: energy.NewIsoQuadratic(1, 1)}})
	if err == nil || !strings.Contains(err.Error(), "langevin.Cyclical") {
		t.Errorf("constant step: %v", err)
	}
	for _, c := range []langevin.Cyclical{{Eta0: 0, Cycle: 10}, {Eta0: 1, Cycle: 1}, {Eta0: 1, Cycle: 10, Explore: 1}, {Eta0: 1, Cycle: 10, Explore: -0.1}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if m, err := ParseMethod("csgld"); err != nil || m != CSGLDMethod {
		t.Errorf("ParseMethod(csgld) = %v, %v", m, err)
	}
}
