// Package swaps measures replica exchange on minibatch posteriors once swap
// energies are estimated soundly (exchange.Energies): for each method and
// swap-energy mode, accuracy against per-example evaluations (gradients,
// swap energies and anchor passes all counted), swap acceptance, swap noise,
// and whether accepted swaps follow the exact ratio S.
package swaps

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/experiments/study"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/variance"
)

// CheckEvery is the spacing of the swap attempts whose exact ratio S is
// computed for the prediction (every accepted swap is checked as well).
// The exact energies are diagnostics: they are not counted as cost.
const CheckEvery = 5

// Low is the exact min(1, S) below which an accepted swap is counted as
// unlikely under S.
const Low = 0.01

// Periods is the rule for the anchor period m and the exact-swap period W:
// each costs 2N per period (two levels), and m = W = ⌈8N/n_cold⌉ makes that
// a quarter of the cold chain's gradient cost n_cold per step.
func Periods(N, nCold int) int { return (8*N + nCold - 1) / nCold }

// anchorPeriod is the anchor period of a setting: Periods times its
// AnchorScale.
func anchorPeriod(N int, st minibatch.Setting) int {
	return Periods(N, st.NCold) * max(1, st.AnchorScale)
}

// MaxNoise is the swap noise τδ²V/2, in nats, above which an attempt is
// declined (exchange.Energies.MaxNoise): beyond about 2 nats acceptance
// collapses like e^{−τδ²V/2} and min(1, Ŝ) is decided by the noise.
const MaxNoise = 2

// Result is one run of one method under one swap-energy mode.
type Result struct {
	Method, Mode string
	Seed         uint64
	// Score[b][k] is metric k at budget b (NaN before any sample).
	Score [][]float64
	Steps int
	// FrozenStep is the last step that adapted (refreshed the anchors):
	// the step whose cost first passed the burn-in.
	FrozenStep int `json:"-"`
	// Cost is all per-example evaluations; SwapCost the swap energies' and
	// AnchorCost the anchor passes' part of it.
	Cost, SwapCost, AnchorCost float64
	Attempts, Accepts          int
	// Capped attempts were declined for swap noise above MaxNoise.
	Capped int
	// Noise is the mean swap noise τδ²V/2 in nats over the attempts.
	Noise float64
	// Checked attempts had their exact S computed; ExactAcc sums their
	// min(1, S) and LowMass the part from attempts with min(1, S) < Low.
	Checked           int
	ExactAcc, LowMass float64
	// LowAccepts counts accepted swaps whose exact min(1, S) < Low; MinLogS
	// is the smallest exact log S of an accepted swap.
	LowAccepts int
	MinLogS    float64
}

// Run runs method m with swap energies mode on pr for one seed, on a ladder
// of levels temperatures spaced geometrically from τ1 to τ2 (0: two).
// Swap counts and noise are pooled over the ladder's adjacent pairs.
func Run(pr minibatch.Problem, m exchange.Method, mode exchange.EnergyMode, levels int, seed uint64) (Result, error) {

	st := pr.Setting
	res := Result{Method: string(m), Mode: mode.String(), Seed: seed, MinLogS: math.Inf(1)}
	cold, hot, err := pr.Estimators()
	if err != nil {
		return res, err
	}
	eta := langevin.Constant{Step: st.Eta}
	var taus []float64 // the ladder's temperatures, set once it is built
	period := Periods(pr.Terms.Len(), st.NCold)
	setup := exchange.Setup{
		Tau1: st.Tau1, Tau2: st.Tau2, Eta: eta, Cold: cold, Hot: hot,
		HotVarAt: func(est energy.Estimator, tau float64) (variance.Model, error) {
			mb, ok := est.(*energy.Minibatch)
			if !ok {
				return nil, fmt.Errorf("hot estimator %T is not a minibatch", est)
			}
			return variance.NewAutoBatch(mb, tau, eta, variance.AutoOptions{Share: st.Share, Every: st.Every})
		},
		A: st.SwapA, A1: st.A1, Seed: seed, Levels: levels,
		Energies: exchange.Energies{Mode: mode, Terms: pr.Terms, AnchorEvery: anchorPeriod(pr.Terms.Len(), st), ExactEvery: period, MaxNoise: MaxNoise},
		OnSwap: func(l int, x, y []float64, _, _ float64, accepted bool) {
			res.Attempts++ // counted here too, to pick the checked attempts
			check := res.Attempts%CheckEvery == 0
			if !check && !accepted {
				return
			}
			logS := (1/taus[l] - 1/taus[l+1]) * (energy.Sum(pr.Terms, x) - energy.Sum(pr.Terms, y))
			a := math.Exp(math.Min(0, logS))
			if check {
				res.Checked++
				res.ExactAcc += a
				if a < Low {
					res.LowMass += a
				}
			}
			if accepted {
				res.MinLogS = math.Min(res.MinLogS, logS)
				if a < Low {
					res.LowAccepts++
				}
			}
		},
	}
	if mode == exchange.DrawEnergies {
		// The draw mode as the paper runs it, measured against S: its
		// noise is declared Gaussian, which on minibatches it is not.
		setup.Energies = exchange.Energies{Gaussian: true}
	}
	cfg, err := m.Config(setup)
	if err != nil {
		return res, err
	}
	for _, L := range cfg.Levels {
		taus = append(taus, L.Tau)
	}
	s, err := study.NewLadder(cfg, st.Init)
	if err != nil {
		return res, fmt.Errorf("%s/%s: %w", m, mode, err)
	}
	defer s.Close()
	if res.Score, err = minibatch.ScoreAtBudgets(s, pr, s.Units); err != nil {
		return res, fmt.Errorf("%s/%s, seed %d: %w", m, mode, seed, err)
	}
	stats := s.Stats()
	res.Steps = stats.Steps
	if stats.Frozen != nil {
		res.FrozenStep = stats.Frozen.Step
	}
	res.Cost = s.Units()
	for _, l := range stats.Levels {
		res.SwapCost += l.Cost.Energy.Units + l.Cost.VarEnergy.Units
		res.AnchorCost += l.Cost.Anchor.Units
	}
	res.Attempts = 0
	var noise float64
	for _, p := range stats.Pairs {
		res.Attempts += p.Attempts
		res.Accepts += p.Accepts
		res.Capped += p.Capped
		noise += p.Noise * float64(p.Attempts)
	}
	if res.Attempts > 0 {
		res.Noise = noise / float64(res.Attempts)
	}
	return res, nil
}
