package analysis

import (
	"context"
	"fmt"
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
	"github.com/fresgld/fresgld/variance"
)

// Defaults is the policy that fills in o's automatic values for model m,
// in one place: the step size from the curvature at the mode, the cold
// minibatch from the gradients' spread, the run length from the slowest
// direction, and the swap energies from a pilot run. It records in res how
// each was chosen and the warnings found on the way (also written to
// o.Log). It returns the curvature it found.
func Defaults(ctx context.Context, m plan.Model, o *Options, res *Result) (plan.Curvature, error) {
	N, p := m.Terms.Len(), m.Terms.Dim()
	if o.Method == exchange.ReLDMethod && !(o.SwapBatch == N || o.SwapBatch == 0 && o.Batch == N) {
		// reld's exact swap rule needs exact energies; found out at the
		// first swap, after the curvature and the pilots, otherwise.
		return plan.Curvature{}, fmt.Errorf("--method reld: noise-free replica exchange needs exact energies: give --swap-batch %d (all %d examples) or --batch %d", N, N, N)
	}
	if err := heldDraws(o.Keep, p, len(o.Chains), N); err != nil {
		return plan.Curvature{}, err
	}
	// The curvature sets the automatic step size, the run length and the
	// scale against which a stuck chain is recognised.
	curv, curvErr := curvature(m, o.Seed)
	if o.Eta == 0 {
		if curvErr != nil {
			return curv, fmt.Errorf("automatic step size: %w (give --eta)", curvErr)
		}
		o.Eta = 0.2 / curv.Lmax
		res.StepRule = "η = 0.2/λ_max, " + curv.Note
	}
	if o.Batch == 0 {
		// The gradients' spread at the chains' start and at the mode.
		at := [][]float64{make([]float64, p)}
		if curv.Mode != nil {
			at = append(at, curv.Mode)
		}
		n, nstar, s2, err := coldSize(m.Terms, at, o.Eta, 1, o.Seed)
		if err != nil {
			return curv, fmt.Errorf("automatic --batch: %w", err)
		}
		res.BatchRule = fmt.Sprintf("n = ⌈n*⌉ in [%d, %d]: n* = %.4g gives gradient noise %.0f%% of the budget 2τη at S²_max = %.4g", ColdMin, ColdMax, nstar, 100*coldShare, s2)
		if float64(n) < nstar && res.StepRule != "" {
			o.Eta = etaFor(N, n, s2, 1, coldShare)
			res.StepRule += fmt.Sprintf("; lowered to η = %.4g, at which n = %d meets the batch rule", o.Eta, n)
		}
		o.Batch = n
	}
	for _, b := range []struct {
		flag string
		v    int
	}{{"--batch", o.Batch}, {"--hot-batch", o.HotBatch}, {"--swap-batch", o.SwapBatch}} {
		if b.v > N {
			return curv, fmt.Errorf("%s = %d: the data have %d examples", b.flag, b.v, N)
		}
	}
	if err := o.runSize(p); err != nil {
		return curv, err
	}
	if o.Burn == Auto || o.Thin == 0 {
		var warn *results.Warning
		res.RunRule, warn = o.setRunLength(m, curv)
		if warn != nil {
			res.warn(o.Log, *warn)
		}
		if err := o.runSize(p); err != nil {
			return curv, err
		}
	}
	if o.SwapRate/o.Eta > 0 && !(o.SwapRate/o.Eta < math.Inf(1)) {
		return curv, fmt.Errorf("--swap-rate = %v with η = %v: the swap intensity a = rate/η overflows", o.SwapRate, o.Eta)
	}
	if ladder(o.Method) && o.Method != exchange.ReLDMethod { // reld swaps on exact energies
		pilot := func(e exchange.Energies) (pilotResult, error) {
			// Chain 1's stream whichever chains run, so that a chain's
			// draws do not depend on the chains run beside it.
			smp, err := buildSampler(m, *o, 1, e, map[int]*variance.AutoBatch{})
			if err != nil {
				return pilotResult{}, err
			}
			return runPilot(ctx, smp, o.SwapPilot)
		}
		thin, err := thinnedCost(m, *o, curv.Mode)
		if err != nil {
			return curv, err
		}
		ch, err := chooseSwapEnergies(o.SwapEnergies, N, o.Batch, passLevels(m.Terms, o.startLevels()), o.ExactEvery, o.SwapRate, thin, pilot)
		if err != nil {
			return curv, err
		}
		ch.Energies.MaxNoise = o.SwapNoiseCap
		if ch.Energies.Mode == exchange.ThinnedEnergies {
			if _, ok := m.Terms.(energy.CubicTerms); !ok {
				return curv, fmt.Errorf("--swap-energies thinned: this model's terms have no bounded third derivative (logistic regression has); use exact or pair-taylor")
			}
			ch.Energies.Expand = curv.Mode // nil: the cold chain's start
		}
		if ch.Energies.Mode == exchange.DrawEnergies {
			w, err := checkDrawNoise(m.Terms, *o, curv.Mode)
			if err != nil {
				return curv, err
			}
			if w != nil {
				res.warn(o.Log, *w)
			}
			ch.Energies.Gaussian = true
		}
		if o.SwapEnergiesRule != "" && o.SwapEnergies != "auto" {
			ch.Rule = o.SwapEnergiesRule
		}
		o.swap = &ch
		writeLog(o.Log, "swap energies: %s (%s)\n", ch.Mode, ch.Rule)
	}
	// After the swap energies: a ladder's forecast needs their spacing.
	if w, err := heatWarning(m, *o, curv.Mode); err != nil {
		return curv, fmt.Errorf("gradient noise at the mode: %w", err)
	} else if w != nil {
		res.warn(o.Log, *w)
	}
	return curv, nil
}

// thinnedCost is what auto prices a thinned swap attempt at on the starting
// ladder (exchange.ThinnedCost at the mode), or 0 where auto does not offer
// thinned swaps: a model whose terms have no bounded third derivative, a
// mode unknown, or a posterior not log-concave (a PlanModel's is), whose
// states in other modes would take full passes the prediction does not
// see (spike-and-slab logistic regression on wdbc: docs/experiments/multimodal.md). A
// ladder that --levels auto grows makes at most 2(1 − 1/τ_max)τ_max^{3/2}
// times a unit pair's events whatever its size, since its τδ_l sum to
// 1 − 1/τ_max: at τ_max = 4, 2.8 times the starting four levels'.
func thinnedCost(m plan.Model, o Options, mode []float64) (float64, error) {
	ct, ok := m.Terms.(energy.CubicTerms)
	if _, lc := m.Terms.(plan.PlanModel); !ok || !lc || mode == nil || o.SwapEnergies != "auto" {
		return 0, nil
	}
	taus, err := exchange.Geometric(1, o.Tau2, o.startLevels())
	if err != nil {
		return 0, err
	}
	e, err := energy.NewExpansion(ct, mode)
	if err != nil {
		return 0, fmt.Errorf("swap energies: %w", err)
	}
	return exchange.ThinnedCost(e, taus, m.Terms.Len()), nil
}

// ladder says whether method m runs a ladder of levels that swap.
func ladder(m exchange.Method) bool {
	return m != exchange.SGLDMethod && m != exchange.CorrectedMethod && m != exchange.CSGLDMethod
}

// runSize checks the run's size for p coordinates, automatic values at
// their least.
func (o *Options) runSize(p int) error {
	return RunSize(max(o.Burn, 0), o.Keep, max(o.Thin, 1), p, o.Burn == Auto, o.Thin == 0)
}

// warn records a warning found before sampling and says it at once.
func (r *Result) warn(log interface{ Write([]byte) (int, error) }, w results.Warning) {
	r.Warnings = append(r.Warnings, w)
	if log != nil {
		fmt.Fprintln(log, "warning:", w.Message)
	}
}
