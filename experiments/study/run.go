// Package study holds what the two-temperature reproduction studies (the
// paper's Gaussian mixtures and its convex-case theory) share: the sampler
// variants they compare, their variance settings, and one run of a variant
// on a problem for a given size.
package study

import (
	"fmt"
	"math"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/variance"
)

// Variance names how an f-reSGLD variant learns its variances.
type Variance string

const (
	Known    Variance = "known" // the estimator's own reports
	Constant Variance = "cons"  // variance.Running: one constant per level
	Kernel   Variance = "nonp"  // variance.KRR
	// Noiseless runs the exchange on exact energies and gradients (reLD
	// discretised at the same η, exact swap ratio): the reference that
	// shows the bias of the step size alone.
	Noiseless Variance = "exact"
)

// Variant is one column of a comparison: a method and, for f-reSGLD, its
// variance model.
type Variant struct {
	Name   string
	Method exchange.Method
	Var    Variance
}

// Variants are the six samplers every mixture study compares.
var Variants = []Variant{
	{"SGLD", exchange.SGLDMethod, Known},
	{"reSGLD", exchange.ReSGLDMethod, Known},
	{"m-reSGLD", exchange.MReSGLDMethod, Known},
	{"f-reSGLD", exchange.FReSGLDMethod, Known},
	{"f-reSGLD_cons", exchange.FReSGLDMethod, Constant},
	{"f-reSGLD_nonp", exchange.FReSGLDMethod, Kernel},
}

// VarSettings are the settings of the estimated-variance models, the same
// for every study and method.
type VarSettings struct {
	Repeats int // draws per state for a sample variance
	// RunPeriod is the steps between updates of the running average.
	RunPeriod int
	// KRRPoints states, one every KRRPeriod steps, are fitted.
	KRRPoints, KRRPeriod int
}

// DefaultVar is the variance-estimation recipe of every study: sample
// variances of 10 draws; the running average updated every 100 steps
// (about 0.1 extra gradient and energy draws per step and level); the
// kernel-ridge fit on the first 100 states, one every 10 steps (1000 extra
// draws of each kind, spent during burn-in).
var DefaultVar = VarSettings{Repeats: 10, RunPeriod: 100, KRRPoints: 100, KRRPeriod: 10}

// Problem is a two-temperature problem with its estimators.
type Problem struct {
	Setup exchange.Setup // Cold, Hot, temperatures, step, swap; ColdVar/HotVar are set per variant
	// Shared says both levels draw from the same estimator, so that one
	// kernel-ridge fit on the hot chain serves both (the paper's recipe).
	Shared bool
	Var    VarSettings
	Init   []float64 // initial state of every level
	// Energy is the exact energy, for the Noiseless reference.
	Energy energy.Energy
}

// Config builds the ladder of variant v on problem pr with seed.
func (pr Problem) Config(v Variant, seed uint64) (exchange.Config, error) {
	s := pr.Setup
	s.Seed = seed
	switch v.Var {
	case Known:
	case Constant:
		s.Cold, s.Hot = energy.Hidden{Estimator: s.Cold}, energy.Hidden{Estimator: s.Hot}
		mk := func() variance.Model {
			r, err := variance.NewRunning(pr.Var.Repeats, pr.Var.RunPeriod)
			if err != nil {
				panic(err) // settings are checked in Validate
			}
			return r
		}
		s.ColdVar, s.HotVar = mk, mk
	case Noiseless:
		ex := energy.Exact{E: pr.Energy}
		s.Cold, s.Hot = ex, ex
		cfg, err := exchange.ReSGLDMethod.Config(s)
		cfg.Swap.Rule = exchange.Exact
		return cfg, err
	case Kernel:
		s.Cold, s.Hot = energy.Hidden{Estimator: s.Cold}, energy.Hidden{Estimator: s.Hot}
		hot, err := variance.NewKRR(pr.Var.KRRPoints, pr.Var.Repeats, pr.Var.KRRPeriod)
		if err != nil {
			return exchange.Config{}, err
		}
		cold := hot.Follower()
		if !pr.Shared {
			cold, _ = variance.NewKRR(pr.Var.KRRPoints, pr.Var.Repeats, pr.Var.KRRPeriod)
		}
		s.ColdVar = func() variance.Model { return cold }
		s.HotVar = func() variance.Model { return hot }
	default:
		return exchange.Config{}, fmt.Errorf("variant %s: unknown variance model %q", v.Name, v.Var)
	}
	return v.Method.Config(s)
}

// Validate checks the variance settings.
func (vs VarSettings) Validate() error {
	if _, err := variance.NewRunning(vs.Repeats, vs.RunPeriod); err != nil {
		return err
	}
	_, err := variance.NewKRR(vs.KRRPoints, vs.Repeats, vs.KRRPeriod)
	return err
}

// Size is how long a run is: Burn steps discarded, then every Thin-th state
// retained until Keep are retained, or, when Budget > 0, until the total
// gradient cost (all levels, variance-estimation draws included) reaches
// Budget.
type Size struct {
	Name       string
	Burn, Thin int
	Keep       int
	Budget     float64
}

// Run is one sampler run's output.
type Run struct {
	Samples []float64 // cold-chain coordinate 0
	Stats   exchange.Stats
	Seconds float64
}

// Execute runs variant v of pr with seed for size z.
func (pr Problem) Execute(v Variant, seed uint64, z Size) (Run, error) {
	cfg, err := pr.Config(v, seed)
	if err != nil {
		return Run{}, err
	}
	s, err := NewLadder(cfg, pr.Init)
	if err != nil {
		return Run{}, fmt.Errorf("%s: %w", v.Name, err)
	}
	defer s.Close()
	// Every adaptation (KRR's recording, Running's averages, anchors) ends
	// with the burn-in: the kept states come from one fixed kernel.
	s.FreezeAfter(z.Burn)
	start := time.Now()
	var out Run
	if z.Keep > 0 {
		out.Samples = make([]float64, 0, z.Keep)
	}
	for step := 1; ; step++ {
		if err := s.Step(); err != nil {
			return out, fmt.Errorf("%s seed %d: %w", v.Name, seed, err)
		}
		if step > z.Burn && (step-z.Burn)%z.Thin == 0 {
			out.Samples = append(out.Samples, s.State(0)[0])
		}
		if z.Budget > 0 {
			if step%64 == 0 && GradUnits(s.Stats()) >= z.Budget {
				break
			}
		} else if len(out.Samples) >= z.Keep {
			break
		}
	}
	out.Seconds = time.Since(start).Seconds()
	out.Stats = s.Stats()
	return out, nil
}

func GradUnits(st exchange.Stats) float64 {
	var g float64
	for _, l := range st.Levels {
		g += l.Cost.TotalGrad().Units
	}
	return g
}

func Finite(xs []float64) error {
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("sample %d is %v", i, x)
		}
	}
	return nil
}
