package exchange

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fresgld/fresgld/langevin"
)

// Presets beyond the paper's four methods. They are not in Methods, which
// lists what the studies compare.
const (
	// CorrectedMethod is one chain at Tau1 on the Cold estimator whose
	// gradient noise counts as part of its temperature (f-reSGLD's noise
	// policy without a ladder): a corrected SGLD chain.
	CorrectedMethod Method = "corrected"
	// ReLDMethod is noise-free replica exchange Langevin dynamics: every
	// level on the Cold estimator, which must be exact (energy.Exact), with
	// plain Langevin noise and the exact swap rule. It is the ideal the
	// stochastic-gradient methods approximate.
	ReLDMethod Method = "reld"
	// CSGLDMethod is cyclical SGLD (Zhang et al., ICLR 2020): one SGLD
	// chain at Tau1 on the Cold estimator whose step size Setup.Eta must be
	// a langevin.Cyclical schedule; its exploration stages step without
	// noise. Only the states of its sampling stages (Cyclical.Exploring
	// false) are samples: a Sink keeps those.
	CSGLDMethod Method = "csgld"
)

// Presets lists the presets.
var Presets = []Method{CorrectedMethod, ReLDMethod, CSGLDMethod}

// preset builds the ladder of a preset; ok is false for any other method.
func (m Method) preset(s Setup) (cfg Config, ok bool, err error) {
	switch m {
	case CorrectedMethod:
		lv := Level{Tau: s.Tau1, Est: s.Cold, Eta: s.Eta, Noise: langevin.Corrected, Var: call(s.ColdVar)}
		return Config{Levels: []Level{lv}, Seed: s.Seed, Domain: s.Domain}, true, nil
	case CSGLDMethod:
		if _, ok := s.Eta.(langevin.Cyclical); !ok {
			return Config{}, true, fmt.Errorf("csgld: the step size must be a langevin.Cyclical schedule, not %T", s.Eta)
		}
		lv := Level{Tau: s.Tau1, Est: s.Cold, Eta: s.Eta, Noise: langevin.SGLD, Var: call(s.ColdVar)}
		return Config{Levels: []Level{lv}, Seed: s.Seed, Domain: s.Domain}, true, nil
	case ReLDMethod:
		if s.Cold == nil {
			return Config{}, true, fmt.Errorf("reld: no estimator (Setup.Cold)")
		}
		// The exact rule fails at the first swap if an energy is noisy;
		// refuse an estimator that reports a positive variance up front.
		if s.Cold.KnowsVariance() {
			rng := rand.New(rand.NewPCG(0, 0))
			if _, v := s.Cold.Energy(make([]float64, s.Cold.Dim()), rng); v > 0 {
				return Config{}, true, fmt.Errorf("reld: the estimator's energy has variance %v; noise-free replica exchange needs exact energies (energy.Exact)", v)
			}
		}
		// The ladder, the swap scheme and the swap callback come from the
		// Setup as for the paper's methods: a ladder built by Adapt (Taus)
		// or a DEO scheme must not silently become a geometric sweep.
		taus := s.Taus
		if len(taus) == 0 {
			K := s.Levels
			if K == 0 {
				K = 2
			}
			if K < 2 {
				return Config{}, true, fmt.Errorf("levels = %d: a ladder needs at least 2 (0 means 2)", s.Levels)
			}
			taus = geometric(s.Tau1, s.Tau2, K)
		} else if len(taus) < 2 {
			return Config{}, true, fmt.Errorf("reld: %d temperatures (Setup.Taus): a ladder needs at least 2", len(taus))
		}
		var levels []Level
		for l, tau := range taus {
			est := s.Cold
			if l > 0 {
				est = clone(est)
			}
			v, err := model(s.ColdVarAt, s.ColdVar, est, tau, l)
			if err != nil {
				return Config{}, true, err
			}
			levels = append(levels, Level{Tau: tau, Est: est, Eta: s.Eta, Noise: langevin.SGLD, Var: v})
		}
		sw := Swap{Rule: Exact, A: s.A, PerStep: s.PerStep, Scheme: s.Scheme, Window: s.Window}
		return Config{Levels: levels, Swap: sw, Seed: s.Seed, Domain: s.Domain, Concurrent: s.Concurrent, OnSwap: s.OnSwap}, true, nil
	}
	return Config{}, false, nil
}

// geometric returns K temperatures spaced geometrically from lo to hi,
// ending at hi exactly.
func geometric(lo, hi float64, K int) []float64 {
	t := make([]float64, K)
	for l := range t {
		t[l] = lo * math.Pow(hi/lo, float64(l)/float64(K-1))
	}
	t[K-1] = hi
	return t
}
