package plan

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/langevin"
)

// A ladder of power posteriors for a model with a kernel of its own
// (Model.Kernel): level k targets exp(−λ_k(U − U_0) − U_0), from λ = 1
// (the posterior) down to powerMin (nearly the prior, which the kernel
// draws from at once). A swap compares likelihoods alone,
// log S = (λ_k − λ_{k+1})(ℓ(y) − ℓ(x)), so it needs no Metropolis step
// and no step size, and the hottest level restarts replicas from the
// prior: a replica that crosses the ladder brings a fresh draw of the
// modes. The schedule is Syed et al.'s (2022, Pigeons): the swaps'
// rejection rates r_k measured on a tuning ladder give the communication
// barrier Λ = Σ r_k; the levels are then placed at equal steps of the
// cumulative rejection, about 2Λ + 1 of them.
const (
	// powerMin is the hottest level's power of the likelihood.
	powerMin = 1e-3
	// powerStart levels, geometric from powerMin to 1, make the first
	// tuning ladder; powerRounds rounds of powerSteps steps place the
	// levels.
	powerStart, powerRounds, powerSteps = 12, 3, 2000
	// powerMaxLevels bounds the ladder.
	powerMaxLevels = 40
	// kernelTryIAT is the one-level pilot's IAT above which the plan tries
	// a ladder of power posteriors: a ladder costs its K levels a step,
	// and its cold level decorrelates no faster than a replica's passage
	// from the hot end, some K steps under the even–odd scheme; ladders
	// of 2Λ + 1 ≈ 10 levels, as the schedules of spike-and-slab
	// regressions come out, cannot repay their cost below K·K ≈ 100.
	kernelTryIAT = 100
)

// kernelLevels are one chain's levels of the model's kernel at the
// powers lambdas, cold (λ = 1) first.
func (mp *ModePlan) kernelLevels(lambdas []float64) []exchange.Level {
	lv := make([]exchange.Level, len(lambdas))
	for l, lam := range lambdas {
		k, e := mp.kernel(lam)
		lv[l] = exchange.Level{Tau: 1 / lam, Est: energy.Exact{E: e}, Eta: langevin.Constant{Step: 1}, Kernel: k}
	}
	return lv
}

// kernelConfig is a ladder of kernel levels swapping by the exact rule on
// the deterministic even–odd scheme (a swap costs four energies; the
// non-reversible scheme makes round trips in O(K) steps, not O(K²)).
func kernelConfig(lv []exchange.Level, seed uint64) exchange.Config {
	c := exchange.Config{Levels: lv, Seed: seed}
	if len(lv) > 1 {
		c.Swap = exchange.Swap{Rule: exchange.Exact, PerStep: true, Scheme: exchange.DEO}
	}
	return c
}

// planKernel measures the kernel on one level; where it mixes slowly, it
// tunes a ladder of power posteriors and keeps it if its IAT times its
// levels (its cost a step) is the smaller; oneLevel keeps one level.
func (mp *ModePlan) planKernel(m Model, seed uint64, oneLevel bool) error {
	mp.setLambdas([]float64{1})
	if err := mp.pilot(m, seed); err != nil {
		return err
	}
	if oneLevel || mp.IAT <= kernelTryIAT {
		return nil
	}
	one, oneAccept := mp.IAT, mp.SwapAccept
	lambdas, err := mp.powerSchedule(seed)
	if err != nil {
		return err
	}
	cfg := func(s uint64) exchange.Config { return kernelConfig(mp.kernelLevels(lambdas), s) }
	old := mp.Lambdas
	mp.setLambdas(lambdas) // Start reads the levels' count
	iat, acc, err := mp.measure(m, cfg, seed)
	if err != nil {
		return err
	}
	if iat*float64(len(lambdas)) < one {
		mp.IAT, mp.SwapAccept, mp.OneLevelIAT = iat, acc, one
		return nil
	}
	mp.setLambdas(old)
	mp.IAT, mp.SwapAccept, mp.OneLevelIAT = one, oneAccept, one
	return nil
}

// setLambdas makes the plan's levels those of lambdas.
func (mp *ModePlan) setLambdas(lambdas []float64) {
	mp.Lambdas, mp.Taus, mp.Etas, mp.Accept = lambdas, nil, nil, nil
	for _, lam := range lambdas {
		mp.Taus, mp.Etas, mp.Accept = append(mp.Taus, 1/lam), append(mp.Etas, 1), append(mp.Accept, 1)
	}
}

// powerSchedule places the ladder's levels: rounds of one chain on the
// current schedule, each measuring the pairs' rejection rates and moving
// the levels to equal steps of their cumulative sum (in log λ between the
// levels measured).
func (mp *ModePlan) powerSchedule(seed uint64) ([]float64, error) {
	K := powerStart
	lambdas := make([]float64, K)
	for k := range lambdas {
		lambdas[k] = math.Pow(powerMin, float64(k)/float64(K-1))
	}
	for r := range powerRounds {
		mp.status.Set("%d modes found; placing a ladder of %d power posteriors: round %d of %d", len(mp.Search.Modes), len(lambdas), r+1, powerRounds)
		start := mp.Search.Modes[0].Theta
		init := make([][]float64, len(lambdas))
		for l := range init {
			init[l] = start
		}
		s, err := exchange.New(kernelConfig(mp.kernelLevels(lambdas), exchange.ChainSeed(seed, 1<<30+r)), init)
		if err != nil {
			return nil, err
		}
		for range powerSteps {
			if err := mp.status.Stopped(); err != nil {
				return nil, err
			}
			if err := s.Step(); err != nil {
				return nil, fmt.Errorf("tuning the ladder: %w", err)
			}
		}
		// cum[k]: the rejection summed from the cold end to level k.
		cum := make([]float64, len(lambdas))
		for l, p := range s.Stats().Pairs {
			cum[l+1] = cum[l] + p.Rejection()
		}
		barrier := cum[len(cum)-1]
		K = min(powerMaxLevels, max(2, int(math.Ceil(2*barrier))+1))
		next := make([]float64, K)
		for k := range next {
			next[k] = interpLogLambda(cum, lambdas, barrier*float64(k)/float64(K-1))
		}
		lambdas = next
	}
	return lambdas, nil
}

// interpLogLambda is the λ at which the cumulative rejection, linear in
// log λ between the levels, reaches c.
func interpLogLambda(cum, lambdas []float64, c float64) float64 {
	for l := 1; l < len(cum); l++ {
		if c <= cum[l] || l == len(cum)-1 {
			f := 0.0
			if d := cum[l] - cum[l-1]; d > 0 {
				f = min(1, max(0, (c-cum[l-1])/d))
			}
			return math.Exp((1-f)*math.Log(lambdas[l-1]) + f*math.Log(lambdas[l]))
		}
	}
	return lambdas[0]
}
