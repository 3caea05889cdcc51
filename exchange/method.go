package exchange

import (
	"fmt"
	"math"
	"slices"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// Method names a sampler of the paper in its two-temperature form.
type Method string

const (
	// SGLDMethod is one chain at τ1 on the accurate estimator.
	SGLDMethod Method = "sgld"
	// ReSGLDMethod runs both chains on the accurate estimator with plain
	// SGLD noise and Deng's swap ratio: two estimators' worth of cost.
	ReSGLDMethod Method = "resgld"
	// MReSGLDMethod runs the hot chain on the cheap estimator with plain
	// SGLD noise and the four-evaluation m-reSGLD ratio.
	MReSGLDMethod Method = "mresgld"
	// FReSGLDMethod runs the hot chain on the cheap estimator, counts each
	// chain's gradient noise as part of its temperature, and swaps with the
	// paper's two-evaluation ratio.
	FReSGLDMethod Method = "fresgld"
)

// Methods lists the methods in the order the studies report them.
var Methods = []Method{SGLDMethod, ReSGLDMethod, MReSGLDMethod, FReSGLDMethod}

// ParseMethod reads a method by name.
func ParseMethod(s string) (Method, error) {
	for _, m := range slices.Concat(Methods, Presets) {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown method %q (want sgld, resgld, mresgld, fresgld, corrected, reld or csgld)", s)
}

// Setup is a tempering problem in the paper's terms.
type Setup struct {
	Tau1, Tau2 float64
	// Levels is the number of temperature levels K (0 means the paper's
	// 2), spaced geometrically from Tau1 to Tau2; every level above the
	// coldest is a hot level. An estimator that serves more than one level
	// is cloned (energy.Cloner) for every level after its first, so a
	// variance model bound to Hot (variance.AutoBatch) serves level 1 only.
	Levels int
	Eta    langevin.Schedule
	// Cold is the accurate estimator, Hot the cheap one. reSGLD uses Cold
	// on both levels; m-reSGLD and f-reSGLD use Hot on the hot level.
	Cold, Hot energy.Estimator
	// ColdVar and HotVar make each level's variance model (nil: the
	// estimators' own reports). They are factories because a model holds
	// state and reSGLD needs one per level even on a shared estimator.
	ColdVar, HotVar func() variance.Model
	// ColdVarAt and HotVarAt, when set, replace ColdVar and HotVar: they
	// are called once per level with that level's own estimator (a clone
	// of Cold or Hot above the first level that uses it) and temperature,
	// so that a model bound to an estimator (variance.AutoBatch) serves
	// every level of a ladder of any size. HotVar's model is bound to Hot
	// and to τ2, so it serves two-level ladders only; New refuses one model
	// on two levels.
	ColdVarAt, HotVarAt func(est energy.Estimator, tau float64) (variance.Model, error)
	// A and PerStep set the swap intensity (see Swap); A1 is m-reSGLD's a1.
	A       float64
	PerStep bool
	A1      float64
	Seed    uint64
	// Domain, if set, is a box the states are reflected into.
	Domain *energy.Box
	// Scheme and Window choose the swap scheme (see Swap).
	Scheme Scheme
	Window int
	// Taus, if set, are the temperatures, cold to hot, in place of the
	// geometric ladder from Tau1 to Tau2 with Levels levels.
	Taus []float64
	// Concurrent steps the chains on separate goroutines.
	Concurrent bool
	// Correction is the form of the noise correction of the methods that
	// correct (f-reSGLD): Diagonal (the zero value) or Full, which needs
	// estimators that expose their per-example gradients.
	Correction Correction
	// Energies and OnSwap are passed to the Config (see there).
	Energies Energies
	OnSwap   func(l int, x, y []float64, logRatio, noise float64, accepted bool)
}

// Config turns a Setup into a ladder for method m.
func (m Method) Config(s Setup) (Config, error) {
	if cfg, ok, err := m.preset(s); ok {
		return cfg, err
	}
	K := s.Levels
	if K == 0 {
		K = 2
	}
	if len(s.Taus) > 0 {
		K = len(s.Taus)
	}
	if K < 2 {
		return Config{}, fmt.Errorf("levels = %d: a ladder needs at least 2 (0 means 2)", s.Levels)
	}
	sw := Swap{A: s.A, PerStep: s.PerStep, A1: s.A1, Scheme: s.Scheme, Window: s.Window}
	hotEst, hotVar, hotAt, noise := s.Hot, s.HotVar, s.HotVarAt, langevin.SGLD
	switch m {
	case SGLDMethod:
		K = 1
	case ReSGLDMethod:
		hotEst, hotVar, hotAt, sw.Rule = s.Cold, s.ColdVar, s.ColdVarAt, ReSGLD
	case MReSGLDMethod:
		sw.Rule = MReSGLD
	case FReSGLDMethod:
		noise, sw.Rule = s.Correction.Policy(), FReSGLD
	default:
		return Config{}, fmt.Errorf("unknown method %q", m)
	}
	tau1 := s.Tau1
	if len(s.Taus) > 0 {
		tau1 = s.Taus[0]
	}
	coldVar, err := model(s.ColdVarAt, s.ColdVar, s.Cold, tau1, 0)
	if err != nil {
		return Config{}, err
	}
	levels := []Level{{Tau: tau1, Est: s.Cold, Eta: s.Eta, Noise: noise, Var: coldVar}}
	for l := 1; l < K; l++ {
		tau := s.Tau1 * math.Pow(s.Tau2/s.Tau1, float64(l)/float64(K-1))
		if l == K-1 {
			tau = s.Tau2 // exactly, whatever the rounding of Pow
		}
		if len(s.Taus) > 0 {
			tau = s.Taus[l]
		}
		est := hotEst
		if l > 1 || sameEstimator(est, s.Cold) {
			// The estimator already serves another level: a stateful one
			// (a minibatch) gets a copy of its own, so that levels can
			// step concurrently and keep their own sizes.
			est = clone(est)
		}
		v, err := model(hotAt, hotVar, est, tau, l)
		if err != nil {
			return Config{}, err
		}
		levels = append(levels, Level{Tau: tau, Est: est, Eta: s.Eta, Noise: noise, Var: v})
	}
	return Config{Levels: levels, Swap: sw, Seed: s.Seed, Domain: s.Domain, Concurrent: s.Concurrent, Energies: s.Energies, OnSwap: s.OnSwap}, nil
}

// model makes level l's variance model: at(est, tau) when set, else f().
func model(at func(energy.Estimator, float64) (variance.Model, error), f func() variance.Model, est energy.Estimator, tau float64, l int) (variance.Model, error) {
	if at == nil {
		return call(f), nil
	}
	v, err := at(est, tau)
	if err != nil {
		return nil, fmt.Errorf("level %d: variance model: %w", l, err)
	}
	return v, nil
}

func clone(e energy.Estimator) energy.Estimator {
	if c, ok := e.(energy.Cloner); ok {
		return c.Clone()
	}
	return e
}

func call(f func() variance.Model) variance.Model {
	if f == nil {
		return nil
	}
	return f()
}
