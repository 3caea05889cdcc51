package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/langevin"
)

// The mixture's plan (MixturePlan).
const (
	// mixPilotWork bounds the pilot's work in value visits (N a sweep):
	// 4 chains × 2,500 sweeps up to 2,000 values, fewer above, at least
	// mixPilotMin sweeps a chain (at 10⁶ values, 4 × 60 sweeps: some
	// 15 CPU seconds before the first draw; fewer than 48 kept draws a
	// chain cannot see a τ_int of 10).
	mixPilotWork = 2e7
	mixPilotMin  = 60
	// mixBurnMin sweeps at least are burnt: the starts are over-dispersed
	// (every value in one component, or scattered), and the pair moves
	// leave them in a few sweeps.
	mixBurnMin = 100
)

// MixturePlan is fresgld mixture's default: one chain per --chains of the
// model's exact kernel, data-augmentation Gibbs with split–merge pair
// moves (finitemix.MixDA), started over-dispersed in the number of clusters,
// its length from a pilot's τ_int. No mode search and no step size: the
// kernel's moves are exact draws and exact Metropolis–Hastings moves.
type MixturePlan struct {
	m *finitemix.FiniteMixture
	// Moves are the pair moves a sweep.
	Moves float64
	// IAT is the pilot's sweeps per effective draw of the slowest of the
	// coordinates and generated quantities (bulk ESS), PilotSweeps its
	// length a chain, PilotAccept the share of its pair moves accepted.
	IAT         float64
	PilotSweeps int
	PilotAccept float64
	// stepSeconds is a chain's wall seconds a sweep on the pilot, with
	// its draws' generated quantities (Cost's run estimate).
	stepSeconds float64
}

var _ ChainPlan = (*MixturePlan)(nil)

// mixMoves is the pair moves a sweep for K components: K, at every N.
// Fewer cost less a sweep but can mix slower by more: on 10⁵ values in
// two clusters (K = 4), 0.25, 1 and 4 moves a sweep took 0.92, 0.20 and
// 0.23 CPU s per effective draw of the slowest quantity, P(K+ = 2) (`go
// run ./bench/mixmoves`, docs/experiments/mixstudy.md); between 1 and K the cost is
// about the same there, and K mixes the most per sweep.
func mixMoves(k int) float64 { return float64(k) }

// mixPilotSweeps is the pilot's sweeps a chain on n values.
func mixPilotSweeps(n int) int {
	return max(mixPilotMin, min(PilotSteps, int(mixPilotWork/float64(PilotChains*n))))
}

// newMixturePlan plans m's run: the pair moves a sweep, and a pilot of
// PilotChains chains that measures τ_int (saying so on status, stopped by
// its context).
func newMixturePlan(model Model, m *finitemix.FiniteMixture, seed uint64, status *Status) (*MixturePlan, error) {
	mp := &MixturePlan{m: m, Moves: mixMoves(m.K)}
	mp.PilotSweeps = mixPilotSweeps(m.Len())
	p, g := m.Dim(), len(model.Generated)
	draws := newPilotTraces(p + g)
	var done atomic.Int64
	tries, accepts := make([]int, PilotChains), make([]int, PilotChains)
	start := time.Now()
	total := int64(PilotChains * mp.PilotSweeps)
	status.Set("a pilot of the mixture's Gibbs sampler: %d chains of %d sweeps", PilotChains, mp.PilotSweeps)
	chain := func(c int) error {
		rng := rand.New(rand.NewPCG(exchange.ChainSeed(seed, 1<<20+c), 7))
		d := m.DA(mp.Moves)
		theta := make([]float64, p)
		d.Start(theta, rng, finitemix.MixStart(c%4))
		out := make([]float64, g)
		// The pilot's first fifth is its burn-in.
		burn := mp.PilotSweeps / 5
		for t := range mp.PilotSweeps {
			if err := status.Stopped(); err != nil {
				return err
			}
			d.Step(theta, rng)
			if n := done.Add(1); n%16 == 0 {
				status.Set("a pilot of the mixture's Gibbs sampler: %d of %d sweeps (%d chains), about %s left", n, total, PilotChains, timeLeft(start, n, total).Round(time.Second))
			}
			if t < burn {
				continue
			}
			draws.keep(c, model, theta, out)
		}
		tries[c], accepts[c] = d.MoveStats()
		return nil
	}
	errs := pilotParallel(chain)
	mp.stepSeconds = time.Since(start).Seconds() * float64(min(PilotChains, runtime.GOMAXPROCS(0))) / float64(total)
	if err := status.Stopped(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	mp.PilotAccept = pooledRate(accepts, tries)
	// The slowest quantity's ESS; a coordinate of an empty component
	// (its logit) wanders over a range set by e0 and is no summary, but
	// the weights and means it moves are generated quantities, whose
	// ESS counts.
	ess := draws.slowestESS()
	kept := PilotChains * (mp.PilotSweeps - mp.PilotSweeps/5)
	mp.IAT = math.Min(planMaxIAT, math.Max(1, float64(kept)/ess))
	return mp, nil
}

// Sampler is chain id's: the kernel on one level, from an over-dispersed
// start (MixStart((id − 1) mod 4)), on streams of its own.
func (mp *MixturePlan) Sampler(seed uint64, id int) (*exchange.Sampler, error) {
	rng := rand.New(rand.NewPCG(exchange.ChainSeed(seed, id), 1<<44))
	d := mp.m.DA(mp.Moves)
	theta := make([]float64, mp.m.Dim())
	d.Start(theta, rng, finitemix.MixStart((id-1)%4))
	lv := exchange.Level{Tau: 1, Est: energy.Exact{E: mp.m}, Eta: langevin.Constant{Step: 1}, Kernel: d}
	return exchange.New(exchange.Config{Levels: []exchange.Level{lv}, Seed: exchange.ChainSeed(seed, id)}, [][]float64{theta})
}

// Note is the plan's line for the output.
func (mp *MixturePlan) Note() string {
	return fmt.Sprintf("the mixture's exact kernel, no mode search: data-augmentation Gibbs (each sweep the allocations given the parameters, then the means, weights and precisions given the allocations) with %.3g split–merge move(s) of a random pair of components a sweep (sequential allocation; %.0f%% accepted on the pilot); the pilot's %d chains of %d sweeps, started over-dispersed, mix in τ_int = %.3g sweeps",
		mp.Moves, 100*mp.PilotAccept, PilotChains, mp.PilotSweeps, mp.IAT)
}

// StepSeconds is a chain's wall seconds a sweep on the pilot.
func (mp *MixturePlan) StepSeconds() float64 { return mp.stepSeconds }

// Why says why this sampler, for the output's note line.
func (mp *MixturePlan) Why() string {
	return "a mixture's allocations and parameters have exact conditionals, so each sweep costs O(NK) and needs no step size; the split–merge moves carry components between explanations (an empty one refilled, two merged) where one value at a time cannot; --reference checks it against a different exact sampler (collapsed Gibbs with threshold moves)"
}

// Rate is 1: a sweep is an exact Gibbs scan (the chain checks, which read
// it, are off for mixtures).
func (mp *MixturePlan) Rate() float64 { return 1 }

// RunLength thins so that keep draws hold PlanESS effective ones at the
// pilot's τ_int, and burns five τ_int and at least mixBurnMin sweeps.
func (mp *MixturePlan) RunLength(keep int) (burn, thin int, iat float64) {
	thin = max(1, int(math.Ceil(PlanESS*mp.IAT/float64(keep))))
	burn = max(mixBurnMin, int(math.Ceil(5*mp.IAT)))
	return burn, thin, mp.IAT
}

// RunRuleLine says how RunLength chose.
func (mp *MixturePlan) RunRuleLine(burn, thin int, iat float64) string {
	return fmt.Sprintf("τ_int = %.4g sweeps, from the pilot's %d chains of %d sweeps (the slowest coordinate or generated quantity): burn %d (5 τ_int, at least %d), thin %d for bulk ESS ≈ %d per chain", iat, PilotChains, mp.PilotSweeps, burn, mixBurnMin, thin, PlanESS)
}

// StartDistance is 0: the starts are draws given an allocation, not
// points at a distance from a mode.
func (mp *MixturePlan) StartDistance() float64 { return 0 }

// Algorithm names the sampler in the chain CSVs.
func (mp *MixturePlan) Algorithm() string { return "mixture_da_gibbs_split_merge" }

// Step is 1: no step size.
func (mp *MixturePlan) Step() float64 { return 1 }

// SDBias is 0: the kernel is exact.
func (mp *MixturePlan) SDBias() float64 { return 0 }
