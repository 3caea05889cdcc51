// Package swaps measures replica exchange on minibatch posteriors once swap
// energies are estimated soundly (exchange.Energies): for each method and
// swap-energy mode, accuracy against per-example evaluations (gradients,
// swap energies and anchor passes all counted), swap acceptance, swap noise,
// and whether accepted swaps follow the exact ratio S.
package swaps

import (
	"fmt"
	"math"

	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/target"
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

// Result is one run of one method under one swap-energy mode.
type Result struct {
	Method, Mode string
	Seed         uint64
	// Score[b][k] is metric k at budget b (NaN before any sample).
	Score [][]float64
	Steps int
	// Cost is all per-example evaluations; SwapCost the swap energies' and
	// AnchorCost the anchor passes' part of it.
	Cost, SwapCost, AnchorCost float64
	Attempts, Accepts          int
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

// Run runs method m with swap energies mode on pr for one seed.
func Run(pr minibatch.Problem, m exchange.Method, mode exchange.EnergyMode, seed uint64) (Result, error) {
	st := pr.Setting
	res := Result{Method: string(m), Mode: mode.String(), Seed: seed, MinLogS: math.Inf(1)}
	cold, err := target.NewMinibatch(pr.Terms, st.NCold)
	if err != nil {
		return res, err
	}
	hot, err := target.NewMinibatch(pr.Terms, st.NCold)
	if err != nil {
		return res, err
	}
	eta := langevin.Constant{Step: st.Eta}
	var autoErr error
	td := 1/st.Tau1 - 1/st.Tau2
	period := Periods(pr.Terms.Len(), st.NCold)
	setup := exchange.Setup{
		Tau1: st.Tau1, Tau2: st.Tau2, Eta: eta, Cold: cold, Hot: hot,
		HotVar: func() variance.Model {
			var a *variance.AutoBatch
			a, autoErr = variance.NewAutoBatch(hot, st.Tau2, eta, variance.AutoOptions{Share: st.Share, Every: st.Every})
			return a
		},
		A: st.SwapA, A1: st.A1, Seed: seed,
		Energies: exchange.Energies{Mode: mode, Terms: pr.Terms, AnchorEvery: period, ExactEvery: period},
		OnSwap: func(_ int, x, y []float64, _, _ float64, accepted bool) {
			res.Attempts++ // counted here too, to pick the checked attempts
			check := res.Attempts%CheckEvery == 0
			if !check && !accepted {
				return
			}
			logS := td * (target.Sum(pr.Terms, x) - target.Sum(pr.Terms, y))
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
		setup.Energies = exchange.Energies{}
	}
	cfg, err := m.Config(setup)
	if err != nil {
		return res, err
	}
	if autoErr != nil {
		return res, autoErr
	}
	init := make([][]float64, len(cfg.Levels))
	for l := range init {
		init[l] = st.Init
	}
	s, err := exchange.New(cfg, init)
	if err != nil {
		return res, fmt.Errorf("%s/%s: %w", m, mode, err)
	}
	defer s.Close()
	acc := pr.NewAcc()
	kept := 0
	for _, b := range st.Budgets {
		for s.Cost() < b {
			if err := s.Step(); err != nil {
				return res, fmt.Errorf("%s/%s, seed %d: %w", m, mode, seed, err)
			}
			if s.Cost() > st.BurnCost {
				acc.Add(s.State(0))
				kept++
			}
		}
		sc := make([]float64, len(pr.Metrics))
		if kept > 0 {
			acc.Score(sc)
		} else {
			for k := range sc {
				sc[k] = math.NaN()
			}
		}
		res.Score = append(res.Score, sc)
	}
	stats := s.Stats()
	res.Steps = stats.Steps
	res.Cost = s.Cost()
	for _, l := range stats.Levels {
		res.SwapCost += l.Cost.Energy.Units + l.Cost.VarEnergy.Units
		res.AnchorCost += l.Cost.Anchor.Units
	}
	if len(stats.Pairs) > 0 {
		p := stats.Pairs[0]
		res.Attempts, res.Accepts, res.Noise = p.Attempts, p.Accepts, p.Noise
	}
	return res, nil
}
